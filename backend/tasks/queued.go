package tasks

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/store"
)

// Queued writes: an execution's writes of its task, queued one after the other without waiting for
// each commit (CreateQueued, UpdateQueued), so an agent that yields its events back to back has them
// stored in one batch and one fsync instead of one each. Whoever passes an event on waits for its
// write first (Pending.Wait): what the caller is sent is always stored already.

// Pending is a queued task write: Wait returns its result once its batch committed or failed.
type Pending struct {
	done chan struct{} // closed once err is set
	err  error
	prev *Pending // the write it builds on, nil once it is decided

	mu     sync.Mutex
	failed error // its fn, or one it builds on, failed: the writes queued after it refuse to run
}

// Wait waits for the write, and so for every write of the chain before it, to be stored. A nil
// Pending is a write already stored.
func (p *Pending) Wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failure is why the write failed, known before it is decided when its fn failed.
func (p *Pending) failure() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

func (p *Pending) fail(err error) {
	p.mu.Lock()
	if p.failed == nil {
		p.failed = err
	}
	p.mu.Unlock()
}

// EarlierWriteFailedError wraps the error of a queued write that the write built on did not store.
type EarlierWriteFailedError struct{ Err error }

func (e *EarlierWriteFailedError) Error() string {
	return fmt.Sprintf("an earlier write of the task was not stored: %v", e.Err)
}
func (e *EarlierWriteFailedError) Unwrap() error { return e.Err }

// CreateQueued is Create without waiting for the commit: the task is version 1 once the write is.
func (s *Store) CreateQueued(ctx context.Context, task *a2a.Task) (*Pending, error) {
	w, err := s.creation(ctx, task)
	if err != nil {
		return nil, err
	}
	return s.queue(ctx, task.ID, w, nil)
}

// UpdateQueued is Update without waiting for the commit. after is the write this one builds on (the
// pending write of req.PrevVersion, or nil when that version is stored): if it fails, this one is
// refused without running. The version returned is the one the update writes once stored.
func (s *Store) UpdateQueued(ctx context.Context, req *taskstore.UpdateRequest, after *Pending) (taskstore.TaskVersion, *Pending, error) {
	if req != nil && req.PrevVersion == taskstore.TaskVersionMissing {
		return taskstore.TaskVersionMissing, nil, fmt.Errorf("a queued update names the version it follows: %w", a2a.ErrInvalidParams)
	}
	if err := after.failure(); err != nil {
		return taskstore.TaskVersionMissing, nil, &EarlierWriteFailedError{err}
	}
	var version taskstore.TaskVersion
	w, err := s.update(ctx, req, &version)
	if err != nil {
		return taskstore.TaskVersionMissing, nil, err
	}
	p, err := s.queue(ctx, req.Task.ID, w, after)
	if err != nil {
		return taskstore.TaskVersionMissing, nil, err
	}
	return req.PrevVersion + 1, p, nil
}

// queue queues w on the task's lane as the write after prev.
func (s *Store) queue(ctx context.Context, id a2a.TaskID, w *taskWrite, prev *Pending) (*Pending, error) {
	p := &Pending{done: make(chan struct{}), prev: prev}
	fn := func(tx *sql.Tx) error {
		// The writes of a task run in the order queued (one lane), so prev's fn has run by now.
		if err := p.prev.failure(); err != nil {
			err = &EarlierWriteFailedError{err}
			p.fail(err)
			return store.NothingWritten(err)
		}
		err := w.fn(tx)
		if err != nil {
			p.fail(err)
		}
		return err
	}
	then := func(err error) {
		w.then(err)
		if err != nil {
			p.fail(err)
		}
		p.err, p.prev = err, nil
		close(p.done)
	}
	// The write outlives the request that queued it, as a write that was waited for would have.
	if err := s.db.WriteLeanOnQueued(context.WithoutCancel(ctx), string(id), fn, then); err != nil {
		w.then(err)
		return nil, err
	}
	return p, nil
}
