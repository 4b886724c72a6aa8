// Package inbox is the hub's inbox skill: a message from a remote agent for the person at the desktop.
// The task waits, durably, until the owner acts on it through this package's API: answer (the task
// stays open, the remote side sees the answer live), ask back (input-required), complete, or reject.
// A task waiting when the hub stops is still waiting after it starts again.
package inbox

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Skill is the inbox's entry on the hub's card.
var Skill = a2a.AgentSkill{
	ID:          "inbox",
	Name:        "Message the person at this desktop",
	Description: "Delivers your message to the AgentHub owner, who can answer, ask you back (input-required), complete or reject the task. Stream the task or resubscribe to see the answer the moment it is given.",
	Tags:        []string{"human", "inbox"},
	Examples:    []string{"Can you approve the deployment of v2.3 to staging?"},
}

// Action is what the owner does with a waiting task.
type Action string

const (
	Answer   Action = "answer"   // send text back; the task stays open for more
	AskBack  Action = "ask"      // ask the sender a question: input-required
	Complete Action = "complete" // done, with optional closing text
	Reject   Action = "reject"   // refuse, with optional reason
)

// DefaultBlockingWait bounds how long a blocking send (SendMessage, message/send, tasks/send) to the
// inbox waits for the owner. A person may take hours and every HTTP client times out long before, so
// after this the send returns the task as it stands: working, with WaitingMessage as its status.
const DefaultBlockingWait = 3 * time.Second

// WaitingMessage is the status message of a task waiting for the owner. It tells the sender how to
// learn the answer, since a blocking send returns before it is given.
const WaitingMessage = "Delivered to the owner's inbox; they answer when they can. " +
	"To learn the answer, stream this task (SubscribeToTask / tasks/resubscribe), poll it (GetTask / tasks/get), " +
	"or give a push notification config."

// ErrNotWaiting means the task is not waiting for the owner (the sender has to reply first, or it ended).
var ErrNotWaiting = errors.New("task is not waiting for the owner")

// Inbox is the executor of the inbox skill and the owner's API to it.
type Inbox struct {
	store *tasks.Store
	db    *store.DB // the owner's read marks

	mu           sync.Mutex
	waiters      map[a2a.TaskID]*waiter // executions running in this process, waiting for the owner
	blockingWait time.Duration
	quota        Quota // what one caller may leave here (quota.go)
}

type waiter struct {
	acts chan act
	done chan struct{}
	// PostgreSQL, several replicas: another replica may write the task (the owner acted there, or a
	// follow-up started an execution there). check asks the execution to read the task again, and
	// version is the task's version as this execution last wrote it: a higher one in the table means
	// someone else wrote, and this execution can no longer write the task (its version is stale).
	check   chan struct{}
	version atomic.Int64
	// behind is closed by a caller that found the task written elsewhere: end at once.
	behind     chan struct{}
	behindOnce sync.Once
}

// nudge asks the waiting execution to read its task again (never blocks: one pending is enough).
func (w *waiter) nudge() {
	select {
	case w.check <- struct{}{}:
	default:
	}
}

// noteTopic is the inbox's note between replicas: a task (its id) that an owner's action or a new
// execution wrote, so a replica whose execution waits on it reads it again.
const noteTopic = "inbox"

type act struct {
	events []a2a.Event
	result chan error
}

// Open migrates the inbox's table in db and returns the inbox over the hub's task store.
func Open(ctx context.Context, db *store.DB, ts *tasks.Store) (*Inbox, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "inbox", sub); err != nil {
		return nil, err
	}
	in := &Inbox{store: ts, db: db, waiters: map[a2a.TaskID]*waiter{}, blockingWait: DefaultBlockingWait,
		quota: DefaultQuota}
	// Notes come only on PostgreSQL: a waiter named by one re-reads its task; after a reconnection
	// (notes may have been lost) every waiter does.
	db.Follow(noteTopic, func(id string) {
		in.mu.Lock()
		w := in.waiters[a2a.TaskID(id)]
		in.mu.Unlock()
		if w != nil {
			w.nudge()
		}
	}, func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		for _, w := range in.waiters {
			w.nudge()
		}
	})
	return in, nil
}

// announce tells the other replicas, once tx commits, that task id was written outside their
// executions. Nothing on SQLite.
func (in *Inbox) announce(tx *sql.Tx, id a2a.TaskID) error {
	if len(id) > store.MaxNote { // not an id this hub made; a waiter elsewhere finds out at its next check
		return nil
	}
	return in.db.Announce(tx, noteTopic, string(id))
}

