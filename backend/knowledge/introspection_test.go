package knowledge

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/agenthub/agenthub/backend/store"
)

// The UI's query console loads this schema by introspection through knowledge/query and builds it
// with graphql-js (frontend/src/knowledge/console.ts); its Vitest tests complete queries against
// the answer recorded here.
const (
	introspectionQueryFile  = "../../frontend/src/knowledge/testdata/introspection-query.graphql"
	introspectionResultFile = "../../frontend/src/knowledge/testdata/introspection.json"
)

// TestIntrospectionAnswersTheConsole: the UI's introspection query (graphql-js's, kept in the file
// the frontend test checks against its own) runs through knowledge/query, and the answer is the one
// the frontend's tests use, so a schema change that the file does not follow fails here.
// KG_UPDATE_INTROSPECTION=1 rewrites the file.
func TestIntrospectionAnswersTheConsole(t *testing.T) {
	q, err := os.ReadFile(introspectionQueryFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, err := store.Open(hubTarget(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := Open(t.Context(), Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	params, _ := json.Marshal(QueryParams{Query: string(q), QueryLanguage: "graphql"})
	res, err := s.callQuery(t.Context(), params)
	if err != nil {
		t.Fatalf("introspection through knowledge/query: %v", err)
	}
	// graphql-go lists types and fields in map order: compare (and record) them sorted by name.
	raw, err := json.Marshal(res.(*QueryResult).Data)
	if err != nil {
		t.Fatal(err)
	}
	var data any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(sortedByName(data), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("KG_UPDATE_INTROSPECTION") == "1" {
		if err := os.WriteFile(introspectionResultFile, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recorded, err := os.ReadFile(introspectionResultFile)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(recorded, &b); err != nil {
		t.Fatal(err)
	}
	b = sortedByName(b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the schema's introspection differs from %s: run the test with KG_UPDATE_INTROSPECTION=1 and check the frontend tests", introspectionResultFile)
	}
}

// sortedByName sorts, at every depth, the lists whose items are objects with a name.
func sortedByName(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = sortedByName(e)
		}
	case []any:
		for i, e := range x {
			x[i] = sortedByName(e)
		}
		named := func(i int) (string, bool) {
			m, ok := x[i].(map[string]any)
			if !ok {
				return "", false
			}
			n, ok := m["name"].(string)
			return n, ok
		}
		for i := range x {
			if _, ok := named(i); !ok {
				return x
			}
		}
		sort.SliceStable(x, func(i, j int) bool { a, _ := named(i); b, _ := named(j); return a < b })
	}
	return v
}
