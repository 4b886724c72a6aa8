package tasks_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// BenchmarkTaskWrites measures the store's write path alone, the way a2a-go drives it: one op is a
// task's whole life (Create, then each event as an Update carrying the whole task, each waiting for
// its commit), many tasks at once so the group-commit writer batches them. "small" is the 4-event
// echo; "artifact-64" streams one artifact in 64 appended 1 KiB chunks, so the task grows with every
// event (what a token-streaming agent does).
//
//	go test ./backend/tasks -run '^$' -bench TaskWrites -cpu 2
func BenchmarkTaskWrites(b *testing.B) {
	for _, c := range []struct {
		name   string
		chunks int
	}{{"small", 1}, {"artifact-64", 64}} {
		b.Run(c.name, func(b *testing.B) {
			db, s := open(b, filepath.Join(b.TempDir(), "t.db"))
			ctx := b.Context()
			chunk := strings.Repeat("x", 1024)
			var n atomic.Int64
			b.SetParallelism(16) // 32 writers on 2 CPUs, as `make bench` runs 32 clients
			before, cpu0 := db.Stats(), cpuTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					task := newTask(fmt.Sprint("t", n.Add(1)))
					v, err := s.Create(ctx, task)
					if err != nil {
						b.Fatal(err)
					}
					update := func(ev a2a.Event) {
						if v, err = s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: v}); err != nil {
							b.Fatal(err)
						}
					}
					task.Status = a2a.TaskStatus{State: a2a.TaskStateWorking}
					update(a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, nil))
					art := &a2a.Artifact{ID: "a", Name: "echo"}
					task.Artifacts = []*a2a.Artifact{art}
					for i := range c.chunks {
						art.Parts = append(art.Parts, a2a.NewTextPart(chunk))
						update(&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Append: i > 0, LastChunk: i == c.chunks-1,
							Artifact: &a2a.Artifact{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart(chunk)}}})
					}
					task.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
					update(a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, nil))
				}
			})
			after, cpu := db.Stats(), cpuTime()-cpu0
			// CPU time, not ns/op, is what to compare on a shared machine: wall time follows its load.
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(after.Writes-before.Writes)/float64(max(1, after.Batches-before.Batches)), "writes/commit")
		})
	}
}

// cpuTime is the CPU time this process has used so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
