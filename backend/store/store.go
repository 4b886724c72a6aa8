// Package store opens the hub's database, a SQLite file (modernc.org/sqlite, pure Go) or a PostgreSQL
// database (pgx), and runs each feature package's embedded migrations for that engine. It owns no tables itself: the SQL of a table lives in the package that
// owns it, and that package hands its migrations to Migrate.
//
// Writes go through a group-commit writer (Write, Tx): the writes of concurrent callers are gathered
// into one transaction, each in its own savepoint, and made durable by one commit and one fsync. On
// PostgreSQL a package may also spread its writes over several writers (lanes, see WriteOn).
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is one SQLite file opened twice: a single writer connection, so writes never fight over the lock
// (SQLite allows one writer at a time anyway), and a pool of readers that WAL lets run beside it.
// Write and Tx queue their work for the group-commit writer; a package that still runs a statement on
// Writer directly gets the same connection between two batches (and its own commit). On PostgreSQL
// the Writer pool has a connection per lane (see WriteOn), and a statement run on it directly takes
// whichever is free.
type DB struct {
	Path   string // the SQLite file, or the PostgreSQL URL without its password
	Writer *sql.DB
	Reader *sql.DB

	dialect Dialect
	notes   *notes // PostgreSQL: what other replicas committed (notes.go); nil on SQLite

	mu     sync.Mutex
	closed bool    // set by Close: Write refuses new writes, the lanes drain their queues and stop
	lanes  []*lane // lanes[0] is the writer of Write, Tx and WriteLean; SQLite has only that one

	// beforeCommit holds, per open transaction, what BeforeCommit registered in it.
	beforeCommit sync.Map // *sql.Tx → []func(*sql.Tx) error

	// The savepoint statements, prepared once on the writer pool: database/sql prepares each on a
	// connection the first time a lane's transaction uses it there, and keeps it (so, per lane). A
	// batch runs them around every write, and preparing them each time cost as much as running them.
	savepoint, release, rollbackTo *sql.Stmt

	// checkpointer copies the WAL into the database beside the writer (see checkpoints): left to
	// SQLite, the commit that crosses the auto-checkpoint threshold does it, and its callers wait for
	// the copy and the database's fsync on top of their own commit.
	checkpointer *sql.DB
	dirty        chan struct{} // the writer committed since the checkpointer last looked
	ckStopped    chan struct{} // closed when the checkpointer goroutine has returned
}

// lane is one group-commit writer: its queue, its goroutine, and the state of its batch in progress.
// Each lane runs one transaction at a time, on a connection of the Writer pool.
type lane struct {
	queue    []*write      // writes waiting for the next batch (db.mu)
	wake     chan struct{} // tells the lane its queue is not empty (or that the DB is closed)
	stopped  chan struct{} // closed when the lane's goroutine has returned
	onAbort  []func()      // run after a batch of this lane that did not commit (db.mu; see OnAbort)
	onCommit []func()      // run after a batch of this lane that committed (db.mu; see OnCommit)

	batches, writes int64 // counted by the lane (db.mu), for tests and Stats

	// PostgreSQL: the lane's batch in progress. Announce inside it queues the note here, and the
	// batch sends all of its notes in one statement just before it commits (one round trip per batch
	// instead of one per write).
	batch   atomic.Pointer[sql.Tx]
	pending []string // touched only on the lane's goroutine
}

func newLane() *lane { return &lane{wake: make(chan struct{}, 1), stopped: make(chan struct{})} }

// pgLanes is how many writers (lanes, connections) a DB has on PostgreSQL. One writer runs its
// statements one after another, each a round trip to the server in which it waits, and it spent most
// of its time so: with several, a replica keeps several transactions in flight, and PostgreSQL (whose
// row locks and versioned updates decide between them, as between replicas) runs them side by side.
// Chosen by measurement (NOTES-speed-tasks.md): demo SendMessage at 32 clients on this 2-CPU machine.
const pgLanes = 4

// laneSeed hashes WriteOn's keys onto lanes (one seed per process: a key's lane only has to be the
// same for the life of the DB).
var laneSeed = maphash.MakeSeed()

