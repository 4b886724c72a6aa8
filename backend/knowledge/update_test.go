package knowledge

import (
	"path/filepath"
	"testing"

	"github.com/agenthub/agenthub/backend/store"
)

// TestReAddKeepsGraphAndUpdatesMetadata: adding a statement that is there (alone, twice in one
// update, and as the value a replace keeps) changes its metadata, not the graph, which holds it once.
func TestReAddKeepsGraphAndUpdatesMetadata(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "hub.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
