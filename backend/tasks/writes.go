package tasks

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/store"
)

// stmts are the statements of the task write path, prepared once on the writer connection and reused
// by every write (inside a transaction through tx.StmtContext): preparing them on every call was about
// a tenth of the hub's CPU under load.
type stmts struct {
	insertTask, selectForUpdate, updateTask *sql.Stmt
	insertEvent                             *sql.Stmt // SQLite: PostgreSQL's task writes insert their entries themselves
	// On the reader pool (database/sql prepares them on each of its connections once): the task
	// read a2a-go makes at the end of every blocking send, and the dialect look-up of every stream.
	get, dialectOf *sql.Stmt
}

func prepare(ctx context.Context, db *store.DB) (*stmts, error) {
	var st stmts
	var errs []error
	conn := db.Writer
	p := func(dst **sql.Stmt, query string) {
		s, err := conn.PrepareContext(ctx, query)
		*dst = s
		errs = append(errs, err)
	}
	// The UPDATE names the version it read: with several replicas on one PostgreSQL database, another
	// may have written the task since, and only the database can tell (RowsAffected 0: a conflict).
	// On PostgreSQL every write also takes the task's execution lease (see lease.go): the writer's
	// replica id, and an expiry on the database's clock, the one clock all replicas share.
	if db.Postgres() {
		// Other replicas save push configs too, so no index in memory can say whether a task has
		// some: the write's own statement answers it (RETURNING), in its transaction, at no extra
		// round trip. No row back: the task exists already (insert) or moved on (update).
		// Each write is one statement, the row and its log entries together (data-modifying CTEs):
		// every statement is a round trip to the server, and the writer waits through each. The
		// entries are inserted only if the row was (FROM t), and task_events' foreign key is checked
		// at the end of the statement, once the new row is there.
		// The write's note to the other replicas (see replicas.go) goes in the same statement, sent
		// only if the row was written (a row of t) and the transaction commits.
		// insertTask: the first entry is the task itself, its JSON the row's.
		p(&st.insertTask, `WITH t AS (
				INSERT INTO tasks(id, context_id, dialect, state, version, task_json, created_at, updated_at, owner, leased_by, lease_key, leased_at, lease_until)
				VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, now(), now() + make_interval(secs => ?)) ON CONFLICT(id) DO NOTHING
				RETURNING id, task_json, created_at, EXISTS (SELECT 1 FROM push_configs WHERE task_id = tasks.id) AS push),
			e AS (INSERT INTO task_events(task_id, seq, version, kind, final, event_json, created_at)
				SELECT id, 1, 1, ?, ?, task_json, created_at FROM t)
			SELECT push, pg_notify(?, ?) IS NULL FROM t`)
		// updateTask: the entries come as arrays of their seq, kind, final and JSON, in seq order.
		p(&st.updateTask, `WITH t AS (
				UPDATE tasks SET state = ?, version = ?, task_json = ?, updated_at = ?, leased_by = ?, lease_key = ?, leased_at = now(), lease_until = now() + make_interval(secs => ?)
				WHERE id = ? AND version = ? RETURNING id, version, updated_at, EXISTS (SELECT 1 FROM push_configs WHERE task_id = tasks.id) AS push),
			e AS (INSERT INTO task_events(task_id, seq, version, kind, final, event_json, created_at)
				SELECT t.id, e.seq, t.version, e.kind, e.final, e.body, t.updated_at
				FROM t, unnest(?::bigint[], ?::text[], ?::int[], ?::bytea[]) AS e(seq, kind, final, body))
			SELECT push, pg_notify(?, ?) IS NULL FROM t`)
	} else {
		p(&st.insertTask, `INSERT INTO tasks(id, context_id, dialect, state, version, task_json, created_at, updated_at, owner)
			VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`)
		p(&st.updateTask, `UPDATE tasks SET state = ?, version = ?, task_json = ?, updated_at = ? WHERE id = ? AND version = ?`)
		p(&st.insertEvent, `INSERT INTO task_events(task_id, seq, version, kind, final, event_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	}
	// The task's last event seq comes with its row: one statement less on every write.
	p(&st.selectForUpdate, `SELECT version, state, dialect,
		(SELECT COALESCE(MAX(seq), 0) FROM task_events WHERE task_id = tasks.id) FROM tasks WHERE id = ?`)
	conn = db.Reader
	p(&st.get, `SELECT task_json, version, owner FROM tasks WHERE id = ?`)
	p(&st.dialectOf, `SELECT dialect, owner FROM tasks WHERE id = ?`)
	return &st, errors.Join(errs...)
}

// pushIndex is which tasks have at least one push config, kept in memory so that a task write skips
// reading push_configs when its task has none (nearly always). It is changed only inside write
// transactions, on the group-commit writer, after the statement it reflects succeeded, so every task
// write sees exactly what its transaction sees; a batch that does not commit reloads it from the table.
// It holds one entry per task with configs, not per task. On PostgreSQL, where other replicas save
// configs too, it is never loaded: every task may have some, and the table is read.
type pushIndex struct {
	mu  sync.Mutex
	has map[a2a.TaskID]struct{}
}

var pushIndexes sync.Map // *store.DB → *pushIndex: the task store and the config store share one

// pushIndexOf returns db's index, loading it on first use.
func pushIndexOf(ctx context.Context, db *store.DB) (*pushIndex, error) {
	if ix, ok := pushIndexes.Load(db); ok {
		return ix.(*pushIndex), nil
	}
	ix := &pushIndex{}
	if db.Postgres() {
		// Another replica may save a task's first config at any moment, and a write here must see it
		// in its own transaction: on PostgreSQL the index stays unknown (has nil), so every task
		// write and List reads push_configs.
		return ix, nil
	}
	if err := ix.load(ctx, db.Writer); err != nil {
		return nil, err
	}
	if prev, loaded := pushIndexes.LoadOrStore(db, ix); loaded {
		return prev.(*pushIndex), nil
	}
	db.OnAbort(func() {
		if err := ix.load(context.Background(), db.Writer); err != nil {
			// Unknown state: count every task as having configs until a reload succeeds.
			ix.mu.Lock()
			ix.has = nil
			ix.mu.Unlock()
		}
	})
	return ix, nil
}

func (ix *pushIndex) load(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) error {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT task_id FROM push_configs`)
	if err != nil {
		return err
	}
	defer rows.Close()
	has := map[a2a.TaskID]struct{}{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		has[a2a.TaskID(id)] = struct{}{}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	ix.mu.Lock()
	ix.has = has
	ix.mu.Unlock()
	return nil
}

// mayHave reports whether the task may have push configs (always true while the index is unknown).
func (ix *pushIndex) mayHave(id a2a.TaskID) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.has == nil {
		return true
	}
	_, ok := ix.has[id]
	return ok
}

// set records, inside a write transaction, whether the task has configs now.
func (ix *pushIndex) set(id a2a.TaskID, has bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.has == nil {
		return
	}
	if has {
		ix.has[id] = struct{}{}
	} else {
		delete(ix.has, id)
	}
}

// head is what a task write needs of the task's row before it writes: its version (for a2a-go's
// optimistic concurrency), state, dialect and the seq of its last logged event.
type head struct {
	version taskstore.TaskVersion
	state   a2a.TaskState
	dialect Dialect
	lastSeq int64
}

// heads holds the head of recently written tasks, so an update skips the SELECT that reads it (two
// fifths of a task write's statement time). Like pushIndex it is changed only by write fns on the
// group-commit writer, as their last step once every statement succeeded, so it says what the
// writer's transaction holds; a batch that does not commit clears it (OnAbort) and the next writes
// read their rows again. It is bounded: cleared when full, and a task whose stream ended leaves it.
// On PostgreSQL another replica may have written the task since: an entry is only a guess there,
// used when it has the version the update names, and the UPDATE's version condition decides (a
// note from the other replica drops the entry sooner, see replicas.go).
type heads struct {
	mu     sync.Mutex
	byTask map[a2a.TaskID]head
}

const headsTasks = 4096

// newHeads is the Store's heads, cleared by db's writer after a batch that did not commit. On SQLite
// the task store is the only writer of its tables (one Store per database), so what it records is
// what the rows hold.
func newHeads(db *store.DB) *heads {
	h := &heads{}
	db.OnAbort(h.clear)
	return h
}

func (h *heads) get(id a2a.TaskID) (head, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.byTask[id]
	return v, ok
}

// set records the task's head as the writer's transaction now holds it.
func (h *heads) set(id a2a.TaskID, v head) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if IsFinalState(v.state) {
		delete(h.byTask, id)
		return
	}
	if h.byTask == nil || len(h.byTask) >= headsTasks {
		h.byTask = make(map[a2a.TaskID]head)
	}
	h.byTask[id] = v
}

// drop forgets one task's head: another replica wrote it, or a write found it stale.
func (h *heads) drop(id a2a.TaskID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.byTask, id)
}

func (h *heads) clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.byTask = nil
}