// write is one caller's fn waiting in the queue, and where its result goes.
type write struct {
	ctx   context.Context
	fn    func(*sql.Tx) error
	done  chan result
	then  func(error) // instead of done, for a write nobody waits for (WriteLeanOnQueued)
	lean  bool        // run without a savepoint (see WriteLean)
	tries int         // times PostgreSQL broke a deadlock or a serialization conflict by failing it
}

// conflictTries bounds how often a write that PostgreSQL failed to break a deadlock (or a
// serialization conflict) runs again before its caller gets the error.
const conflictTries = 5

type result struct {
	err      error
	panicked any // fn panicked with this: the caller panics again in its own goroutine
}

// maxBatch bounds the writes that share one transaction, so one commit never holds a very long batch.
const maxBatch = 512

// JournalSizeLimit is the WAL file size above which the checkpointer truncates it once writes pause
// (idleBeforeTruncate), so the data directory does not keep the WAL of a past burst of writes.
const JournalSizeLimit = 4 << 20

// idleBeforeTruncate is how long the writer must have been idle before the checkpointer truncates a
// WAL larger than JournalSizeLimit. Truncating is left to a pause because it is slow after a burst
// (ext4 frees the file's blocks: 35-110 ms measured for ~150 MB) and a TRUNCATE checkpoint holds the
// writer off while it runs; SQLite's own journal_size_limit would do it inside the first commit after
// each WAL restart, which is a caller's write.
const idleBeforeTruncate = time.Second

// checkpointEvery is the least time between two background checkpoints while writes go on: each one
// copies the pages written since the last and fsyncs the database, so running one per commit would
// copy a page that many commits change once per commit, and each fsync of the database competes with
// the writer's fsyncs of the WAL (in interleaved runs of make bench-channels' stream section, the
// publish call's p99 was 11.8 and 13.9 ms with a checkpoint every 50 ms, 5.8-9.7 ms in seven runs
// with one every 250, 500 or 1000 ms).
const checkpointEvery = 250 * time.Millisecond

// walRestartPages is the writer's auto-checkpoint threshold (SQLite's default). A WAL can only start
// over after a checkpoint that copied all of it, and while writes go on only the writer can see to
// that: a background checkpoint ends behind the commits that landed while it ran. So the writer still
// checkpoints at this size, but by then the checkpointer has copied all but the last few pages, and the
// writer's checkpoint only copies those and fsyncs them (without the checkpointer it copied 1,000
// pages inside one caller's commit).
const walRestartPages = 1000

// writerCachePages is the writer connection's page cache (SQLite's cache_size; 4 KiB pages, 16 MiB,
// taken only as pages are used), eight times SQLite's default. Every write goes through this one
// connection, and a knowledge update of 1,000 statements linking new nodes to 300 entities touches
// some 600 leaf pages of kg_statements' indexes, the same ones each time: in 2 MiB they were read
// back from the file (pread) on every update. At 1M statements one updater went from 19.3-19.9k to
// 20.9-21.0k statements a second (BenchmarkBatchedUpdate with those entities, interleaved runs).
const writerCachePages = 4096

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("database is closed")

// Open opens the hub's database at target: a PostgreSQL URL (postgres://…, see openPostgres) or the
// path of a SQLite file.
func Open(target string) (*DB, error) {
	if IsPostgresURL(target) {
		return openPostgres(target)
	}
	return openSQLite(target)
}

// Dialect is the engine under db.
func (db *DB) Dialect() Dialect { return db.dialect }

// Postgres reports whether db is a PostgreSQL database (else SQLite).
func (db *DB) Postgres() bool { return db.dialect == Postgres }

