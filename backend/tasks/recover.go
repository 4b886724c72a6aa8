package tasks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// ErrTaskClosed means the task is already in a terminal state and takes no more updates.
var ErrTaskClosed = errors.New("task is in a terminal state")

// Apply writes a status or artifact event to a task outside an a2a-go execution (the owner answering
// an inbox task after a restart, recovery failing an interrupted task), the way a2a-go applies it
// inside one (WithStatus, WithArtifact), a status without a timestamp stamped now. Concurrent writers
// are resolved by retrying on the version check.
func (s *Store) Apply(ctx context.Context, ev a2a.Event) (*a2a.Task, error) {
	for range 5 {
		stored, err := s.Get(ctx, ev.TaskInfo().TaskID)
		if err != nil {
			return nil, err
		}
		task := stored.Task
		if task.Status.State.Terminal() {
			return nil, fmt.Errorf("%w: %s is %s", ErrTaskClosed, task.ID, task.Status.State)
		}
		switch v := ev.(type) {
		case *a2a.TaskStatusUpdateEvent:
			if v.Status.Timestamp == nil {
				now := s.now().UTC()
				v.Status.Timestamp = &now
			}
			task = WithStatus(task, v)
		case *a2a.TaskArtifactUpdateEvent:
			if task, err = WithArtifact(task, v); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("cannot apply %T to a task: %w", ev, a2a.ErrInvalidParams)
		}
		_, err = s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: stored.Version})
		if errors.Is(err, taskstore.ErrConcurrentModification) {
			continue
		}
		return task, err
	}
	return nil, fmt.Errorf("task %s kept changing under us: %w", ev.TaskInfo().TaskID, taskstore.ErrConcurrentModification)
}

// WithStatus is t with ev's status, as a2a-go applies a status event: the previous status message
// moves into history and ev's metadata is merged into the task's. t is left as it was (a stored task
// is shared, not copied; see backend/server's executions).
func WithStatus(t *a2a.Task, ev *a2a.TaskStatusUpdateEvent) *a2a.Task {
	next := *t
	if t.Status.Message != nil {
		next.History = append(slices.Clip(t.History), t.Status.Message)
	}
	if ev.Metadata != nil {
		next.Metadata = make(map[string]any, len(t.Metadata)+len(ev.Metadata))
		maps.Copy(next.Metadata, t.Metadata)
		maps.Copy(next.Metadata, ev.Metadata)
	}
	next.Status = ev.Status
	return &next
}

// WithArtifact is t with ev's artifact, as a2a-go applies an artifact event: added, replacing the one
// with its id, or appended to it (its parts, and its metadata merged). t is left as it was.
func WithArtifact(t *a2a.Task, ev *a2a.TaskArtifactUpdateEvent) (*a2a.Task, error) {
	next := *t
	i := slices.IndexFunc(t.Artifacts, func(a *a2a.Artifact) bool { return a.ID == ev.Artifact.ID })
	switch {
	case i < 0 && ev.Append:
		return nil, fmt.Errorf("no artifact found for update")
	case i < 0:
		next.Artifacts = append(slices.Clip(t.Artifacts), ev.Artifact)
	case !ev.Append:
		next.Artifacts = slices.Clone(t.Artifacts)
		next.Artifacts[i] = ev.Artifact
	default:
		grown := *t.Artifacts[i]
		grown.Parts = append(slices.Clip(grown.Parts), ev.Artifact.Parts...)
		if ev.Artifact.Metadata != nil {
			grown.Metadata = make(map[string]any, len(grown.Metadata)+len(ev.Artifact.Metadata))
			maps.Copy(grown.Metadata, t.Artifacts[i].Metadata)
			maps.Copy(grown.Metadata, ev.Artifact.Metadata)
		}
		next.Artifacts = slices.Clone(t.Artifacts)
		next.Artifacts[i] = &grown
	}
	return &next, nil
}

// Unfinished returns the tasks left submitted or working: after a restart nothing is running them.
// A row whose task JSON does not decode comes back marked Unreadable (see Row).
func (s *Store) Unfinished(ctx context.Context) ([]Row, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT `+rowColumns+` FROM tasks WHERE state IN (?, ?) ORDER BY created_at`,
		string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Resumer is implemented by an agent that can take back a task it was running before a restart.
// Resume reports whether it did; tasks nobody resumes are failed with a reason.
type Resumer interface {
	Resume(ctx context.Context, task *a2a.Task) bool
}

// Recover runs once at start, before the server accepts requests: every task left submitted or
// working is handed to r, and whatever r does not resume is failed, saying why, so no task stays
// "working" forever. A task among them whose stored JSON does not decode is failed too (see
// failUnreadable): one bad row never stops the hub from starting.
//
// On PostgreSQL other replicas may be running their tasks: Recover takes only the tasks whose
// holder is gone (lease.go), and from then on sweeps for such tasks every third of the lease.
func (s *Store) Recover(ctx context.Context, r Resumer) (resumed, failed int, err error) {
	if s.db.Postgres() {
		resumed, failed, err = s.sweep(ctx, r, true)
		if err == nil {
			s.sweeping.Do(func() { go s.sweepEvery(r) })
		}
		return resumed, failed, err
	}
	rows, err := s.Unfinished(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, row := range rows {
		if row.Unreadable != "" {
			if err := s.failUnreadable(ctx, row); err != nil {
				return resumed, failed, err
			}
			failed++
			continue
		}
		t := row.Task
		if r != nil && r.Resume(ctx, t) {
			resumed++
			continue
		}
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, t,
			a2a.NewTextPart("The agent restarted while this task was running, so it was stopped. Send the request again to retry."))
		if _, err := s.Apply(ctx, a2a.NewStatusUpdateEvent(t, a2a.TaskStateFailed, msg)); err != nil && !errors.Is(err, ErrTaskClosed) {
			return resumed, failed, err
		}
		failed++
	}
	return resumed, failed, nil
}

// failUnreadable replaces an unfinished task whose stored JSON does not decode with a minimal failed
// task: same id, context and dialect, the request it was created with when the log still has it, a
// status message saying why, and a status event in its log so a subscriber's stream ends. The
// undecodable JSON cannot be resumed or shown anyway, and leaving the task "working" would keep its
// sender waiting forever; its event log (the messages and artifacts it recorded) is kept as it was.
func (s *Store) failUnreadable(ctx context.Context, row Row) error {
	s.log.Warn("an interrupted task is unreadable; marking it failed", "source", s.source, "task", row.Task.ID, "error", row.Unreadable)
	now := s.now().UTC()
	task := &a2a.Task{ID: row.Task.ID, ContextID: row.Task.ContextID}
	if created := s.createdAs(ctx, row.Task.ID); created != nil {
		task.History = created.History
	}
	msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart(
		"The stored task could not be read back after a restart ("+row.Unreadable+"), so it was marked failed. Send the request again to retry."))
	task.Status = a2a.TaskStatus{State: a2a.TaskStateFailed, Message: msg, Timestamp: &now}
	_, err := s.Update(ctx, &taskstore.UpdateRequest{Task: task, PrevVersion: row.Version,
		Event: &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status}})
	return err
}

// createdAs is the task as first logged, if that event still reads (nil otherwise).
func (s *Store) createdAs(ctx context.Context, id a2a.TaskID) *a2a.Task {
	var created *a2a.Task
	_ = s.readLog(ctx, id, 0, `SELECT seq, version, kind, final, event_json, created_at FROM task_events
		WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT 1`, func(l *Logged, _ int) bool {
		created, _ = l.Event.(*a2a.Task)
		return false
	})
	return created
}
