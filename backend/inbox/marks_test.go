package inbox_test

import (
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// The owner's read and answer marks, over the inbox's own table and the task store alone (no hub),
// on the engine of the run: a task is unread until opened, answered once the owner answers, and a
// later mark never moves either back (a plain read after an answer keeps the answer), until the
// sender writes again.
func TestReadAndAnswerMarks(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ts, err := tasks.Open(ctx, db, bus.New(), "hub")
	if err != nil {
		t.Fatal(err)
	}
	in, err := inbox.Open(ctx, db, ts)
	if err != nil {
		t.Fatal(err)
	}
	task := &a2a.Task{ID: "a", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("a question"))}}
	if _, err := ts.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	check := func(step string, wantUnread, wantAnswered bool) {
		t.Helper()
		row, err := ts.Row(ctx, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		unread, err := in.Unread(ctx, []tasks.Row{row})
		if err != nil {
			t.Fatal(err)
		}
		answered, err := in.Answered(ctx, []tasks.Row{row})
		if err != nil {
			t.Fatal(err)
		}
		if unread[task.ID] != wantUnread || answered[task.ID] != wantAnswered {
			t.Fatalf("%s (version %d): unread %v, answered %v; want %v, %v", step, row.Version, unread[task.ID], answered[task.ID], wantUnread, wantAnswered)
		}
	}
	check("new task", true, false)
	if err := in.MarkRead(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	check("opened", false, false)
	if err := in.Act(ctx, task.ID, inbox.Answer, "an answer"); err != nil {
		t.Fatal(err)
	}
	check("answered", false, true)
	if err := in.MarkRead(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	check("opened again after the answer", false, true)
	stored, err := ts.Get(ctx, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	next := stored.Task
	next.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("a follow-up"))}
	if _, err := ts.Update(ctx, &taskstore.UpdateRequest{Task: next, Event: a2a.NewStatusUpdateEvent(next, a2a.TaskStateWorking, next.Status.Message),
		PrevVersion: stored.Version}); err != nil {
		t.Fatal(err)
	}
	check("the sender wrote again", true, false)
}
