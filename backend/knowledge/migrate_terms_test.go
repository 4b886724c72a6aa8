package knowledge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/agenthub/agenthub/backend/auth"
)

// migrationsUpTo is the knowledge migrations as a data dir of an earlier version had them: SQLite's
// up to number sqlite, PostgreSQL's up to number postgres.
func migrationsUpTo(t *testing.T, sqlite, postgres int) fs.FS {
	t.Helper()
	out := fstest.MapFS{}
	for dir, upTo := range map[string]int{"migrations": sqlite, "migrations/postgres": postgres} {
		entries, err := fs.ReadDir(migrations, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			var n int
			if _, err := fmt.Sscanf(e.Name(), "%05d_", &n); err != nil || e.IsDir() || n > upTo {
				continue
			}
			b, err := fs.ReadFile(migrations, dir+"/"+e.Name())
			if err != nil {
				t.Fatal(err)
			}
			out[strings.TrimPrefix(dir+"/", "migrations/")+e.Name()] = &fstest.MapFile{Data: b}
		}
	}
	return out
}

// logBuffer collects a logger's lines (written from the service's goroutines too).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// oldQuadValue is an object as the previous version made it a Cayley value: the well-known CURIEs
// as stored, and a language tag "@fr" as a datatype IRI.
func oldQuadValue(o Object) quad.Value {
	if o.ID != "" {
		return quad.IRI(o.ID)
	}
	switch v := o.Value.(type) {
	case string:
		if o.Type != "" && o.Type != "xsd:string" {
			return quad.TypedString{Value: quad.String(v), Type: quad.IRI(o.Type)}
		}
		return quad.String(v)
	case float64:
		return quad.Int(int64(v))
	}
	panic("not in this test")
}

