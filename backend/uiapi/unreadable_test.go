package uiapi_test

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestUnreadableTaskIsListedAndLabelled: a task row whose JSON cannot be read (written straight into
// hub.db) no longer fails tasks.list and inbox.list: it is listed with its id, state and an
// "unreadable" reason beside the other tasks, and tasks.get shows what the row still tells.
func TestUnreadableTaskIsListedAndLabelled(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	ctx := t.Context()
	for _, id := range []string{"good", "bad"} {
		task := &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx-" + id, Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired},
			History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("task "+id))}}
		if _, err := h.Agent.Tasks.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Agent.DB.Writer.Exec(`UPDATE tasks SET task_json = ? WHERE id = 'bad'`, []byte(`{"history":[{"parts":[{"raw":null}]}]}`)); err != nil {
		t.Fatal(err)
	}

	type summary struct {
		ID, ContextID, State, Title, Unreadable string
	}
	check := func(what string, rows []summary) {
		t.Helper()
		byID := map[string]summary{}
		for _, r := range rows {
			byID[r.ID] = r
		}
		good, bad := byID["good"], byID["bad"]
		if good.Title != "task good" || good.Unreadable != "" {
			t.Errorf("%s: readable task shown as %+v", what, good)
		}
		if bad.Unreadable == "" || bad.Title != "Unreadable task" || bad.State != "input-required" || bad.ContextID != "ctx-bad" {
			t.Errorf("%s: unreadable task shown as %+v", what, bad)
		}
	}
	var list struct{ Tasks []summary }
	c.result("tasks.list", map[string]any{"agent": "hub"}, &list)
	check("tasks.list", list.Tasks)
	var inbox struct{ Tasks []summary }
	c.result("inbox.list", nil, &inbox)
	check("inbox.list", inbox.Tasks)
	var detail struct{ Summary summary }
	c.result("tasks.get", map[string]any{"agent": "hub", "id": "bad"}, &detail)
	check("tasks.get", []summary{detail.Summary, {ID: "good", Title: "task good"}})
}

// TestEmptyFilesAreRefusedBeforeAnythingIsStored: a 0-byte attachment, from a chat or from the
// owner's inbox answer, is refused with a clear invalid_params before anything is recorded or sent
// (a2a-go would store it as {"raw":null}, which does not read back).
func TestEmptyFilesAreRefusedBeforeAnythingIsStored(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var agent struct{ ID string }
	c.result("agents.add", map[string]any{"url": h.Demo.BaseURL}, &agent)
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": agent.ID}, &conv)
	empty := []map[string]any{{"name": "empty.txt", "mediaType": "text/plain", "bytes": ""}}
	f := c.call("chats.send", map[string]any{"id": conv.ID, "text": "here is a file", "files": empty})
	if f.Error == nil || f.Error.Code != "invalid_params" || !strings.Contains(f.Error.Message, "empty.txt") || !strings.Contains(f.Error.Message, "empty") {
		t.Fatalf("chats.send with a 0-byte file: %+v", f.Error)
	}
	var got struct{ Entries []chatEntry }
	c.result("chats.get", map[string]any{"id": conv.ID}, &got)
	if len(got.Entries) != 0 {
		t.Fatalf("a refused message was recorded: %+v", got.Entries)
	}
	if list, err := h.Demo.Tasks.List(t.Context(), nil); err != nil || len(list.Tasks) != 0 {
		t.Fatalf("the demo agent has tasks %+v, %v; want none", list, err)
	}

	task := &a2a.Task{ID: "ask", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("send me the file"))}}
	if _, err := h.Agent.Tasks.Create(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	f = c.call("inbox.act", map[string]any{"id": "ask", "action": "answer", "files": empty})
	if f.Error == nil || f.Error.Code != "invalid_params" || !strings.Contains(f.Error.Message, "empty") {
		t.Fatalf("inbox.act with a 0-byte file: %+v", f.Error)
	}
	if st, err := h.Agent.Tasks.Get(t.Context(), "ask"); err != nil || st.Version != 1 {
		t.Fatalf("the inbox task after the refused answer: %+v, %v", st, err)
	}
}