// BlockingWait is how long a blocking send to the inbox waits for the owner to end the turn before it
// returns the task still working (the server asks the executor; see server.Config).
func (in *Inbox) BlockingWait() time.Duration {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.blockingWait
}

// SetBlockingWait changes BlockingWait; zero or less keeps DefaultBlockingWait.
func (in *Inbox) SetBlockingWait(d time.Duration) {
	if d <= 0 {
		d = DefaultBlockingWait
	}
	in.mu.Lock()
	in.blockingWait = d
	in.mu.Unlock()
}

var _ a2asrv.AgentExecutor = (*Inbox)(nil)
var _ tasks.Resumer = (*Inbox)(nil)

// Execute records the message and waits for the owner. Each owner action is yielded into a2a-go's
// pipeline (so it is stored, then streamed to the sender); the execution ends with the first action
// that ends the turn.
func (in *Inbox) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		w := &waiter{acts: make(chan act), done: make(chan struct{}), check: make(chan struct{}, 1), behind: make(chan struct{})}
		// put yields one event, which stores it as the task's next version.
		put := func(ev a2a.Event) bool {
			w.version.Add(1)
			return yield(ev, nil)
		}
		if ec.StoredTask != nil && in.db.Postgres() {
			// Where the task stands as this execution starts (the server stored the message), and a
			// note to a replica that may still hold an execution of the task: it is not the task's
			// writer any more. Neither failing is a reason to fail the task: without its version
			// this execution never takes itself for stale; without the note the other one finds out
			// at its next check.
			if row, err := in.store.Row(ctx, ec.TaskID); err == nil {
				w.version.Store(int64(row.Version))
			} else {
				w.version.Store(1 << 62)
			}
			in.db.Write(ctx, func(tx *sql.Tx) error { return in.announce(tx, ec.TaskID) })
		}
		if ec.StoredTask == nil && !put(a2a.NewSubmittedTask(ec, ec.Message)) {
			return
		}
		in.mu.Lock()
		in.waiters[ec.TaskID] = w
		in.mu.Unlock()
		defer func() {
			in.forget(ec.TaskID, w)
			close(w.done)
		}()
		waiting := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(WaitingMessage))
		if !put(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, waiting)) {
			return
		}
		// Another replica wrote the task: this execution's version is stale, so it cannot write the
		// task any more, and ends, writing nothing: the server sends its caller the task as stored.
		// Out of the waiters first, so the owner's next action here writes the task directly.
		stale := func() {
			in.forget(ec.TaskID, w)
			yield(nil, fmt.Errorf("inbox task %s: %w", ec.TaskID, server.ErrWrittenElsewhere))
		}
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.check:
				if in.behind(ctx, ec.TaskID, w) {
					stale()
					return
				}
			case <-w.behind:
				stale()
				return
			case a := <-w.acts:
				final := false
				for _, ev := range a.events {
					final = final || tasks.IsFinal(ev)
					if !put(ev) {
						a.result <- ctx.Err()
						return
					}
					// The server ends the run (and cancels ctx) when it cannot store an event: on
					// PostgreSQL, another replica wrote the task since the check in local. (A final
					// event ends the run either way: that narrow race goes unnoticed.)
					if !tasks.IsFinal(ev) && ctx.Err() != nil && in.db.Postgres() {
						a.result <- fmt.Errorf("inbox task %s changed while the owner's action was stored (another replica wrote it): try again", ec.TaskID)
						return
					}
				}
				a.result <- nil
				if final {
					return
				}
			}
		}
	}
}

// forget takes w out of the waiters, if it is still the task's.
func (in *Inbox) forget(id a2a.TaskID, w *waiter) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.waiters[id] == w {
		delete(in.waiters, id)
	}
}

// behind reads the task from the table and reports whether another replica wrote it since w's
// execution last did. A read that fails is not taken for a change (the next check reads again).
func (in *Inbox) behind(ctx context.Context, id a2a.TaskID, w *waiter) bool {
	row, err := in.store.Row(ctx, id)
	return err == nil && int64(row.Version) > w.version.Load()
}

