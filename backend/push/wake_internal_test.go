package push

import (
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

type fakeSigner struct{}

func (fakeSigner) SignClaims(jwt.Claims) (string, error) { return "token", nil }

// Delivery wakes for the writes that recorded notifications, not for every task event: a task without
// push configs (nearly all) no longer makes delivery query the outbox on each of its events.
func TestOnlyWritesWithNotificationsWakeDelivery(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(storetest.Target(t, filepath.Join(t.TempDir(), "t.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := bus.New()
	ts, err := tasks.Open(ctx, db, b, "t")
	if err != nil {
		t.Fatal(err)
	}
	configs := tasks.NewPushConfigs(db)
	o, err := Open(ctx, Config{DB: db, Configs: configs, Bus: b, Source: "t"})
	if err != nil {
		t.Fatal(err)
	}
	ts.SetWriteHook(o)
	o.Start(fakeSigner{}, "http://127.0.0.1:1")
	defer o.Close()

	run := func(id a2a.TaskID) {
		t.Helper()
		task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
		if _, err := ts.Create(ctx, task); err != nil {
			t.Fatal(err)
		}
		task.Status.State = a2a.TaskStateCompleted
		if _, err := ts.Update(ctx, &taskstore.UpdateRequest{Task: task, PrevVersion: 1,
			Event: a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, nil)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []a2a.TaskID{"a", "b", "c"} {
		run(id)
	}
	if n := o.wakes.Load(); n != 0 {
		t.Fatalf("%d wake-ups for tasks without push configs, want none", n)
	}
	// A config saved before the task exists (as a2a-go does for a message's config) makes its writes
	// wake delivery.
	if _, err := configs.Save(ctx, "d", &a2a.PushConfig{ID: "p", URL: "http://127.0.0.1:1/hook"}); err != nil {
		t.Fatal(err)
	}
	run("d")
	if n := o.wakes.Load(); n != 2 {
		t.Fatalf("%d wake-ups for the two writes of a task with a push config, want 2", n)
	}
}
