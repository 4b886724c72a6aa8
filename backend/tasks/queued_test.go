package tasks_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/tasks"
)

// A task's writes queued one after the other, nobody waiting in between, are all stored in order,
// each at the version UpdateQueued announced, and writes queued while the writer is busy share one
// commit.
func TestQueuedWritesOfATaskAreStoredInOrder(t *testing.T) {
	db, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	// Hold the task's writer lane, so that every write below is queued before the next batch starts.
	inside, gate, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- db.WriteOn(context.Background(), "q", func(*sql.Tx) error {
			close(inside)
			<-gate
			return nil
		})
	}()
	<-inside
	before := db.Stats() // the held write's batch is counted already
	task := newTask("q")
	last, err := s.CreateQueued(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	version := taskstore.TaskVersion(1)
	const updates = 20
	for i := range updates {
		next := *task
		next.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("step "+string(rune('a'+i))))}
		ev := a2a.NewStatusUpdateEvent(&next, a2a.TaskStateWorking, next.Status.Message)
		v, p, err := s.UpdateQueued(ctx, &taskstore.UpdateRequest{Task: &next, Event: ev, PrevVersion: version}, last)
		if err != nil {
			t.Fatal(err)
		}
		if v != version+1 {
			t.Fatalf("update %d announced version %d after %d", i, v, version)
		}
		task, version, last = &next, v, p
	}
	close(gate)
	if err := errors.Join(<-held, last.Wait(ctx)); err != nil {
		t.Fatal(err)
	}
	if after := db.Stats(); after.Batches-before.Batches != 1 || after.Writes-before.Writes != updates+1 {
		t.Errorf("writer stats %+v then %+v: want the %d queued writes in one commit", before, after, updates+1)
	}
	row, err := s.Row(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if row.Version != version || row.Task.Status.Message.Parts[0].Text() != "step t" {
		t.Fatalf("stored version %d (%q), want %d", row.Version, row.Task.Status.Message.Parts[0].Text(), version)
	}
	entries, err := s.Log(ctx, "q", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != updates+1 {
		t.Fatalf("%d log entries, want %d", len(entries), updates+1)
	}
	for i, l := range entries {
		if l.Seq != int64(i+1) || l.Version != taskstore.TaskVersion(i+1) {
			t.Fatalf("entry %d is seq %d at version %d", i, l.Seq, l.Version)
		}
	}
}

// A queued write that is not stored takes the writes queued after it with it: they are refused
// without running (each builds on the task as the one before left it), with an error that says so
// and wraps the first one's; a write queued once that failure is known is refused at once; and the
// task stays as last stored.
func TestAQueuedWriteThatFailsRefusesTheOnesAfterIt(t *testing.T) {
	_, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	ctx := t.Context()
	if _, err := s.Create(ctx, newTask("f")); err != nil {
		t.Fatal(err)
	}
	working := newTask("f")
	working.Status.State = a2a.TaskStateWorking
	ev := a2a.NewStatusUpdateEvent(working, a2a.TaskStateWorking, nil)
	// Names version 5 of a task at version 1: refused, as another writer's move would make it.
	_, stale, err := s.UpdateQueued(ctx, &taskstore.UpdateRequest{Task: working, Event: ev, PrevVersion: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Names the version the stale write announced: it would apply if it ran on its own.
	_, after, err := s.UpdateQueued(ctx, &taskstore.UpdateRequest{Task: working, Event: ev, PrevVersion: 6}, stale)
	if err != nil {
		t.Fatal(err)
	}
	if err := stale.Wait(ctx); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Fatalf("the stale write: %v", err)
	}
	var earlier *tasks.EarlierWriteFailedError
	if err := after.Wait(ctx); !errors.As(err, &earlier) || !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Fatalf("the write after it: %v", err)
	}
	if _, _, err := s.UpdateQueued(ctx, &taskstore.UpdateRequest{Task: working, Event: ev, PrevVersion: 7}, after); !errors.As(err, &earlier) {
		t.Fatalf("a write queued after a known failure: %v", err)
	}
	if _, _, err := s.UpdateQueued(ctx, &taskstore.UpdateRequest{Task: working, Event: ev}, nil); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("a queued write that names no version: %v", err)
	}
	row, err := s.Row(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	if row.Version != 1 || row.Task.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("stored %s at version %d, want submitted at 1", row.Task.Status.State, row.Version)
	}
	if entries, err := s.Log(ctx, "f", 0); err != nil || len(entries) != 1 {
		t.Fatalf("log: %d entries, %v", len(entries), err)
	}
}