// local returns the execution waiting on task id in this process, if it is still the task's writer:
// on PostgreSQL, one whose task another replica wrote meanwhile is told to end, and waited for.
func (in *Inbox) local(ctx context.Context, id a2a.TaskID) (*waiter, error) {
	in.mu.Lock()
	w := in.waiters[id]
	in.mu.Unlock()
	if w == nil || !in.db.Postgres() {
		return w, nil
	}
	if !in.behind(ctx, id, w) {
		return w, nil
	}
	w.behindOnce.Do(func() { close(w.behind) })
	select {
	case <-w.done:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Cancel ends a waiting task at the sender's request.
func (in *Inbox) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// Resume keeps an inbox task that was waiting when the hub stopped: the owner can still act on it.
func (in *Inbox) Resume(ctx context.Context, t *a2a.Task) bool { return true }

// File is an attachment to the owner's reply.
type File struct {
	Name      string
	MediaType string
	Bytes     []byte
}

// ForOwner reports whether a task of the hub is the owner's: one the inbox received, not one
// another of the hub's skills answered (such a task names its skill in its metadata, "skill").
func ForOwner(t *a2a.Task) bool {
	skill, named := t.Metadata["skill"]
	return !named || skill == Skill.ID
}

// WaitingForOwner reports whether a task in state s waits for the owner to act.
func WaitingForOwner(s a2a.TaskState) bool {
	return s == a2a.TaskStateSubmitted || s == a2a.TaskStateWorking
}

// Act applies the owner's action to a waiting task, with text and files as its content. If the
// execution that received the task is running here, the action goes through it; otherwise (the hub
// restarted since) it is written to the store directly. Either way it is durable, and streams of the
// task see it, when Act returns nil. The owner has then seen the task as it stands.
//
// With several replicas, the execution may wait in another one: the action is then written here, and
// a note (in the same write as the owner's mark) tells that replica's execution to end.
func (in *Inbox) Act(ctx context.Context, id a2a.TaskID, action Action, text string, files ...File) error {
	return in.ActReply(ctx, id, action, Reply{Text: text, Files: files})
}

// Reply is what the owner sends with an action: text, files, and A2UI messages (an action or an
// error, about a surface the sender drew in this task).
type Reply struct {
	Text  string
	Files []File
	A2UI  []any
}

// ActReply is Act with a Reply. A2UI messages are checked (a2ui.CheckClient): actions and errors (v0.9 or v0.8)
// about surfaces the sender created in this task only.
func (in *Inbox) ActReply(ctx context.Context, id a2a.TaskID, action Action, r Reply) error {
	if err := in.act(ctx, id, action, r); err != nil {
		return err
	}
	// Open still after an answer, but the sender's turn: no longer waiting for the owner.
	return in.mark(ctx, id, action == Answer, true)
}

func (in *Inbox) act(ctx context.Context, id a2a.TaskID, action Action, r Reply) error {
	stored, err := in.store.Get(ctx, id)
	if err != nil {
		return err
	}
	task := stored.Task
	if st := task.Status.State; !WaitingForOwner(st) {
		return fmt.Errorf("%w: %s is %s", ErrNotWaiting, id, st)
	}
	if len(r.A2UI) > 0 {
		created := a2ui.Created{}
		for _, m := range task.History {
			if m != nil && m.Role == a2a.MessageRoleUser { // the sender's messages
				a2ui.AddCreated(created, m.Parts)
			}
		}
		if err := a2ui.CheckClient(r.A2UI, nil, created); err != nil {
			return fmt.Errorf("%w: %w", err, a2a.ErrInvalidParams)
		}
	}
	events, err := eventsFor(task, action, r)
	if err != nil {
		return err
	}
	w, err := in.local(ctx, id)
	if err != nil {
		return err
	}
	if w != nil {
		delivered, err := in.through(ctx, w, id, int64(stored.Version), events)
		if delivered || err != nil {
			return err
		}
	}
	for _, ev := range events {
		if _, err := in.store.Apply(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// through hands events to the execution waiting on task id, and returns once they are stored. It
// reports false if the execution ended meanwhile (canceled) without taking them.
func (in *Inbox) through(ctx context.Context, w *waiter, id a2a.TaskID, version int64, events []a2a.Event) (delivered bool, err error) {
	a := act{events: events, result: make(chan error, 1)}
	select {
	case w.acts <- a:
		select {
		case err := <-a.result:
			if err != nil {
				return true, err
			}
			return true, in.awaitStored(ctx, id, version+int64(len(events)))
		case <-ctx.Done():
			return true, ctx.Err()
		}
	case <-w.done:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// FollowUp takes a sender's further message into a task that waits for the owner while its
// execution runs here: a2a-go would refuse it ("task execution is already in progress"), but a
// person reads the whole conversation, so the message joins the task (as a status message, which
// the next status moves into the history) and the task goes on waiting, the owner's unread count
// up. It reports false, doing nothing, when no execution holds the task here (after a restart a2a-go
// starts one for the message as usual) or the task no longer waits for the owner.
func (in *Inbox) FollowUp(ctx context.Context, msg *a2a.Message) (bool, error) {
	if msg == nil || msg.TaskID == "" {
		return false, nil
	}
	w, err := in.local(ctx, msg.TaskID)
	if w == nil || err != nil {
		return false, err
	}
	stored, err := in.store.Get(ctx, msg.TaskID)
	if err != nil {
		return false, err
	}
	task := stored.Task
	if !WaitingForOwner(task.Status.State) {
		return false, nil
	}
	switch {
	case msg.ID == "" || len(msg.Parts) == 0 || msg.Role != a2a.MessageRoleUser:
		return true, fmt.Errorf("a message needs an id, parts and the user role: %w", a2a.ErrInvalidParams)
	case msg.ContextID != "" && msg.ContextID != task.ContextID:
		return true, fmt.Errorf("task %s is in context %s, not %s: %w", task.ID, task.ContextID, msg.ContextID, a2a.ErrInvalidParams)
	}
	m := *msg
	m.ContextID = task.ContextID
	waiting := a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart(WaitingMessage))
	events := []a2a.Event{
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, &m),
		a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, waiting),
	}
	return in.through(ctx, w, task.ID, int64(stored.Version), events)
}

// awaitStored waits until the task's version reaches want: a2a-go stores yielded events on its own
// goroutine, and the owner's action is not done until it is stored.
func (in *Inbox) awaitStored(ctx context.Context, id a2a.TaskID, want int64) error {
	for l, err := range in.store.Stream(ctx, id) {
		if err != nil {
			return err
		}
		if int64(l.Version) >= want {
			return nil
		}
	}
	return ctx.Err()
}

func eventsFor(task *a2a.Task, action Action, r Reply) ([]a2a.Event, error) {
	text := r.Text
	var parts a2a.ContentParts
	if text != "" {
		parts = append(parts, a2a.NewTextPart(text))
	}
	if len(r.A2UI) > 0 {
		parts = append(parts, a2ui.Parts(r.A2UI)...)
	}
	for _, f := range r.Files {
		if f.Name == "" {
			return nil, fmt.Errorf("an attached file needs a name: %w", a2a.ErrInvalidParams)
		}
		if len(f.Bytes) == 0 { // a2a-go would store an empty file as {"raw":null}, which does not read back
			return nil, fmt.Errorf("attached file %q is empty (0 bytes) and cannot be sent over A2A: %w", f.Name, a2a.ErrInvalidParams)
		}
		p := a2a.NewRawPart(f.Bytes)
		p.Filename, p.MediaType = f.Name, f.MediaType
		if p.MediaType == "" {
			p.MediaType = "application/octet-stream"
		}
		parts = append(parts, p)
	}
	var msg *a2a.Message
	if len(parts) > 0 {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, task, parts...)
	}
	switch action {
	case Answer:
		if len(parts) == 0 {
			return nil, fmt.Errorf("an answer needs text, a file or an A2UI action: %w", a2a.ErrInvalidParams)
		}
		return []a2a.Event{
			&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID,
				Artifact: &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "answer", Parts: parts}},
		}, nil
	case AskBack:
		if text == "" {
			return nil, fmt.Errorf("asking back needs a question: %w", a2a.ErrInvalidParams)
		}
		return []a2a.Event{a2a.NewStatusUpdateEvent(task, a2a.TaskStateInputRequired, msg)}, nil
	case Complete:
		return []a2a.Event{a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, msg)}, nil
	case Reject:
		return []a2a.Event{a2a.NewStatusUpdateEvent(task, a2a.TaskStateRejected, msg)}, nil
	}
	return nil, fmt.Errorf("unknown inbox action %q: %w", action, a2a.ErrInvalidParams)
}

