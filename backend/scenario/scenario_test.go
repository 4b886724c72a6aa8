package scenario_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/scenario"
)

// startDemo runs the demo agent as the hub does, over a database of this test run's engine, with its
// gRPC binding on: its card offers JSON-RPC (1.0, 0.3), HTTP+JSON (1.0, 0.3) and gRPC.
func startDemo(t *testing.T) string {
	t.Helper()
	tick := 10 * time.Millisecond
	a, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", DemoGRPCAddr: "127.0.0.1:0",
		Version: "test", DemoTick: &tick, Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a.BaseURL
}

func run(t *testing.T, agent, src string) *scenario.Result {
	t.Helper()
	s, err := scenario.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return scenario.Run(t.Context(), s, scenario.Options{Agent: agent})
}

// passing holds every assertion kind against the demo agent; failing is the same steps with every
// expectation wrong, each of which must fail.
const passing = `
dialect: "%s"
steps:
  - send: "hello there"
    expect:
      state: completed
      textContains: "hello there"
      textMatches: "^.*there$"
      artifactNames: [echo]
      mediaTypes: [text/plain]
      noError: true
      firstEventWithin: 60s
      finalWithin: 60s
    capture: { echoTask: "$.id" }
  - send: "hello again"
    stream: true
    expect: { state: completed, events: 7, textContains: "hello again", firstEventWithin: 60s, finalWithin: 60s }
  - send: "ask"
    expect: { state: input-required, textContains: "What should I tell you back?" }
    capture: { askTask: "$.id" }
  - reply: "blue, not ${echoTask}"
    expect:
      state: completed
      textMatches: "^You answered: blue, not ${echoTask}$"
      jsonPath: { "$.id": "${askTask}", "$.artifacts[0].name": "answer", "$.status.state": "TASK_STATE_COMPLETED" }
  - send: "data"
    expect: { state: completed, artifactNames: [data], mediaTypes: [application/json], jsonPath: { "$.artifacts[0].parts[0].data.primes[2]": 5 } }
  - send: "file"
    expect: { artifactNames: [hello.txt], mediaTypes: [text/plain], textContains: "Hello from the AgentHub demo agent" }
  - send: "ask"
  - cancel: true
    expect: { state: canceled }
  - reply: "too late"
    expect: { noError: false }
`

const failing = `
dialect: "%s"
steps:
  - send: "hello there"
    expect:
      state: failed
      textContains: "goodbye"
      textMatches: "^there"
      artifactNames: [result]
      mediaTypes: [image/png]
      firstEventWithin: 1ns
      finalWithin: 1ns
      jsonPath: { "$.artifacts[0].name": "result" }
  - send: "hello again"
    stream: true
    expect: { events: 1 }
  - send: "ask"
  - cancel: true
  - reply: "too late"
    expect: { noError: true }
  - send: "hello"
    expect: { noError: false }
`

