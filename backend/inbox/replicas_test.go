package inbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// replica is one hub process over a shared PostgreSQL database, as far as the inbox goes: its own
// database handle (its own writer and notes listener), task store, inbox and A2A request handler.
type replica struct {
	db    *store.DB
	tasks *tasks.Store
	inbox *inbox.Inbox
	srv   *server.Server
}

func openReplica(t *testing.T, url string) *replica {
	t.Helper()
	db, err := store.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ts, err := tasks.Open(t.Context(), db, bus.New(), "hub")
	if err != nil {
		t.Fatal(err)
	}
	in, err := inbox.Open(t.Context(), db, ts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Name: "hub", Executor: in, Store: ts, BaseURL: "http://127.0.0.1:1",
		Skills: []a2a.AgentSkill{inbox.Skill}})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{db: db, tasks: ts, inbox: in, srv: srv}
	// The inbox follows its notes from Open on: wait until they reach this replica.
	select {
	case <-db.Listening():
	case <-time.After(20 * time.Second): // a hang guard only
		t.Fatal("the replica's notes listener did not start")
	}
	return r
}

// sending is a sender's streaming message to a replica, waiting for the owner.
type sending struct {
	id     a2a.TaskID
	events chan a2a.Event // after the working status; closed when the stream ends
	err    chan error     // the stream's error, if it ended with one
}

func sendWaiting(t *testing.T, r *replica, text string) *sending {
	t.Helper()
	s := &sending{events: make(chan a2a.Event, 16), err: make(chan error, 1)}
	ids := make(chan a2a.TaskID, 1)
	go func() {
		defer close(s.events)
		started := false
		for ev, err := range r.srv.Handler.SendStreamingMessage(context.Background(), &a2a.SendMessageRequest{
			Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}) {
			if err != nil {
				s.err <- err
				return
			}
			if !started {
				if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateWorking {
					ids <- st.TaskID
					started = true
				}
				continue
			}
			s.events <- ev
		}
	}()
	select {
	case s.id = <-ids:
	case err := <-s.err:
		t.Fatalf("the send failed: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the send never reached the owner")
	}
	return s
}

// ended waits for the stream to end, with no error, and returns its last event, which must be a task:
// the task as stored when the execution learned it was written elsewhere.
func (s *sending) ended(t *testing.T) *a2a.Task {
	t.Helper()
	var last a2a.Event
	for {
		select {
		case ev, open := <-s.events:
			if !open {
				select {
				case err := <-s.err:
					t.Fatalf("the sender's stream on the first replica ended with %v", err)
				default:
				}
				task, ok := last.(*a2a.Task)
				if !ok {
					t.Fatalf("the sender's stream on the first replica ended with %#v, not the task", last)
				}
				return task
			}
			last = ev
		case <-time.After(20 * time.Second): // a hang guard only
			t.Fatal("the sender's stream on the first replica is still open: its execution never learned that the task was written elsewhere")
		}
	}
}

// released checks that replica r holds no execution of the task any more: a further message is not
// taken into a running execution (FollowUp reports false and writes nothing).
func released(t *testing.T, r *replica, task *a2a.Task) {
	t.Helper()
	took, err := r.inbox.FollowUp(t.Context(), a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("still there?")))
	if err != nil || took {
		t.Fatalf("replica A still holds an execution of the task (took %v, %v)", took, err)
	}
}

func skipOnSQLite(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
}