// MarkRead records that the owner has seen the task as it stands now.
func (in *Inbox) MarkRead(ctx context.Context, id a2a.TaskID) error {
	return in.mark(ctx, id, false, false)
}

// mark records the task's version as seen and, when answered, as answered by the owner. acted: the
// owner acted on the task, which the other replicas are told (announce).
func (in *Inbox) mark(ctx context.Context, id a2a.TaskID, answered, acted bool) error {
	row, err := in.store.Row(ctx, id)
	if err != nil {
		return err
	}
	v := int64(row.Version)
	a := int64(0)
	if answered {
		a = v
	}
	// The larger of the two versions: SQLite's two-argument MAX is PostgreSQL's GREATEST.
	query := `INSERT INTO inbox_seen(task_id, seen_version, answered_version) VALUES (?, ?, ?)
		ON CONFLICT(task_id) DO UPDATE SET seen_version = MAX(seen_version, excluded.seen_version),
			answered_version = MAX(answered_version, excluded.answered_version)`
	if in.db.Postgres() {
		query = `INSERT INTO inbox_seen(task_id, seen_version, answered_version) VALUES (?, ?, ?)
		ON CONFLICT(task_id) DO UPDATE SET seen_version = GREATEST(inbox_seen.seen_version, excluded.seen_version),
			answered_version = GREATEST(inbox_seen.answered_version, excluded.answered_version)`
	}
	if !acted || !in.db.Postgres() {
		_, err = in.db.Writer.ExecContext(ctx, query, string(id), v, a)
		return err
	}
	return in.db.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, query, string(id), v, a); err != nil {
			return err
		}
		return in.announce(tx, id)
	})
}

