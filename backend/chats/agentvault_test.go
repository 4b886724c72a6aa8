package chats_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/chats"
)

// avAgent is an AgentVault agent made from the profile's wire shapes (AgentVault A2A Protocol Profile v0.2):
// JSON-RPC at the card's url; tasks/send {id?, message} answers {id}, the agent naming new tasks;
// tasks/sendSubscribe {id} streams named events with bare payloads; tasks/get answers {id, state,
// messages, artifacts}; tasks/cancel answers {success, message}. "ask" makes it ask a question,
// "slow" keeps it working until canceled; anything else is echoed. Like the profile's server, it does
// the work of tasks/send before answering, and a subscription carries real-time updates only: what
// happened before tasks/sendSubscribe went to nobody.
type avAgent struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string
	tasks map[string]*avTask
}

type avTask struct {
	state    string
	messages []any
	subs     map[chan string]bool // open subscriptions, each getting the events from its start on
}

// emit sends ev to the task's open subscriptions; with none, it is lost, as the profile's real-time
// updates are.
func (t *avTask) emit(ev string) {
	for sub := range t.subs {
		sub <- ev
	}
}

func newAVAgent(t *testing.T) *avAgent {
	a := &avAgent{tasks: map[string]*avTask{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	mux.HandleFunc("/.well-known/agent.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"schemaVersion": "1.0", "humanReadableId": "test/av", "agentVersion": "0.1.0", "name": "AV agent",
			"description": "speaks the AgentVault profile", "url": "%s/a2a", "provider": {"name": "test"},
			"capabilities": {"a2aVersion": "1.0", "supportedMessageParts": ["text"]}, "authSchemes": [{"scheme": "none"}]}`, a.srv.URL)
	})
	mux.HandleFunc("/a2a", a.serve)
	return a
}

func (a *avAgent) called(method string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, c := range a.calls {
		if c == method {
			n++
		}
	}
	return n
}

func avText(text string) map[string]any {
	return map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "text", "content": text}}, "metadata": nil}
}

func avEvent(name string, data map[string]any) string {
	b, _ := json.Marshal(data)
	return "event: " + name + "\ndata: " + string(b) + "\n\n"
}

func (a *avAgent) status(id, state string) string {
	return avEvent("task_status", map[string]any{"taskId": id, "state": state, "timestamp": time.Now().UTC().Format(time.RFC3339), "message": nil})
}

func (a *avAgent) serve(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params struct {
			ID      string `json:"id"`
			Message struct {
				Parts []struct {
					Content string `json:"content"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	reply := func(result any, code int, msg string) {
		out := map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}
		if code != 0 {
			delete(out, "result")
			out["error"] = map[string]any{"code": code, "message": msg}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
	a.mu.Lock()
	a.calls = append(a.calls, req.Method)
	task := a.tasks[req.Params.ID]
	if req.Params.ID != "" && task == nil {
		a.mu.Unlock()
		reply(nil, -32001, "Task Not Found")
		return
	}
	switch req.Method {
	case "tasks/send":
		id := req.Params.ID
		if task == nil {
			id = fmt.Sprintf("task-%d", len(a.tasks)+1)
			task = &avTask{subs: map[chan string]bool{}}
			a.tasks[id] = task
		}
		text := ""
		if parts := req.Params.Message.Parts; len(parts) > 0 {
			text = parts[0].Content
		}
		task.messages = append(task.messages, map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": text}}})
		task.state = "WORKING"
		task.emit(a.status(id, "WORKING"))
		switch text {
		case "ask":
			task.state = "INPUT_REQUIRED"
			task.messages = append(task.messages, avText("Which city?"))
			task.emit(avEvent("task_message", map[string]any{"taskId": id, "message": avText("Which city?")}))
			task.emit(a.status(id, "INPUT_REQUIRED"))
		case "slow":
		case "file":
			task.state = "COMPLETED"
			file := map[string]any{"role": "assistant", "parts": []any{map[string]any{"type": "file", "url": "https://example.com/f",
				"mediaType": "application/pdf", "filename": "invoice\u202Efdp.exe"}}}
			task.messages = append(task.messages, file)
			task.emit(avEvent("task_message", map[string]any{"taskId": id, "message": file}))
			task.emit(a.status(id, "COMPLETED"))
		default:
			task.state = "COMPLETED"
			task.messages = append(task.messages, avText("echo: "+text))
			task.emit(avEvent("task_message", map[string]any{"taskId": id, "message": avText("echo: " + text)}))
			task.emit(a.status(id, "COMPLETED"))
		}
		a.mu.Unlock()
		reply(map[string]any{"id": id}, 0, "")
	case "tasks/get":
		result := map[string]any{"id": req.Params.ID, "state": task.state, "createdAt": "2024-04-15T10:00:00Z",
			"messages": slices.Clone(task.messages), "artifacts": []any{}, "metadata": nil}
		a.mu.Unlock()
		reply(result, 0, "")
	case "tasks/cancel":
		if task.state == "COMPLETED" || task.state == "CANCELED" {
			a.mu.Unlock()
			reply(map[string]any{"success": false, "message": "Task already finished."}, 0, "")
			return
		}
		task.state = "CANCELED"
		task.emit(a.status(req.Params.ID, "CANCELED"))
		a.mu.Unlock()
		reply(map[string]any{"success": true, "message": "Cancellation request received."}, 0, "")
	case "tasks/sendSubscribe":
		if r.Header.Get("Accept") != "text/event-stream" {
			a.mu.Unlock()
			reply(nil, -32600, "Invalid Request: Accept: text/event-stream is required")
			return
		}
		events := make(chan string, 16)
		task.subs[events] = true
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			delete(task.subs, events)
			a.mu.Unlock()
		}()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case ev := <-events:
				fmt.Fprint(w, ev)
				w.(http.Flusher).Flush()
				for _, end := range []string{"INPUT_REQUIRED", "COMPLETED", "CANCELED", "FAILED"} {
					if strings.Contains(ev, `"state":"`+end+`"`) {
						return
					}
				}
			}
		}
	default:
		a.mu.Unlock()
		reply(nil, -32601, "Method not found")
	}
}

// An AgentVault agent is streamed from, its question shows as the input-required status's message,
// and a cancel (answered by the cancel call and by the stream) is recorded once.
func TestAgentVaultConversation(t *testing.T) {
	w := newWorld(t)
	av := newAVAgent(t)
	c := w.conversation(av.srv.URL)

	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "hello"})
	entries := w.waitFor(c.ID, "the echo", reached(a2a.TaskStateCompleted))
	if av.called("tasks/sendSubscribe") != 1 || av.called("tasks/get") != 1 {
		t.Fatalf("sendSubscribe %d times, tasks/get %d times: want the task streamed, and asked once for what came before the subscription",
			av.called("tasks/sendSubscribe"), av.called("tasks/get"))
	}
	echoed := slices.ContainsFunc(entries, func(e chats.Entry) bool {
		m, ok := e.Event.(*a2a.Message)
		return ok && e.Direction == chats.In && m.Parts[0].Text() == "echo: hello"
	})
	if !echoed {
		t.Fatalf("the agent's message is not in the conversation:\n%s", dump(entries))
	}

	sent := send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "ask"})
	entries = w.waitFor(c.ID, "the question", func(es []chats.Entry) bool { return reached(a2a.TaskStateInputRequired)(es[sent.Seq:]) })
	for _, e := range entries[sent.Seq:] {
		if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateInputRequired {
			if st.Status.Message == nil || st.Status.Message.Parts[0].Text() != "Which city?" {
				t.Fatalf("input-required without its question: %+v", st.Status)
			}
		}
	}

	sent = send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "slow"})
	entries = w.waitFor(c.ID, "the slow task to work", func(es []chats.Entry) bool { return reached(a2a.TaskStateWorking)(es[sent.Seq:]) })
	taskID := a2a.TaskID(entries[len(entries)-1].TaskID)
	if err := w.h.Chats.Cancel(t.Context(), c.ID, taskID); err != nil {
		t.Fatal(err)
	}
	w.waitFor(c.ID, "the stream to end", func(es []chats.Entry) bool {
		conv, err := w.h.Chats.Conversation(t.Context(), c.ID)
		return err == nil && !conv.Busy && reached(a2a.TaskStateCanceled)(es)
	})
	_, entries, _ = w.h.Chats.Get(t.Context(), c.ID)
	canceled := 0
	for _, e := range entries {
		if s, ok := stateOf(e); ok && s == a2a.TaskStateCanceled {
			canceled++
		}
	}
	if canceled != 1 {
		t.Fatalf("the cancel is recorded %d times:\n%s", canceled, dump(entries))
	}
}

