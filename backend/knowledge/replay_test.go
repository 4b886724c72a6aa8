package knowledge

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/cayleygraph/cayley/query"
	"github.com/cayleygraph/cayley/query/gizmo"

	"github.com/agenthub/agenthub/backend/bus"
)

// TestOpenReplaysLogIntoGraph: a crash after the log's commit and before the graph's leaves
// changes only in hub.db; the next Open brings the Cayley store up to date from the log.
func TestOpenReplaysLogIntoGraph(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	ctx := t.Context()
	s, err := Open(ctx, Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	add := func(o string) Patch {
		return Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: o}}}
	}
	if _, err := s.apply(ctx, "hub", []Patch{add("ex:applied")}, ""); err != nil {
		t.Fatal(err)
	}
	// The crash: logged, never applied to the graph.
	if _, _, err := s.commit(ctx, "hub", []Patch{add("ex:logged"), {Op: OpRemove, Statement: add("ex:applied").Statement}}, "", nil); err != nil {
		t.Fatal(err)
	}
	if got := objects(t, s); !slices.Equal(got, []string{"<ex:applied>"}) {
		t.Fatalf("before the restart the graph has %v", got)
	}
	s.Close()

	if s, err = Open(ctx, Options{DB: db, Source: "hub", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := objects(t, s); !slices.Equal(got, []string{"<ex:logged>"}) {
		t.Fatalf("after the restart the graph has %v, want what the log says", got)
	}
}

func objects(t *testing.T, s *Service) []string {
	t.Helper()
	it, err := gizmo.NewSession(s.qs).Execute(context.Background(), `g.V("<ex:a>").Out("<ex:p>").All()`, query.Options{Collation: query.JSON})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for it.Next(context.Background()) {
		out = append(out, fmt.Sprint(it.Result().(map[string]any)["id"]))
	}
	return out
}

// TestReplayOfReplacesKeepsTheNewValue: after a crash that logged a replace but did not apply it,
// replaying the log (the earlier, already applied replaces included) leaves exactly the new value.
// Cayley's kv store lost it when the replay sent it no-op removals in the same batch.
func TestReplayOfReplacesKeepsTheNewValue(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	ctx := t.Context()
	s, err := Open(ctx, Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	set := func(v float64) []Patch {
		return []Patch{{Op: OpReplace, Statement: Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{Value: v}}}}
	}
	for i := range 20 {
		if _, err := s.apply(ctx, "hub", set(float64(i)), ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.commit(ctx, "hub", set(99), "", nil); err != nil { // the crash
		t.Fatal(err)
	}
	s.applied, s.recorded = 0, 0 // as after a kill before the position was first recorded
	s.Close()
	if s, err = Open(ctx, Options{DB: db, Source: "hub", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := objects(t, s); !slices.Equal(got, []string{"99"}) {
		t.Fatalf("after the replay the graph has %v, want [99]", got)
	}
}

// TestConcurrentUpdatesKeepGraphAndBusInLogOrder: updates from many goroutines share hub.db's and
// the graph's commits (the hub.db write is outside the service's lock, and whoever applies takes
// every change logged before its own); the graph still ends as the log says, and the bus carries
// every change once, in log order.
func TestConcurrentUpdatesKeepGraphAndBusInLogOrder(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	b := bus.New()
	sub := b.Subscribe(func(e bus.Event) bool { return e.Topic == Topic }, 100_000)
	defer sub.Close()
	ctx := t.Context()
	s, err := Open(ctx, Options{DB: db, Bus: b, Source: "hub", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const workers, each = 8, 40
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				// Every worker adds and removes the same few statements, so the order matters.
				st := Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: fmt.Sprintf("ex:o%d", i%4)}}
				op := OpAdd
				if (w+i)%2 == 1 {
					op = OpReplace
				}
				if _, err := s.apply(ctx, "hub", []Patch{{Op: op, Statement: st}}, ""); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	var seqs []int64
	for len(sub.C) > 0 {
		seqs = append(seqs, (<-sub.C).Seq)
	}
	for i, seq := range seqs {
		if seq != seqs[0]+int64(i) {
			t.Fatalf("bus carried the changes as %v, want every sequence once, in order", seqs)
		}
	}
	if last := seqs[len(seqs)-1]; last != s.applied {
		t.Fatalf("bus ended at change %d, graph at %d", last, s.applied)
	}
	if logged, _ := lastChangeSeq(ctx, db.Reader); s.applied != logged {
		t.Fatalf("graph at change %d, log at %d", s.applied, logged)
	}
	if n := len(s.committed); n != 0 {
		t.Fatalf("%d updates' changes are still registered after every update returned", n)
	}
	rows, err := selectRows(ctx, db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE subject = 'ex:a' ORDER BY object_id`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rows {
		want = append(want, "<"+r.Stmt.Object.ID+">")
	}
	got := objects(t, s)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("graph has %v, the statements table %v", got, want)
	}
}