// openSQLite opens (creating if needed) the SQLite file at path with WAL, synchronous=FULL (an acknowledged
// write survives power loss, not only a process crash), a busy timeout and foreign keys, and starts its
// group-commit writer.
func openSQLite(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	dsn := func(extra ...string) string {
		q := url.Values{}
		for _, p := range append([]string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(ON)"}, extra...) {
			q.Add("_pragma", p)
		}
		q.Set("_txlock", "immediate")
		return "file:" + filepath.ToSlash(path) + "?" + q.Encode()
	}
	// The writer does not truncate the WAL (journal_size_limit -1: the checkpointer does, when idle),
	// and its checkpoints finish what the checkpointer did beside it (walRestartPages).
	w, err := sql.Open("sqlite", dsn(fmt.Sprintf("wal_autocheckpoint(%d)", walRestartPages), "journal_size_limit(-1)",
		fmt.Sprintf("cache_size(%d)", writerCachePages)))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	if err := w.Ping(); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn("query_only(ON)"))
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	// busy_timeout 0: a TRUNCATE checkpoint that cannot run at once (a reader on an old snapshot, a
	// write in progress) gives up and is tried at the next pause, instead of holding writers off.
	c, err := sql.Open("sqlite", dsn("busy_timeout(0)"))
	if err != nil {
		w.Close()
		r.Close()
		return nil, err
	}
	c.SetMaxOpenConns(1)
	c.SetMaxIdleConns(1)
	// One lane: SQLite takes one writer at a time anyway.
	db := &DB{Path: path, Writer: w, Reader: r, lanes: []*lane{newLane()},
		checkpointer: c, dirty: make(chan struct{}, 1), ckStopped: make(chan struct{})}
	for _, st := range []struct {
		dst   **sql.Stmt
		query string
	}{{&db.savepoint, `SAVEPOINT w`}, {&db.release, `RELEASE w`}, {&db.rollbackTo, `ROLLBACK TO w`}} {
		if *st.dst, err = w.Prepare(st.query); err != nil {
			w.Close()
			r.Close()
			c.Close()
			return nil, fmt.Errorf("prepare %s: %w", st.query, err)
		}
	}
	db.start()
	go db.checkpoints()
	return db, nil
}

// OpenReadOnly opens an existing SQLite file for reading only, without migrating it, starting a writer
// or checkpointing on close: for a tool that reads a database another process owns and writes (the
// CLI listing principals while a hub runs), where a second writer's checkpoint would hold the hub's
// writes off.
// With PostgreSQL, which has no such file lock, it is a plain pool of one connection.
func OpenReadOnly(path string) (*sql.DB, error) {
	if IsPostgresURL(path) {
		db, err := openPostgres(path)
		if err != nil {
			return nil, err
		}
		// Only the reader pool is handed out: stop the writer now.
		db.closeWriter()
		db.Writer.Close()
		return db.Reader, nil
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(ON)")
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}

// checkpoints is the checkpointer goroutine: after the writer commits, it copies the WAL into the
// database with a PASSIVE checkpoint on its own connection, which neither waits for nor blocks the
// writer (nor readers), at most once per checkpointEvery, so that the writer's own checkpoint at
// walRestartPages has little left to copy; after it, the writer's next transaction starts the WAL
// over (reusing the file). When the writer has been idle for idleBeforeTruncate and the file is
// larger than JournalSizeLimit, a TRUNCATE checkpoint empties it. It stops when the writer has
// stopped.
func (db *DB) checkpoints() {
	defer close(db.ckStopped)
	idle := time.NewTimer(idleBeforeTruncate)
	defer idle.Stop()
	for {
		select {
		case <-db.dirty:
		case <-idle.C:
			db.truncateWAL()
			continue
		case <-db.lanes[0].stopped:
			return
		}
		// Best effort: a checkpoint that cannot copy everything now (a reader holds an old snapshot)
		// copies the rest next time.
		db.checkpointer.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
		select {
		case <-time.After(checkpointEvery):
		case <-db.lanes[0].stopped:
			return
		}
		idle.Reset(idleBeforeTruncate)
	}
}

// truncateWAL empties a WAL file larger than JournalSizeLimit. Best effort: with busy_timeout 0 it
// gives up at once when a write or an old read is in progress (it is tried again at the next pause),
// and while it runs a new write waits for it, as it would for SQLite's own truncation.
func (db *DB) truncateWAL() {
	if st, err := os.Stat(db.Path + "-wal"); err != nil || st.Size() <= JournalSizeLimit {
		return
	}
	db.checkpointer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
}

// Close stops the writer (writes already taken commit first), checkpoints the WAL into the database
// and truncates it, and closes both pools.
func (db *DB) Close() error {
	db.closeWriter()
	if db.Postgres() {
		db.notes.stop()
		return errors.Join(db.Reader.Close(), db.Writer.Close())
	}
	// Best effort: a checkpoint that cannot finish now (a reader still open) is done by the next open.
	db.Writer.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	return errors.Join(db.Reader.Close(), db.checkpointer.Close(), db.Writer.Close())
}

// closeWriter stops the group-commit writers once the writes already queued are done.
func (db *DB) closeWriter() {
	db.mu.Lock()
	db.closed = true
	db.mu.Unlock()
	for _, l := range db.lanes {
		l.signal()
	}
	for _, l := range db.lanes {
		<-l.stopped
	}
	<-db.ckStopped
}

// start runs the goroutine of each lane.
func (db *DB) start() {
	for _, l := range db.lanes {
		go db.run(l)
	}
}

// ErrSchemaTooNew means the file was migrated by a newer AgentHub than this binary.
var ErrSchemaTooNew = errors.New("database schema is newer than this AgentHub")

// Migrate applies the numbered .sql migrations in fsys (goose format) for one component, tracked in
// its own version table, so each package evolves its tables independently. It refuses a database whose
// version for the component is higher than the newest migration this binary knows.
//
// fsys holds the SQLite migrations at its root and PostgreSQL's in its postgres/ folder: the two
// engines' schemas are written each in its own dialect, and numbered on their own. On PostgreSQL the
// run holds an advisory lock, so replicas starting together migrate one after the other.
func (db *DB) Migrate(ctx context.Context, component string, fsys fs.FS) error {
	dialect, conn, opts := goose.DialectSQLite3, db.Writer, []goose.ProviderOption{
		goose.WithTableName("schema_" + component), goose.WithDisableGlobalRegistry(true)}
	if db.Postgres() {
		sub, err := fs.Sub(fsys, "postgres")
		if err != nil {
			return fmt.Errorf("migrations of %s: %w", component, err)
		}
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return err
		}
		// The writer pool's connections belong to the lanes, which may be using them: goose takes
		// its locked session from the readers' pool.
		dialect, conn, fsys = goose.DialectPostgres, db.Reader, sub
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, conn, fsys, opts...)
	if err != nil {
		return fmt.Errorf("migrations of %s: %w", component, err)
	}
	current, target, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("schema version of %s: %w", component, err)
	}
	if current > target {
		return fmt.Errorf("%w: %s is at version %d, this binary knows up to %d (%s)", ErrSchemaTooNew, component, current, target, db.Path)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s: %w", component, err)
	}
	return nil
}

