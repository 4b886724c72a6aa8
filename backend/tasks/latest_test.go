package tasks_test

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// TestGetAfterWritesIsTheStoredRow: Get answers a task the store just wrote from that write, without
// reading SQLite. What it answers must be what a fresh store reads from the file: the same task, the
// same version, hidden from another principal as the row is, and a copy the caller may change.
func TestGetAfterWritesIsTheStoredRow(t *testing.T) {
	db, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	alice := auth.WithPrincipal(t.Context(), auth.Principal{ID: "agent://alice", Kind: auth.KindAgent, Name: "alice"})
	bob := auth.WithPrincipal(t.Context(), auth.Principal{ID: "agent://bob", Kind: auth.KindAgent, Name: "bob"})
	task := newTask("t1")
	if _, err := s.Create(alice, task); err != nil {
		t.Fatal(err)
	}
	prev := taskstore.TaskVersion(1)
	for _, state := range []a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateCompleted} {
		task.Status.State = state
		v, err := s.Update(alice, &taskstore.UpdateRequest{Task: task, Event: a2a.NewStatusUpdateEvent(task, state, nil), PrevVersion: prev})
		if err != nil {
			t.Fatal(err)
		}
		prev = v
	}
	fresh, err := tasks.Open(t.Context(), db, bus.New(), "fresh")
	if err != nil {
		t.Fatal(err)
	}
	want, err := fresh.Get(alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != prev || got.Version != want.Version || got.User != want.User || got.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("Get = version %d, user %q, %s; the file holds version %d, user %q", got.Version, got.User, got.Task.Status.State, want.Version, want.User)
	}
	if _, err := s.Get(bob, "t1"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("another principal's Get: %v, want task not found", err)
	}
	got.Task.Status.State = a2a.TaskStateFailed
	got.Task.History = nil
	again, err := s.Get(alice, "t1")
	if err != nil || again.Task.Status.State != a2a.TaskStateCompleted || len(again.Task.History) != len(want.Task.History) {
		t.Fatalf("a Get after its caller changed the last one: %+v, %v", again, err)
	}
	// On SQLite it was answered from the write: with the read connections gone, the store that wrote
	// the task still answers it, a store that did not cannot. On PostgreSQL another replica may have
	// written the task since: Get reads the row (TestReplicasSeeEachOthersWrites).
	db.Reader.Close()
	if _, err := s.Get(alice, "t1"); err != nil && !storetest.Postgres() {
		t.Fatalf("Get without the read pool: %v", err)
	} else if err == nil && storetest.Postgres() {
		t.Fatal("on PostgreSQL, Get answered from its cache without reading the row")
	}
	if _, err := fresh.Get(alice, "t1"); err == nil {
		t.Fatal("a store that did not write the task answered it without reading the file")
	}
}
