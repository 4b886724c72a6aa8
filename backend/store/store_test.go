package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/store/storetest"
)

// openTest opens a database on the engine of the test run (storetest), with a table kv.
func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(storetest.Target(t, filepath.Join(t.TempDir(), "t.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Writer.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v ` + map[bool]string{false: "BLOB", true: "BYTEA"}[db.Postgres()] + `)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// batchWrite is one write of inOneBatch: a Write, or a WriteLean when lean.
type batchWrite struct {
	name string
	fn   func(*sql.Tx) error
	lean bool
}

// inOneBatch queues writes in this order behind a held writer, so that they share its next batch,
// and returns each one's error by name.
func inOneBatch(t *testing.T, db *DB, writes ...batchWrite) map[string]error {
	t.Helper()
	release, held := holdWriter(t, db)
	type outcome struct {
		name string
		err  error
	}
	done := make(chan outcome, len(writes))
	for i, w := range writes {
		go func() {
			write := db.Write
			if w.lean {
				write = db.WriteLean
			}
			done <- outcome{w.name, write(context.Background(), w.fn)}
		}()
		queued(db, i+1) // in this order
	}
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	got := map[string]error{}
	for range writes {
		o := <-done
		got[o.name] = o.err
	}
	return got
}

// replicas opens two handles on one new PostgreSQL database, as two replicas of a hub share one, with
// the table kv.
func replicas(t *testing.T) (a, b *DB) {
	t.Helper()
	target := storetest.Target(t, "")
	for _, db := range []**DB{&a, &b} {
		var err error
		if *db, err = Open(target); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { (*db).Close() })
	}
	if _, err := a.Writer.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v BYTEA)`); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// sqliteOnly skips a test of SQLite's own machinery (its WAL, checkpoints, page cache) in a run on
// PostgreSQL, which has none of it.
func sqliteOnly(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("SQLite's WAL and page cache: not in a PostgreSQL run")
	}
}

func put(k string) func(*sql.Tx) error {
	return func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO kv (k, v) VALUES (?, 'x')`, k)
		return err
	}
}