func TestDemoAgentAssertions(t *testing.T) {
	base := startDemo(t)
	for _, c := range []struct{ dialect, binding string }{{"1.0", ""}, {"0.3", ""}, {"0.1", ""}, {"1.0", "HTTP+JSON"}, {"0.3", "HTTP+JSON"}, {"1.0", "GRPC"}} {
		t.Run(c.dialect+" "+c.binding, func(t *testing.T) {
			dialect := c.dialect
			force := func(src string) string {
				if c.binding == "" {
					return src
				}
				return "binding: " + c.binding + "\n" + src
			}
			passing, failing := force(passing), force(failing)
			events := 7
			if dialect == "0.1" { // the draft's stream opens with no task event: one event fewer
				events = 6
				passing = strings.Replace(passing, "events: 7", "events: 6", 1)
			}
			res := run(t, base, fmt.Sprintf(passing, dialect))
			if res.Error != "" || res.Dialect != dialect || res.Binding != cmp.Or(c.binding, "JSONRPC") {
				t.Fatalf("run: error %q, dialect %q, binding %q", res.Error, res.Dialect, res.Binding)
			}
			asserted := 0
			for _, s := range res.Steps {
				for _, a := range s.Assertions {
					asserted++
					if !a.Passed {
						t.Errorf("step %d %s: %s failed: %s", s.Index, s.Name, a.Name, a.Detail)
					}
				}
				if !s.Passed {
					t.Errorf("step %d %s failed: %s", s.Index, s.Name, s.Error)
				}
			}
			if !res.Passed || asserted != 29 {
				t.Errorf("passed %v with %d assertions, want true with 29", res.Passed, asserted)
			}
			if res.Steps[1].Events != events || res.Steps[2].State != "input-required" || res.Steps[7].State != "canceled" {
				t.Errorf("steps: %+v", res.Steps)
			}
			// What the agent answered is kept for comparing runs: its text, its data as JSON.
			if res.Steps[0].Text != "hello there" || !strings.Contains(res.Steps[4].Data, `"primes":[2,3,5,7,11]`) {
				t.Errorf("the answers kept: text %q, data %q", res.Steps[0].Text, res.Steps[4].Data)
			}

			res = run(t, base, fmt.Sprintf(failing, dialect))
			want := map[string]bool{}
			for _, n := range []string{"state", "textContains", "textMatches", "artifactNames", "mediaTypes", "firstEventWithin",
				"finalWithin", "jsonPath", "events", "noError", "noError: false"} {
				want[n] = true
			}
			for _, s := range res.Steps {
				for _, a := range s.Assertions {
					name, _, _ := strings.Cut(a.Name, ":")
					if a.Name == "noError: false" {
						name = a.Name
					}
					delete(want, name)
					if a.Passed {
						t.Errorf("step %d: %s passed, want it to fail", s.Index, a.Name)
					} else if a.Detail == "" {
						t.Errorf("step %d: %s failed without saying what it saw", s.Index, a.Name)
					}
				}
			}
			if len(want) > 0 {
				t.Errorf("assertion kinds not checked failing: %v", want)
			}
			if res.Passed || !res.Steps[2].Passed || !res.Steps[3].Passed || res.Steps[0].Passed {
				t.Errorf("the steps without expectations pass, the others fail: %+v", res.Steps)
			}
		})
	}
}

// peer is an a2a-go/v2 server with its in-memory store: "hang" works until the test ends, "ask" asks
// back (input-required), anything else is answered with an artifact "result" holding the message's
// parts. Its first refuseCancels cancels are refused as TaskNotCancelable.
type peer struct {
	release       chan struct{}
	refuseCancels *atomic.Int32
}

func (p peer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		if ec.Message.Parts[0].Text() == "hang" {
			select {
			case <-p.release:
			case <-ctx.Done():
			}
			return
		}
		if ec.Message.Parts[0].Text() == "ask" {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("which?"))), nil)
			return
		}
		art := &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "result", Parts: ec.Message.Parts}
		if yield(&a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Artifact: art, LastChunk: true}, nil) {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

func (p peer) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if p.refuseCancels.Add(-1) >= 0 {
			yield(nil, a2a.ErrTaskNotCancelable)
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// startPeer serves peer and its card on loopback; calls counts the JSON-RPC requests. With a key, the
// card asks for it as an API key in X-Api-Key, and a call without it is refused with 401.
func startPeer(t *testing.T, key string) (base string, calls *atomic.Int64) {
	base, calls, _ = startRefusingPeer(t, key, 0)
	return base, calls
}

// startRefusingPeer is startPeer with a peer refusing its first refuse cancels.
func startRefusingPeer(t *testing.T, key string, refuse int32) (base string, calls *atomic.Int64, refusals *atomic.Int32) {
	p := peer{release: make(chan struct{}), refuseCancels: new(atomic.Int32)}
	p.refuseCancels.Store(refuse)
	calls = new(atomic.Int64)
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(p, a2asrv.WithLogger(slog.New(slog.DiscardHandler))))
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(p.release) }) // before the server closes: a hanging execution ends
	doc := map[string]any{
		"name": "peer", "description": "a2a-go test peer", "version": "1",
		"supportedInterfaces": []any{map[string]any{"url": srv.URL + "/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		"capabilities":        map[string]any{"streaming": true},
		"defaultInputModes":   []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"}, "skills": []any{},
	}
	if key != "" {
		doc["securitySchemes"] = map[string]any{"key": map[string]any{"type": "apiKey", "in": "header", "name": "X-Api-Key"}}
		doc["security"] = []any{map[string]any{"key": []any{}}}
	}
	card, _ := json.Marshal(doc)
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(card)
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if key != "" && r.Header.Get("X-Api-Key") != key {
			http.Error(w, "wrong key", http.StatusUnauthorized)
			return
		}
		rpc.ServeHTTP(w, r)
	})
	return srv.URL, calls, p.refuseCancels
}

