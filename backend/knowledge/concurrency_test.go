package knowledge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"
)

// TestGraphReadsDuringGrowingUpdates: 2-hop queries (a read transaction opened inside another) run
// while updates grow the bolt file. When a commit had to remap the file, the remap waited for the
// open reads, and a read waiting for its inner transaction waited behind the remap: every graph
// read and write hung within seconds. Reads and updates must all finish, and the graph agree with
// kg_statements.
func TestGraphReadsDuringGrowingUpdates(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	defer s.Close()
	ctx := t.Context()
	// A deadlock hangs every graph read and write, s.Close included: fail with every goroutine's
	// stack instead of waiting for go test's timeout.
	watchdog := time.AfterFunc(2*time.Minute, func() { panic("graph reads and updates deadlocked") })
	defer watchdog.Stop()
	subjects := []string{"ex:a"}
	for i := range 10 {
		subjects = append(subjects, fmt.Sprintf("ex:t%d", i))
	}
	edge := func(sub string, i int) Statement {
		return Statement{Subject: Subject{ID: sub}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: fmt.Sprintf("ex:t%d", i)}}
	}
	out := func(sub string) []string {
		o, err := sortedValues(ctx, s, path.StartPath(s.qs, quad.IRI(sub)).Out())
		if err != nil {
			t.Error(err)
		}
		return o
	}
	table := func(sub string) []string {
		rows, err := selectRows(ctx, s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE subject = ?`, sub)
		if err != nil {
			t.Fatal(err)
		}
		var o []string
		for _, r := range rows {
			o = append(o, quad.StringOf(r.Stmt.quadOf().Object))
		}
		slices.Sort(o)
		return o
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			for !stop.Load() {
				for _, sub := range subjects {
					out(sub)
					if _, err := path.StartPath(s.qs, quad.IRI(sub)).Out().Out().Limit(500).Iterate(ctx).AllValues(s.qs); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 150 {
		sub := subjects[rng.IntN(len(subjects))]
		op := OpAdd
		if rng.IntN(2) == 0 {
			op = OpRemove
		}
		p := Patch{Op: op, Statement: edge(sub, rng.IntN(10))}
		if _, err := s.apply(ctx, "hub", []Patch{p}, "test"); err != nil && op == OpAdd {
			t.Fatal(err)
		}
		if got, want := out(sub), table(sub); !slices.Equal(got, want) {
			t.Fatalf("after %s of %v: out-edges of %s = %q, kg_statements has %q", op, p.Statement, sub, got, want)
		}
	}
	stop.Store(true)
	wg.Wait()
	for _, sub := range subjects {
		if got, want := out(sub), table(sub); !slices.Equal(got, want) {
			t.Fatalf("out-edges of %s = %q, kg_statements has %q", sub, got, want)
		}
	}
}

// TestGraphRunsFitOneCommit: the graph applies the registered updates in runs that fit one graph
// commit, and releases who waits for an update as soon as its run is applied: small updates share
// a run; an update that follows a large one waits for its own run, and the caller waiting for the
// large one does not wait for it.
func TestGraphRunsFitOneCommit(t *testing.T) {
	// On PostgreSQL the replicas' follower catches the graph up by itself at its first connection,
	// which would apply some of these changes in a run of its own: keep it out of this test.
	t.Cleanup(func() { lost = nil }) // after the database closes (cleanups run in reverse)
	lost = func(*Service, bool) bool { return true }
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	defer s.Close()
	ctx := t.Context()
	// commit writes an update of n statements to hub.db and registers its changes, as update does,
	// without applying them to the graph; it returns its last change.
	commit := func(name string, n int) int64 {
		ps := make([]Patch, n)
		for i := range ps {
			ps[i] = Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:%s%d", name, i)}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:o"}}}
		}
		changes, _, err := s.commit(ctx, "hub", ps, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		s.committedMu.Lock()
		s.committed[changes[0].Seq] = changes
		s.committedMu.Unlock()
		return changes[len(changes)-1].Seq
	}
	a, b := commit("a", 3), commit("b", 4)
	s.graphUpTo(ctx, a)
	if s.applied != b {
		t.Fatalf("after the apply of a small update: graph at change %d, want %d (the next small update in the same run)", s.applied, b)
	}
	a, b = commit("c", 2), commit("d", graphTxMax)
	s.graphUpTo(ctx, a)
	if s.applied != a {
		t.Fatalf("after the apply of an update followed by one of %d statements: graph at change %d, want %d", graphTxMax, s.applied, a)
	}
	s.graphUpTo(ctx, b)
	if s.applied != b {
		t.Fatalf("graph at change %d, want %d", s.applied, b)
	}

	// The apply for the second of two large updates applies the first too, in a run of its own:
	// who waits for the first is released before the second is applied.
	a, b = commit("e", graphTxMax), commit("f", graphTxMax)
	release := make(chan struct{})
	afterGraphRun = func(applied int64) {
		if applied == a {
			<-release
		}
	}
	defer func() { afterGraphRun = nil }()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.graphUpTo(context.WithoutCancel(ctx), b)
	}()
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	s.waitGraph(wait, a)
	err := wait.Err()
	cancel()
	close(release)
	<-done
	if err != nil {
		t.Fatalf("waiting for the first of two large updates applied together: %v", err)
	}
	if s.applied != b {
		t.Fatalf("graph at change %d, want %d", s.applied, b)
	}
	assertGraphIsTable(t, s)
}