// Tx runs fn in a write transaction and returns once it is durable; it is Write.
func (db *DB) Tx(ctx context.Context, fn func(*sql.Tx) error) error { return db.Write(ctx, fn) }

// Write queues fn for the group-commit writer and waits for its result. The writer runs fn inside a
// savepoint of a transaction it shares with the writes of other callers that were waiting at the same
// time, and commits them together with one fsync (synchronous=FULL). Write returns nil only once that
// commit is on disk; when fn fails, its savepoint alone is rolled back and Write returns fn's error.
// (On PostgreSQL a batch first runs without savepoints, two round trips less per write; a failing
// write then rolls the batch back and the others run again without it: the same results.)
//
// fn runs on the writer goroutine. A caller whose ctx ends before fn starts gets ctx.Err() and fn does
// not run; once fn has run, the caller waits for the commit. A statement that fn runs with a ctx that
// ends mid-way is interrupted, which rolls back the whole shared transaction: fn then fails and the
// other writes of the batch run again without it (so fn may run more than once, and should only set
// what it reports, not accumulate). Prefer context.WithoutCancel(ctx) inside fn. fn must only touch
// the database through tx and must not call Write itself.
func (db *DB) Write(ctx context.Context, fn func(*sql.Tx) error) error {
	return db.enqueue(db.lanes[0], &write{ctx: ctx, fn: fn, done: make(chan result, 1)})
}

// WriteOn is Write on the lane of key. On PostgreSQL a DB has several writers (lanes, pgLanes of
// them), each its own connection and transaction at a time; Write, Tx and WriteLean all use the
// first, so that a package written for one writer keeps it. A package whose writes the database
// itself keeps apart (versioned rows: a conflict is a failed condition or a row lock, as between
// replicas) may spread them with WriteOn: the writes of one key go to one lane, in the order they
// come, and different keys' writes may commit at the same time. fn runs on that lane's goroutine, so
// it must not touch state that only one writer goroutine may touch; and the lane's batches do not run
// the OnCommit and OnAbort hooks (they belong to the first lane's batches). On SQLite there is one
// lane: WriteOn is Write.
func (db *DB) WriteOn(ctx context.Context, key string, fn func(*sql.Tx) error) error {
	return db.enqueue(db.laneOf(key), &write{ctx: ctx, fn: fn, done: make(chan result, 1)})
}

