package tasks_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// configCounter records how many push configs each task write was handed.
type configCounter struct{ seen []int }

func (c *configCounter) OnTaskWrite(_ context.Context, _ *sql.Tx, w *tasks.Write) error {
	c.seen = append(c.seen, len(w.PushConfigs))
	return nil
}

// The push configs a task write hands its hook follow Save, Delete and DeleteAll exactly (the store
// keeps an in-memory index of which tasks have any, instead of reading the table on every write), and
// a store opened on an existing file knows the configs already there.
func TestWriteHookSeesPushConfigsAsStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, s := open(t, path)
	hook := &configCounter{}
	s.SetWriteHook(hook)
	pc := tasks.NewPushConfigs(db)
	ctx := t.Context()
	task := newTask("a")
	if _, err := s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	version := taskstore.TaskVersion(1)
	update := func() {
		t.Helper()
		task.Status.State = a2a.TaskStateWorking
		v, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, nil), PrevVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		version = v
	}
	listed := func(want int) {
		t.Helper()
		got, err := pc.List(ctx, task.ID)
		if err != nil || len(got) != want {
			t.Fatalf("List: %d configs (%v), want %d", len(got), err, want)
		}
	}
	save := func(id string) {
		t.Helper()
		if _, err := pc.Save(ctx, task.ID, &a2a.PushConfig{ID: id, URL: "http://127.0.0.1:1/hook"}); err != nil {
			t.Fatal(err)
		}
	}
	update()
	listed(0)
	save("c1")
	listed(1)
	update()
	save("c2")
	update()
	if err := pc.Delete(ctx, task.ID, "c1"); err != nil {
		t.Fatal(err)
	}
	listed(1)
	update()
	if err := pc.Delete(ctx, task.ID, "c2"); err != nil {
		t.Fatal(err)
	}
	listed(0)
	update()
	save("c3")
	update()
	if err := pc.DeleteAll(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	listed(0)
	update()
	save("c4")
	want := []int{0, 0, 1, 2, 1, 0, 1, 0}
	if len(hook.seen) != len(want) {
		t.Fatalf("hook saw %v, want %v", hook.seen, want)
	}
	for i := range want {
		if hook.seen[i] != want[i] {
			t.Fatalf("hook saw %v, want %v", hook.seen, want)
		}
	}
	db.Close()

	// Reopened: the index is loaded from the table.
	db2, err := store.Open(storetest.Target(t, path))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	s2, err := tasks.Open(ctx, db2, bus.New(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tasks.NewPushConfigs(db2).List(ctx, task.ID); err != nil || len(got) != 1 {
		t.Fatalf("after reopening, List gave %d configs (%v), want the one stored", len(got), err)
	}
	hook2 := &configCounter{}
	s2.SetWriteHook(hook2)
	s, update = s2, func() {
		task.Status.State = a2a.TaskStateCompleted
		if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, nil), PrevVersion: version}); err != nil {
			t.Fatal(err)
		}
	}
	update()
	if len(hook2.seen) != 1 || hook2.seen[0] != 1 {
		t.Fatalf("after reopening, the hook saw %v configs, want the one stored", hook2.seen)
	}
}
