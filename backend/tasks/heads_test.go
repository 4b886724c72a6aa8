package tasks_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/tasks"
)

// orphanEvent is a write hook that, once armed, logs an event for a task that does not exist with
// the foreign key check deferred to COMMIT: its write succeeds and its commit fails. On PostgreSQL,
// whose foreign key here is not deferrable, it breaks a deferred unique constraint of a table of the
// test's own instead (commitFails), with the same effect.
type orphanEvent struct {
	armed    bool
	postgres bool
}

// commitFails is a table whose constraint is checked at COMMIT (PostgreSQL).
const commitFails = `CREATE TABLE commit_fails (x INTEGER UNIQUE DEFERRABLE INITIALLY DEFERRED)`

func (o *orphanEvent) OnTaskWrite(ctx context.Context, tx *sql.Tx, _ *tasks.Write) error {
	if !o.armed {
		return nil
	}
	o.armed = false
	if o.postgres {
		_, err := tx.ExecContext(ctx, `INSERT INTO commit_fails (x) VALUES (1), (1)`)
		return err
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO task_events(task_id, seq, version, kind, final, event_json, created_at) VALUES ('missing', 1, 1, 'status', 0, '{}', 0)`)
	return err
}

// TestUpdateAfterAFailedCommitReadsTheRow: the store remembers each task's version and last seq
// from its writes instead of reading them on every update; a write whose commit fails must not be
// remembered. After an update whose batch did not commit, the task is still at its stored version,
// the next update at that version succeeds, and its log stays contiguous.
func TestUpdateAfterAFailedCommitReadsTheRow(t *testing.T) {
	db, s := open(t, filepath.Join(t.TempDir(), "t.db"))
	hook := &orphanEvent{postgres: db.Postgres()}
	if db.Postgres() {
		if _, err := db.Writer.Exec(commitFails); err != nil {
			t.Fatal(err)
		}
	}
	s.SetWriteHook(hook)
	ctx := t.Context()
	task := newTask("a")
	if _, err := s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	task.Status.State = a2a.TaskStateWorking
	update := func() (taskstore.TaskVersion, error) {
		return s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, nil), PrevVersion: 1})
	}
	hook.armed = true
	if _, err := update(); err == nil {
		t.Fatal("the update whose commit fails succeeded")
	}
	if got, err := s.Get(ctx, task.ID); err != nil || got.Version != 1 {
		t.Fatalf("after the failed commit: %+v, %v; want version 1", got, err)
	}
	v, err := update()
	if err != nil || v != 2 {
		t.Fatalf("update at the stored version: %v, %v; want version 2", v, err)
	}
	log, err := s.Log(ctx, task.ID, 0)
	if err != nil || len(log) != 2 || log[0].Seq != 1 || log[1].Seq != 2 {
		t.Fatalf("log %+v, %v; want seqs 1, 2", log, err)
	}
}
