package knowledge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
)

// TestEncodedStatementIsStatementJSON: the change log's statement, encoded with its provenance
// encoded once per update, is the text encoding/json writes for the Statement itself (subscribers
// and replay read it back as a Statement).
func TestEncodedStatementIsStatementJSON(t *testing.T) {
	c := 0.5
	for _, st := range []Statement{
		{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:b"}},
		{Subject: Subject{ID: "ex:a", Type: "ex:T"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{Value: 1.5, Type: "xsd:double"}, Graph: "ex:g", Certainty: &c,
			Provenance: map[string]any{"z": 1.0, "a": "x", "nested": map[string]any{"k": []any{"v"}}}},
		{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{Value: "<&>"}, Provenance: map[string]any{}},
	} {
		want, _ := json.Marshal(st)
		enc, err := encode(st, nil)
		if err != nil || enc.statement != string(want) {
			t.Fatalf("encode = %s (%v), want %s", enc.statement, err, want)
		}
		if len(st.Provenance) > 0 {
			prov, _ := json.Marshal(st.Provenance)
			if enc, _ := encode(st, prov); enc.statement != string(want) || enc.prov != string(prov) {
				t.Fatalf("encode with provenance given = %s / %v, want %s", enc.statement, enc.prov, want)
			}
		}
	}
}

// TestReAddKeepsGraphAndUpdatesMetadata: adding a statement that is there (alone, twice in one
// update, and as the value a replace keeps) changes its metadata, not the graph, which holds it once.
func TestReAddKeepsGraphAndUpdatesMetadata(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	defer s.Close()
	someHistory(t, s)
	cert := func(v float64) *float64 { return &v }
	st := Statement{Subject: Subject{ID: "ex:n1"}, Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: "ex:n7"}}
	for i, batch := range [][]Patch{
		{{Op: OpAdd, Statement: withCertainty(st, cert(0.3))}},
		{{Op: OpAdd, Statement: withCertainty(st, cert(0.4))}, {Op: OpAdd, Statement: withCertainty(st, cert(0.6))}},
		{{Op: OpRemove, Statement: st}, {Op: OpAdd, Statement: withCertainty(st, cert(0.7))}},
		{{Op: OpReplace, Statement: withCertainty(st, cert(0.8))}},
	} {
		if _, err := s.apply(t.Context(), "hub", batch, ""); err != nil {
			t.Fatal(err)
		}
		assertGraphIsTable(t, s)
		// The graph applied every change as it came (a wrong idea of what it held would have made
		// Cayley refuse the batch and left it behind, for the next update to apply from the log).
		if last, _ := lastChangeSeq(t.Context(), db.Reader); s.applied != last {
			t.Fatalf("batch %d: graph applied up to change %d of %d", i, s.applied, last)
		}
		r, err := findRow(t.Context(), s.st.find, st.key())
		want := *batch[len(batch)-1].Statement.Certainty
		if err != nil || r == nil || *r.Stmt.Certainty != want {
			t.Fatalf("batch %d: stored %+v (%v), want certainty %v", i, r, err, want)
		}
	}
	// The replace left ex:n1 with the one ex:knows statement.
	rows, err := rowsOf(t.Context(), db.Reader, "ex:n1", "ex:knows", "")
	if err != nil || len(rows) != 1 {
		t.Fatalf("after the replace ex:n1 has %d ex:knows statements (%v)", len(rows), err)
	}
}

func withCertainty(st Statement, c *float64) Statement {
	st.Certainty = c
	return st
}

// TestUpdateLargerThanOneGraphCommit: an update of more statements than one graph commit takes
// (graphTxMax) is applied in several, and the graph ends as kg_statements says, for adds and for
// removes.
func TestUpdateLargerThanOneGraphCommit(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	defer s.Close()
	someHistory(t, s)
	var adds, removes []Patch
	for i := range 2*graphTxMax + 500 {
		st := Statement{Subject: Subject{ID: fmt.Sprintf("ex:big%d", i%700)}, Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: fmt.Sprintf("ex:n%d", i)}}
		adds = append(adds, Patch{Op: OpAdd, Statement: st})
		if i%3 == 0 {
			removes = append(removes, Patch{Op: OpRemove, Statement: st})
		}
	}
	for _, batch := range [][]Patch{adds, removes} {
		if _, err := s.apply(t.Context(), "hub", batch, ""); err != nil {
			t.Fatal(err)
		}
		if last, _ := lastChangeSeq(t.Context(), db.Reader); s.applied != last {
			t.Fatalf("graph applied up to change %d of %d", s.applied, last)
		}
		assertGraphIsTable(t, s)
	}
}