// A cancel refused for a task the agent last said was waiting for input is asked twice more (a2a-go's
// server refuses one that arrives while the turn that asked is still ending); a cancel refused for a
// finished task, or refused three times, fails the step.
func TestCancelAskedAgainWhileTheAskingTurnEnds(t *testing.T) {
	base, calls, refusals := startRefusingPeer(t, "", 2)
	res := run(t, base, `
steps:
  - send: "ask"
    expect: { state: input-required }
  - cancel: true
    expect: { state: canceled }
`)
	if !res.Passed || refusals.Load() != -1 {
		t.Fatalf("two refusals, then canceled: passed %v, refusals left %d: %+v", res.Passed, refusals.Load(), res.Steps)
	}

	refusals.Store(3)
	res = run(t, base, `
steps:
  - send: "ask"
  - cancel: true
`)
	if step := res.Steps[1]; step.Passed || !strings.Contains(step.Error, "cannot be canceled") || refusals.Load() != 0 {
		t.Fatalf("three refusals: %+v, refusals left %d", step, refusals.Load())
	}

	refusals.Store(0)
	calls.Store(0)
	res = run(t, base, `
steps:
  - send: "done at once"
    expect: { state: completed }
  - cancel: true
`)
	if step := res.Steps[1]; step.Passed || !strings.Contains(step.Error, "cannot be canceled") || calls.Load() != 2 {
		t.Fatalf("a completed task, asked once: %+v, %d calls", step, calls.Load())
	}
}

// A data part goes out as sent (${var} filled in), and a step whose agent hangs fails on its own
// timeout while the run goes on to the next step.
func TestPeerDataAndTimeout(t *testing.T) {
	base, _ := startPeer(t, "")
	res := run(t, base, `
steps:
  - send: "first"
    capture: { first: "$.id" }
  - send: "with data"
    data: { color: blue, of: "${first}", n: [1, 2] }
    stream: true
    expect:
      state: completed
      artifactNames: [result]
      mediaTypes: [text/plain, application/json]
      jsonPath: { "$.artifacts[0].parts[1].data": { color: blue, of: "${first}", n: [1, 2] } }
  - send: "hang"
    timeout: 300ms
    expect: { state: completed }
  - send: "after the hang"
    expect: { state: completed, textContains: "after the hang" }
`)
	if res.Error != "" || res.Dialect != "1.0" {
		t.Fatalf("run: %q, dialect %q", res.Error, res.Dialect)
	}
	for i, want := range []bool{true, true, false, true} {
		if s := res.Steps[i]; s.Passed != want {
			t.Errorf("step %d passed %v, want %v: %+v", i+1, s.Passed, want, s)
		}
	}
	if hang := res.Steps[2]; !strings.Contains(hang.Error, "timeout of 300ms") {
		t.Errorf("hanging step's error: %q", hang.Error)
	}
}

