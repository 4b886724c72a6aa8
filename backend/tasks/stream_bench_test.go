package tasks_test

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// BenchmarkIdleStreams measures what the store's replay pins for each of N streams whose consumer
// took the first event and then stops reading (what a SubscribeToTask client that never reads
// amounts to), on a task whose history holds one 8 MiB file: its log is the task, the message and
// the working status. Reported: heap in use after GC once every stream holds its first event.
//
//	go test ./backend/tasks -run '^$' -bench IdleStreams -benchtime 1x
func BenchmarkIdleStreams(b *testing.B) {
	const streams = 100
	_, s := open(b, filepath.Join(b.TempDir(), "t.db"))
	ctx := b.Context()
	file := a2a.NewRawPart(make([]byte, 8<<20))
	msg := a2a.NewMessage(a2a.MessageRoleUser, file)
	task := &a2a.Task{ID: "big", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}, History: []*a2a.Message{msg}}
	if _, err := s.Create(ctx, task); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: msg, PrevVersion: 1}); err != nil {
		b.Fatal(err)
	}
	task.Status.State = a2a.TaskStateWorking
	if _, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, nil), PrevVersion: 2}); err != nil {
		b.Fatal(err)
	}
	task, file, msg = nil, nil, nil
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	for b.Loop() {
		before := heap()
		var ready, done sync.WaitGroup
		release := make(chan struct{})
		for range streams {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				for _, err := range s.Stream(ctx, "big") {
					if err != nil {
						b.Error(err)
					}
					ready.Done()
					<-release // the consumer stops reading here
					return
				}
			}()
		}
		ready.Wait()
		after := heap()
		close(release)
		done.Wait()
		b.ReportMetric(float64(after-before)/streams/(1<<20), "MiB/stream")
		b.ReportMetric(float64(after-before)/(1<<20), "MiB-total")
	}
}