// File names are recorded without Unicode format characters, whoever sent them: a right-to-left
// override makes "invoice\u202Efdp.exe" display as "invoiceexe.pdf".
func TestFileNamesAreRecordedWithoutFormatCharacters(t *testing.T) {
	w := newWorld(t)
	av := newAVAgent(t)
	c := w.conversation(av.srv.URL)
	out := send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "file", Files: []chats.File{{Name: "photo\u2066\u202Egpj.exe\u2069\u200B", Bytes: []byte("x")}}})
	entries := w.waitFor(c.ID, "the agent's file", reached(a2a.TaskStateCompleted))
	var names []string
	for _, e := range entries {
		if m, ok := e.Event.(*a2a.Message); ok {
			for _, p := range m.Parts {
				if p.Filename != "" {
					names = append(names, p.Filename)
				}
			}
		}
	}
	if fmt.Sprint(names) != "[photogpj.exe invoicefdp.exe]" {
		t.Fatalf("file names recorded as %q (entry %d is the owner's)", names, out.Seq)
	}
}

// An AgentVault question answered in place: the owner's answer goes to the same task, and the
// agent's reply to it (made before the hub's subscription opened) shows in the conversation.
func TestAgentVaultQuestionAnsweredInPlace(t *testing.T) {
	w := newWorld(t)
	av := newAVAgent(t)
	c := w.conversation(av.srv.URL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "ask"})
	entries := w.waitFor(c.ID, "the question", reached(a2a.TaskStateInputRequired))
	taskID := a2a.TaskID(entries[len(entries)-1].TaskID)
	sent := send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "London", Task: taskID})
	entries = w.waitFor(c.ID, "the reply to the answer", func(es []chats.Entry) bool { return reached(a2a.TaskStateCompleted)(es[sent.Seq:]) })
	replied := slices.ContainsFunc(entries[sent.Seq:], func(e chats.Entry) bool {
		m, ok := e.Event.(*a2a.Message)
		return ok && e.Direction == chats.In && e.TaskID == string(taskID) && m.Parts[0].Text() == "echo: London"
	})
	if !replied {
		t.Fatalf("the agent's reply to the answer is not in the conversation:\n%s", dump(entries))
	}
}
