package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

// BenchmarkMemoryAtScale writes 100,000 tasks the way an echo4 execution does (create, working,
// artifact, completed: four group-committed writes each, the push outbox as write hook) from 64
// writers, and prints the heap in use after GC and the WAL's size at 0, 10k and 100k tasks: memory
// must not grow with the number of stored tasks, nor the WAL with the writes made.
//
//	go test ./backend/bench -run '^$' -bench MemoryAtScale -benchtime 1x
func BenchmarkMemoryAtScale(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "scale.db")
	db, err := store.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ts, err := tasks.Open(ctx, db, bus.New(), "scale")
	if err != nil {
		b.Fatal(err)
	}
	outbox, err := push.Open(ctx, push.Config{DB: db, Configs: tasks.NewPushConfigs(db), Source: "scale"})
	if err != nil {
		b.Fatal(err)
	}
	ts.SetWriteHook(outbox)
	report := func(n int64) {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		wal := int64(0)
		if st, err := os.Stat(path + "-wal"); err == nil {
			wal = st.Size()
		}
		s := db.Stats()
		fmt.Printf("tasks %7d  heap in use %6.1f MiB  goroutines %3d  WAL %5.1f MiB  writes %7d in %6d batches\n",
			n, float64(m.HeapInuse)/(1<<20), runtime.NumGoroutine(), float64(wal)/(1<<20), s.Writes, s.Batches)
	}
	report(0)
	var next atomic.Int64
	write := func(upTo int64) {
		var wg sync.WaitGroup
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1); i <= upTo; i = next.Add(1) {
					if err := oneTask(ctx, ts, i); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		next.Store(upTo)
	}
	for _, n := range []int64{10_000, 100_000} {
		write(n)
		if b.Failed() {
			return
		}
		report(n)
	}
}

func oneTask(ctx context.Context, ts *tasks.Store, i int64) error {
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("task %d: benchmark echo text", i)))
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}, History: []*a2a.Message{msg}}
	v, err := ts.Create(ctx, task)
	if err != nil {
		return err
	}
	update := func(ev a2a.Event) error {
		v, err = ts.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: v})
		return err
	}
	task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking}
	if err := update(a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, nil)); err != nil {
		return err
	}
	art := &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "echo", Parts: a2a.ContentParts{a2a.NewTextPart("benchmark echo text")}}
	task.Artifacts = []*a2a.Artifact{art}
	if err := update(&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: art, LastChunk: true}); err != nil {
		return err
	}
	task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
	return update(a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, nil))
}
