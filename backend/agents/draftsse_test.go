package agents

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
)

// TestDraftMalformedStreams feeds broken streams to the draft client: each must end with exactly one
// error after the good events before it, and never panic.
func TestDraftMalformedStreams(t *testing.T) {
	working := `data: {"jsonrpc":"2.0","id":"1","result":{"id":"t","status":{"state":"working"},"final":false}}`
	tests := []struct {
		name       string
		body       string
		goodBefore int
		check      func(error) bool
	}{
		{"not JSON", working + "\n\ndata: {not json\n\n", 1, isInvalidResponse},
		{"an array", "data: [1,2,3]\n\n", 0, isInvalidResponse},
		{"a string", `data: "hello"` + "\n\n", 0, isInvalidResponse},
		{"state of the wrong type", "event: task_status\ndata: {\"taskId\":\"t\",\"state\":5}\n\n", 0, isInvalidResponse},
		{"artifact event without an artifact", `data: {"jsonrpc":"2.0","id":"1","result":{"id":"t","artifact":null}}` + "\n\n", 0, isInvalidResponse},
		{"neither status nor artifact", `data: {"jsonrpc":"2.0","id":"1","result":{"id":"t","colour":"blue"}}` + "\n\n", 0, isInvalidResponse},
		{"response without result or error", `data: {"jsonrpc":"2.0","id":"1"}` + "\n\n", 0, isInvalidResponse},
		{"bad parts", `data: {"jsonrpc":"2.0","id":"1","result":{"id":"t","artifact":{"parts":"text"}}}` + "\n\n", 0, isInvalidResponse},
		{"JSON-RPC error mid-stream", working + "\n\n" + `data: {"jsonrpc":"2.0","id":"1","error":{"code":-32001,"message":"task vanished"}}` + "\n\n", 1,
			func(err error) bool {
				return errors.Is(err, a2a.ErrTaskNotFound) && strings.Contains(err.Error(), "task vanished")
			}},
		{"AgentVault error event", working + "\n\nevent: error\ndata: {\"error\": \"agent_crashed\", \"message\": \"the model went away\"}\n\n", 1,
			func(err error) bool {
				return errors.Is(err, a2a.ErrServerError) && strings.Contains(err.Error(), "agent_crashed") && strings.Contains(err.Error(), "the model went away")
			}},
		{"error event that is not JSON", "event: error\ndata: boom\n\n", 0, isInvalidResponse},
		{"one huge event", working + "\n\ndata: " + strings.Repeat("x", jsonrpc.MaxSSEEvent+1) + "\n\n", 1, func(err error) bool { return errors.Is(err, jsonrpc.ErrEventTooLarge) }},
		{"a huge event in many lines", "data: x\n" + strings.Repeat("data: "+strings.Repeat("y", 1<<20)+"\n", 9) + "\n", 0,
			func(err error) bool { return errors.Is(err, jsonrpc.ErrEventTooLarge) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
				"tasks/sendSubscribe": func(w http.ResponseWriter, c *rpcCall) {
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprint(w, tt.body)
				},
			})
			c := dialDraft(t, s)
			good, errs := 0, 0
			var last error
			for ev, err := range c.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi")), true) {
				if err != nil {
					errs++
					last = err
					continue
				}
				if ev == nil {
					t.Fatal("nil event without an error")
				}
				good++
			}
			if good != tt.goodBefore || errs != 1 || !tt.check(last) {
				t.Fatalf("%d good events and %d errors (last %v); want %d good, then one matching error", good, errs, last, tt.goodBefore)
			}
		})
	}
}

func isInvalidResponse(err error) bool { return errors.Is(err, a2a.ErrInvalidAgentResponse) }

// TestDraftStreamEdges covers stream shapes that are odd but fine: CRLF line ends, a last event
// without its blank line, multi-line data, an unknown state, and a stream that simply ends.
func TestDraftStreamEdges(t *testing.T) {
	body := "event: message\r\n" +
		`data: {"jsonrpc":"2.0","id":"1",` + "\r\n" +
		`data: "result":{"id":"t","status":{"state":"dreaming"},"final":false}}` + "\r\n\r\n" +
		`data: {"jsonrpc":"2.0","id":"1","result":{"id":"t","status":{"state":"working","message":{"role":"agent","parts":[{"type":"text","text":"still here"}]}}}}`
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/resubscribe": func(w http.ResponseWriter, c *rpcCall) {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			fmt.Fprint(w, body)
		},
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) {
			writeRPCResult(w, c.ID, map[string]any{"id": "t", "sessionId": "s-from-get", "status": map[string]any{"state": "working"}})
		},
	})
	c := dialDraft(t, s)
	events, err := collect(c.Subscribe(t.Context(), "t"))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d events: %v", len(events), events)
	}
	first, second := events[0].(*a2a.TaskStatusUpdateEvent), events[1].(*a2a.TaskStatusUpdateEvent)
	if first.Status.State != a2a.TaskStateUnspecified || second.Status.State != a2a.TaskStateWorking || second.Status.Message.Parts[0].Text() != "still here" {
		t.Fatalf("events %+v %+v", first, second)
	}
	if first.ContextID != "s-from-get" || first.TaskID != "t" {
		t.Fatalf("the stream's events should carry the task's session, learned with tasks/get: %+v", first)
	}
	if got := s.called(); fmt.Sprint(got) != "[tasks/get tasks/resubscribe]" {
		t.Fatalf("calls %v", got)
	}
}