// A bad file is refused at its line with the reason, before anything is sent.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		reason    string
	}{
		{"unknown top field", "agent: x\nstepz: []\n", 2, `unknown field "stepz"`},
		{"unknown step field", "steps:\n  - send: hi\n    expct: {}\n", 3, `unknown field "expct" in step 1`},
		{"unknown expect field", "steps:\n  - send: hi\n    expect:\n      stat: completed\n", 4, `unknown field "stat" in expect`},
		{"bad regex", "steps:\n  - send: hi\n    expect:\n      textMatches: \"(unclosed\"\n", 4, "bad regular expression"},
		{"bad JSON path", "steps:\n  - send: hi\n    expect:\n      jsonPath: { \"$.[oops\": 1 }\n", 4, "bad JSON path"},
		{"bad capture path", "steps:\n  - send: hi\n    capture: { id: \"id\" }\n", 3, "bad JSON path"},
		{"reply first", "steps:\n  - reply: blue\n", 2, "reply as the first step"},
		{"cancel first", "steps:\n  - cancel: true\n", 2, "cancel as the first step"},
		{"unknown variable", "steps:\n  - send: hi\n  - send: \"${taskId}\"\n", 3, "${taskId} is not captured by an earlier step"},
		{"own capture", "steps:\n  - send: \"${x}\"\n    capture: { x: \"$.id\" }\n", 2, "${x} is not captured"},
		{"bad state", "steps:\n  - send: hi\n    expect: { state: done }\n", 3, `state "done" is not one of`},
		{"bad duration", "steps:\n  - send: hi\n    timeout: soon\n", 3, "positive duration"},
		{"events without stream", "steps:\n  - send: hi\n    expect: { events: 3 }\n", 3, "add stream: true"},
		{"two actions", "steps:\n  - send: hi\n    reply: there\n", 3, "a step does one thing"},
		{"no action", "steps:\n  - expect: { state: completed }\n", 2, "does nothing"},
		{"bad dialect", "dialect: \"2.0\"\nsteps:\n  - send: hi\n", 1, "must be \"1.0\", \"0.3\" or \"0.1\""},
		{"a binding as dialect", "dialect: GRPC\nsteps:\n  - send: hi\n", 1, "dialect must be \"1.0\""},
		{"bad binding", "binding: SOAP\nsteps:\n  - send: hi\n", 1, "binding must be \"JSONRPC\", \"HTTP+JSON\" or \"GRPC\""},
		{"the version twice", "binding: \"1.0\"\ndialect: \"0.3\"\nsteps:\n  - send: hi\n", 2, "given twice"},
		{"no steps", "agent: x\n", 1, "no steps"},
		{"yaml syntax", "steps:\n  - send: [\n", 2, "did not find expected node content"},
		{"json unknown field", "{\n  \"steps\": [\n    {\"send\": \"hi\",\n     \"stream\": true, \"bogus\": 1}\n  ]\n}\n", 4, `unknown field "bogus"`},
		{"json bad regex", "{\"steps\": [\n {\"send\": \"hi\", \"expect\": {\"textMatches\": \"a{2,1}\"}}]}\n", 2, "bad regular expression"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse("bad.yaml", []byte(c.src))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *scenario.Error", err)
			}
			if se.File != "bad.yaml" || se.Line != c.line || !strings.Contains(se.Reason, c.reason) {
				t.Errorf("got %q, want bad.yaml:%d: …%s…", err, c.line, c.reason)
			}
		})
	}
}

// The example of the file format in NOTES-scenarios.md runs as written, in YAML and in JSON, and
// --key never shows in a report.
func TestExampleAndMasking(t *testing.T) {
	base := startDemo(t)
	yamlSrc := `
agent: ` + base + `
steps:
  - send: "hello there"
    expect:
      state: completed
      textContains: "hello there"
      textMatches: "^.*there$"
  - send: "slow 1"
    expect: { state: completed, jsonPath: { "$.artifacts[0].name": "result" } }
`
	jsonSrc := `{"agent": "` + base + `", "steps": [
  {"send": "hello there", "expect": {"state": "completed", "textContains": "hello there", "textMatches": "^.*there$"}},
  {"send": "slow 1", "expect": {"state": "completed", "jsonPath": {"$.artifacts[0].name": "result"}}}]}`
	for name, src := range map[string]string{"yaml": yamlSrc, "json": jsonSrc} {
		s, err := scenario.Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		const key = "s3cret-<&>\"key"
		res := scenario.Run(t.Context(), s, scenario.Options{Key: key})
		if !res.Passed {
			t.Errorf("%s: %+v", name, res.Steps)
		}
		res.Steps[0].Name = "send " + key // as a step sending it would be named
		for format, write := range map[string]func(*strings.Builder) error{
			"lines": func(b *strings.Builder) error { return scenario.WriteLines(b, []*scenario.Result{res}, key) },
			"json":  func(b *strings.Builder) error { return scenario.WriteJSON(b, []*scenario.Result{res}, key) },
			"junit": func(b *strings.Builder) error { return scenario.WriteJUnit(b, []*scenario.Result{res}, key) },
		} {
			var b strings.Builder
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "s3cret") || !strings.Contains(b.String(), scenario.Mask) {
				t.Errorf("%s report leaks the key or does not mask it:\n%s", format, b.String())
			}
		}
	}
}

// An agent that cannot be reached fails every step, none run.
func TestUnreachableAgent(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	res := run(t, srv.URL, "steps:\n  - send: hi\n  - send: there\n")
	if res.Passed || res.Error == "" || len(res.Steps) != 2 || !res.Steps[1].Skipped {
		t.Errorf("%+v", res)
	}
	if _, failed := scenario.Failures([]*scenario.Result{res}); failed != 2 {
		t.Errorf("failed = %d, want 2", failed)
	}
}