// WriteLeanOn is WriteLean on the lane of key (see WriteOn).
func (db *DB) WriteLeanOn(ctx context.Context, key string, fn func(*sql.Tx) error) error {
	return leanResult(db.enqueue(db.laneOf(key), &write{ctx: ctx, fn: fn, done: make(chan result, 1), lean: true}))
}

// WriteLeanOnQueued is WriteLeanOn without the wait: fn is queued on key's lane and the call returns
// at once. then is called with what WriteLeanOn would have returned, on the lane's goroutine, once the
// batch that carried fn committed or failed: for the writes of one lane in the order they were
// queued, and before the writes queued after them are answered. then must be quick and must not
// write. The writes of one key run in the order they were queued, in one batch or in several, so a
// caller may queue writes that each build on the one before and wait only for the last; each fn
// must then refuse (NothingWritten) to run after one it builds on failed. An error returned here
// (ctx ended, the DB closed) means fn was not queued and then is not called.
func (db *DB) WriteLeanOnQueued(ctx context.Context, key string, fn func(*sql.Tx) error, then func(error)) error {
	return db.queue(db.laneOf(key), &write{ctx: ctx, fn: fn, lean: true, then: func(err error) { then(leanResult(err)) }})
}

// laneOf is the lane of key's writes.
func (db *DB) laneOf(key string) *lane {
	if len(db.lanes) == 1 {
		return db.lanes[0]
	}
	return db.lanes[maphash.String(laneSeed, key)%uint64(len(db.lanes))]
}

// Lanes is how many writers the DB has: 1 on SQLite, pgLanes on PostgreSQL.
func (db *DB) Lanes() int { return len(db.lanes) }

// WriteLean is Write for a hot path whose fn fails, when it fails, before it changes anything: fn
// runs without a savepoint of its own (two statements less per write). fn returns nil, or
// NothingWritten(err) when it stops before its first change; WriteLean then returns err and the
// batch goes on. Any other error (or a panic) may leave fn's changes half made: the whole shared
// transaction is rolled back and the other writes of the batch run again without fn, as when a
// statement breaks the transaction under Write. Correct either way, only slower.
func (db *DB) WriteLean(ctx context.Context, fn func(*sql.Tx) error) error {
	return leanResult(db.enqueue(db.lanes[0], &write{ctx: ctx, fn: fn, done: make(chan result, 1), lean: true}))
}

// leanResult is a lean write's error for its caller: the error fn marked NothingWritten, unmarked.
func leanResult(err error) error {
	var nw *nothingWritten
	if errors.As(err, &nw) {
		return nw.err
	}
	return err
}

// NothingWritten marks err as returned by a WriteLean fn before it changed anything.
func NothingWritten(err error) error { return &nothingWritten{err} }

type nothingWritten struct{ err error }

func (e *nothingWritten) Error() string { return e.err.Error() }
func (e *nothingWritten) Unwrap() error { return e.err }

// enqueue queues w for lane l and waits for its result.
func (db *DB) enqueue(l *lane, w *write) error {
	if err := db.queue(l, w); err != nil {
		return err
	}
	r := <-w.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

// queue puts w on lane l's queue and wakes the lane (unless w's ctx ended or the DB is closed).
func (db *DB) queue(l *lane, w *write) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return ErrClosed
	}
	l.queue = append(l.queue, w)
	db.mu.Unlock()
	l.signal()
	return nil
}

// OnAbort registers f to run on the writer goroutine after a batch that did not commit as a whole (its
// commit failed, or SQLite rolled the transaction back under a fn). A package that keeps memory in step
// with what its fns wrote reloads it there. (The batches of Write, Tx and WriteLean: the first lane's.)
func (db *DB) OnAbort(f func()) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.lanes[0].onAbort = append(db.lanes[0].onAbort, f)
}

