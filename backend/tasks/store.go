// Package tasks keeps A2A tasks durable in SQLite: a2a-go's task store and push-config store
// interfaces, the per-task event log that streams replay, the dialect each task was created in, and
// recovery of tasks that were running when the process died.
package tasks

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of task events; the event's Source is the store's source, its Key the task
// id and its Data a *Logged.
const Topic = "task"

// Dialect names the protocol version a task was created in; it answers in that dialect.
type Dialect string

const (
	DialectV1  Dialect = "1.0"
	DialectV03 Dialect = "0.3"
	DialectV01 Dialect = "0.1"
)

type dialectKey struct{}

// WithDialect marks ctx as a request in dialect d; a task created under it remembers d.
func WithDialect(ctx context.Context, d Dialect) context.Context {
	return context.WithValue(ctx, dialectKey{}, d)
}

func dialectFrom(ctx context.Context) Dialect {
	if d, ok := ctx.Value(dialectKey{}).(Dialect); ok {
		return d
	}
	return DialectV1
}

// Store is the SQLite task store. It implements a2a-go's taskstore.Store; every write commits the
// task row and its event-log entries in one transaction before it returns, then publishes on the bus.
type Store struct {
	db     *store.DB
	bus    *bus.Bus
	source string
	now    func() time.Time
	log    *slog.Logger
	hook   WriteHook
	st     *stmts
	push   *pushIndex
	// checked is what the last writes of recent tasks checked to read back (see encodeTask).
	checked pieceCache
	heads   *heads
	latest  latest

	// Several replicas on one PostgreSQL database (replicas.go, lease.go); unused on SQLite.
	replica  string        // this store's name in the leases it takes: host, process and a random part
	leaseKey int32         // the second key of this replica's liveness lock
	alive    liveness      // the session that holds it
	lease    time.Duration // how long a lease lasts unless renewed
	sweeping sync.Once     // the periodic sweep, started by Recover
	relay    relay         // what of each task's log this replica's bus has carried
}

// ErrUnreadable means a stored task or event is there but its JSON does not decode (written by an
// older build, or damaged on disk). Readers skip or mark such a row instead of failing whole lists.
var ErrUnreadable = errors.New("stored task is unreadable")

// SetLogger sets where the store reports unreadable rows (default slog.Default()).
func (s *Store) SetLogger(l *slog.Logger) {
	if l != nil {
		s.log = l
	}
}

// Write is what one Create or Update wrote: the task as stored, the dialect it was created in, the
// entries appended to its event log, and the push configs the task had at that moment.
type Write struct {
	Task        *a2a.Task
	Dialect     Dialect
	Entries     []*Logged
	PushConfigs []*StoredPushConfig
}

// WriteHook is told of every task write inside the write's own transaction, so what it records in
// tx (the push outbox) commits or rolls back with the task event. It must only write its own tables.
type WriteHook interface {
	OnTaskWrite(ctx context.Context, tx *sql.Tx, w *Write) error
}

// SetWriteHook installs h; call it before the store is used.
func (s *Store) SetWriteHook(h WriteHook) { s.hook = h }

// onWrite runs the hook, if any, with the task's push configs read in the same transaction (only when
// the push index says the task has some).
func (s *Store) onWrite(ctx context.Context, tx *sql.Tx, task *a2a.Task, d Dialect, entries []*Logged, mayHavePush bool) error {
	if s.hook == nil {
		return nil
	}
	var configs []*StoredPushConfig
	if mayHavePush {
		var err error
		if configs, err = listPushConfigs(ctx, s.db, tx, task.ID); err != nil {
			return err
		}
	}
	return s.hook.OnTaskWrite(ctx, tx, &Write{Task: task, Dialect: d, Entries: entries, PushConfigs: configs})
}

var _ taskstore.Store = (*Store)(nil)

// Options tune a Store; the zero value is the default.
type Options struct {
	// Lease is how long a replica's hold on the tasks it runs lasts without a renewal, on
	// PostgreSQL (DefaultLease when zero): a replica that died leaves its working tasks for this
	// long before another fails them. It is renewed every third of it.
	Lease time.Duration
}

// DefaultLease is Options.Lease when not set.
const DefaultLease = 30 * time.Second

