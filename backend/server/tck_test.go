package server_test

// The requests the official A2A TCK (github.com/a2aproject/a2a-tck, branches 0.3.x and main) sends,
// reproduced as our own tests for each fault it found, in the dialect where it was found, plus the
// SDK clients that must decode the answers.

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

func legacyClient(t *testing.T, a *testAgent) *legacyclient.Client {
	t.Helper()
	card, err := legacycard.DefaultResolver.Resolve(t.Context(), a.Base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := legacyclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawError is a JSON-RPC error as it is on the wire.
type rawError struct {
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func callRaw(t *testing.T, url, body string) rawError {
	t.Helper()
	_, b := post(t, url, body)
	var r rawError
	if err := json.Unmarshal(b, &r); err != nil || r.Error == nil {
		t.Fatalf("expected a JSON-RPC error, got %s (%v)", b, err)
	}
	return r
}

// TCK 0.3.x tests/mandatory/protocol/test_tasks_cancel_method.py cancels a task that has ended. The
// v0.3 answer must be v0.3's: "data" an object (or absent) and v0.3 state names, which the a2a-go
// v0.3 client decodes into its typed error.
func TestTCKV03CancelOfEndedTaskIsAV03Error(t *testing.T) {
	a := startDemo(t)
	c := legacyClient(t, a)
	res, err := c.SendMessage(t.Context(), &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "slow abc"})})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*legacy.Task)
	if task.Status.State != legacy.TaskStateRejected {
		t.Fatalf("an invalid slow N is rejected; got %s", task.Status.State)
	}
	_, err = c.CancelTask(t.Context(), &legacy.TaskIDParams{ID: task.ID})
	if !errors.Is(err, legacy.ErrTaskNotCancelable) {
		t.Fatalf("v0.3 client got %v, want its ErrTaskNotCancelable", err)
	}
	r := callRaw(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"`+string(task.ID)+`"}}`)
	if r.Error.Code != -32002 || strings.Contains(r.Error.Message, "TASK_STATE_") || !strings.Contains(r.Error.Message, "rejected") {
		t.Errorf("v0.3 error %d %q: want -32002 naming the state as v0.3 does", r.Error.Code, r.Error.Message)
	}
	if d := r.Error.Data; d != nil && d[0] != '{' {
		t.Errorf("v0.3 error data %s: must be an object or absent", d)
	}

	// A v0.3 stream's error event too: resubscribing to an unknown task.
	events := stream(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m-stream","role":"user","taskId":"`+string(task.ID)+`","parts":[{"kind":"text","text":"more"}]}}}`)
	last := events[len(events)-1]
	if last.Error == nil || strings.Contains(last.Error.Message, "TASK_STATE_") {
		t.Errorf("v0.3 stream to an ended task ended with %+v", last)
	}
}

// The v0.1 draft names states its own way too: a rejected task is "failed" there.
func TestV01CancelOfEndedTaskNamesDraftStates(t *testing.T) {
	a := startDemo(t)
	call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"draft-rejected","message":{"role":"user","parts":[{"type":"text","text":"slow abc"}]}}}`)
	r := callRaw(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"id":"draft-rejected"}}`)
	if r.Error.Code != -32002 || strings.Contains(r.Error.Message, "TASK_STATE_") || strings.Contains(r.Error.Message, "rejected") || r.Error.Data != nil {
		t.Errorf("v0.1 error %d %q data %s: want -32002 in draft state names, no data", r.Error.Code, r.Error.Message, r.Error.Data)
	}
}