// keys reads what is stored, through a fresh connection to the file.
func keys(t *testing.T, db *DB) string {
	t.Helper()
	rows, err := db.Reader.Query(`SELECT k FROM kv ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return strings.Join(out, ",")
}

// holdWriter queues a write that blocks the writer until release is closed, and returns once the
// writer is inside it, so the writes queued next all wait for the same next batch.
func holdWriter(t *testing.T, db *DB) (release func(), done <-chan error) {
	t.Helper()
	inside, gate, errc := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		errc <- db.Write(context.Background(), func(tx *sql.Tx) error {
			close(inside)
			<-gate
			return put("held")(tx)
		})
	}()
	<-inside
	return func() { close(gate) }, errc
}

// queued waits until n writes wait in the queue (no deadline: the writes are already on their way).
func queued(db *DB, n int) {
	for {
		if db.Queued() >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Writes that wait while a batch commits go together in the next batch: one transaction, one fsync.
func TestWriteGroupsConcurrentCallers(t *testing.T) {
	db := openTest(t)
	release, held := holdWriter(t, db)
	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.Write(context.Background(), put(fmt.Sprintf("k%02d", i)))
		}()
	}
	queued(db, n)
	release()
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if got := db.Stats(); got != (Stats{Batches: 2, Writes: n + 1}) {
		t.Fatalf("stats %+v, want the held write alone, then the %d others in one batch", got, n)
	}
	if got := strings.Count(keys(t, db), ","); got != n {
		t.Fatalf("%d rows stored, want %d", got+1, n+1)
	}
}

// A write that fails rolls back its own savepoint only; the others of its batch commit.
func TestWriteFailureRollsBackOnlyItsOwn(t *testing.T) {
	db := openTest(t)
	boom := errors.New("boom")
	got := inOneBatch(t, db,
		batchWrite{name: "a", fn: put("a")},
		batchWrite{name: "b", fn: func(tx *sql.Tx) error {
			if err := put("b")(tx); err != nil {
				return err
			}
			return boom
		}},
		batchWrite{name: "dup", fn: put("a")}, // a constraint error: the statement fails, the batch goes on
	)
	if got["a"] != nil || !errors.Is(got["b"], boom) || got["dup"] == nil {
		t.Fatalf("results %v", got)
	}
	if k := keys(t, db); k != "a,held" {
		t.Fatalf("stored %q, want a and held (b rolled back, the duplicate refused)", k)
	}
	if s := db.Stats(); s.Batches != 2 {
		t.Fatalf("stats %+v: the three writes should have shared one batch", s)
	}
}

// A write that takes the whole transaction down (here it rolls it back itself, as SQLite does on an
// interrupted statement or a full disk) fails alone: the others of its batch run again and commit.
func TestWriteThatBreaksTheTransactionFailsAlone(t *testing.T) {
	db := openTest(t)
	got := inOneBatch(t, db,
		batchWrite{name: "a", fn: put("a")},
		batchWrite{name: "breaker", fn: func(tx *sql.Tx) error {
			if _, err := tx.Exec(`ROLLBACK`); err != nil {
				return err
			}
			return errors.New("broke it")
		}},
		batchWrite{name: "c", fn: put("c")},
	)
	if got["a"] != nil || got["c"] != nil || got["breaker"] == nil {
		t.Fatalf("results %v, want a and c stored, the breaker failed", got)
	}
	if k := keys(t, db); k != "a,c,held" {
		t.Fatalf("stored %q", k)
	}
}

// A panic in fn reaches its caller; the writer and the other writes go on.
func TestWritePanicReachesItsCaller(t *testing.T) {
	db := openTest(t)
	func() {
		defer func() {
			if p := recover(); p != "kaboom" {
				t.Fatalf("recovered %v", p)
			}
		}()
		db.Write(context.Background(), func(*sql.Tx) error { panic("kaboom") })
	}()
	if err := db.Write(context.Background(), put("after")); err != nil {
		t.Fatal(err)
	}
	if k := keys(t, db); k != "after" {
		t.Fatalf("stored %q", k)
	}
}

// A caller that gives up before its write starts gets ctx.Err(), and the write does not happen.
func TestWriteCanceledBeforeItRunsDoesNothing(t *testing.T) {
	db := openTest(t)
	release, held := holdWriter(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- db.Write(ctx, put("canceled")) }()
	queued(db, 1)
	cancel()
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if k := keys(t, db); k != "held" {
		t.Fatalf("stored %q", k)
	}
}

// Write after Close is refused; writes queued before Close commit first.
func TestWriteAfterClose(t *testing.T) {
	db := openTest(t)
	if err := db.Write(context.Background(), put("x")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(context.Background(), put("y")); !errors.Is(err, ErrClosed) {
		t.Fatalf("err %v", err)
	}
}

// The WAL does not keep the size of a past burst: a long read (a slow stream, a big list) keeps
// SQLite from checkpointing, so the WAL grows while it lasts; once it ends and writes pause, the
// checkpointer copies the WAL into the database and truncates it, and Close empties it.
func TestWALStaysSmall(t *testing.T) {
	sqliteOnly(t)
	db := openTest(t)
	blob := make([]byte, 256<<10)
	write := func(n int) {
		for i := range n {
			if err := db.Write(context.Background(), func(tx *sql.Tx) error {
				_, err := tx.Exec(`INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)`, fmt.Sprint(i%4), blob)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(1)
	read, err := db.Reader.Query(`SELECT k FROM kv`) // a read in progress holds its snapshot
	if err != nil || !read.Next() {
		t.Fatal(err, read.Err())
	}
	write(120) // 30 MiB while the read holds its snapshot
	wal := db.Path + "-wal"
	if st, err := os.Stat(wal); err != nil || st.Size() < 30<<20 {
		t.Fatalf("WAL %v %v: the burst should be in it while the read lasts", st, err)
	}
	if err := read.Close(); err != nil {
		t.Fatal(err)
	}
	write(1)
	walShrinks(t, wal)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(wal); err == nil && st.Size() != 0 {
		t.Fatalf("WAL is %d bytes after Close, want it empty", st.Size())
	}
}

// walShrinks waits (up to 20 s, far more than the checkpointer's pause of idleBeforeTruncate) for the
// WAL file to be back within JournalSizeLimit.
func walShrinks(t *testing.T, wal string) {
	t.Helper()
	var size int64
	for range 400 {
		st, err := os.Stat(wal)
		if err != nil {
			t.Fatal(err)
		}
		if size = st.Size(); size <= JournalSizeLimit {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("WAL is still %d bytes once writes paused, want at most %d", size, JournalSizeLimit)
}

// A write alone in its batch (no savepoint) that fails is rolled back too.
func TestLoneFailingWriteIsRolledBack(t *testing.T) {
	db := openTest(t)
	boom := errors.New("boom")
	err := db.Write(context.Background(), func(tx *sql.Tx) error {
		if err := put("lone")(tx); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if err := db.Write(context.Background(), put("next")); err != nil {
		t.Fatal(err)
	}
	if k := keys(t, db); k != "next" {
		t.Fatalf("stored %q", k)
	}
}

// WriteLean runs fns without savepoints: a fn that fails with NothingWritten leaves its batch alone;
// one that fails any other way may have half-written, so the whole transaction is rolled back and
// the rest of the batch runs again without it. Either way only complete writes are stored.
func TestWriteLean(t *testing.T) {
	db := openTest(t)
	nope, boom := errors.New("nope"), errors.New("boom")
	var mu sync.Mutex
	runs := map[string]int{}
	counted := func(name string, fn func(*sql.Tx) error) batchWrite {
		return batchWrite{name: name, lean: true, fn: func(tx *sql.Tx) error {
			mu.Lock()
			runs[name]++
			mu.Unlock()
			return fn(tx)
		}}
	}
	got := inOneBatch(t, db,
		counted("a", put("a")),
		counted("c", func(*sql.Tx) error { return NothingWritten(nope) }),
		counted("b", func(tx *sql.Tx) error {
			if err := put("b")(tx); err != nil {
				return err
			}
			return boom // after a change: the transaction holds b's half-made write
		}),
		counted("d", put("d")),
	)
	if got["a"] != nil || !errors.Is(got["c"], nope) || !errors.Is(got["b"], boom) || got["d"] != nil {
		t.Fatalf("results %v", got)
	}
	if k := keys(t, db); k != "a,d,held" {
		t.Fatalf("stored %q, want a, d and held (b's half-made write undone)", k)
	}
	// a ran before b broke the transaction and once more after; c's failure broke nothing (else a
	// would have run a third time); d ran only in the second transaction. The same on PostgreSQL,
	// where a batch runs without savepoints until a write fails.
	if runs["a"] != 2 || runs["b"] != 1 || runs["d"] != 1 {
		t.Fatalf("runs %v", runs)
	}
}

// OnCommit hooks run on the writer after a batch committed and before its callers are answered; a
// try that aborts runs the OnAbort hooks instead, and the others' rerun commits and runs OnCommit.
func TestOnCommitRunsAfterTheCommitBeforeTheAnswer(t *testing.T) {
	db := openTest(t)
	var log []string // appended on the writer goroutine only; read once the writes are answered
	db.OnCommit(func() { log = append(log, "commit") })
	db.OnAbort(func() { log = append(log, "abort") })
	logged := func(name string, fn func(*sql.Tx) error) func(*sql.Tx) error {
		return func(tx *sql.Tx) error {
			log = append(log, name)
			return fn(tx)
		}
	}
	if err := db.Write(context.Background(), logged("alone", put("alone"))); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, ","); got != "alone,commit" {
		t.Fatalf("after a lone write: %s", got)
	}
	log = nil
	release, held := holdWriter(t, db)
	results := make(chan error, 3)
	for i, fn := range []func(*sql.Tx) error{
		logged("a", put("a")),
		logged("breaker", func(tx *sql.Tx) error {
			if _, err := tx.Exec(`ROLLBACK`); err != nil {
				return err
			}
			return errors.New("broke it")
		}),
		logged("c", put("c")),
	} {
		go func() { results <- db.Write(context.Background(), fn) }()
		queued(db, i+1) // queued in this order
	}
	queued(db, 3)
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	for range 3 {
		<-results
	}
	if got := strings.Join(log, ","); got != "commit,a,breaker,abort,a,c,commit" {
		t.Fatalf("hooks ran as %s; want the held batch's commit, then the broken try's abort, then the rerun's commit", got)
	}
}

// The checkpointer copies the WAL into the database beside the writer: after 100 writes of about
// four WAL pages each (below the writer's own checkpoint at walRestartPages) and a pause,
// the pages are in the database file, which no commit put there. Held off, it copies nothing.
func TestTheCheckpointerCopiesTheWALBesideTheWriter(t *testing.T) {
	sqliteOnly(t)
	db := openTest(t)
	held, err := db.checkpointer.Conn(context.Background()) // its only connection: it cannot run
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { held.Close() }) // before Close, which waits for the checkpointer
	blob := make([]byte, 6<<10)
	for i := range 100 { // two overflow pages, the leaf and the root in the WAL: about four pages each
		if err := db.Write(context.Background(), func(tx *sql.Tx) error {
			_, err := tx.Exec(`INSERT INTO kv (k, v) VALUES (?, ?)`, fmt.Sprint("k", i), blob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	dbSize := func() int64 {
		st, err := os.Stat(db.Path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	time.Sleep(3 * checkpointEvery)
	if n := dbSize(); n > 512<<10 {
		t.Fatalf("database file is %d bytes with the checkpointer held: a commit checkpointed", n)
	}
	held.Close()
	for range 400 { // up to 20 s: far more than a checkpoint takes
		if dbSize() > 512<<10 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("database file is %d bytes: the checkpointer never copied the WAL", dbSize())
}

// TestWriterHasItsLargerPageCache: the writer connection runs with writerCachePages, the readers
// with SQLite's default.
func TestWriterHasItsLargerPageCache(t *testing.T) {
	sqliteOnly(t)
	db, err := Open(filepath.Join(t.TempDir(), "hub.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var w, r int
	if err := db.Writer.QueryRow(`PRAGMA cache_size`).Scan(&w); err != nil {
		t.Fatal(err)
	}
	if err := db.Reader.QueryRow(`PRAGMA cache_size`).Scan(&r); err != nil {
		t.Fatal(err)
	}
	if w != writerCachePages || r != -2000 {
		t.Fatalf("cache_size: writer %d, reader %d", w, r)
	}
}

// A write whose fn swallows its own failed statement and reports success (on PostgreSQL the
// transaction is then aborted, which the next write or the commit shows) gets an error, and the
// others of its batch commit: on PostgreSQL the batch runs again with a savepoint per write to find it.
func TestWriteThatHidesAFailedStatementFailsAlone(t *testing.T) {
	db := openTest(t)
	got := inOneBatch(t, db,
		batchWrite{name: "a", fn: put("a")},
		batchWrite{name: "hider", fn: func(tx *sql.Tx) error {
			put("a")(tx) // a duplicate key: the statement fails, its error is dropped
			return nil
		}},
		batchWrite{name: "lean", lean: true, fn: func(tx *sql.Tx) error { return NothingWritten(errors.New("not there")) }},
		batchWrite{name: "c", fn: put("c")},
	)
	// On SQLite a failed statement leaves the transaction usable: the hider's "success" stands.
	if got["a"] != nil || (got["hider"] != nil) != db.Postgres() || got["lean"] == nil || got["c"] != nil {
		t.Fatalf("results %v", got)
	}
	if k := keys(t, db); k != "a,c,held" {
		t.Fatalf("stored %q, want a, c and held", k)
	}
}

// Two replicas' writes that lock two rows in opposite orders wait for each other; PostgreSQL breaks
// the deadlock by failing one of them, and the store runs that one again: both callers succeed.
func TestDeadlockVictimRunsAgain(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	a, b := replicas(t)
	for _, k := range []string{"x", "y"} {
		if err := a.Write(t.Context(), put(k)); err != nil {
			t.Fatal(err)
		}
	}
	locked := make(chan struct{}, 2)
	var runs atomic.Int32
	crossed := func(first, second string) func(*sql.Tx) error {
		var once sync.Once
		return func(tx *sql.Tx) error {
			runs.Add(1)
			if _, err := tx.Exec(`UPDATE kv SET v = 'w' WHERE k = ?`, first); err != nil {
				return err
			}
			once.Do(func() { // the first run waits until the other holds its first row too
				locked <- struct{}{}
				for len(locked) < 2 {
					runtime.Gosched()
				}
			})
			_, err := tx.Exec(`UPDATE kv SET v = 'w' WHERE k = ?`, second)
			return err
		}
	}
	errs := make(chan error, 2)
	go func() { errs <- a.Write(context.Background(), crossed("x", "y")) }()
	go func() { errs <- b.Write(context.Background(), crossed("y", "x")) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a write failed: %v", err)
		}
	}
	// At least once more than the two: the victim ran again. (On a loaded machine its rerun may lose a
	// second conflict with the winner's own batch and run again: more is still right.)
	if n := runs.Load(); n < 3 {
		t.Fatalf("the writes ran %d times, want at least 3 (the deadlock's victim once more)", n)
	}
}

// BeforeCommit's functions run once per transaction, in the order registered, after all the batch's
// writes and before it commits, inside it; one that fails fails the whole batch as a failed commit
// does: every write gets its error, nothing of the batch is stored, the OnAbort hooks run.
func TestBeforeCommitRunsOnceBeforeTheCommit(t *testing.T) {
	db := openTest(t)
	var log []string // the writer goroutine's; read once the writes are answered
	db.OnAbort(func() { log = append(log, "abort") })
	registering := func(name string, hook func(*sql.Tx) error) func(*sql.Tx) error {
		return func(tx *sql.Tx) error {
			log = append(log, name)
			db.BeforeCommit(tx, func(tx *sql.Tx) error {
				log = append(log, "before:"+name)
				return hook(tx)
			})
			return put(name)(tx)
		}
	}
	got := inOneBatch(t, db,
		batchWrite{name: "a", fn: registering("a", put("hook-a"))},
		batchWrite{name: "b", fn: put("b")},
		batchWrite{name: "c", fn: registering("c", put("hook-c")), lean: true})
	for name, err := range got {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if k := keys(t, db); k != "a,b,c,held,hook-a,hook-c" {
		t.Fatalf("stored %s", k)
	}
	if l := strings.Join(log, ","); l != "a,c,before:a,before:c" {
		t.Fatalf("ran as %s; want each write, then each hook once, in order", l)
	}

	if _, err := db.Writer.Exec(`DELETE FROM kv WHERE k = 'held'`); err != nil { // holdWriter's, again
		t.Fatal(err)
	}
	log = nil
	failed := errors.New("the hook failed")
	got = inOneBatch(t, db,
		batchWrite{name: "d", fn: put("d")},
		batchWrite{name: "e", fn: registering("e", func(*sql.Tx) error { return failed })},
		batchWrite{name: "f", fn: put("f")})
	for _, name := range []string{"d", "e", "f"} {
		if !errors.Is(got[name], failed) {
			t.Fatalf("%s: %v, want the hook's error", name, got[name])
		}
	}
	if k := keys(t, db); k != "a,b,c,held,hook-a,hook-c" {
		t.Fatalf("stored %s after a failed hook; want nothing of its batch", k)
	}
	if l := strings.Join(log, ","); l != "e,before:e,abort" {
		t.Fatalf("ran as %s; want the hook once, then the abort hooks", l)
	}
	// A transaction that ended without a commit (its write failed alone) forgets its hooks.
	err := db.Write(context.Background(), registering("g", put("hook-g")))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(context.Background(), func(tx *sql.Tx) error {
		db.BeforeCommit(tx, put("never"))
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatal(err)
	}
	if k := keys(t, db); k != "a,b,c,g,held,hook-a,hook-c,hook-g" {
		t.Fatalf("stored %s", k)
	}
	n := 0
	db.beforeCommit.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Fatalf("%d transactions' hooks kept after they ended", n)
	}
}