// Open migrates the tasks tables in db and returns the store. Its events go on b (which may be shared
// by several agents' stores) marked with source.
func Open(ctx context.Context, db *store.DB, b *bus.Bus, source string) (*Store, error) {
	return OpenWith(ctx, db, b, source, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, db *store.DB, b *bus.Bus, source string, opt Options) (*Store, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "tasks", sub); err != nil {
		return nil, err
	}
	st, err := prepare(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("prepare task statements: %w", err)
	}
	ix, err := pushIndexOf(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("push config index: %w", err)
	}
	s := &Store{db: db, bus: b, source: source, now: time.Now, log: slog.Default(), st: st, push: ix, heads: newHeads(db),
		replica: replicaName(), leaseKey: newLeaseKey(), lease: opt.Lease}
	if s.lease <= 0 {
		s.lease = DefaultLease
	}
	if db.Postgres() {
		// Held before the first write, so no lease this replica takes names a lock nobody holds.
		if err := s.holdLock(ctx); err != nil {
			return nil, fmt.Errorf("liveness lock of this replica: %w", err)
		}
		s.follow()
		go s.renewLeases()
	}
	return s, nil
}

// Logged is one entry of a task's event log.
type Logged struct {
	TaskID  a2a.TaskID
	Seq     int64
	Version taskstore.TaskVersion
	Kind    string // task | status | artifact | message
	Final   bool
	At      time.Time // when it was stored
	Event   a2a.Event // nil when the stored JSON does not decode
	// Unreadable, when set, says why the stored event could not be read.
	Unreadable string
}

// IsFinal reports whether a stream ends after ev: a terminal state, or the task waits for the client.
func IsFinal(ev a2a.Event) bool {
	switch v := ev.(type) {
	case *a2a.Task:
		return IsFinalState(v.Status.State)
	case *a2a.TaskStatusUpdateEvent:
		return IsFinalState(v.Status.State)
	case *a2a.Message:
		return true
	}
	return false
}

// IsFinalState reports whether a task in state s ends a stream: terminal, or waiting for the client.
func IsFinalState(s a2a.TaskState) bool {
	return s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

func validate(task *a2a.Task) error {
	if task == nil || task.ID == "" {
		return fmt.Errorf("task id is required: %w", a2a.ErrInvalidParams)
	}
	if task.ContextID == "" {
		return fmt.Errorf("task context id is required: %w", a2a.ErrInvalidParams)
	}
	return nil
}

// encode is encodeTask with the pieces the task's last write checked, remembered for its next; the
// pieces of this encoding are returned too (see encodeEvent).
func (s *Store) encode(task *a2a.Task) ([]byte, *checkedPieces, error) {
	body, pieces, err := encodeTask(task, s.checked.get(task.ID))
	if err != nil {
		return nil, nil, err
	}
	s.checked.put(task.ID, pieces, IsFinalState(task.Status.State))
	return body, pieces, nil
}

// Create stores a new task at version 1 with the task itself as the first logged event.
func (s *Store) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	w, err := s.creation(ctx, task)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	// On the task's lane (WriteLeanOn): on PostgreSQL different tasks' writes commit side by side.
	err = s.db.WriteLeanOn(ctx, string(task.ID), w.fn)
	w.then(err)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	return 1, nil
}

// taskWrite is a Create or an Update made ready for the writer: fn runs in the batch (perhaps more
// than once, see store.Write), then is told the result once the batch committed or failed. then must
// be called once whatever happens, also when the write could not be queued.
type taskWrite struct {
	fn   func(*sql.Tx) error
	then func(error)
}

