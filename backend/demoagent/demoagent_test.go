package demoagent_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/demoagent"
)

// streamed sends text to the agent over a2a-go's JSON-RPC server and names the events it streams.
func streamed(t *testing.T, agent *demoagent.Agent, text string) []string {
	t.Helper()
	hs := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(agent, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))))
	defer hs.Close()
	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface(hs.URL, a2a.TransportProtocolJSONRPC)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}) {
		if err != nil {
			t.Fatal(err)
		}
		switch v := ev.(type) {
		case *a2a.Task:
			got = append(got, "task "+string(v.Status.State))
		case *a2a.TaskStatusUpdateEvent:
			note := ""
			if v.Status.Message != nil {
				note = " " + demoagent.Text(v.Status.Message)
			}
			got = append(got, "status "+string(v.Status.State)+note)
		case *a2a.TaskArtifactUpdateEvent:
			got = append(got, fmt.Sprintf("artifact append=%v last=%v", v.Append, v.LastChunk))
		default:
			got = append(got, fmt.Sprintf("%T", ev))
		}
	}
	return got
}

// Tick 0 (`demo-agent --tick 0`, `serve --demo-tick 0`) sends exactly the events of the normal pace,
// without pausing: slow's progress and echo's chunks.
func TestTickZeroSendsTheSameEventsWithoutPausing(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"slow 3", "task TASK_STATE_SUBMITTED|status TASK_STATE_WORKING Working for 3 seconds: 0/3|" +
			"status TASK_STATE_WORKING Working for 3 seconds: 1/3|status TASK_STATE_WORKING Working for 3 seconds: 2/3|" +
			"artifact append=false last=true|status TASK_STATE_COMPLETED"},
		{"benchmark echo text", "task TASK_STATE_SUBMITTED|status TASK_STATE_WORKING Echoing.|artifact append=false last=false|" +
			"artifact append=true last=false|artifact append=true last=false|artifact append=true last=true|status TASK_STATE_COMPLETED"},
	} {
		for _, tick := range []int{1, 0} {
			agent := &demoagent.Agent{Tick: 0}
			if tick == 1 {
				agent.Tick = 1 // a nanosecond: the paced path, as fast as it goes
			}
			if got := strings.Join(streamed(t, agent, tc.text), "|"); got != tc.want {
				t.Errorf("%q with tick %v:\n got %s\nwant %s", tc.text, agent.Tick, got, tc.want)
			}
		}
	}
}
