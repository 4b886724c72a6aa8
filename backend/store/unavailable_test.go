package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/agenthub/agenthub/backend/store/storetest"
)

// openKV opens the PostgreSQL database at target with a table kv, closed when the test ends.
func openKV(t *testing.T, target string) *DB {
	t.Helper()
	db, err := Open(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Writer.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v BYTEA)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// faultCluster starts a PostgreSQL cluster of the test's own, which it may stop and start (the run's
// shared cluster serves other tests). It runs in both engines' runs: it needs only the server's
// programs, which a PostgreSQL run must have.
func faultCluster(t *testing.T) *storetest.Cluster {
	t.Helper()
	if _, err := storetest.BinDir(); err != nil {
		if storetest.Postgres() {
			t.Fatal(err)
		}
		t.Skipf("a PostgreSQL server's faults need its programs: %v", err)
	}
	c, err := storetest.StartCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Remove)
	return c
}

// TestPostgresRestart stops PostgreSQL under writers and readers: every call while it is down fails
// with ErrUnavailable instead of hanging, the group-commit writer answers each caller of a batch and
// goes on, and once the server is back the very next write and reads succeed on the same DB, with
// everything acknowledged before the stop still there.
func TestPostgresRestart(t *testing.T) {
	c := faultCluster(t)
	db := openKV(t, c.URL("postgres"))
	ctx := context.Background()

	// Writers and readers run while the server stops under them.
	var acked sync.Map
	var n atomic.Int64
	var sawDown atomic.Bool
	var wrong sync.Map // an error while writing that is not ErrUnavailable
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("k%06d", n.Add(1))
				err := db.Write(ctx, put(k))
				switch {
				case err == nil:
					acked.Store(k, true)
				case Unavailable(err):
					sawDown.Store(true)
				default:
					wrong.Store(err.Error(), true)
				}
				var count int
				if err := db.Reader.QueryRow(`SELECT count(*) FROM kv`).Scan(&count); err != nil && !Unavailable(err) {
					wrong.Store("read: "+err.Error(), true)
				}
			}
		}()
	}
	for acked := 0; acked < 50; {
		acked = keyCount(t, db)
	}
	c.Stop()

	// While the server is down: writes, one alone or a batch of many, and reads fail as unavailable.
	for i := range 3 {
		err := db.Write(ctx, put(fmt.Sprintf("down%d", i)))
		checkUnavailable(t, "write while down", err)
	}
	var batch sync.WaitGroup
	errs := make([]error, 40)
	for i := range errs {
		batch.Add(1)
		go func() {
			defer batch.Done()
			errs[i] = db.Write(ctx, put(fmt.Sprintf("batch%d", i)))
		}()
	}
	batch.Wait()
	for _, err := range errs {
		checkUnavailable(t, "batched write while down", err)
	}
	err := db.WriteLean(ctx, put("lean"))
	checkUnavailable(t, "lean write while down", err)
	var one int
	checkUnavailable(t, "read while down", db.Reader.QueryRow(`SELECT 1`).Scan(&one))
	checkUnavailable(t, "direct statement on the writer while down", func() error {
		_, err := db.Writer.Exec(`SELECT 1`)
		return err
	}())
	close(stop)
	wg.Wait()
	if !sawDown.Load() {
		t.Error("no concurrent writer saw the server down")
	}
	wrong.Range(func(k, _ any) bool {
		t.Errorf("an error that is not ErrUnavailable while the server stopped: %s", k)
		return true
	})

	// Back: the same DB writes and reads at once, nothing restarted.
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, put("after")); err != nil {
		t.Fatalf("first write after the restart: %v", err)
	}
	for i := range pgReaders + 2 { // every pooled reader, each dropped by the restart
		if err := db.Reader.QueryRow(`SELECT 1`).Scan(&one); err != nil {
			t.Fatalf("read %d after the restart: %v", i, err)
		}
	}
	errs = make([]error, 40)
	for i := range errs {
		batch.Add(1)
		go func() {
			defer batch.Done()
			errs[i] = db.Write(ctx, put(fmt.Sprintf("again%02d", i)))
		}()
	}
	batch.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("a batch after the restart: %v", err)
	}

	// Every acknowledged write is stored; none of the refused ones is.
	stored := map[string]bool{}
	rows, err := db.Reader.Query(`SELECT k FROM kv`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		stored[k] = true
	}
	rows.Close()
	missing := 0
	acked.Range(func(k, _ any) bool {
		if !stored[k.(string)] {
			missing++
		}
		return true
	})
	if missing > 0 {
		t.Errorf("%d acknowledged writes are not stored", missing)
	}
	for _, k := range []string{"down0", "batch0", "lean"} {
		if stored[k] {
			t.Errorf("%s was refused as unavailable, yet it is stored", k)
		}
	}
	if !stored["after"] || !stored["again39"] {
		t.Error("the writes after the restart are not stored")
	}
}