// creation is the write of Create.
func (s *Store) creation(ctx context.Context, task *a2a.Task) (*taskWrite, error) {
	if err := validate(task); err != nil {
		return nil, err
	}
	body, _, err := s.encode(task)
	if err != nil {
		return nil, err
	}
	// The first logged event is the task itself: the same JSON, already checked to read back as a task.
	first := encodedEvent{ev: task, kind: KindOf(task), body: body}
	now := s.now().UnixNano()
	var entries []*Logged
	fn := func(tx *sql.Tx) error {
		owner := ownerOf(ctx)
		ctx := context.WithoutCancel(ctx) // an interrupted statement would roll back the whole batch
		args := []any{task.ID, task.ContextID, string(dialectFrom(ctx)), string(task.Status.State), body, now, now, owner}
		if s.db.Postgres() {
			args = append(args, s.replica, s.leaseKey, s.lease.Seconds())
		}
		// A new row has no events yet (task_events references tasks): the log starts at seq 1.
		entries = logEntries(task.ID, 1, now, 0, []encodedEvent{first})
		var mayHavePush bool
		if s.db.Postgres() {
			// The row, its first entry and the note to other replicas in one statement (see prepare).
			channel, msg, err := s.note(task.ID, entries)
			if err != nil {
				return store.NothingWritten(err)
			}
			var sent bool
			err = tx.StmtContext(ctx, s.st.insertTask).QueryRowContext(ctx, append(args, first.kind, store.Flag(entries[0].Final), channel, msg)...).Scan(&mayHavePush, &sent)
			if errors.Is(err, sql.ErrNoRows) {
				return store.NothingWritten(taskstore.ErrTaskAlreadyExists)
			}
			if err != nil {
				return err
			}
		} else {
			res, err := tx.StmtContext(ctx, s.st.insertTask).ExecContext(ctx, args...)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return store.NothingWritten(taskstore.ErrTaskAlreadyExists)
			}
			mayHavePush = s.push.mayHave(task.ID)
			if err := s.appendLog(ctx, tx, entries, []encodedEvent{first}); err != nil {
				return err
			}
		}
		if err := s.onWrite(ctx, tx, task, dialectFrom(ctx), entries, mayHavePush); err != nil {
			return err
		}
		s.heads.set(task.ID, head{version: 1, state: task.Status.State, dialect: dialectFrom(ctx), lastSeq: 1})
		return nil
	}
	s.latest.writing(task.ID)
	then := func(err error) {
		defer s.latest.written(task.ID)
		if err != nil {
			s.latest.forget(task.ID) // a failed commit may leave the row in a state the entry does not know
			return
		}
		if !s.db.Postgres() { // there Get reads the row: another replica may have written it since
			s.latest.created(task.ID, body, ownerOf(ctx))
		}
		s.publish(entries)
	}
	return &taskWrite{fn: fn, then: then}, nil
}

// Update replaces the task if PrevVersion still matches and logs the event that caused the change.
func (s *Store) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	var version taskstore.TaskVersion
	w, err := s.update(ctx, req, &version)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	// Lean: every way this fn fails before its UPDATE is NothingWritten; a failure after it (a
	// statement error) rolls the batch back and runs its other writes again.
	err = s.db.WriteLeanOn(ctx, string(req.Task.ID), w.fn)
	w.then(err)
	if err != nil {
		return taskstore.TaskVersionMissing, err
	}
	return version, nil
}