// TestMigrateTermsFromCURIEKeyedDataDir builds a data dir as the previous version left it (its
// statements, change log and graph file keyed on the well-known CURIEs, language tags stored as
// datatypes "@fr", and, as a data dir from before CURIE and IRI were one term may hold, one
// statement stored in both forms), opens it with this version and checks: the statements are
// stored as full IRIs and answered by either form, the two forms of one statement are merged, the
// language tags are tags, the graph is rebuilt to match, the usage counts follow, the log reads in
// today's form, one line says what was migrated, and a second start migrates nothing.
func TestMigrateTermsFromCURIEKeyedDataDir(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	// The schema of that version: SQLite's migrations up to 00003, PostgreSQL's 00001 (since then,
	// inserts are counted in kg_usage by their update, not by a trigger, and these rows are
	// inserted as that version's trigger counted them).
	if err := db.Migrate(t.Context(), "knowledge", migrationsUpTo(t, 3, 1)); err != nil {
		t.Fatal(err)
	}
	st := func(s, p string, o Object, g string) Statement {
		c := 1.0
		return Statement{Subject: Subject{ID: s}, Predicate: Predicate{ID: p}, Object: o, Graph: g, Certainty: &c}
	}
	old := []Statement{
		st("ex:acme", "rdf:type", Object{ID: "schema:Organization"}, ""),
		st("ex:acme", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", Object{ID: "https://schema.org/Organization"}, ""), // the same, in full
		st("ex:acme", "rdfs:label", Object{Value: "Acme", Type: "xsd:string"}, ""),
		st("ex:acme", "schema:foundingDate", Object{Value: "1999-01-01", Type: "xsd:date"}, "ex:g"),
		st("ex:acme", "ex:size", Object{Value: 5.0, Type: "xsd:integer"}, ""),
		st("ex:cat", "rdfs:label", Object{Value: "chat", Type: "@fr"}, ""),
		st("ex:cat", "rdfs:label", Object{Value: "chat", Type: "@en"}, ""),
		st("ex:cat", "ex:seen", Object{ID: "ex:acme"}, ""),
	}
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	var quads []quad.Quad
	for _, s := range old {
		var valueJSON, datatype any
		if s.Object.ID == "" {
			b, _ := json.Marshal(s.Object.Value)
			valueJSON, datatype = string(b), s.Object.Type
		}
		q := quad.Quad{Subject: quad.IRI(s.Subject.ID), Predicate: quad.IRI(s.Predicate.ID), Object: oldQuadValue(s.Object)}
		if s.Graph != "" {
			q.Label = quad.IRI(s.Graph)
		}
		quads = append(quads, q)
		if _, err := db.Writer.ExecContext(t.Context(), `INSERT INTO kg_statements
			(subject, predicate, obj_key, object_id, value_json, datatype, graph, certainty, provenance, source, justification, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, NULL, 'hub', NULL, ?, ?)`,
			s.Subject.ID, s.Predicate.ID, q.Object.String(), nullable(s.Object.ID), valueJSON, datatype, s.Graph, ts, ts); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(s)
		if _, err := db.Writer.ExecContext(t.Context(), `INSERT INTO kg_changes (op, statement, source, created_at) VALUES ('add', ?, 'hub', ?)`, string(b), ts); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeState(t.Context(), db.Writer, "seeded", 1); err != nil {
		t.Fatal(err)
	}
	last, err := lastChangeSeq(t.Context(), db.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// The graph file as the previous version left it: its quads, its position, no terms version.
	qs, bdb, _, err := openGraph(filepath.Join(dir, StoreDir), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := qs.ApplyDeltas(deltasOf(quads), graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	if err := writePosition(bdb, last); err != nil {
		t.Fatal(err)
	}
	qs.Close()

	// In batches of 3: the migration's transactions end between statements of one subject.
	defer func(b int) { migrateTermsBatch = b }(migrateTermsBatch)
	migrateTermsBatch = 3
	var logs logBuffer
	open := func() *Service {
		s, err := Open(t.Context(), Options{DB: db, Source: "hub", Dir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	migrated := func() []string {
		var out []string
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "statements migrated to terms as full IRIs") {
				out = append(out, l)
			}
		}
		return out
	}
	if m := migrated(); len(m) != 1 || !strings.Contains(m[0], "statements=8 rewritten=5 merged=1") {
		t.Fatalf("migration log lines: %q\nall: %s", m, logs.String())
	}
	if !strings.Contains(logs.String(), "knowledge graph rebuilt") {
		t.Errorf("the graph file of the earlier form was not rebuilt: %s", logs.String())
	}
	if g, tb := graphQuads(t, s), tableQuads(t, s); len(tb) != 7 || !slices.Equal(g, tb) {
		t.Fatalf("graph %v\ntable %v", g, tb)
	}
	owner := auth.WithPrincipal(t.Context(), auth.Owner)
	query := func(lang, q string) string {
		t.Helper()
		res, err := s.Query(owner, QueryParams{QueryLanguage: lang, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Data)
		return string(b)
	}
	for q, want := range map[string]string{
		`{ nodes(type: "schema:Organization") { items { id label types } } }`:                                     `{"nodes":{"items":[{"id":"ex:acme","label":"Acme","types":["https://schema.org/Organization"]}]}}`,
		`{ statements(subject: "ex:acme", predicate: "schema:foundingDate") { items { value datatype graph } } }`: `{"statements":{"items":[{"datatype":"http://www.w3.org/2001/XMLSchema#date","graph":"ex:g","value":"1999-01-01"}]}}`,
		`{ statements(subject: "ex:cat", predicate: "rdfs:label") { items { value datatype language } } }`:        `{"statements":{"items":[{"datatype":"@fr","language":"fr","value":"chat"},{"datatype":"@en","language":"en","value":"chat"}]}}`,
		`{ search(text: "acme") { id label } }`:                                                                   `{"search":[{"id":"ex:acme","label":"Acme"}]}`,
	} {
		if got := query("graphql", q); got != want {
			t.Errorf("%s\n got %s\nwant %s", q, got, want)
		}
	}
	if got := query("gizmo", `g.V("<ex:cat>").Out("<rdfs:label>").All()`); !strings.Contains(got, `"\"chat\"@fr"`) || !strings.Contains(got, `"\"chat\"@en"`) {
		t.Errorf("gizmo after the migration: %s", got)
	}
	var n, used int64
	if err := db.Reader.QueryRowContext(t.Context(), `SELECT count(*) FROM kg_statements`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := db.Reader.QueryRowContext(t.Context(), `SELECT statements FROM kg_usage WHERE principal = 'hub'`).Scan(&used); err != nil || used != n {
		t.Errorf("kg_usage says %d statements (%v), kg_statements holds %d", used, err, n)
	}
	cs, err := changesAfter(t.Context(), db.Reader, 0, 100)
	if err != nil || len(cs) != 8 || cs[0].Statement.Predicate.ID != RDFType || cs[5].Statement.Object.Type != "@fr" {
		t.Fatalf("the log read back: %+v (%v)", cs, err)
	}
	// The migrated statements are today's: a remove by the CURIE finds the one stored.
	if _, err := s.Update(owner, []Patch{{Op: OpRemove, Statement: st("ex:acme", "rdf:type", Object{ID: "schema:Organization"}, "")}}, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open()
	defer s.Close()
	if m := migrated(); len(m) != 1 {
		t.Fatalf("a second start migrated again: %q", m)
	}
	if got := query("graphql", `{ nodes(type: "schema:Organization") { items { id } } }`); got != `{"nodes":{"items":[]}}` {
		t.Errorf("after the remove and a restart: %s", got)
	}
}

// TestMigrateTermsSaysNothingOnANewDataDir: a new data dir records today's terms version at its
// first start, with no line about a migration it did not need, and is not migrated again.
func TestMigrateTermsSaysNothingOnANewDataDir(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	var logs logBuffer
	s, err := Open(t.Context(), Options{DB: db, Source: "hub", Dir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if strings.Contains(logs.String(), "migrated") {
		t.Errorf("a new data dir logged a migration: %s", logs.String())
	}
	if v, err := readState(t.Context(), db.Reader, "terms_version"); err != nil || v != termsVersion {
		t.Errorf("terms_version of a new data dir: %d (%v), want %d", v, err, termsVersion)
	}
}
