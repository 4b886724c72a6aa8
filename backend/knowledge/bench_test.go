package knowledge

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/graphql-go/graphql"

	"github.com/agenthub/agenthub/backend/store"
)

func benchService(b *testing.B) *Service {
	dir := b.TempDir()
	db, err := store.Open(filepath.Join(dir, "hub.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s, err := Open(context.Background(), Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkUpdate is one durable single-statement update: hub.db transaction, bolt transaction.
func BenchmarkUpdate(b *testing.B) {
	s := benchService(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		p := Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:n%d", i%100)}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: fmt.Sprintf("ex:o%d", i)}}}
		if _, err := s.apply(ctx, "hub", []Patch{p}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGraphQLNode is node(id) with its types, label and 10 out-edges, on a 1,000-statement graph.
func BenchmarkGraphQLNode(b *testing.B) {
	s := benchService(b)
	ctx := context.Background()
	var ps []Patch
	for i := range 1000 {
		ps = append(ps, Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:n%d", i%100)}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: fmt.Sprintf("ex:n%d", (i*7)%100)}}})
	}
	if _, err := s.apply(ctx, "hub", ps, ""); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res := graphql.Do(graphql.Params{Schema: s.schema, Context: context.WithValue(ctx, viewKey{}, &view{}),
			RequestString: `{ node(id: "ex:n5") { id types label out(first: 10) { object certainty } } }`})
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
	}
}