// Unread reports, of the given tasks, which wait for the owner at a version the owner has not seen.
func (in *Inbox) Unread(ctx context.Context, rows []tasks.Row) (map[a2a.TaskID]bool, error) {
	seen, answered, err := in.marks(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := map[a2a.TaskID]bool{}
	for _, r := range rows {
		id := string(r.Task.ID)
		if waiting(r, answered[id]) && int64(r.Version) > seen[id] {
			out[r.Task.ID] = true
		}
	}
	return out, nil
}

// Answered reports, of the given tasks, which are open but answered by the owner: waiting for the
// sender, until the sender writes again.
func (in *Inbox) Answered(ctx context.Context, rows []tasks.Row) (map[a2a.TaskID]bool, error) {
	_, answered, err := in.marks(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := map[a2a.TaskID]bool{}
	for _, r := range rows {
		if WaitingForOwner(r.Task.Status.State) && !waiting(r, answered[string(r.Task.ID)]) {
			out[r.Task.ID] = true
		}
	}
	return out, nil
}

// waiting: the task is open and nothing was answered since the owner's last answer.
func waiting(r tasks.Row, answeredAt int64) bool {
	return WaitingForOwner(r.Task.Status.State) && int64(r.Version) > answeredAt
}

// marks reads the owner's seen and answered versions of the given tasks.
func (in *Inbox) marks(ctx context.Context, rows []tasks.Row) (seen, answered map[string]int64, err error) {
	seen, answered = map[string]int64{}, map[string]int64{}
	const chunk = 500 // well under SQLite's bound-parameter limit
	for start := 0; start < len(rows); start += chunk {
		part := rows[start:min(start+chunk, len(rows))]
		args := make([]any, len(part))
		for i, r := range part {
			args[i] = string(r.Task.ID)
		}
		marks := strings.TrimSuffix(strings.Repeat("?,", len(part)), ",")
		q, err := in.db.Reader.QueryContext(ctx, `SELECT task_id, seen_version, answered_version FROM inbox_seen WHERE task_id IN (`+marks+`)`, args...)
		if err != nil {
			return nil, nil, err
		}
		for q.Next() {
			var id string
			var v, a int64
			if err := q.Scan(&id, &v, &a); err != nil {
				q.Close()
				return nil, nil, err
			}
			seen[id], answered[id] = v, a
		}
		q.Close()
		if err := q.Err(); err != nil {
			return nil, nil, err
		}
	}
	return seen, answered, nil
}

// Waiting returns every task waiting for the owner, newest first.
func (in *Inbox) Waiting(ctx context.Context) ([]tasks.Row, error) {
	return in.store.Page(ctx, tasks.PageQuery{States: []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking}, Limit: maxWaiting})
}

// maxWaiting bounds one read of the waiting tasks; an owner with more has bigger problems than a count.
const maxWaiting = 10000

// Counts returns how many tasks wait for the owner and how many of those are unread.
func (in *Inbox) Counts(ctx context.Context) (waiting, unread int, err error) {
	rows, err := in.Waiting(ctx)
	if err != nil {
		return 0, 0, err
	}
	u, err := in.Unread(ctx, rows)
	if err != nil {
		return 0, 0, err
	}
	a, err := in.Answered(ctx, rows)
	return len(rows) - len(a), len(u), err
}
