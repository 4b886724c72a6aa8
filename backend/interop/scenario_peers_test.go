package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/scenario"
)

// Scenarios against agents we did not write: every assertion kind passing, and each failing, against
// a2a-go/v2's servers (v1.0, and v0.3 through its compat layer) and @a2a-js/sdk's (v1.0 and v0.3),
// all running the executor of js/server.mjs (testExecutor in Go).

// peerPassing holds against every peer; peerFailing is the same steps with every expectation wrong.
const peerPassing = `
dialect: "%s"
steps:
  - send: "hello peer"
    expect:
      state: completed
      textContains: "hello peer"
      textMatches: "^hello peer$"
      artifactNames: [%s]
      mediaTypes: [text/plain]
      noError: true
      firstEventWithin: 60s
      finalWithin: 60s
    capture: { first: "$.id" }
  - send: "stream"
    stream: true
    expect: { state: completed, textContains: "one two three", events: ">= 4" }
  - send: "ask"
    expect: { state: input-required }
    capture: { asking: "$.id" }
  - reply: "blue"
    expect:
      state: completed
      textMatches: "^You answered: blue$"
      jsonPath: { "$.id": "${asking}", "$.status.state": "TASK_STATE_COMPLETED" }
  - send: "ask"
  - cancel: true
    expect: { state: canceled }
`

const peerFailing = `
dialect: "%s"
steps:
  - send: "hello peer"
    expect:
      state: failed
      textContains: "goodbye"
      textMatches: "^peer"
      artifactNames: [answer]
      mediaTypes: [image/png]
      firstEventWithin: 1ns
      finalWithin: 1ns
      jsonPath: { "$.artifacts[0].name": "%s-not" }
  - send: "stream"
    stream: true
    expect: { events: "<= 1" }
  - send: "ask"
  - cancel: true
  - reply: "too late"
    expect: { noError: true }
`

// assertionKinds are the scenario format's expectations, by the start of their assertions' names.
var assertionKinds = []string{"state", "textContains", "textMatches", "artifactNames", "mediaTypes", "firstEventWithin",
	"finalWithin", "jsonPath", "events", "noError"}

// runPeerScenarios runs both scenarios against the agent card describes; echo is the name it gives
// its echo artifact (a2a-go's test executor "result", the JS server "echo").
func runPeerScenarios(t *testing.T, card []byte, dialect, echo string) {
	t.Helper()
	opt := scenario.Options{Agent: "peer", Connect: func(ctx context.Context, _ string, force scenario.Force, _ string) (*agents.Conn, error) {
		return scenario.DialCard(ctx, card, force, nil)
	}}
	parse := func(src string) *scenario.Scenario {
		s, err := scenario.Parse("peer.yaml", []byte(fmt.Sprintf(src, dialect, echo)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	res := scenario.Run(t.Context(), parse(peerPassing), opt)
	if cancelRacedTheAsk(res) {
		// a2a-go's server hands a cancel that arrives while the asking execution is still ending
		// to that execution's queue, and fails it when the execution has just closed the queue
		// (its local manager's own TODO: "a cancelation will fail if the concurrent execution ...
		// resolves to a non-terminal state (eg. input-required)"). Seen once under -race. The
		// peer's race, not the runner's: the scenario runs once more and must then pass whole.
		t.Logf("the peer failed the cancel right after its question (%s); running the scenario again", res.Steps[len(res.Steps)-1].Error)
		res = scenario.Run(t.Context(), parse(peerPassing), opt)
	}
	if res.Error != "" || res.Dialect != dialect {
		t.Fatalf("run: error %q, dialect %q", res.Error, res.Dialect)
	}
	for _, s := range res.Steps {
		for _, a := range s.Assertions {
			if !a.Passed {
				t.Errorf("step %d: %s failed: %s", s.Index, a.Name, a.Detail)
			}
		}
		if !s.Passed {
			t.Errorf("step %d failed: %s", s.Index, s.Error)
		}
	}
	if !res.Passed {
		t.Fatalf("the passing scenario failed: %+v", res.Steps)
	}

	res = scenario.Run(t.Context(), parse(peerFailing), opt)
	failed := map[string]bool{}
	for _, s := range res.Steps {
		for _, a := range s.Assertions {
			if a.Passed {
				t.Errorf("step %d: %s held, want it to fail", s.Index, a.Name)
			}
			for _, kind := range assertionKinds {
				if strings.HasPrefix(a.Name, kind) {
					failed[kind] = true
				}
			}
		}
	}
	for _, kind := range assertionKinds {
		if !failed[kind] {
			t.Errorf("no %s assertion failed against the peer", kind)
		}
	}
	if res.Passed {
		t.Error("the failing scenario passed")
	}
}

// cancelRacedTheAsk says the passing scenario failed only at its last step, the cancel of the task
// that had just asked, with a2a-go's closed-queue error.
func cancelRacedTheAsk(res *scenario.Result) bool {
	for i, s := range res.Steps {
		last := i == len(res.Steps)-1
		if !last && !s.Passed || last && (s.Passed || !strings.Contains(s.Error, "queue is closed")) {
			return false
		}
	}
	return len(res.Steps) > 0
}

func TestScenariosAgainstGoPeers(t *testing.T) {
	t.Run("1.0", func(t *testing.T) {
		url := serveExecutor(t, a2asrv.NewJSONRPCHandler)
		card, _ := json.Marshal(&a2a.AgentCard{Name: "a2a-go v1.0 peer", Description: "test", Version: "1",
			SupportedInterfaces: []*a2a.AgentInterface{{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
			Capabilities:        a2a.AgentCapabilities{Streaming: true}, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}})
		runPeerScenarios(t, card, "1.0", "result")
	})
	t.Run("0.3", func(t *testing.T) {
		url := serveExecutor(t, a2av0.NewJSONRPCHandler)
		card := fmt.Appendf(nil, `{"name":"a2a-go v0.3 peer","description":"test","version":"1","url":%q,"protocolVersion":"0.3.0",
			"preferredTransport":"JSONRPC","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, url)
		runPeerScenarios(t, card, "0.3", "result")
	})
}

func TestScenariosAgainstJSPeers(t *testing.T) {
	base := startJSServer(t)
	t.Run("1.0", func(t *testing.T) { runPeerScenarios(t, fetchCard(t, base, "1.0"), "1.0", "echo") })
	t.Run("0.3", func(t *testing.T) {
		var v03 map[string]any
		if err := json.Unmarshal(fetchCard(t, base, ""), &v03); err != nil {
			t.Fatal(err)
		}
		delete(v03, "supportedInterfaces") // the v0.3 shape alone decides
		card, _ := json.Marshal(v03)
		runPeerScenarios(t, card, "0.3", "echo")
	})
}