// TestUnavailableWhenNeverUp: a hub whose database cannot be reached at all (nothing listens) fails
// Open with ErrUnavailable, which the CLI reports as such.
func TestUnavailableWhenNeverUp(t *testing.T) {
	c := faultCluster(t)
	c.Stop()
	_, err := Open(c.URL("postgres"))
	checkUnavailable(t, "open while down", err)
}

func checkUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if !errors.Is(err, ErrUnavailable) || !Unavailable(err) || !strings.Contains(err.Error(), ErrUnavailable.Error()) {
		t.Errorf("%s: %v, not ErrUnavailable", what, err)
	}
}

func keyCount(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.Reader.QueryRow(`SELECT count(*) FROM kv`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUnavailableClassifies: connection failures are unavailable, a statement's own errors and a
// caller's cancellation are not, and the mark goes through a feature package's %w.
func TestUnavailableClassifies(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "57P03"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "53300"}, true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique violation
		{&pgconn.PgError{Code: "42601"}, false}, // syntax error
		{context.Canceled, false},
		{sql.ErrNoRows, false},
		{errors.New("connection refused"), false}, // words alone are not a connection failure
	} {
		if got := Unavailable(tc.err); got != tc.want {
			t.Errorf("Unavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
		marked := markUnavailable(tc.err)
		if got := Unavailable(fmt.Errorf("tasks: save: %w", marked)); got != tc.want {
			t.Errorf("Unavailable(wrapped %v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestSessionsTerminated: the server ends the hub's sessions (pg_terminate_backend, as an
// administrator or a restart does, SQLSTATE 57P01) while they sit idle in the pools. The next read and
// write, at once, succeed on new connections: database/sql would otherwise hand the first statement on
// each dead connection the server's farewell as its error.
func TestSessionsTerminated(t *testing.T) {
	c := faultCluster(t)
	db := openKV(t, c.URL("postgres"))
	admin, err := sql.Open("pgx", c.URL("postgres")+"&application_name=admin")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx := context.Background()
	for round := range 3 {
		if err := db.Write(ctx, put(fmt.Sprintf("before%d", round))); err != nil {
			t.Fatal(err)
		}
		keyCount(t, db)
		var ended int
		if err := admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'agenthub'`).Scan(&ended); err != nil {
			t.Fatal(err)
		}
		if ended < 2 {
			t.Fatalf("terminated %d sessions, want the writer's and a reader's", ended)
		}
		if n := keyCount(t, db); n != 2*round+1 {
			t.Fatalf("read after the sessions ended: %d keys, want %d", n, 2*round+1)
		}
		if err := db.Write(ctx, put(fmt.Sprintf("after%d", round))); err != nil {
			t.Fatalf("write after the sessions ended: %v", err)
		}
	}
}

// TestUnavailableWhenServerHangs: a server that takes the connection but never answers (a hung host,
// a stuck proxy) fails the connection attempt at pgx's connect timeout, as unavailable, instead of
// holding the caller. (The URL shortens the hub's 5 s default.)
func TestUnavailableWhenServerHangs(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	_, err = Open(fmt.Sprintf("postgres://agenthub@%s/hub?sslmode=disable&connect_timeout=1", l.Addr()))
	checkUnavailable(t, "open against a server that never answers", err)
}

// TestFrozenServer: the server hangs (its processes stopped: connections stay open, nothing answers)
// while the pools hold idle connections. A write and a read fail as unavailable instead of waiting
// for TCP to give up, and once the server runs again the same DB works.
func TestFrozenServer(t *testing.T) {
	c := faultCluster(t)
	db := openKV(t, c.URL("postgres")+"&connect_timeout=1")
	ctx := context.Background()
	if err := db.Write(ctx, put("before")); err != nil {
		t.Fatal(err)
	}
	keyCount(t, db)
	// pgx checks a pooled connection (a ping) once it has sat idle for over a second: that check is
	// what notices the hung server before a statement is sent to it.
	time.Sleep(1100 * time.Millisecond)
	if err := c.Freeze(); err != nil {
		t.Fatal(err)
	}
	checkUnavailable(t, "write to a frozen server", db.Write(ctx, put("frozen")))
	var n int
	checkUnavailable(t, "read from a frozen server", db.Reader.QueryRow(`SELECT count(*) FROM kv`).Scan(&n))
	if err := c.Thaw(); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, put("after")); err != nil {
		t.Fatalf("write after the server runs again: %v", err)
	}
	if n := keyCount(t, db); n != 2 {
		t.Errorf("%d keys, want before and after", n)
	}
}
