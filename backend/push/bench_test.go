package push_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// BenchmarkTaskUpdate is what the outbox adds to a task write: none (no hook), the hook with no push
// config (one indexed lookup), and one v1.0 config (an outbox row per event). Delivery is not
// started: this measures the write path only.
func BenchmarkTaskUpdate(b *testing.B) {
	for _, c := range []struct {
		name    string
		hook    bool
		configs int
	}{{"no hook", false, 0}, {"hook, no config", true, 0}, {"hook, 1 config", true, 1}} {
		b.Run(c.name, func(b *testing.B) {
			db, err := store.Open(storetest.Target(b, filepath.Join(b.TempDir(), "hub.db")))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			ts, err := tasks.Open(b.Context(), db, nil, "bench")
			if err != nil {
				b.Fatal(err)
			}
			configs := tasks.NewPushConfigs(db)
			if c.hook {
				o, err := push.Open(b.Context(), push.Config{DB: db, Configs: configs})
				if err != nil {
					b.Fatal(err)
				}
				ts.SetWriteHook(o)
			}
			task := &a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
			for i := range c.configs {
				if _, err := configs.Save(b.Context(), task.ID, &a2a.PushConfig{ID: fmt.Sprint(i), URL: "http://127.0.0.1:9/hook"}); err != nil {
					b.Fatal(err)
				}
			}
			v, err := ts.Create(b.Context(), task)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				ev := &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}
				if v, err = ts.Update(b.Context(), &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: v}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