// OnCommit registers f to run on the writer goroutine after each batch whose successful writes are
// committed (on disk), before its callers are answered: a package that gathers, in its fns, what
// to announce once their writes are durable announces it there, in the order the writes ran, and
// with no wait for its callers' goroutines to be scheduled. (The first lane's batches, as OnAbort.)
func (db *DB) OnCommit(f func()) {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.lanes[0].onCommit = append(db.lanes[0].onCommit, f)
}

func (l *lane) signal() {
	select {
	case l.wake <- struct{}{}:
	default: // already signalled
	}
}

// Stats counts what the writers did: batches committed or tried, and writes they carried.
type Stats struct{ Batches, Writes int64 }

// Stats returns the writers' counts so far, all lanes together.
func (db *DB) Stats() Stats {
	db.mu.Lock()
	defer db.mu.Unlock()
	var s Stats
	for _, l := range db.lanes {
		s.Batches += l.batches
		s.Writes += l.writes
	}
	return s
}

// Queued is how many writes wait for a writer now, all lanes together: for tests that line writes up
// in one batch behind a write that holds the writer.
func (db *DB) Queued() int {
	db.mu.Lock()
	defer db.mu.Unlock()
	n := 0
	for _, l := range db.lanes {
		n += len(l.queue)
	}
	return n
}

// run is the goroutine of lane l: each batch is every write queued on it since the previous batch
// began (the callers that arrived while it was committing), at most maxBatch of them. After Close it
// drains the queue, then stops.
func (db *DB) run(l *lane) {
	defer close(l.stopped)
	for {
		// Let the goroutines that are ready to run go first: under load some of them are about to
		// queue a write, which then shares this batch's commit and fsync instead of paying its own
		// (the commit, not the statements, is most of a small write's CPU). When nothing else is
		// runnable (one client, an idle machine) this returns at once, so it adds no latency there.
		runtime.Gosched()
		db.mu.Lock()
		n := min(len(l.queue), maxBatch)
		batch := append([]*write(nil), l.queue[:n]...)
		rest := copy(l.queue, l.queue[n:])
		clear(l.queue[rest:]) // a finished write's closure may hold a large task: do not pin it
		l.queue = l.queue[:rest]
		closed := db.closed
		more := len(l.queue) > 0
		if n > 0 {
			l.batches++
			l.writes += int64(n)
		}
		db.mu.Unlock()
		if n > 0 {
			db.commit(l, batch)
			select {
			case db.dirty <- struct{}{}:
			default: // the checkpointer already knows
			}
		}
		if more {
			continue
		}
		if closed && n == 0 {
			return
		}
		if !closed {
			<-l.wake
		}
	}
}

// commit runs a batch in one BEGIN IMMEDIATE … COMMIT, each write in its own savepoint, and hands
// every caller its own result. When a write takes the whole transaction down with it (SQLite rolls it
// back on an interrupted statement or a full disk, so its savepoint is gone), that write gets the error
// and the others run again in a new transaction: one caller's failure never fails its neighbours.
func (db *DB) commit(l *lane, batch []*write) {
	results := make(map[*write]result, len(batch))
	defer func() {
		for _, w := range batch {
			r := results[w]
			if w.then == nil {
				w.done <- r
				continue
			}
			if r.panicked != nil { // nobody waits to panic again: the write failed
				r.err = fmt.Errorf("the write panicked: %v", r.panicked)
			}
			w.then(r.err)
		}
	}()
	pending := batch
	for len(pending) > 0 {
		broken, err := db.try(l, pending, results)
		if broken < 0 {
			if err != nil { // begin or commit failed: nothing of the batch is stored
				for _, w := range pending {
					if r := results[w]; r.err == nil && r.panicked == nil {
						results[w] = result{err: err}
					}
				}
				l.aborted(db)
			} else {
				l.hooks(db, &l.onCommit)
			}
			return
		}
		bad := pending[broken]
		r := results[bad]
		if bad.tries < conflictTries && r.panicked == nil && lostConflict(r.err) {
			// Replicas' batches lock rows (and advisory locks) in the order their writes come, so two
			// can wait for each other; PostgreSQL fails one statement to break the cycle, which says
			// nothing about the write itself: the whole batch runs again, the write included.
			bad.tries++
			l.aborted(db)
			continue
		}
		r.err = errors.Join(r.err, err)
		results[bad] = r
		l.aborted(db)
		pending = append(append([]*write{}, pending[:broken]...), pending[broken+1:]...)
	}
}

