package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/store/storetest"
)

// noteLog collects what a follower was told.
type noteLog struct {
	mu      sync.Mutex
	notes   []string
	resyncs int
	got     chan struct{}
}

func follow(db *DB, topic string) *noteLog {
	l := &noteLog{got: make(chan struct{}, 100)}
	db.Follow(topic, func(p string) {
		l.mu.Lock()
		l.notes = append(l.notes, p)
		l.mu.Unlock()
		l.got <- struct{}{}
	}, func() {
		l.mu.Lock()
		l.resyncs++
		l.mu.Unlock()
	})
	return l
}

func (l *noteLog) counts() (notes, resyncs int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.notes), l.resyncs
}

func (l *noteLog) wait(t *testing.T, n int) []string {
	t.Helper()
	for {
		l.mu.Lock()
		got := append([]string(nil), l.notes...)
		l.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-l.got:
		case <-time.After(20 * time.Second): // a hang guard only
			t.Fatalf("got notes %q, want %d", got, n)
		}
	}
}

func announce(t *testing.T, db *DB, topic, payload string, fail error) error {
	t.Helper()
	return db.Write(context.Background(), func(tx *sql.Tx) error {
		if err := db.Announce(tx, topic, payload); err != nil {
			return err
		}
		return fail
	})
}

func listening(t *testing.T, db *DB) {
	t.Helper()
	select {
	case <-db.Listening():
	case <-time.After(20 * time.Second):
		t.Fatal("the listener never connected")
	}
}

// Two replicas on one database: a note announced in a write reaches the other replica's followers of
// its topic once the write commits, in commit order, and never when the write fails; a replica does
// not hear its own notes, nor another topic's.
func TestNotesReachTheOtherReplicasOnCommit(t *testing.T) {
	if !storetest.Postgres() {
		db := openTest(t)
		l := follow(db, "tasks")
		if err := announce(t, db, "tasks", "x", nil); err != nil || db.Listening() != nil {
			t.Fatalf("SQLite: Announce %v, Listening %v; want a no-op", err, db.Listening())
		}
		if n, r := l.counts(); n != 0 || r != 0 {
			t.Fatalf("SQLite follower called: %d notes, %d resyncs", n, r)
		}
		return
	}
	a, b := replicas(t)
	own, other := follow(a, "tasks"), follow(b, "tasks")
	otherTopic := follow(b, "channels")
	listening(t, a)
	listening(t, b)
	boom := errors.New("boom")
	for i, p := range []string{"1", "rolled back", "2", "3"} {
		var fail error
		if p == "rolled back" {
			fail = boom
		}
		if err := announce(t, a, "tasks", p, fail); !errors.Is(err, fail) {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	if got := other.wait(t, 3); len(got) != 3 || got[0] != "1" || got[1] != "2" || got[2] != "3" {
		t.Fatalf("the other replica heard %q, want 1, 2, 3", got)
	}
	// A marker after the others: once it arrives, anything a wrong delivery would add is in.
	if err := announce(t, b, "tasks", "from b", nil); err != nil {
		t.Fatal(err)
	}
	if got := own.wait(t, 1); len(got) != 1 || got[0] != "from b" {
		t.Fatalf("replica a heard %q: its own notes, or not b's", got)
	}
	if n, _ := otherTopic.counts(); n != 0 {
		t.Fatalf("a follower of another topic heard %d notes", n)
	}
	if _, r1 := other.counts(); r1 != 1 {
		t.Fatalf("b resynced %d times, want 1 (the first connection)", r1)
	}
	if _, r2 := own.counts(); r2 != 1 {
		t.Fatalf("a resynced %d times, want 1 (the first connection)", r2)
	}
	if err := a.Write(context.Background(), func(tx *sql.Tx) error {
		return a.Announce(tx, "tasks", string(make([]byte, MaxNote+1)))
	}); !errors.Is(err, ErrNoteTooLarge) {
		t.Fatalf("a note over MaxNote: %v", err)
	}
}

// When PostgreSQL restarts, the listener reconnects by itself and every follower resyncs (notes sent
// while it was away are lost); notes announced after that arrive again.
func TestNotesFollowersResyncAfterTheDatabaseRestarts(t *testing.T) {
	c := faultCluster(t) // its own cluster, stopped and started here: in both engines' runs
	a, err := Open(c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l := follow(b, "t")
	listening(t, b)
	if err := announce(t, a, "t", "before", nil); err != nil {
		t.Fatal(err)
	}
	l.wait(t, 1)
	c.Stop()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, n := l.counts(); n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no resync after the restart")
		}
	}
	// The writer's connection died with the server: the first write may fail, a later one works.
	var werr error
	for range 50 {
		if werr = announce(t, a, "t", "after", nil); werr == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if werr != nil {
		t.Fatalf("writes after the restart: %v", werr)
	}
	if got := l.wait(t, 2); got[len(got)-1] != "after" {
		t.Fatalf("heard %q after the restart", got)
	}
}

// The notes of one batch go out together at its commit, in the order announced; those of a write
// that was undone (rolled back by its own failure, or one that said it wrote nothing) never do.
func TestNotesOfABatchKeepTheirOrderAndDropUndoneWrites(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	a, b := replicas(t)
	heard := follow(b, "t")
	follow(a, "t")
	listening(t, a)
	listening(t, b)
	// noting stores key k and announces it, then fails with fail; a write that says it wrote
	// nothing changes no row.
	noting := func(k string, lean bool, fail error) batchWrite {
		return batchWrite{name: k, lean: lean, fn: func(tx *sql.Tx) error {
			if !lean || fail == nil {
				if err := put("k" + k)(tx); err != nil {
					return err
				}
			}
			if err := a.Announce(tx, "t", k); err != nil {
				return err
			}
			return fail
		}}
	}
	inOneBatch(t, a,
		noting("1", false, nil),
		noting("broke", false, errors.New("boom")),                // after a change: the batch runs again without it
		noting("nothing", true, NothingWritten(errors.New("no"))), // said it wrote nothing
		noting("2", false, nil),
		noting("3", true, nil),
	)
	if err := announce(t, a, "t", "end", nil); err != nil {
		t.Fatal(err)
	}
	if got := heard.wait(t, 4); strings.Join(got, ",") != "1,2,3,end" {
		t.Fatalf("b heard %q, want 1, 2, 3, end", got)
	}
}
