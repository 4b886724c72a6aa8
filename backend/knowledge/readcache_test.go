package knowledge

import (
	"context"
	"slices"
	"testing"

	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"
	"github.com/graphql-go/graphql"
)

// TestNodeValueCacheSeesUpdates: the graph's reads name nodes from a cache (namedStore) and read
// quads and nodes of Cayley's log from another (logCacheKV); after an update that adds, removes or
// replaces statements, the next 2-hop query and node lookup answer with the graph as it is now,
// also for a node removed with its last statement and added again.
func TestNodeValueCacheSeesUpdates(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	defer s.Close()
	if _, ok := s.qs.(*namedStore); !ok {
		t.Fatalf("graph store is %T, not the cached one", s.qs)
	}
	ctx := t.Context()
	st := func(sub, pred string, o Object) Statement {
		return Statement{Subject: Subject{ID: sub}, Predicate: Predicate{ID: pred}, Object: o}
	}
	apply := func(ps ...Patch) {
		t.Helper()
		if _, err := s.apply(ctx, "hub", ps, "test"); err != nil {
			t.Fatal(err)
		}
	}
	twoHop := func() []string {
		t.Helper()
		vs, err := path.StartPath(s.qs, quad.IRI("ex:a")).Out().Out().Limit(500).Iterate(ctx).AllValues(s.qs)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range vs {
			out = append(out, quad.StringOf(v))
		}
		slices.Sort(out)
		return out
	}
	label := func(node string) any {
		t.Helper()
		res := graphql.Do(graphql.Params{Schema: s.schema, Context: context.WithValue(ctx, viewKey{}, &view{}),
			RequestString: `{ node(id: "` + node + `") { label } }`})
		if len(res.Errors) > 0 {
			t.Fatal(res.Errors)
		}
		n, _ := res.Data.(map[string]any)["node"].(map[string]any)
		if n == nil {
			return nil
		}
		return n["label"]
	}
	check := func(wantHop []string, wantLabel any) {
		t.Helper()
		if got := twoHop(); !slices.Equal(got, wantHop) {
			t.Fatalf("2-hop from ex:a = %q, want %q", got, wantHop)
		}
		if got := label("ex:b"); got != wantLabel {
			t.Fatalf("label of ex:b = %#v, want %#v", got, wantLabel)
		}
	}

	apply(Patch{Op: OpAdd, Statement: st("ex:a", "ex:p", Object{ID: "ex:b"})},
		Patch{Op: OpAdd, Statement: st("ex:b", "ex:p", Object{ID: "ex:c"})},
		Patch{Op: OpAdd, Statement: st("ex:b", RDFSLabel, Object{Value: "old"})})
	check([]string{`"old"`, "<ex:c>"}, "old")

	// Replace the label: the old literal node loses its last statement.
	apply(Patch{Op: OpReplace, Statement: st("ex:b", RDFSLabel, Object{Value: "new"})})
	check([]string{`"new"`, "<ex:c>"}, "new")

	// Remove the edge to ex:c (its last statement: the node goes), add one to ex:d.
	apply(Patch{Op: OpRemove, Statement: st("ex:b", "ex:p", Object{ID: "ex:c"})},
		Patch{Op: OpAdd, Statement: st("ex:b", "ex:p", Object{ID: "ex:d"})})
	check([]string{`"new"`, "<ex:d>"}, "new")

	// ex:c and the old label come back (as new nodes of the store); the label goes.
	apply(Patch{Op: OpAdd, Statement: st("ex:b", "ex:q", Object{ID: "ex:c"})},
		Patch{Op: OpRemove, Statement: st("ex:b", RDFSLabel, Object{Value: "new"})},
		Patch{Op: OpAdd, Statement: st("ex:b", "ex:q", Object{Value: "old"})})
	check([]string{`"old"`, "<ex:c>", "<ex:d>"}, nil)

	// The cache was used: the names above came from it after the first read.
	ns := s.qs.(*namedStore)
	ns.mu.RLock()
	cached := len(ns.cur) + len(ns.prev)
	ns.mu.RUnlock()
	if cached == 0 {
		t.Fatal("no node value was cached")
	}
}

// TestIndexScanThroughCachedStore: a Has filter (a quad filter, which Cayley's kv optimizer may
// turn into a scan of one of its indexes, built on the kv store) runs on the cached store and finds
// what the graph holds.
func TestIndexScanThroughCachedStore(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	defer s.Close()
	ctx := t.Context()
	var ps []Patch
	for _, n := range []string{"ex:x", "ex:y", "ex:z"} {
		typ := "ex:Person"
		if n == "ex:y" {
			typ = "ex:Topic"
		}
		ps = append(ps, Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: n}, Predicate: Predicate{ID: RDFType}, Object: Object{ID: typ}}})
	}
	if _, err := s.apply(ctx, "hub", ps, "test"); err != nil {
		t.Fatal(err)
	}
	vs, err := path.StartPath(s.qs).Has(quad.IRI(RDFType), quad.IRI("ex:Person")).Iterate(ctx).AllValues(s.qs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, quad.StringOf(v))
	}
	slices.Sort(got)
	if want := []string{"<ex:x>", "<ex:z>"}; !slices.Equal(got, want) {
		t.Fatalf("Has(type, Person) = %q, want %q", got, want)
	}
}