// try runs pending in one transaction, recording each write's result. It returns the index of a write
// that broke the transaction (with why), or -1 and the error of begin or commit.
func (db *DB) try(l *lane, pending []*write, results map[*write]result) (int, error) {
	if len(pending) == 1 {
		return -1, db.tryOne(l, pending[0], results)
	}
	if db.Postgres() {
		if broken, err, hidden := db.tryWithoutSavepoints(l, pending, results); !hidden {
			return broken, err
		}
		// A write hid a failed statement: run the batch again, a savepoint per write, to find it.
	}
	tx, err := db.begin(l)
	if err != nil {
		return -1, err
	}
	defer db.runBeforeCommit(tx, false)
	savepoint, release, rollbackTo := tx.Stmt(db.savepoint), tx.Stmt(db.release), tx.Stmt(db.rollbackTo)
	ran := false
	for i, w := range pending {
		if err := w.ctx.Err(); err != nil {
			results[w] = result{err: err}
			continue
		}
		// On PostgreSQL a failed statement breaks the whole transaction, even one that changed
		// nothing, so every write there gets its savepoint.
		if w.lean && !db.Postgres() {
			r := runFn(w.fn, tx)
			results[w] = r
			var nw *nothingWritten
			switch {
			case r.err == nil && r.panicked == nil:
				ran = true
			case r.panicked == nil && errors.As(r.err, &nw):
				// failed before changing anything: nothing to undo
			default:
				// Its changes may be half made: undo the whole transaction, run the others again.
				return i, tx.Rollback()
			}
			continue
		}
		if _, err := savepoint.Exec(); err != nil {
			return i, errors.Join(fmt.Errorf("savepoint: %w", err), tx.Rollback())
		}
		announced := l.announced()
		r := runFn(w.fn, tx)
		results[w] = r
		if r.err == nil && r.panicked == nil {
			if _, err := release.Exec(); err != nil {
				return i, errors.Join(fmt.Errorf("release savepoint: %w", err), tx.Rollback())
			}
			ran = true
			continue
		}
		// Undo this write alone, its notes included.
		l.unannounce(announced)
		if _, err := rollbackTo.Exec(); err != nil {
			return i, errors.Join(fmt.Errorf("the write took its transaction with it: %w", err), tx.Rollback())
		}
		if _, err := release.Exec(); err != nil {
			return i, errors.Join(fmt.Errorf("release savepoint: %w", err), tx.Rollback())
		}
	}
	if !ran {
		return -1, tx.Rollback()
	}
	if err := db.commitTx(l, tx); err != nil {
		return -1, fmt.Errorf("commit: %w", err)
	}
	return -1, nil
}

// tryWithoutSavepoints is try on PostgreSQL, where each savepoint and its release are two more round
// trips to the server per write, most of a small write's time on the single writer connection. The
// writes run one after the other in the batch's transaction with no savepoint; the first that fails
// (other than with NothingWritten) takes the transaction down, and commit runs the others again
// without it (fn may run more than once: see Write), as when a statement breaks a transaction on
// SQLite. The result is the same as with savepoints; only a failing write costs more. A write whose fn
// swallowed a failed statement leaves the transaction aborted, which shows as a later statement's
// error 25P02 or as a commit that rolled back: then hidden is true, nothing is stored, and the batch
// must run again with savepoints to tell whose write it was.
func (db *DB) tryWithoutSavepoints(l *lane, pending []*write, results map[*write]result) (broken int, err error, hidden bool) {
	tx, err := db.begin(l)
	if err != nil {
		return -1, err, false
	}
	defer db.runBeforeCommit(tx, false)
	ran := false
	for i, w := range pending {
		if err := w.ctx.Err(); err != nil {
			results[w] = result{err: err}
			continue
		}
		announced := l.announced()
		r := runFn(w.fn, tx)
		results[w] = r
		var nw *nothingWritten
		switch {
		case r.err == nil && r.panicked == nil:
			ran = true
		case r.panicked == nil && errors.As(r.err, &nw) && !inFailedTransaction(r.err):
			l.unannounce(announced) // it wrote nothing, so it has nothing to tell
		case r.panicked == nil && inFailedTransaction(r.err):
			tx.Rollback()
			return -1, nil, true
		default:
			return i, tx.Rollback(), false
		}
	}
	if !ran {
		return -1, tx.Rollback(), false
	}
	if err := db.commitTx(l, tx); err != nil {
		if errors.Is(err, pgx.ErrTxCommitRollback) || inFailedTransaction(err) {
			return -1, nil, true
		}
		return -1, fmt.Errorf("commit: %w", err), false
	}
	return -1, nil, false
}

