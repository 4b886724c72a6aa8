package knowledge

import (
	"context"
	"encoding/json"
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
		out, err := sortedValues(ctx, s, path.StartPath(s.qs, quad.IRI("ex:a")).Out().Out().Limit(500))
		if err != nil {
			t.Fatal(err)
		}
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
	got, err := sortedValues(ctx, s, path.StartPath(s.qs).Has(quad.IRI(RDFType), quad.IRI("ex:Person")))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"<ex:x>", "<ex:z>"}; !slices.Equal(got, want) {
		t.Fatalf("Has(type, Person) = %q, want %q", got, want)
	}
}

// TestQuadsWithPredicateFromIndex: the quads of one subject and predicate (a node's types, its
// label) are read from Cayley's subject+predicate index, and are exactly the node's quads of that
// predicate; a node lookup answers with them.
func TestQuadsWithPredicateFromIndex(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	defer s.Close()
	ctx := t.Context()
	st := func(sub, pred string, o Object) Patch {
		return Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: sub}, Predicate: Predicate{ID: pred}, Object: o}}
	}
	if _, err := s.apply(ctx, "hub", []Patch{st("ex:a", RDFType, Object{ID: "ex:T1"}), st("ex:a", "ex:p", Object{ID: "ex:b"}),
		st("ex:a", RDFType, Object{ID: "ex:T2"}), st("ex:a", RDFSLabel, Object{Value: "A"}), st("ex:c", RDFType, Object{ID: "ex:T1"}),
		st("ex:b", "ex:p", Object{ID: "ex:T1"})}, "test"); err != nil {
		t.Fatal(err)
	}
	ns := s.qs.(*namedStore)
	quads := func(dir quad.Direction, node, pred string) []string {
		t.Helper()
		it := ns.quadsWith(dir, s.qs.ValueOf(quad.IRI(node)), s.qs.ValueOf(quad.IRI(pred)))
		if it == nil {
			t.Fatalf("no index for %s and %s", dir, pred)
		}
		defer it.Close()
		var out []string
		for it.Next(ctx) {
			out = append(out, s.qs.Quad(it.Result()).String())
		}
		slices.Sort(out)
		return out
	}
	if got, want := quads(quad.Subject, "ex:a", RDFType), []string{
		"<ex:a> -- <" + RDFType + "> -> <ex:T1>", "<ex:a> -- <" + RDFType + "> -> <ex:T2>"}; !slices.Equal(got, want) {
		t.Fatalf("types of ex:a = %q, want %q", got, want)
	}
	res := graphql.Do(graphql.Params{Schema: s.schema, Context: context.WithValue(ctx, viewKey{}, &view{}),
		RequestString: `{ node(id: "ex:a") { types label } }`})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	if got, _ := json.Marshal(res.Data); string(got) != `{"node":{"label":"A","types":["ex:T1","ex:T2"]}}` {
		t.Fatalf("node ex:a = %s", got)
	}
}

// sortedValues is what p reaches in s's graph, each value as quad.StringOf writes it, sorted.
func sortedValues(ctx context.Context, s *Service, p *path.Path) ([]string, error) {
	vs, err := p.Iterate(ctx).AllValues(s.qs)
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, quad.StringOf(v))
	}
	slices.Sort(out)
	return out, err
}