// update is the write of Update; it sets *out to the version written.
func (s *Store) update(ctx context.Context, req *taskstore.UpdateRequest, out *taskstore.TaskVersion) (*taskWrite, error) {
	if req == nil {
		return nil, fmt.Errorf("update request is required: %w", a2a.ErrInvalidParams)
	}
	if err := validate(req.Task); err != nil {
		return nil, err
	}
	body, pieces, err := s.encode(req.Task)
	if err != nil {
		return nil, err
	}
	// The event is encoded and checked here, not on the writer goroutine every write waits for.
	var given []encodedEvent
	if ev := loggedAsGiven(req.Event); ev != nil {
		e, err := encodeEvent(req.Task, ev, pieces)
		if err != nil {
			return nil, err
		}
		given = append(given, e)
	}
	now := s.now().UnixNano()
	var entries []*Logged
	fn := func(tx *sql.Tx) error {
		ctx := context.WithoutCancel(ctx) // an interrupted statement would roll back the whole batch
		h, known := s.heads.get(req.Task.ID)
		if known && s.db.Postgres() && req.PrevVersion != h.version {
			// Another replica may have written the task since this one did: read the row.
			known = false
		}
		if !known {
			var state, dialect string
			err := tx.StmtContext(ctx, s.st.selectForUpdate).QueryRowContext(ctx, req.Task.ID).Scan(&h.version, &state, &dialect, &h.lastSeq)
			if errors.Is(err, sql.ErrNoRows) {
				return store.NothingWritten(a2a.ErrTaskNotFound)
			}
			if err != nil {
				return store.NothingWritten(err)
			}
			h.state, h.dialect = a2a.TaskState(state), Dialect(dialect)
		}
		stored := h.version
		if req.PrevVersion != taskstore.TaskVersionMissing && req.PrevVersion != stored {
			return store.NothingWritten(taskstore.ErrConcurrentModification)
		}
		events := given
		if statusAdded(req, h.state) {
			st, err := encodeEvent(req.Task, &a2a.TaskStatusUpdateEvent{TaskID: req.Task.ID, ContextID: req.Task.ContextID, Status: req.Task.Status}, pieces)
			if err != nil {
				return store.NothingWritten(err)
			}
			events = append(events[:len(events):len(events)], st) // given stays as it is if fn runs again
		}
		version := stored + 1
		args := []any{string(req.Task.Status.State), version, body, now}
		if s.db.Postgres() {
			args = append(args, s.replica, s.leaseKey, s.lease.Seconds())
		}
		// moved: the row is no longer at the version read (another replica wrote it): nothing changed.
		moved := func() error {
			s.heads.drop(req.Task.ID)
			return store.NothingWritten(taskstore.ErrConcurrentModification)
		}
		entries = logEntries(req.Task.ID, version, now, h.lastSeq, events)
		var mayHavePush bool
		if s.db.Postgres() {
			// The row, its new entries and the note to other replicas in one statement (see prepare).
			channel, msg, err := s.note(req.Task.ID, entries)
			if err != nil {
				return store.NothingWritten(err)
			}
			seqs, kinds, finals, bodies := make([]int64, len(events)), make([]string, len(events)), make([]int, len(events)), make([][]byte, len(events))
			for i, e := range events {
				seqs[i], kinds[i], finals[i], bodies[i] = entries[i].Seq, entries[i].Kind, store.Flag(entries[i].Final), e.body
			}
			var sent bool
			err = tx.StmtContext(ctx, s.st.updateTask).QueryRowContext(ctx, append(args, req.Task.ID, stored, seqs, kinds, finals, bodies, channel, msg)...).Scan(&mayHavePush, &sent)
			if errors.Is(err, sql.ErrNoRows) {
				return moved()
			}
			if err != nil {
				return err
			}
		} else {
			res, err := tx.StmtContext(ctx, s.st.updateTask).ExecContext(ctx, append(args, req.Task.ID, stored)...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return moved()
			}
			mayHavePush = s.push.mayHave(req.Task.ID)
			if err := s.appendLog(ctx, tx, entries, events); err != nil {
				return err
			}
		}
		if err := s.onWrite(ctx, tx, req.Task, h.dialect, entries, mayHavePush); err != nil {
			return err
		}
		s.heads.set(req.Task.ID, head{version: version, state: req.Task.Status.State, dialect: h.dialect, lastSeq: h.lastSeq + int64(len(entries))})
		*out = version
		return nil
	}
	s.latest.writing(req.Task.ID)
	then := func(err error) {
		defer s.latest.written(req.Task.ID)
		if err != nil {
			s.latest.forget(req.Task.ID)
			return
		}
		if !s.db.Postgres() {
			s.latest.updated(req.Task.ID, body, *out)
		}
		s.publish(entries)
	}
	return &taskWrite{fn: fn, then: then}, nil
}

// What an update adds to the log: the event as given (loggedAsGiven), and a status event whenever
// the state changed without one (statusAdded; a2a-go marks a task failed passing the event that
// failed, or none).

// loggedAsGiven is the update's event if the log keeps it (a status, task, artifact or message).
func loggedAsGiven(ev a2a.Event) a2a.Event {
	switch ev.(type) {
	case *a2a.TaskStatusUpdateEvent, *a2a.Task, *a2a.TaskArtifactUpdateEvent, *a2a.Message:
		return ev
	}
	return nil
}

// statusAdded reports whether the update logs a status event of its own after the given one.
func statusAdded(req *taskstore.UpdateRequest, prevState a2a.TaskState) bool {
	switch req.Event.(type) {
	case *a2a.TaskStatusUpdateEvent, *a2a.Task:
		return false
	case *a2a.TaskArtifactUpdateEvent, *a2a.Message:
		return req.Task.Status.State != prevState
	}
	return true
}

// encodedEvent is an event with its stored JSON, checked to read back.
type encodedEvent struct {
	ev   a2a.Event
	kind string
	body []byte
}

