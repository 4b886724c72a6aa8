//go:build unix

package main

// `agenthub scenario run` as users run it: the real binary against a running demo agent, its exit
// codes, its lines, its JSON, and its JUnit file read by an independent parser (fast-xml-parser, in
// backend/interop/js).

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// junitCounts is what backend/interop/js/junit-count.mjs reads from a JUnit file.
type junitCounts struct {
	Suites, Tests, Failures         int
	DeclaredTests, DeclaredFailures int
	Failed                          []struct {
		Name, File, Message string
		Line                int
	}
}

func readJUnit(t *testing.T, path string) junitCounts {
	t.Helper()
	script := filepath.Join("backend", "interop", "js", "junit-count.mjs")
	if _, err := os.Stat(filepath.Join("backend", "interop", "js", "node_modules", "fast-xml-parser", "package.json")); err != nil {
		t.Fatal("fast-xml-parser is not installed; run: npm ci --prefix backend/interop/js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is needed to read the JUnit file independently: ", err)
	}
	out, err := exec.Command(node, script, path).Output()
	if err != nil {
		t.Fatalf("junit-count.mjs: %v", err)
	}
	var c junitCounts
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("junit-count.mjs printed %q: %v", out, err)
	}
	return c
}

func TestScenarioRunCLI(t *testing.T) {
	tick := 10 * time.Millisecond
	demo, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", Version: "test",
		DemoTick: &tick, Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demo.Stop() })
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass.yaml", `
agent: `+demo.BaseURL+`
steps:
  - send: "hello there"
    expect: { state: completed, textContains: "hello there", textMatches: "^.*there$" }
  - send: "slow 1"
    expect: { state: completed, jsonPath: { "$.artifacts[0].name": "result" } }
`)
	// The demo agent's answer no longer says what this file expects at step 2.
	fail := writeFile(t, dir, "fail.json", `{"agent": "`+demo.BaseURL+`", "name": "drifted", "steps": [
  {"send": "ask", "expect": {"state": "input-required"}},
  {"reply": "blue", "name": "answer the question",
   "expect": {"state": "completed", "textContains": "You answered: green"}}]}