// tryOne runs a batch of one write: its own transaction, no savepoint needed. It returns the error of
// begin or commit (the write's own result is in results).
func (db *DB) tryOne(l *lane, w *write, results map[*write]result) error {
	if err := w.ctx.Err(); err != nil {
		results[w] = result{err: err}
		return nil
	}
	tx, err := db.begin(l)
	if err != nil {
		return err
	}
	defer db.runBeforeCommit(tx, false)
	r := runFn(w.fn, tx)
	results[w] = r
	if r.err != nil || r.panicked != nil {
		tx.Rollback() // fails only if SQLite already rolled it back: the write is undone either way
		if w.tries < conflictTries && r.panicked == nil && lostConflict(r.err) {
			w.tries++ // PostgreSQL broke a deadlock with it: run it again (see commit)
			return db.tryOne(l, w, results)
		}
		return nil
	}
	if err := db.commitTx(l, tx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// begin starts lane l's transaction. On PostgreSQL, a writer connection that the server dropped
// while it sat idle (a restart) fails its first BEGIN, and database/sql only then knows to replace it:
// the BEGIN is tried once more, on a new connection, before the batch is failed as unavailable.
// Nothing has run yet, so trying again is safe. A failed connection attempt is not tried again: it
// already was a new connection, and one that timed out took pgx's ConnectTimeout.
func (db *DB) begin(l *lane) (*sql.Tx, error) {
	tx, err := db.Writer.BeginTx(context.Background(), nil)
	var connect *pgconn.ConnectError
	if err != nil && db.Postgres() && Unavailable(err) && !errors.As(err, &connect) {
		tx, err = db.Writer.BeginTx(context.Background(), nil)
	}
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	if db.notes != nil {
		l.batch.Store(tx)
		l.pending = l.pending[:0]
	}
	return tx, nil
}

// BeforeCommit registers, from inside a write's fn, f to run once in tx after the batch's writes and
// before its notes are sent and it commits, in the order registered: for a package that gathers its
// writes of a batch and stores them all at once. If f fails, the batch fails as a failed commit does:
// every write of it gets the error, nothing is stored, and the OnAbort hooks run.
func (db *DB) BeforeCommit(tx *sql.Tx, f func(*sql.Tx) error) {
	fns, _ := db.beforeCommit.Load(tx)
	list, _ := fns.([]func(*sql.Tx) error)
	db.beforeCommit.Store(tx, append(list, f))
}

// runBeforeCommit runs (and forgets) what BeforeCommit registered in tx; forget alone: tx ended.
func (db *DB) runBeforeCommit(tx *sql.Tx, run bool) error {
	fns, ok := db.beforeCommit.LoadAndDelete(tx)
	if !ok || !run {
		return nil
	}
	for _, f := range fns.([]func(*sql.Tx) error) {
		if err := f(tx); err != nil {
			return err
		}
	}
	return nil
}

// commitTx runs the BeforeCommit functions, sends the batch's notes (one statement for all, see
// Announce) and commits.
func (db *DB) commitTx(l *lane, tx *sql.Tx) error {
	if err := db.runBeforeCommit(tx, true); err != nil {
		tx.Rollback()
		return err
	}
	if err := db.flushNotes(l, tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// runFn runs fn, turning a panic into a result so the writer goroutine survives it and the caller
// panics instead.
func runFn(fn func(*sql.Tx) error, tx *sql.Tx) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{panicked: p}
		}
	}()
	return result{err: fn(tx)}
}

func (l *lane) aborted(db *DB) { l.hooks(db, &l.onAbort) }

// hooks runs the functions registered in list (&l.onAbort or &l.onCommit).
func (l *lane) hooks(db *DB, list *[]func()) {
	db.mu.Lock()
	hooks := append([]func(){}, *list...)
	db.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}