// TestQueryReadsItsOwnAnsweredUpdate: knowledge/update is answered before the graph has applied
// it; a query made after the answer still reads it, as it waits for the graph to hold every update
// answered before the query started.
func TestQueryReadsItsOwnAnsweredUpdate(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	defer s.Close()
	owner := auth.WithPrincipal(t.Context(), auth.Owner)
	add := func(o string) []Patch {
		return []Patch{{Op: OpAdd, Statement: Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: o}}}}
	}
	if _, err := s.Update(owner, add("ex:first"), ""); err != nil {
		t.Fatal(err)
	}
	s.background.Wait() // the graph has the first
	release := make(chan struct{})
	beforeBackgroundGraph = func() { <-release }
	// Once the update's graph write has read the hook: on PostgreSQL the query may be released by
	// the follower's catch-up (follow.go), which reads the change from the log, not by that write.
	defer func() { s.background.Wait(); beforeBackgroundGraph = nil }()
	if _, err := s.Update(owner, add("ex:second"), ""); err != nil { // answered, the graph held back
		t.Fatal(err)
	}
	got := make(chan any, 1)
	go func() {
		res, err := s.Query(owner, QueryParams{QueryLanguage: "gizmo", Query: `g.V("<ex:a>").Out("<ex:p>").All()`})
		if err != nil {
			got <- err
			return
		}
		got <- res.Data
	}()
	time.Sleep(50 * time.Millisecond) // a query that did not wait has read the graph by now
	close(release)
	raw, _ := json.Marshal(<-got)
	if !strings.Contains(string(raw), "ex:second") || !strings.Contains(string(raw), "ex:first") {
		t.Fatalf("query after the answered update read %s", raw)
	}
}

// TestRefusedUpdateLeavesNoChange: an update refused half way (its add written, then a remove of a
// statement that is not there) leaves neither its statement nor its change, and the next update is
// read by a query as usual. On PostgreSQL the refused change's sequence number stays used (a gap in
// the log), which the graph's catch-up and the change feed must step over.
func TestRefusedUpdateLeavesNoChange(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	defer s.Close()
	owner := auth.WithPrincipal(t.Context(), auth.Owner)
	st := func(o string) Statement {
		return Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: o}}
	}
	before, err := lastChangeSeq(t.Context(), db.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(owner, []Patch{{Op: OpAdd, Statement: st("ex:refused")}, {Op: OpRemove, Statement: st("ex:missing")}}, ""); err == nil {
		t.Fatal("removing a missing statement was accepted")
	}
	res, err := s.Update(owner, []Patch{{Op: OpAdd, Statement: st("ex:kept")}}, "")
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Query(owner, QueryParams{QueryLanguage: "gizmo", Query: `g.V("<ex:a>").Out("<ex:p>").All()`})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(q.Data)
	if !strings.Contains(string(raw), "ex:kept") || strings.Contains(string(raw), "ex:refused") {
		t.Fatalf("query after a refused and an answered update read %s", raw)
	}
	cs, err := changesAfter(t.Context(), db.Reader, before, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Statement.Object.ID != "ex:kept" || fmt.Sprint(cs[0].Seq) != res.ChangeID {
		t.Fatalf("the log after the refused update holds %+v, want only the kept add (change %s)", cs, res.ChangeID)
	}
	s.background.Wait()
	if g, tb := graphQuads(t, s), tableQuads(t, s); len(tb) != 1 || !slices.Equal(g, tb) {
		t.Fatalf("graph %v, kg_statements %v: want the kept statement in both", g, tb)
	}
}
