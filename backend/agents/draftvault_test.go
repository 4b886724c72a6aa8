package agents

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestDraftAgentVault speaks the AgentVault profile: tasks/send answers only {id}, tasks choose
// their own ids, text is in "content", states are upper case, the agent is the "assistant", a task
// has "state" and "messages", the stream has named events with bare payloads, cancel answers
// {success}.
func TestDraftAgentVault(t *testing.T) {
	const id = "task-abc-123"
	var sendParams []map[string]any
	var mu sync.Mutex
	state := "INPUT_REQUIRED"
	avTask := func() map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return map[string]any{"id": id, "state": state, "createdAt": "2024-04-15T10:00:00Z",
			"messages": []any{
				map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": "What is the weather in London?"}}, "metadata": nil},
				map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "content": "Which day?"}}, "metadata": nil}},
			"artifacts": []any{map[string]any{"id": "artifact-1", "type": "log", "content": "API call made", "url": nil, "mediaType": "text/plain", "metadata": nil}}}
	}
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/send": func(w http.ResponseWriter, c *rpcCall) {
			p := decodeParams(t, c)
			sendParams = append(sendParams, p)
			if p["id"] != nil && p["id"] != id {
				writeRPCError(w, c.ID, -32001, "Task Not Found")
				return
			}
			writeRPCResult(w, c.ID, map[string]any{"id": id})
		},
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) { writeRPCResult(w, c.ID, avTask()) },
		"tasks/cancel": func(w http.ResponseWriter, c *rpcCall) {
			mu.Lock()
			defer mu.Unlock()
			if state == "CANCELED" {
				writeRPCResult(w, c.ID, map[string]any{"success": false, "message": "Task already finished."})
				return
			}
			state = "CANCELED"
			writeRPCResult(w, c.ID, map[string]any{"success": true, "message": "Cancellation request received."})
		},
		"tasks/sendSubscribe": func(w http.ResponseWriter, c *rpcCall) {
			writeSSE(w,
				`event: task_status`+"\n"+`data: {"taskId": "`+id+`", "state": "WORKING", "timestamp": "2024-04-15T10:05:00Z", "message": null}`,
				`event: task_message`+"\n"+`data: {"taskId": "`+id+`", "message": {"role": "assistant", "parts": [{"type": "text", "content": "Thinking..."}], "metadata": null}, "timestamp": "2024-04-15T10:05:05Z"}`,
				`event: some_future_event`+"\n"+`data: {"ignored": true}`,
				`event: task_artifact`+"\n"+`data: {"taskId": "`+id+`", "artifact": {"id": "log-1", "type": "debug_log", "content": "Processing step 1", "url": null, "mediaType": "text/plain", "metadata": null}, "timestamp": "2024-04-15T10:05:10Z"}`,
				`event: task_status`+"\n"+`data: {"taskId": "`+id+`", "state": "COMPLETED", "timestamp": "2024-04-15T10:05:15Z", "message": "Task finished successfully."}`)
		},
	})
	c := dialDraft(t, s)
	ctx := t.Context()

	events, err := collect(c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("What is the weather in London?")), false))
	if err != nil {
		t.Fatal(err)
	}
	if len(sendParams) != 2 || sendParams[0]["id"] == nil || sendParams[1]["id"] != nil {
		t.Fatalf("tasks/send params %v: want our id refused, then a retry without one", sendParams)
	}
	task := events[0].(*a2a.Task)
	if task.ID != id || task.Status.State != a2a.TaskStateInputRequired || len(task.History) != 2 {
		t.Fatalf("task %+v", task)
	}
	if h := task.History[1]; h.Role != a2a.MessageRoleAgent || h.Parts[0].Text() != "Which day?" {
		t.Fatalf("assistant message %+v", h)
	}
	if a := task.Artifacts[0]; a.ID != "artifact-1" || a.Name != "log" || a.Parts[0].Text() != "API call made" || a.Parts[0].MediaType != "text/plain" {
		t.Fatalf("artifact %+v", a)
	}

	events, err = collect(c.Send(ctx, a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("tomorrow")), true))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range events {
		switch v := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			kinds = append(kinds, "status:"+string(v.Status.State))
		case *a2a.Message:
			kinds = append(kinds, "message:"+v.Parts[0].Text())
		case *a2a.TaskArtifactUpdateEvent:
			kinds = append(kinds, "artifact:"+v.Artifact.Parts[0].Text())
		}
		if ev.(a2a.TaskInfoProvider).TaskInfo().TaskID != id {
			t.Fatalf("event %T not about task %s", ev, id)
		}
	}
	want := []string{"status:" + string(a2a.TaskStateWorking), "message:Thinking...", "artifact:Processing step 1", "status:" + string(a2a.TaskStateCompleted)}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("stream %v\nwant   %v", kinds, want)
	}
	if m := events[3].(*a2a.TaskStatusUpdateEvent).Status.Message; m == nil || m.Parts[0].Text() != "Task finished successfully." {
		t.Fatalf("final status message %+v", m)
	}

	canceled, err := c.Cancel(ctx, id)
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("Cancel: %+v %v", canceled, err)
	}
	if _, err := c.Cancel(ctx, id); !errors.Is(err, a2a.ErrTaskNotCancelable) || !strings.Contains(err.Error(), "Task already finished.") {
		t.Fatalf("second Cancel: %v", err)
	}
}