// encodeEvent is the event of an update of task, its stored JSON, refused if it would not read back.
// pieces are those of the task's JSON this write just checked (or nil): an event made of them needs
// no decode of its own (readsBackAs).
func encodeEvent(task *a2a.Task, ev a2a.Event, pieces *checkedPieces) (encodedEvent, error) {
	id := task.ID
	kind := KindOf(ev)
	body, err := json.Marshal(ev)
	if err != nil {
		return encodedEvent{}, err
	}
	if readsBackAs(ev, &task.Status, pieces) {
		return encodedEvent{ev: ev, kind: kind, body: body}, nil
	}
	if _, err := DecodeEvent(kind, body); err != nil {
		return encodedEvent{}, fmt.Errorf("%s event of task %s: it would not read back once stored (%v): %w", kind, id, err, a2a.ErrInvalidParams)
	}
	return encodedEvent{ev: ev, kind: kind, body: body}, nil
}

// KindOf names an event as the log does: task, status, artifact or message.
func KindOf(ev a2a.Event) string {
	switch ev.(type) {
	case *a2a.Task:
		return "task"
	case *a2a.TaskStatusUpdateEvent:
		return "status"
	case *a2a.TaskArtifactUpdateEvent:
		return "artifact"
	default:
		return "message"
	}
}

// logEntries are the entries a write of the task at version adds after seq lastSeq of its log.
func logEntries(id a2a.TaskID, version taskstore.TaskVersion, now, lastSeq int64, events []encodedEvent) []*Logged {
	out := make([]*Logged, 0, len(events))
	for i, e := range events {
		out = append(out, &Logged{TaskID: id, Seq: lastSeq + int64(i) + 1, Version: version, Kind: e.kind,
			Final: e.kind != "message" && IsFinal(e.ev), At: time.Unix(0, now), Event: e.ev})
	}
	return out
}

// appendLog inserts the entries (of events) on SQLite, one statement each: there a statement is a
// call into the library, not a round trip (PostgreSQL's task writes insert theirs themselves).
func (s *Store) appendLog(ctx context.Context, tx *sql.Tx, entries []*Logged, events []encodedEvent) error {
	insert := tx.StmtContext(ctx, s.st.insertEvent)
	for i, l := range entries {
		if _, err := insert.ExecContext(ctx, l.TaskID, l.Seq, l.Version, l.Kind, store.Flag(l.Final), events[i].body, l.At.UnixNano()); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) publish(entries []*Logged) {
	if s.bus == nil {
		return
	}
	if s.db.Postgres() {
		s.relayOwn(entries) // in step with what other replicas' notes bring (replicas.go)
		return
	}
	for _, l := range entries {
		s.bus.Publish(bus.Event{Topic: Topic, Source: s.source, Key: string(l.TaskID), Seq: l.Seq, Data: l})
	}
}

// Get returns the task, or a2a.ErrTaskNotFound (also for a task ctx may not see).
func (s *Store) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	var body []byte
	var version taskstore.TaskVersion
	var owner string
	var err error
	// On PostgreSQL another replica may have written the task since this one did: read the row.
	if r, ok := s.latest.get(id); ok && !s.db.Postgres() {
		body, version, owner = r.body, r.version, r.owner
	} else {
		err = s.st.get.QueryRowContext(ctx, id).Scan(&body, &version, &owner)
	}
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !visible(ctx, owner)) {
		return nil, a2a.ErrTaskNotFound
	}
	if err != nil {
		return nil, err
	}
	var task a2a.Task
	if err := json.Unmarshal(body, &task); err != nil {
		return nil, unreadable(id, err)
	}
	return &taskstore.StoredTask{Task: &task, Version: version, User: owner}, nil
}

// unreadable is the error for a task row whose JSON does not decode: ErrUnreadable for our callers,
// and an internal error (-32603, with this text) for a protocol client.
func unreadable(id a2a.TaskID, err error) error {
	return fmt.Errorf("%w: task %s (%v): %w", ErrUnreadable, id, err, a2a.ErrInternalError)
}

