package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/store/storetest"
)

// postgresOnly skips a test of several lanes in a run on SQLite, which has one (TestSQLiteHasOneLane).
func postgresOnly(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several lanes: PostgreSQL only (SQLite has one writer, see TestSQLiteHasOneLane)")
	}
}

// keyOnLane is a key whose writes go to lane i.
func keyOnLane(t *testing.T, db *DB, i int) string {
	t.Helper()
	for n := range 10000 {
		if k := fmt.Sprintf("key%d", n); db.laneOf(k) == db.lanes[i] {
			return k
		}
	}
	t.Fatalf("no key on lane %d", i)
	return ""
}

// holdLane queues a WriteOn of key that inserts held and then blocks its lane, inside its open
// transaction, until release is called; it returns once the lane is inside it.
func holdLane(t *testing.T, db *DB, key, held string) (release func(), done <-chan error) {
	t.Helper()
	inside, gate, errc := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		errc <- db.WriteOn(context.Background(), key, func(tx *sql.Tx) error {
			if err := put(held)(tx); err != nil {
				return err
			}
			close(inside)
			<-gate
			return nil
		})
	}()
	<-inside
	return sync.OnceFunc(func() { close(gate) }), errc
}

// queueOn queues writes on key's lane in this order (each its own caller), returning their results
// in the same order once all are answered. Call it while the lane is held.
func queueOn(db *DB, key string, lean bool, fns ...func(*sql.Tx) error) func() []error {
	out := make([]chan error, len(fns))
	before := db.Queued()
	for i, fn := range fns {
		out[i] = make(chan error, 1)
		go func() {
			write := db.WriteOn
			if lean {
				write = db.WriteLeanOn
			}
			out[i] <- write(context.Background(), key, fn)
		}()
		queued(db, before+i+1) // in this order
	}
	return func() []error {
		errs := make([]error, len(out))
		for i, c := range out {
			errs[i] = <-c
		}
		return errs
	}
}

// SQLite has one lane: WriteOn, whatever its key, waits behind a Write that holds the writer.
func TestSQLiteHasOneLane(t *testing.T) {
	sqliteOnly(t)
	db := openTest(t)
	if db.Lanes() != 1 {
		t.Fatalf("%d lanes, want 1", db.Lanes())
	}
	release, held := holdWriter(t, db)
	answers := queueOn(db, "any", false, put("a"), put("b"))
	if got := db.Queued(); got != 2 {
		t.Fatalf("%d writes wait behind the held Write, want both", got)
	}
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if errs := answers(); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if got := keys(t, db); got != "a,b,held" {
		t.Fatalf("stored %s", got)
	}
}

