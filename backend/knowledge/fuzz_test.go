package knowledge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fuzzService is a Service on a real hub.db and bolt file in a temp dir, with a few statements.
func fuzzService(f *testing.F) *Service {
	dir := f.TempDir()
	db := openHubDB(f, dir)
	s, err := Open(f.Context(), Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	var ps []Patch
	for i := range 50 {
		ps = append(ps, Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:n%d", i)}, Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: fmt.Sprintf("ex:n%d", (i+1)%50)}}},
			Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:n%d", i)}, Predicate: Predicate{ID: RDFSLabel}, Object: Object{Value: fmt.Sprintf("node %d", i)}}})
	}
	if _, err := s.apply(f.Context(), "hub", ps, ""); err != nil {
		f.Fatal(err)
	}
	return s
}

// wantAnswerOrRefusal: err is nil or a refusal in the extension's terms (one of codes).
func wantAnswerOrRefusal(t *testing.T, err error, codes ...int) {
	t.Helper()
	if err == nil {
		return
	}
	var kerr *Error
	if !errors.As(err, &kerr) {
		t.Fatalf("not a knowledge error: %v", err)
	}
	for _, c := range codes {
		if kerr.Code == c {
			return
		}
	}
	t.Fatalf("code %d: %v", kerr.Code, err)
}

func repeated(format string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// graphQLAttacks are the documents that killed, or ran away with, the hub.
var graphQLAttacks = []string{
	`query { node(id:"x"){ ...A } } fragment A on Node { id ...A }`,
	`query { node(id:"x"){ ...A } } fragment A on Node { id ...B } fragment B on Node { label ...A }`,
	`fragment A on Node { ...A } query { __typename }`,
	`subscription { changes { ...C } } fragment C on KnowledgeGraphChangeEvent { op ...C }`,
	"{" + repeated(` a%d: search(text: "n", first: 1000) { id label types }`, 5000) + " }",
	"{" + repeated(` a%d: search(text: "n", first: 1000) { id }`, 400) + " }",
	strings.Repeat("{ a ", 3000) + strings.Repeat("}", 3000),
	// A fragment bomb: each fragment spreads the one below twice (2^20 fields expanded).
	`query { node(id: "ex:n1") { ...F0 } }` + repeated(` fragment F%d on Node { ...FX ...FX }`, 20),
	`{ nodes(first: 1000) { items { out(first: 1000) { subject } in(first: 1000) { subject } } } }`,
	`{ node(id: "ex:n1") { id label types degree out { subject object } in { subject } attributes { value } } }`,
	`{ statements(first: 5) { items { subject predicate object value certainty provenance } nextCursor } }`,
	`{ __schema { types { name fields { name } } } }`,
}

// FuzzGraphQLDocument runs arbitrary GraphQL documents through knowledge/query and the
// subscription check of knowledge/subscribe: nothing crashes, and each is answered within the
// limits or refused in the extension's terms.
//
//	go test -run '^$' -fuzz FuzzGraphQLDocument -fuzztime 60s ./backend/knowledge/
func FuzzGraphQLDocument(f *testing.F) {
	s := fuzzService(f)
	for _, q := range graphQLAttacks {
		f.Add(strings.ReplaceAll(q, "FX", "F%d"))
	}
	f.Fuzz(func(t *testing.T, doc string) {
		doc = fragmentBomb(doc)
		res, err := s.callQuery(t.Context(), mustJSON(map[string]any{"query": doc, "queryLanguage": "graphql"}))
		wantAnswerOrRefusal(t, err, CodeQueryError, CodeInvalidParams)
		if err == nil {
			if raw, _ := json.Marshal(res); int64(len(raw)) > 2*GraphQLMaxAnswerBytes {
				t.Fatalf("an answer of %d bytes", len(raw))
			}
		}
		_, err = s.openSubscribe(t.Context(), mustJSON(map[string]any{"subscriptionQuery": doc}))
		wantAnswerOrRefusal(t, err, CodeSubscriptionError, CodeInvalidParams)
	})
}

// fragmentBomb numbers the fragment spreads of the bomb seed: F%d spread in fragment Fi is F(i+1).
func fragmentBomb(doc string) string {
	if !strings.Contains(doc, "F%d") {
		return doc
	}
	parts := strings.Split(doc, " fragment ")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ReplaceAll(parts[i], "...F%d", fmt.Sprintf("...F%d", i))
	}
	return strings.Join(parts, " fragment ")
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// FuzzGizmoScript runs arbitrary Gizmo scripts through knowledge/query: nothing crashes, and each
// is answered or refused (-32010: its error, the time or memory limit, the hub's slots full).
//
//	go test -run '^$' -fuzz FuzzGizmoScript -fuzztime 60s ./backend/knowledge/
func FuzzGizmoScript(f *testing.F) {
	s := fuzzService(f)
	for _, seed := range []string{
		`var s="x"; for (var i=0;i<31;i++){ s=s+s }; g.V().All()`,
		`var a=[]; while (true) { a.push("xxxxxxxxxxxxxxxx") }`,
		`var o={}; for (var i=0;;i++) { o["k"+i] = i }`,
		`while (true) {}`,
		`function f() { return f() } f()`,
		`g.V("<ex:n1>").Out("<ex:knows>").All()`,
		`g.V().Out().Out().Out().All()`,
		`g.V(`,
	} {
		f.Add(seed)
	}
	defer func(d time.Duration) { GizmoTimeout = d }(GizmoTimeout)
	GizmoTimeout = 500 * time.Millisecond
	f.Fuzz(func(t *testing.T, script string) {
		_, err := s.callQuery(t.Context(), mustJSON(map[string]any{"query": script, "queryLanguage": "gizmo"}))
		wantAnswerOrRefusal(t, err, CodeQueryError, CodeInvalidParams)
	})
}