`)

	r := runCLI(t, "scenario", "run", pass, "--junit", filepath.Join(dir, "pass.xml"))
	if r.code != 0 || !strings.Contains(r.stdout, "PASS step 2 send \"slow 1\"") || lastLine(t, r.stdout) != "PASS: 1 scenario(s), 2 step(s), 2 passed, 0 failed" {
		t.Fatalf("pass.yaml: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if c := readJUnit(t, filepath.Join(dir, "pass.xml")); c.Suites != 1 || c.Tests != 2 || c.Failures != 0 || c.DeclaredTests != 2 {
		t.Errorf("pass.xml read as %+v", c)
	}

	junit := filepath.Join(dir, "out.xml")
	r = runCLI(t, "scenario", "run", "--junit", junit, pass, fail, "--key", "k-secret-42")
	if r.code != 1 {
		t.Fatalf("fail.json: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `FAIL step 2 answer the question (line 3) completed`) || !strings.Contains(r.stdout, `textContains: You answered: green (text is "You answered: blue")`) ||
		lastLine(t, r.stdout) != "FAIL: 2 scenario(s), 4 step(s), 3 passed, 1 failed" {
		t.Errorf("lines do not name the failing step and why:\n%s", r.stdout)
	}
	c := readJUnit(t, junit)
	if c.Suites != 2 || c.Tests != 4 || c.Failures != 1 || c.DeclaredTests != 4 || c.DeclaredFailures != 1 || len(c.Failed) != 1 ||
		c.Failed[0].Name != "step 2: answer the question" || c.Failed[0].File != fail || c.Failed[0].Line != 3 ||
		!strings.Contains(c.Failed[0].Message, "You answered: green") {
		t.Errorf("out.xml read as %+v", c)
	}
	if b, _ := os.ReadFile(junit); strings.Contains(string(b), "k-secret-42") {
		t.Error("the key is in the JUnit file")
	}

	r = runCLI(t, "scenario", "run", "--json", fail)
	var report struct {
		Passed        bool
		Steps, Failed int
		Scenarios     []struct {
			Name  string
			Steps []struct {
				Passed bool
				State  string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || r.code != 1 {
		t.Fatalf("--json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if report.Passed || report.Steps != 2 || report.Failed != 1 || report.Scenarios[0].Name != "drifted" ||
		!report.Scenarios[0].Steps[0].Passed || report.Scenarios[0].Steps[0].State != "input-required" || report.Scenarios[0].Steps[1].Passed {
		t.Errorf("--json report: %+v", report)
	}
}

// A refused file stops the run before anything is sent, the good files' included: exit 2 with
// file:line: reason.
func TestScenarioRunRefusesBeforeSending(t *testing.T) {
	var requests atomic.Int64
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	t.Cleanup(agent.Close)
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "agent: "+agent.URL+"\nsteps:\n  - send: hi\n")
	bad := writeFile(t, dir, "bad.yaml", "agent: "+agent.URL+"\nsteps:\n  - send: hi\n    expect:\n      textMatches: \"(\"\n")
	r := runCLI(t, "scenario", "run", good, bad)
	if r.code != 2 || !strings.Contains(r.stderr, bad+":5: textMatches: bad regular expression") || requests.Load() != 0 {
		t.Errorf("exit %d, %d requests, stderr:\n%s", r.code, requests.Load(), r.stderr)
	}
	if r := runCLI(t, "scenario", "run"); r.code != 2 {
		t.Errorf("no FILE: exit %d", r.code)
	}
}

// --agent names an agent added to a hub by its id: the CLI reads its card (and credentials) from the
// hub's database while the hub runs, here the demo agent the hub registers as "demo".
func TestScenarioRunAddedAgent(t *testing.T) {
	_, cfg := startHubWithDemo(t)
	dataDir := cfg.DataDir
	file := writeFile(t, t.TempDir(), "demo.yaml", "dialect: \"0.3\"\nsteps:\n  - send: data\n    expect: { artifactNames: [data] }\n")
	args := append([]string{"scenario", "run", file, "--agent", hub.DemoID, "--data", dataDir}, hubtest.ServeFlags(t, dataDir)...)
	if cfg.Database == "" {
		args = append(args, "--secrets", "file")
	}
	if r := runCLI(t, args...); r.code != 0 || !strings.Contains(r.stdout, "(agent demo, dialect 0.3 over JSONRPC)") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "scenario", "run", file, "--agent", "no-such-agent", "--data", dataDir, "--secrets", "file"); r.code != 1 || !strings.Contains(r.stdout, `agent "no-such-agent"`) {
		t.Errorf("unknown id: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// agenthub scenario record writes a conversation the owner had with the demo agent (a message, a
// question answered in its task, a data part) as a scenario that loads and passes against the same
// agent; without an id it lists the conversations.
func TestScenarioRecordReplaysAConversation(t *testing.T) {
	h, cfg := startHubWithDemo(t)
	dataDir := cfg.DataDir
	ctx := t.Context()
	conv, err := h.Chats.Start(ctx, hub.DemoID)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(hubtest.Target(t, dataDir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// turn sends out and waits until the agent's turn ended (the transcript's last entry is final).
	turn := func(out chats.Outgoing) []chats.Entry {
		t.Helper()
		if _, err := h.Chats.Send(ctx, conv.ID, out); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			_, entries, err := chats.Transcript(ctx, db, conv.ID)
			if err != nil {
				t.Fatal(err)
			}
			if e := entries[len(entries)-1]; e.Direction == chats.In && e.Final {
				return entries
			}
		}
		t.Fatalf("the agent's turn after %q never ended", out.Text)
		return nil
	}
	turn(chats.Outgoing{Text: "hello recorder"})
	entries := turn(chats.Outgoing{Text: "ask"})
	task := entries[len(entries)-1].TaskID
	turn(chats.Outgoing{Text: "blue", Task: a2a.TaskID(task)})
	turn(chats.Outgoing{Text: "data", Data: map[string]any{"n": 1}})

	list := runCLI(t, append([]string{"scenario", "record", "--data", dataDir}, hubtest.ServeFlags(t, dataDir)...)...)
	if list.code != 0 || !strings.Contains(list.stdout, conv.ID) {
		t.Fatalf("listing: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	file := filepath.Join(t.TempDir(), "recorded.yaml")
	rec := runCLI(t, append([]string{"scenario", "record", conv.ID, "--out", file, "--data", dataDir}, hubtest.ServeFlags(t, dataDir)...)...)
	if rec.code != 0 {
		t.Fatalf("record: exit %d\n%s%s", rec.code, rec.stdout, rec.stderr)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"send: hello recorder", "textContains: hello recorder", "state: input-required", "reply: blue",
		"textContains: 'You answered: blue'", "artifactNames:"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the recorded scenario has no %q:\n%s", want, raw)
		}
	}
	if r := runCLI(t, "scenario", "run", file); r.code != 0 || !strings.Contains(r.stdout, "4 of 4 steps passed") {
		t.Errorf("the recorded scenario against the same agent: exit %d\n%s%s\n%s", r.code, r.stdout, r.stderr, raw)
	}
	if r := runCLI(t, append([]string{"scenario", "record", "no-such-conversation", "--data", dataDir}, hubtest.ServeFlags(t, dataDir)...)...); r.code != 1 {
		t.Errorf("an unknown conversation: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// startHubWithDemo starts a hub on a data dir of its own (and PostgreSQL in such a run) with its demo
// agent, at a quick pace; the config says where its data is.
func startHubWithDemo(t *testing.T) (*hub.Hub, hub.Config) {
	t.Helper()
	tick := 10 * time.Millisecond
	cfg := hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", DemoAddr: "127.0.0.1:0", DemoTick: &tick, Version: "test",
		Logger: slog.New(slog.DiscardHandler)})
	if cfg.Secrets == "" {
		cfg.Secrets = "file" // no OS keyring in tests
	}
	h, err := hub.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	return h, cfg
}