// DialectOf returns the dialect the task was created in, or a2a.ErrTaskNotFound (also for a task ctx
// may not see).
func (s *Store) DialectOf(ctx context.Context, id a2a.TaskID) (Dialect, error) {
	var d, owner string
	err := s.st.dialectOf.QueryRowContext(ctx, id).Scan(&d, &owner)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !visible(ctx, owner)) {
		return "", a2a.ErrTaskNotFound
	}
	return Dialect(d), err
}

const (
	defaultPageSize    = 50
	maxPageSize        = 100
	defaultListHistory = 100
)

// List returns the tasks ctx may see, newest first, filtered as the request asks, a page at a time.
func (s *Store) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	if req == nil {
		req = &a2a.ListTasksRequest{}
	}
	pageSize := req.PageSize
	if pageSize == 0 {
		pageSize = defaultPageSize
	}
	if pageSize < 1 || pageSize > maxPageSize {
		return nil, fmt.Errorf("pageSize must be between 1 and %d, got %d: %w", maxPageSize, req.PageSize, a2a.ErrInvalidParams)
	}
	if req.HistoryLength != nil && *req.HistoryLength < 0 {
		return nil, fmt.Errorf("historyLength must not be negative: %w", a2a.ErrInvalidParams)
	}
	var where []string
	var args []any
	if cond, by := scopeFilter(ctx); cond != "" {
		where, args = append(where, cond), append(args, by...)
	}
	if req.ContextID != "" {
		where, args = append(where, "context_id = ?"), append(args, req.ContextID)
	}
	if req.Status != a2a.TaskStateUnspecified {
		where, args = append(where, "state = ?"), append(args, string(req.Status))
	}
	if req.StatusTimestampAfter != nil {
		where, args = append(where, "updated_at >= ?"), append(args, req.StatusTimestampAfter.UnixNano())
	}
	filter := ""
	if len(where) > 0 {
		filter = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.db.Reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks`+filter, args...).Scan(&total); err != nil {
		return nil, err
	}
	if req.PageToken != "" {
		pos, err := ParsePosition(req.PageToken)
		if err != nil {
			return nil, fmt.Errorf("pageToken: %w", err)
		}
		at, id := pos.CreatedAt, pos.ID
		cond := "(updated_at < ? OR (updated_at = ? AND id < ?))"
		if filter == "" {
			filter = " WHERE " + cond
		} else {
			filter += " AND " + cond
		}
		args = append(args, at, at, id)
	}
	// No LIMIT: rows are read lazily and the loop stops one row past a full page, however many
	// unreadable rows it skipped on the way.
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT task_json, updated_at, id FROM tasks`+filter+` ORDER BY updated_at DESC, id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	resp := &a2a.ListTasksResponse{Tasks: []*a2a.Task{}, TotalSize: total, PageSize: pageSize}
	var lastAt int64
	var lastID string
	for rows.Next() {
		var body []byte
		var at int64
		var id string
		if err := rows.Scan(&body, &at, &id); err != nil {
			return nil, err
		}
		if len(resp.Tasks) == pageSize {
			resp.NextPageToken = Position{CreatedAt: lastAt, ID: lastID}.Token()
			break
		}
		// The next page starts after this row whether or not it reads: a bad row is skipped (the
		// protocol's list has no way to show it), reported in the log, and still in TotalSize.
		lastAt, lastID = at, id
		var task a2a.Task
		if err := json.Unmarshal(body, &task); err != nil {
			s.log.Warn("a stored task is unreadable; left out of the list", "source", s.source, "task", id, "error", err)
			continue
		}
		limit := defaultListHistory
		if req.HistoryLength != nil {
			limit = *req.HistoryLength
		}
		TrimHistory(&task, limit)
		if !req.IncludeArtifacts {
			task.Artifacts = nil
		}
		resp.Tasks = append(resp.Tasks, &task)
	}
	return resp, rows.Err()
}

// TrimHistory keeps the last n messages of the task's history (n < 0 keeps all).
func TrimHistory(task *a2a.Task, n int) {
	if n >= 0 && len(task.History) > n {
		task.History = task.History[len(task.History)-n:]
	}
}

// Log returns the task's logged events with seq > after, in order. An event whose JSON does not
// decode is returned with a nil Event and Unreadable saying why.
func (s *Store) Log(ctx context.Context, id a2a.TaskID, after int64) ([]*Logged, error) {
	var out []*Logged
	err := s.readLog(ctx, id, after, `SELECT seq, version, kind, final, event_json, created_at FROM task_events
		WHERE task_id = ? AND seq > ? ORDER BY seq`, func(l *Logged, _ int) bool {
		out = append(out, l)
		return true
	})
	return out, err
}

// Stream pages: a replay holds at most streamPageEvents events, or streamPageBytes of stored JSON
// plus one event, at a time, so a subscriber that does not read pins one page, not the whole log.
const (
	streamPageEvents = 64
	streamPageBytes  = 1 << 20
)

// streamPage reads the next page of the task's stream events (every kind but message) after seq.
// full reports that the page stopped at its bound, so more may follow at once.
func (s *Store) streamPage(ctx context.Context, id a2a.TaskID, after int64) (page []*Logged, full bool, err error) {
	var size int
	err = s.readLog(ctx, id, after, `SELECT seq, version, kind, final, event_json, created_at FROM task_events
		WHERE task_id = ? AND seq > ? AND kind != 'message' ORDER BY seq LIMIT `+fmt.Sprint(streamPageEvents), func(l *Logged, n int) bool {
		page = append(page, l)
		size += n
		full = len(page) == streamPageEvents || size >= streamPageBytes
		return !full
	})
	return page, full, err
}

// readLog runs a task_events query (id and after are its two arguments) and hands each entry and
// the size of its stored JSON to f until f returns false.
func (s *Store) readLog(ctx context.Context, id a2a.TaskID, after int64, query string, f func(l *Logged, size int) bool) error {
	rows, err := s.db.Reader.QueryContext(ctx, query, id, after)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		l := &Logged{TaskID: id}
		var body []byte
		var at int64
		if err := rows.Scan(&l.Seq, &l.Version, &l.Kind, &l.Final, &body, &at); err != nil {
			return err
		}
		l.At = time.Unix(0, at)
		if l.Event, err = DecodeEvent(l.Kind, body); err != nil {
			l.Event, l.Unreadable = nil, err.Error()
			s.log.Warn("a stored task event is unreadable; skipped", "source", s.source, "task", id, "seq", l.Seq, "error", err)
		}
		if !f(l, len(body)) {
			break
		}
	}
	return rows.Err()
}

// DecodeEvent reads an event stored as JSON under its KindOf name.
func DecodeEvent(kind string, body []byte) (a2a.Event, error) {
	var ev a2a.Event
	switch kind {
	case "task":
		ev = &a2a.Task{}
	case "status":
		ev = &a2a.TaskStatusUpdateEvent{}
	case "artifact":
		ev = &a2a.TaskArtifactUpdateEvent{}
	default:
		ev = &a2a.Message{}
	}
	return ev, json.Unmarshal(body, ev)
}

// Stream replays the task's event log (task, status and artifact events; messages are history, not
// stream events) and then follows it live until an event ends the stream or ctx is done. The bus only
// wakes the reader; what it yields always comes from the log, so nothing is skipped or repeated even
// after a restart or a slow consumer. The log is read a page at a time (streamPage), so a stream holds
// one page however long the task's log is. An unreadable event is skipped (it is logged).
func (s *Store) Stream(ctx context.Context, id a2a.TaskID) iter.Seq2[*Logged, error] {
	return func(yield func(*Logged, error) bool) {
		if _, err := s.DialectOf(ctx, id); err != nil {
			yield(nil, err)
			return
		}
		var wake *bus.Subscription
		if s.bus != nil {
			wake = s.bus.Subscribe(func(e bus.Event) bool { return e.Topic == Topic && e.Source == s.source && e.Key == string(id) }, 1)
			defer wake.Close()
		}
		var after int64
		lastFinal := false // the last event read ends the stream, if nothing follows it
		for {
			page, full, err := s.streamPage(ctx, id, after)
			if err != nil {
				yield(nil, err)
				return
			}
			for i, l := range page {
				page[i] = nil // a consumer that stops reading pins this event and the rest of the page only
				after, lastFinal = l.Seq, l.Final
				if l.Event == nil {
					continue // unreadable: reported by streamPage
				}
				if !yield(l, nil) {
					return
				}
			}
			if full {
				continue // more is already stored: read it before deciding anything
			}
			if lastFinal || wake == nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-wake.C:
			case <-wake.Lagged:
			}
		}
	}
}