// --key goes where the card asks for it, and a wrong one fails the steps without showing up.
func TestPeerKey(t *testing.T) {
	base, calls := startPeer(t, "right-key-123")
	s, err := scenario.Parse("key.yaml", []byte("steps:\n  - send: hi\n    expect: { state: completed, textContains: hi }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res := scenario.Run(t.Context(), s, scenario.Options{Agent: base, Key: "right-key-123"}); !res.Passed {
		t.Errorf("with the key: %+v", res.Steps)
	}
	for _, key := range []string{"", "wrong-key-456"} {
		res := scenario.Run(t.Context(), s, scenario.Options{Agent: base, Key: key})
		if res.Passed || res.Steps[0].Error == "" {
			t.Errorf("key %q: %+v", key, res.Steps)
		}
		var b strings.Builder
		scenario.WriteLines(&b, []*scenario.Result{res}, key)
		if key != "" && strings.Contains(b.String(), key) {
			t.Errorf("the key shows:\n%s", b.String())
		}
	}
	if calls.Load() != 3 {
		t.Errorf("%d calls, want 3", calls.Load())
	}
}

// A step sends files and A2UI actions: the demo agent's release form is answered with its action (the
// surface named from the captured task id), and the task completes with the surface updated; a text
// file goes with a message.
func TestFilesAndA2UISteps(t *testing.T) {
	base := startDemo(t)
	res := run(t, base, `
steps:
  - send: "plan a release"
    expect: { state: input-required, mediaTypes: [application/a2ui+json] }
    capture: { plan: "$.id" }
  - a2ui:
      - version: v0.9
        action:
          name: plan_release
          surfaceId: "release-plan-${plan}"
          sourceComponentId: submit
          timestamp: "2026-11-28T12:00:00Z"
          context: { version: "4.2", channel: [beta] }
    expect:
      state: completed
      jsonPath: { "$.status.message.parts[0].data[0].updateComponents.surfaceId": "release-plan-${plan}" }
  - send: "notes attached"
    files: [{ name: notes.txt, mediaType: text/plain, text: "release notes" }, { name: b.bin, base64: "AAEC" }]
    expect: { state: completed, textContains: "notes attached" }
`)
	if res.Error != "" {
		t.Fatalf("run: %s", res.Error)
	}
	for _, s := range res.Steps {
		if !s.Passed {
			t.Errorf("step %d %s failed: %s %+v", s.Index, s.Name, s.Error, s.Assertions)
		}
	}
	if res.Steps[1].Name != "A2UI action" || !strings.Contains(res.Steps[1].Data, "4.2") {
		t.Errorf("the action step: %+v", res.Steps[1])
	}
	// v0.8: the userAction goes as a part of its own, and the form turns into its confirmation
	res = run(t, base, `
steps:
  - send: "plan a release v0.8"
    expect: { state: input-required, mediaTypes: [application/a2ui+json] }
    capture: { plan: "$.id" }
  - a2ui:
      - userAction:
          name: plan_release
          surfaceId: "release-plan-${plan}"
          sourceComponentId: submit
          timestamp: "2026-11-28T12:00:00Z"
          context: { version: "4.3", channel: [nightly] }
    expect:
      state: completed
      jsonPath: { "$.status.message.parts[0].data.surfaceUpdate.surfaceId": "release-plan-${plan}" }
`)
	for _, s := range res.Steps {
		if !s.Passed {
			t.Errorf("v0.8: step %d %s failed: %s %+v", s.Index, s.Name, s.Error, s.Assertions)
		}
	}
	if !strings.Contains(res.Steps[1].Data, "Version 4.3 goes out on the nightly channel") {
		t.Errorf("the v0.8 action step's answer: %+v", res.Steps[1])
	}

	for _, c := range []struct{ src, reason string }{
		{"steps:\n  - a2ui: [ { version: v0.9 } ]\n", "there is no earlier task"},
		{"steps:\n  - send: hi\n  - a2ui: {}\n", "a2ui must be a non-empty list"},
		{"steps:\n  - files: [ { name: a.txt } ]\n", "as text or as base64"},
		{"steps:\n  - files: [ { name: a.txt, base64: \"***\" } ]\n", "base64"},
		{"steps:\n  - files: [ { text: x } ]\n", "has no name"},
	} {
		if _, err := scenario.Parse("bad.yaml", []byte(c.src)); err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%q: %v, want …%s…", c.src, err, c.reason)
		}
	}
}