// The sender's message waits for the owner in replica A's execution; the owner answers through
// replica B, which writes the answer to the task. A's execution learns of it (B's note) and ends
// without writing anything (its view of the task is stale), its sender's stream ending with the
// task as stored, answer included; the owner's later actions on A write the task directly instead
// of going through a stale execution.
func TestAnAnswerOnAnotherReplicaReleasesTheWaitingExecution(t *testing.T) {
	skipOnSQLite(t)
	url := storetest.Target(t, "")
	a, b := openReplica(t, url), openReplica(t, url)

	s := sendWaiting(t, a, "May I deploy?")
	if err := b.inbox.Act(t.Context(), s.id, inbox.Answer, "Looking at it now."); err != nil {
		t.Fatal(err)
	}
	answered, err := b.tasks.Row(t.Context(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	got := s.ended(t)
	if got.Status.State != a2a.TaskStateWorking || len(got.Artifacts) != 1 || got.Artifacts[0].Parts[0].Text() != "Looking at it now." {
		t.Fatalf("A's sender was last sent %s with artifacts %v", got.Status.State, got.Artifacts)
	}
	after, err := a.tasks.Row(t.Context(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version != answered.Version || after.Task.Status.State != a2a.TaskStateWorking ||
		len(after.Task.Artifacts) != 1 || after.Task.Artifacts[0].Parts[0].Text() != "Looking at it now." {
		t.Fatalf("the task after A's execution ended: version %d (answered at %d), %s, artifacts %v",
			after.Version, answered.Version, after.Task.Status.State, after.Task.Artifacts)
	}
	released(t, a, after.Task)
	if unread, err := b.inbox.Answered(t.Context(), []tasks.Row{after}); err != nil || !unread[s.id] {
		t.Fatalf("the owner's answer is not marked: %v %v", unread, err)
	}
}

// Completing the task on B ends A's execution with it: the sender's stream on A ends with the
// completed task, and the task stays completed as B wrote it (A does not fail it for an execution
// that stopped).
func TestCompletingOnAnotherReplicaEndsTheWaitingExecution(t *testing.T) {
	skipOnSQLite(t)
	url := storetest.Target(t, "")
	a, b := openReplica(t, url), openReplica(t, url)

	s := sendWaiting(t, a, "Ship it?")
	if err := b.inbox.Act(t.Context(), s.id, inbox.Complete, "Shipped."); err != nil {
		t.Fatal(err)
	}
	if got := s.ended(t); got.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("A's sender was last sent the task %s", got.Status.State)
	}
	row, err := a.tasks.Row(t.Context(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	if row.Task.Status.State != a2a.TaskStateCompleted || row.Task.Status.Message.Parts[0].Text() != "Shipped." {
		t.Fatalf("the task as stored: %s %+v", row.Task.Status.State, row.Task.Status.Message)
	}
}

// A note lost while A's listener was disconnected (here: a write to the task that announced
// nothing) is caught by the resync after it reconnects: every waiting execution reads its task.
func TestAReconnectedReplicaRechecksItsWaitingExecutions(t *testing.T) {
	skipOnSQLite(t)
	url := storetest.Target(t, "")
	a, b := openReplica(t, url), openReplica(t, url)

	s := sendWaiting(t, a, "Lunch?")
	waiting, err := b.tasks.Row(t.Context(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	// Written on B without the inbox, so without a note.
	if _, err := b.tasks.Apply(t.Context(), &a2a.TaskArtifactUpdateEvent{TaskID: s.id, ContextID: waiting.Task.ContextID,
		Artifact: &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart("Yes.")}}}); err != nil {
		t.Fatal(err)
	}
	// Cut every notes listener of the database: each reconnects (after a second) and resyncs.
	if _, err := b.db.Reader.ExecContext(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'listen%'`); err != nil {
		t.Fatal(err)
	}
	if got := s.ended(t); len(got.Artifacts) != 1 {
		t.Fatalf("A's sender was last sent the task with artifacts %v", got.Artifacts)
	}
	row, err := a.tasks.Row(t.Context(), s.id)
	if err != nil {
		t.Fatal(err)
	}
	released(t, a, row.Task)
}

// The sender's next message reaches replica B while A's execution still waits on the task (the
// owner answered through it): B starts an execution of its own for the message, and A's, no longer
// the task's writer, ends with the task as stored, the new message included. The owner then
// completes the task through B's execution, and the sender's stream on B ends with it.
func TestAFollowUpOnAnotherReplicaMovesTheExecutionThere(t *testing.T) {
	skipOnSQLite(t)
	url := storetest.Target(t, "")
	a, b := openReplica(t, url), openReplica(t, url)

	first := sendWaiting(t, a, "May I deploy?")
	if err := a.inbox.Act(t.Context(), first.id, inbox.Answer, "Which version?"); err != nil {
		t.Fatal(err)
	}
	if ev := <-first.events; ev == nil {
		t.Fatal("A's stream ended before the answer")
	}
	row, err := b.tasks.Row(t.Context(), first.id)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan a2a.Event, 16)
	go func() {
		defer close(events)
		for ev, err := range b.srv.Handler.SendStreamingMessage(context.Background(), &a2a.SendMessageRequest{
			Message: a2a.NewMessageForTask(a2a.MessageRoleUser, row.Task, a2a.NewTextPart("v2.3"))}) {
			if err != nil {
				t.Errorf("the follow-up's stream on B: %v", err)
				return
			}
			events <- ev
		}
	}()
	select { // B's execution waits for the owner
	case ev := <-events:
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateWorking {
			t.Fatalf("the follow-up's stream on B began with %#v", ev)
		}
	case <-time.After(20 * time.Second): // a hang guard only
		t.Fatal("the follow-up never reached the owner on B")
	}
	got := first.ended(t)
	if !slices.ContainsFunc(got.History, func(m *a2a.Message) bool { return m.Parts[0].Text() == "v2.3" }) {
		t.Fatalf("A's sender was last sent the task (%s) without the follow-up: %d messages", got.Status.State, len(got.History))
	}
	released(t, a, row.Task)
	if err := b.inbox.Act(t.Context(), first.id, inbox.Complete, "Deployed v2.3."); err != nil {
		t.Fatal(err)
	}
	var last a2a.Event
	for ev := range events {
		last = ev
	}
	if st, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("the follow-up's stream on B ended with %#v", last)
	}
}