// On PostgreSQL two writes on two lanes are inside their own open transactions at the same time: a
// Write (the first lane) waits inside its fn for a WriteOn of another lane to be inside its own, and
// that one waits for the first. With one writer neither would ever be inside while the other is.
func TestLanesHoldTransactionsOpenSideBySide(t *testing.T) {
	postgresOnly(t)
	db := openTest(t)
	if db.Lanes() < 2 {
		t.Fatalf("%d lanes", db.Lanes())
	}
	insideA, insideB := make(chan struct{}), make(chan struct{})
	var txA, txB int64
	meet := func(name string, mine *int64, inside, other chan struct{}) func(*sql.Tx) error {
		return func(tx *sql.Tx) error {
			if err := put(name)(tx); err != nil {
				return err
			}
			if err := tx.QueryRow(`SELECT txid_current()`).Scan(mine); err != nil {
				return err
			}
			close(inside)
			select {
			case <-other:
				return nil
			case <-time.After(30 * time.Second): // a hang guard only
				return fmt.Errorf("%s: the other lane's write never ran while this transaction was open", name)
			}
		}
	}
	errs := make(chan error, 2)
	go func() { errs <- db.Write(context.Background(), meet("a", &txA, insideA, insideB)) }()
	go func() {
		errs <- db.WriteOn(context.Background(), keyOnLane(t, db, 1), meet("b", &txB, insideB, insideA))
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if txA == txB {
		t.Fatalf("both writes ran in transaction %d", txA)
	}
	if got := keys(t, db); got != "a,b" {
		t.Fatalf("stored %s", got)
	}
}

// The writes of one key run in the order they were queued, whatever the lane.
func TestWriteOnKeepsAKeysOrder(t *testing.T) {
	db := openTest(t)
	key := "task-1"
	release, held := holdLane(t, db, key, "held")
	var mu sync.Mutex
	var order []int
	fns := make([]func(*sql.Tx) error, 20)
	for i := range fns {
		fns[i] = func(tx *sql.Tx) error {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			return put(fmt.Sprintf("k%02d", i))(tx)
		}
	}
	answers := queueOn(db, key, true, fns...)
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	for i, err := range answers() {
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for i, n := range order {
		if n != i {
			t.Fatalf("ran in order %v", order)
		}
	}
	if len(order) != len(fns) {
		t.Fatalf("ran %v", order)
	}
}

// A write that breaks its lane's transaction fails alone, and another lane's transaction, open at the
// same time, commits as if nothing happened.
func TestAFailingWriteOnOneLaneLeavesAnotherAlone(t *testing.T) {
	postgresOnly(t)
	db := openTest(t)
	k1, k2 := keyOnLane(t, db, 1), keyOnLane(t, db, 2)
	release1, held1 := holdLane(t, db, k1, "held1")
	release2, held2 := holdLane(t, db, k2, "held2")
	answers := queueOn(db, k2, false,
		put("good"),
		func(tx *sql.Tx) error { _, err := tx.Exec(`INSERT INTO nowhere VALUES (1)`); return err },
		put("good2"))
	release2()
	if err := <-held2; err != nil {
		t.Fatal(err)
	}
	errs := answers()
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("results %v; want only the broken write to fail", errs)
	}
	release1()
	if err := <-held1; err != nil {
		t.Fatalf("the other lane's write: %v", err)
	}
	if got := keys(t, db); got != "good,good2,held1,held2" {
		t.Fatalf("stored %s", got)
	}
}

// Only the first lane's batches (those of Write, Tx and WriteLean) run the OnCommit and OnAbort
// hooks: a package that registers them keeps its one writer goroutine.
func TestOtherLanesDoNotRunTheHooks(t *testing.T) {
	postgresOnly(t)
	db := openTest(t)
	var mu sync.Mutex
	var log []string
	db.OnCommit(func() { mu.Lock(); log = append(log, "commit"); mu.Unlock() })
	db.OnAbort(func() { mu.Lock(); log = append(log, "abort"); mu.Unlock() })
	other := keyOnLane(t, db, 1)
	if err := db.WriteOn(context.Background(), other, put("a")); err != nil {
		t.Fatal(err)
	}
	if err := db.WriteOn(context.Background(), other, func(*sql.Tx) error { return errors.New("no") }); err == nil {
		t.Fatal("the failing write succeeded")
	}
	if err := db.WriteOn(context.Background(), keyOnLane(t, db, 0), put("b")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(log, ","); got != "commit" {
		t.Fatalf("hooks ran %q; want the first lane's commit alone", got)
	}
}

// A note announced in a write on another lane is sent with that lane's batch: a lean write that
// announced and then wrote nothing takes its note back, its neighbour's goes out, in order.
func TestNotesOfAnotherLane(t *testing.T) {
	postgresOnly(t)
	a, b := replicas(t)
	got := follow(b, "t")
	listening(t, b)
	key := keyOnLane(t, a, 2)
	release, held := holdLane(t, a, key, "held")
	note := func(payload string, fail error) func(*sql.Tx) error {
		return func(tx *sql.Tx) error {
			if err := a.Announce(tx, "t", payload); err != nil {
				return err
			}
			return fail
		}
	}
	answers := queueOn(a, key, true, note("x", NothingWritten(errors.New("nothing"))), note("y", nil))
	release()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if errs := answers(); errs[0] == nil || errs[1] != nil {
		t.Fatalf("results %v", errs)
	}
	if err := a.WriteOn(context.Background(), key, note("end", nil)); err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(got.wait(t, 2), ","); notes != "y,end" {
		t.Fatalf("the other replica heard %s; want y,end", notes)
	}
}

// Close lets every lane finish the writes it took, then stops them all.
func TestCloseDrainsAllLanes(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "t.db"))
	db, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Writer.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v ` + map[bool]string{false: "BLOB", true: "BYTEA"}[db.Postgres()] + `)`); err != nil {
		t.Fatal(err)
	}
	var releases []func()
	var helds []<-chan error
	var answers []func() []error
	for i := range db.Lanes() {
		k := keyOnLane(t, db, i)
		release, held := holdLane(t, db, k, fmt.Sprintf("held%d", i))
		releases, helds = append(releases, release), append(helds, held)
		answers = append(answers, queueOn(db, k, false, put(fmt.Sprintf("q%d", i))))
	}
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	for {
		db.mu.Lock()
		c := db.closed
		db.mu.Unlock()
		if c {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := db.Write(context.Background(), put("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("a write after Close: %v", err)
	}
	for _, r := range releases {
		r()
	}
	for i := range releases {
		if err := <-helds[i]; err != nil {
			t.Fatal(err)
		}
		if errs := answers[i](); errs[0] != nil {
			t.Fatalf("lane %d: %v", i, errs[0])
		}
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	again, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	var want []string
	for i := range db.Lanes() {
		want = append(want, fmt.Sprintf("held%d", i), fmt.Sprintf("q%d", i))
	}
	if got := keys(t, again); got != strings.Join(slices.Sorted(slices.Values(want)), ",") {
		t.Fatalf("stored %s, want %v", got, want)
	}
}
