package agents

import (
	"encoding/json"
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

// vaultAgent is a small AgentVault agent made from the profile's wire shapes: tasks/send answers
// {id} (the agent names the task), tasks/sendSubscribe {id} streams the task's queued events, named
// and bare, tasks/get answers {id, state, messages, artifacts}. It asks which city, then answers.
type vaultAgent struct {
	*rpcServer
	mu       sync.Mutex
	state    string
	messages []any
	queued   []string // SSE events not yet streamed
	params   map[string][]map[string]any
	accept   []string // the Accept header of each tasks/sendSubscribe
}

func newVaultAgent(t *testing.T) *vaultAgent {
	a := &vaultAgent{params: map[string][]map[string]any{}}
	const id = "task-abc-123"
	event := func(name, data string) string { return "event: " + name + "\ndata: " + data }
	text := func(s string) string {
		return `{"role": "assistant", "parts": [{"type": "text", "content": "` + s + `"}], "metadata": null}`
	}
	a.rpcServer = newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/send": func(w http.ResponseWriter, c *rpcCall) {
			p := decodeParams(t, c)
			a.mu.Lock()
			defer a.mu.Unlock()
			a.params[c.Method] = append(a.params[c.Method], p)
			if p["id"] != nil && (p["id"] != id || a.state == "") {
				writeRPCError(w, c.ID, -32001, "Task Not Found")
				return
			}
			a.messages = append(a.messages, p["message"])
			if a.state == "" {
				a.state = "INPUT_REQUIRED"
				a.messages = append(a.messages, json.RawMessage(text("Which city?")))
				a.queued = append(a.queued,
					event("task_status", `{"taskId": "`+id+`", "state": "WORKING", "timestamp": "2024-04-15T10:05:00Z", "message": null}`),
					event("task_message", `{"taskId": "`+id+`", "message": `+text("Which city?")+`, "timestamp": "2024-04-15T10:05:01Z"}`),
					event("task_status", `{"taskId": "`+id+`", "state": "INPUT_REQUIRED", "timestamp": "2024-04-15T10:05:02Z", "message": null}`))
			} else {
				a.state = "COMPLETED"
				a.messages = append(a.messages, json.RawMessage(text("Sunny in London.")))
				a.queued = append(a.queued,
					event("task_message", `{"taskId": "`+id+`", "message": `+text("Sunny in London.")+`, "timestamp": "2024-04-15T10:06:01Z"}`),
					event("task_status", `{"taskId": "`+id+`", "state": "COMPLETED", "timestamp": "2024-04-15T10:06:02Z", "message": "Task finished successfully."}`))
			}
			writeRPCResult(w, c.ID, map[string]any{"id": id})
		},
		"tasks/sendSubscribe": func(w http.ResponseWriter, c *rpcCall) {
			p := decodeParams(t, c)
			a.mu.Lock()
			a.params[c.Method] = append(a.params[c.Method], p)
			a.accept = append(a.accept, c.Header.Get("Accept"))
			events := a.queued
			a.queued = nil
			a.mu.Unlock()
			if p["id"] != id {
				writeRPCError(w, c.ID, -32001, "Task Not Found")
				return
			}
			writeSSE(w, events...)
		},
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) {
			a.mu.Lock()
			defer a.mu.Unlock()
			writeRPCResult(w, c.ID, map[string]any{"id": id, "state": a.state, "createdAt": "2024-04-15T10:00:00Z",
				"updatedAt": "2024-04-15T10:05:30Z", "messages": a.messages, "artifacts": []any{}, "metadata": nil})
		},
	})
	return a
}

// card is the agent's card in the profile's shape: no capabilities.streaming.
func (a *vaultAgent) card() []byte {
	return []byte(`{"schemaVersion": "1.0", "humanReadableId": "acme/weather", "agentVersion": "1.0.0", "name": "Weather",
		"description": "weather", "url": "` + a.URL + `", "provider": {"name": "Acme"},
		"capabilities": {"a2aVersion": "1.0", "supportedMessageParts": ["text"]}, "authSchemes": [{"scheme": "none"}]}`)
}

// An AgentVault agent is streamed from: tasks/send, then tasks/sendSubscribe {id}, then (the
// subscription open) one tasks/get for what happened before it, which the profile's real-time
// subscription does not carry. Its question (a task_message, then INPUT_REQUIRED without a message;
// or, read with tasks/get, the task's last message) is the input-required status's message.
func TestAgentVaultStreamsAndItsQuestionIsTheStatusMessage(t *testing.T) {
	a := newVaultAgent(t)
	c, err := Dial(t.Context(), a.card(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.Streaming() || c.Dialect() != V01 {
		t.Fatalf("an AgentVault card: streaming %v, dialect %s", c.Streaming(), c.Dialect())
	}
	events, err := collect(c.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("What is the weather?")), true))
	if err != nil {
		t.Fatal(err)
	}
	if calls := a.called(); fmt.Sprint(calls) != "[tasks/send tasks/sendSubscribe tasks/get]" {
		t.Fatalf("calls %v, want tasks/send, tasks/sendSubscribe, tasks/get", calls)
	}
	a.mu.Lock()
	send, sub, accept := a.params["tasks/send"][0], a.params["tasks/sendSubscribe"][0], a.accept[0]
	a.mu.Unlock()
	if _, named := send["id"]; named || send["sessionId"] != nil || fmt.Sprint(sub) != "map[id:task-abc-123]" || accept != "text/event-stream" {
		t.Fatalf("tasks/send params %v; tasks/sendSubscribe params %v, Accept %q", send, sub, accept)
	}
	// The agent asked before the subscription opened: what tasks/get read is the question's status.
	if len(events) != 1 {
		t.Fatalf("%d events, want input-required with its question", len(events))
	}
	asked := events[0].(*a2a.TaskStatusUpdateEvent)
	if asked.Status.State != a2a.TaskStateInputRequired || asked.Status.Message == nil || asked.Status.Message.Parts[0].Text() != "Which city?" {
		t.Fatalf("the input-required status %+v carries no question", asked.Status)
	}

	// Read with tasks/get: the question is the task's last message; the same one every time.
	task, err := c.GetTask(t.Context(), "task-abc-123")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.GetTask(t.Context(), "task-abc-123")
	if m := task.Status.Message; task.Status.State != a2a.TaskStateInputRequired || m == nil || m.Parts[0].Text() != "Which city?" ||
		m.Role != a2a.MessageRoleAgent || again.Status.Message.ID != m.ID {
		t.Fatalf("the task as read: %+v", task.Status)
	}

	// Resubscribing is tasks/sendSubscribe {id} too: the profile has no tasks/resubscribe.
	if _, err := collect(c.Subscribe(t.Context(), "task-abc-123")); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	if calls := a.called(); calls[len(calls)-1] != "tasks/sendSubscribe" {
		t.Fatalf("Subscribe called %v", calls)
	}

	// The answer continues the task, streamed the same way.
	events, err = collect(c.Send(t.Context(), a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("London")), true))
	if err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	p := a.params["tasks/send"][len(a.params["tasks/send"])-1]
	a.mu.Unlock()
	if p["id"] != "task-abc-123" || len(events) != 2 ||
		events[1].(*a2a.TaskStatusUpdateEvent).Status.State != a2a.TaskStateCompleted || events[0].(*a2a.Message).Parts[0].Text() != "Sunny in London." {
		t.Fatalf("the answer: params %v, events %v", p, events)
	}
}
