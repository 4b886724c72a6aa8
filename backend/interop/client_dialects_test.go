package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/server"
)

// The hub's client (agents.Conn) against real servers on loopback, one per dialect it speaks:
// a2a-go/v2 in v1.0 and behind its v0.3 compat layer, the @a2a-js/sdk server in both of its
// dialects, and the hub's own demo agent spoken to in the v0.1 draft.

// connTarget is one real agent and how to make it do each scenario.
type connTarget struct {
	card        []byte
	dialect     agents.Dialect
	streamInput string // makes the agent stream one artifact in chunks
	streamText  string // the chunks joined
	chunks      int
	slowInput   string // makes the agent work until canceled
	fileEcho    bool   // the agent echoes a file part; else it answers "file" with its own file
	binding     agents.Binding
}

// executorTarget is what the Go and JS test agents do (see testExecutor and js/server.mjs).
func executorTarget(card []byte, d agents.Dialect) connTarget {
	return connTarget{card: card, dialect: d, streamInput: "stream", streamText: "one two three", chunks: 3, slowInput: "slow", fileEcho: true}
}

func TestClientDialectsGoV1(t *testing.T) {
	url := serveExecutor(t, a2asrv.NewJSONRPCHandler)
	card, _ := json.Marshal(&a2a.AgentCard{Name: "a2a-go v1.0 test agent", Description: "test", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true}, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}})
	runConnScenarios(t, executorTarget(card, agents.V10))
}

func TestClientDialectsGoV03(t *testing.T) {
	url := serveExecutor(t, a2av0.NewJSONRPCHandler)
	card := fmt.Appendf(nil, `{"name":"a2a-go v0.3 test agent","description":"test","version":"1","url":%q,"protocolVersion":"0.3.0",
		"preferredTransport":"JSONRPC","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, url)
	runConnScenarios(t, executorTarget(card, agents.V03))
}

func TestClientDialectsJS(t *testing.T) {
	base := startJSServer(t)
	v1 := fetchCard(t, base, "1.0")
	t.Run("1.0", func(t *testing.T) { runConnScenarios(t, executorTarget(v1, agents.V10)) })

	// Without a version header the SDK serves its v0.3 card; its v1.0 interfaces are dropped so that
	// the v0.3 shape alone decides.
	var v03 map[string]any
	if err := json.Unmarshal(fetchCard(t, base, ""), &v03); err != nil || v03["protocolVersion"] != "0.3" {
		t.Fatalf("v0.3 card %v: %v", v03, err)
	}
	delete(v03, "supportedInterfaces")
	card, _ := json.Marshal(v03)
	t.Run("0.3", func(t *testing.T) { runConnScenarios(t, executorTarget(card, agents.V03)) })
}

func TestClientDialectsHubDraft(t *testing.T) {
	demo := startDemoAgent(t)
	card := fmt.Appendf(nil, `{"name":"AgentHub demo agent, as a v0.1 draft card","version":"test","url":%q,
		"capabilities":{"streaming":true},"authentication":{"schemes":[]},"skills":[{"id":"echo","name":"Echo"}]}`, demo.BaseURL+server.RPCPath)
	runConnScenarios(t, connTarget{card: card, dialect: agents.V01, streamInput: "a draft stream of chunks",
		streamText: "a draft stream of chunks", chunks: 4, slowInput: "slow 100", fileEcho: false})
}

// runConnScenarios drives one agent through every scenario with the hub's client.
func runConnScenarios(t *testing.T, target connTarget) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := agents.Dial(ctx, target.card, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Dialect() != target.dialect || conn.Endpoint().Binding != target.binding || !conn.Streaming() {
		t.Fatalf("Dial chose %+v (streaming %v), want %s %q", conn.Endpoint(), conn.Streaming(), target.dialect, target.binding)
	}
	user := func(parts ...*a2a.Part) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, parts...) }

	t.Run("send and get", func(t *testing.T) {
		task := sendOnce(t, conn.Send(ctx, user(a2a.NewTextPart("hello over "+string(target.dialect))), false))
		if task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello over "+string(target.dialect) {
			t.Fatalf("task %s, artifacts %q", task.Status.State, artifactText(task))
		}
		got, err := conn.GetTask(ctx, task.ID)
		if err != nil || got.ID != task.ID || got.ContextID != task.ContextID || got.Status.State != a2a.TaskStateCompleted || artifactText(got) != artifactText(task) {
			t.Fatalf("GetTask %+v, %v", got, err)
		}
		if _, err := conn.GetTask(ctx, "no-such-task"); !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("GetTask of an unknown task: %v", err)
		}
	})

	t.Run("stream chunks", func(t *testing.T) {
		var chunks []*a2a.TaskArtifactUpdateEvent
		var last a2a.Event
		for ev, err := range conn.Send(ctx, user(a2a.NewTextPart(target.streamInput)), true) {
			if err != nil {
				t.Fatal(err)
			}
			if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok {
				chunks = append(chunks, a)
			}
			last = ev
		}
		if len(chunks) != target.chunks {
			t.Fatalf("%d artifact chunks, want %d", len(chunks), target.chunks)
		}
		var text strings.Builder
		for i, c := range chunks {
			if c.Append != (i > 0) || c.LastChunk != (i == len(chunks)-1) || c.Artifact.ID != chunks[0].Artifact.ID {
				t.Fatalf("chunk %d: append %v, lastChunk %v, artifact %s (first %s)", i, c.Append, c.LastChunk, c.Artifact.ID, chunks[0].Artifact.ID)
			}
			for _, p := range c.Artifact.Parts {
				text.WriteString(p.Text())
			}
		}
		if text.String() != target.streamText {
			t.Fatalf("chunks spell %q, want %q", text.String(), target.streamText)
		}
		if s, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || s.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("stream ended with %#v", last)
		}
	})

	t.Run("input required round trip", func(t *testing.T) {
		task := sendOnce(t, conn.Send(ctx, user(a2a.NewTextPart("ask")), false))
		if task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("state %s", task.Status.State)
		}
		answer := user(a2a.NewTextPart("green"))
		answer.TaskID, answer.ContextID = task.ID, task.ContextID
		done := sendOnce(t, conn.Send(ctx, answer, false))
		if done.ID != task.ID || done.Status.State != a2a.TaskStateCompleted || !strings.HasSuffix(artifactText(done), "You answered: green") {
			t.Fatalf("after the answer: %s %s %q", done.ID, done.Status.State, artifactText(done))
		}
	})

	t.Run("cancel a running task", func(t *testing.T) {
		var id a2a.TaskID
		var final a2a.TaskState
		for ev, err := range conn.Send(ctx, user(a2a.NewTextPart(target.slowInput)), true) {
			if err != nil {
				t.Fatal(err)
			}
			s, ok := ev.(*a2a.TaskStatusUpdateEvent)
			if !ok {
				continue
			}
			final = s.Status.State
			if s.Status.State == a2a.TaskStateWorking && id == "" {
				id = s.TaskID
				canceled, err := conn.Cancel(ctx, id)
				if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
					t.Fatalf("Cancel: %+v, %v", canceled, err)
				}
			}
		}
		if id == "" || final != a2a.TaskStateCanceled {
			t.Fatalf("task %q ended the stream %s", id, final)
		}
		if got, err := conn.GetTask(ctx, id); err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("GetTask after cancel: %+v, %v", got, err)
		}
	})

	t.Run("files both ways", func(t *testing.T) {
		payload := append([]byte("not text: \x00\xff\xfe and more"), bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 64)...)
		file := &a2a.Part{Content: a2a.Raw(payload), Filename: "payload.bin", MediaType: "application/octet-stream"}
		task := sendOnce(t, conn.Send(ctx, user(a2a.NewTextPart("file"), file), false))
		if task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) == 0 {
			t.Fatalf("task %s with %d artifacts", task.Status.State, len(task.Artifacts))
		}
		got := task.Artifacts[0].Parts[0]
		if target.fileEcho {
			if !bytes.Equal(got.Raw(), payload) || got.Filename != "payload.bin" {
				t.Fatalf("file back: %q named %q", got.Raw(), got.Filename)
			}
		} else if got.Filename != "hello.txt" || !strings.Contains(string(got.Raw()), "demo agent") {
			t.Fatalf("file back: %q named %q", got.Raw(), got.Filename)
		}
		// The file sent arrived intact: the agent's record of the task holds it.
		stored, err := conn.GetTask(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !historyHolds(stored, payload) {
			t.Fatalf("the task's history does not hold the file sent: %+v", stored.History)
		}
	})
}

// sendOnce runs a non-streaming Send, which yields exactly one event: here, a task.
func sendOnce(t *testing.T, seq iter.Seq2[a2a.Event, error]) *a2a.Task {
	t.Helper()
	var events []a2a.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
	if len(events) != 1 {
		t.Fatalf("%d results, want 1", len(events))
	}
	task, ok := events[0].(*a2a.Task)
	if !ok {
		t.Fatalf("result is %T, want a task", events[0])
	}
	return task
}

func historyHolds(task *a2a.Task, payload []byte) bool {
	for _, m := range task.History {
		for _, p := range m.Parts {
			if bytes.Equal(p.Raw(), payload) {
				return true
			}
		}
	}
	return false
}

// serveExecutor serves testExecutor through an a2a-go/v2 JSON-RPC handler on loopback.
func serveExecutor(t *testing.T, transport func(a2asrv.RequestHandler, ...a2asrv.TransportOption) http.Handler) string {
	handler := a2asrv.NewHandler(testExecutor{}, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	srv := httptest.NewServer(transport(handler))
	t.Cleanup(srv.Close)
	return srv.URL
}

// testExecutor does what js/server.mjs does: "stream", "ask", "slow", a file part echoed, else echo.
type testExecutor struct{}

func (testExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var text []string
		var file *a2a.Part
		for _, p := range ec.Message.Parts {
			if s, ok := p.Content.(a2a.Text); ok {
				text = append(text, string(s))
			} else if _, ok := p.Content.(a2a.Raw); ok && file == nil {
				file = p
			}
		}
		input := strings.TrimSpace(strings.Join(text, " "))
		status := func(state a2a.TaskState, note string) bool {
			var msg *a2a.Message
			if note != "" {
				msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(note))
			}
			return yield(a2a.NewStatusUpdateEvent(ec, state, msg), nil)
		}
		artifact := func(id a2a.ArtifactID, part *a2a.Part, appendChunk, last bool) bool {
			return yield(&a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Append: appendChunk, LastChunk: last,
				Artifact: &a2a.Artifact{ID: id, Name: "result", Parts: a2a.ContentParts{part}}}, nil)
		}
		if ec.StoredTask == nil {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
		} else if ec.StoredTask.Status.State == a2a.TaskStateInputRequired {
			if artifact(a2a.NewArtifactID(), a2a.NewTextPart("You answered: "+input), false, true) {
				status(a2a.TaskStateCompleted, "")
			}
			return
		}
		switch {
		case file != nil:
			if artifact(a2a.NewArtifactID(), &a2a.Part{Content: file.Content, Filename: file.Filename, MediaType: file.MediaType}, false, true) {
				status(a2a.TaskStateCompleted, "")
			}
		case input == "stream":
			if !status(a2a.TaskStateWorking, "Streaming.") {
				return
			}
			id := a2a.NewArtifactID()
			for i, chunk := range []string{"one ", "two ", "three"} {
				if !artifact(id, a2a.NewTextPart(chunk), i > 0, i == 2) {
					return
				}
			}
			status(a2a.TaskStateCompleted, "")
		case input == "ask":
			status(a2a.TaskStateInputRequired, "What should I tell you back?")
		case input == "slow":
			if !status(a2a.TaskStateWorking, "Working until canceled.") {
				return
			}
			select {
			case <-ctx.Done(): // canceled: Cancel reports it
			case <-time.After(time.Minute):
				status(a2a.TaskStateCompleted, "")
			}
		default:
			if artifact(a2a.NewArtifactID(), a2a.NewTextPart(input), false, true) {
				status(a2a.TaskStateCompleted, "")
			}
		}
	}
}

func (testExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// startJSServer runs js/server.mjs with node and returns its base URL. The process ends when the
// test does: its stdin closes, and failing that it is killed.
func startJSServer(t *testing.T) string {
	for _, pkg := range []string{"@a2a-js/sdk", "express"} {
		if _, err := os.Stat(filepath.Join(jsDir, "node_modules", pkg, "package.json")); err != nil {
			t.Fatalf("%s is not installed; run: npm ci --prefix backend/interop/js", pkg)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH; install it, then run: npm ci --prefix backend/interop/js")
	}
	ctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, "server.mjs")
	cmd.Dir = jsDir
	cmd.WaitDelay = 5 * time.Second
	var stderr serverLogBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			kill()
			<-exited
		}
		kill()
		if t.Failed() {
			t.Logf("server.mjs stderr:\n%s", stderr.String())
		}
	})

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(io.Discard, stdout) // keep the pipe drained
	}()
	select {
	case base := <-line:
		if !strings.HasPrefix(base, "http://127.0.0.1:") {
			t.Fatalf("server.mjs printed %q, not its URL; stderr:\n%s", base, stderr.String())
		}
		return base
	case <-time.After(30 * time.Second):
		t.Fatalf("server.mjs printed no URL within 30s; stderr:\n%s", stderr.String())
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	return ""
}

// fetchCard GETs the agent card, asking for a protocol version when version is not empty.
func fetchCard(t *testing.T, base, version string) []byte {
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/.well-known/agent-card.json", nil)
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("card: %s %v", resp.Status, err)
	}
	return body
}
