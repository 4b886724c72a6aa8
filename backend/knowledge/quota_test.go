package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// usageOf is principal's kg_usage row as q reads it.
func usageOf(ctx context.Context, q querier, principal string) (usage, error) {
	return scanUsage(q.QueryRowContext(ctx, usageQuery, principal))
}

// TestUsageFollowsStatements: kg_usage, kept by updates and triggers, is what a count over
// kg_statements says for each principal after adds, re-adds by another principal, replaces and
// removals; a statement added and removed in one update by a principal with no usage yet (its
// removal is counted by a trigger before the update counts its inserts); links, typed and tagged
// literals.
func TestUsageFollowsStatements(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	defer s.Close()
	st := func(sub, val string) Statement {
		return Statement{Subject: Subject{ID: sub}, Predicate: Predicate{ID: "ex:p"}, Object: Object{Value: val}}
	}
	for _, u := range []struct {
		who     string
		patches []Patch
	}{
		{"agent://a", []Patch{{OpAdd, st("ex:1", "one")}, {OpAdd, st("ex:2", "two")}}},
		{"agent://b", []Patch{{OpAdd, st("ex:1", "one")}, {OpAdd, st("ex:3", "three")}}}, // ex:1 is b's now
		{"agent://a", []Patch{{OpReplace, st("ex:2", "a longer value than two")}}},
		{"agent://b", []Patch{{OpRemove, st("ex:3", "three")}}},
		{"agent://c", []Patch{{OpAdd, st("ex:4", "four")}, {OpRemove, st("ex:4", "four")}, {OpAdd, st("ex:5", "fünf")}}},
		{"agent://c", []Patch{
			{OpAdd, Statement{Subject: Subject{ID: "ex:5"}, Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: "ex:1"}}},
			{OpAdd, Statement{Subject: Subject{ID: "ex:5"}, Predicate: Predicate{ID: "ex:name"}, Object: Object{Value: "chat", Language: "fr"}}},
			{OpAdd, Statement{Subject: Subject{ID: "ex:5"}, Predicate: Predicate{ID: "ex:born"}, Object: Object{Value: "2001-02-03", Type: "xsd:date"}, Graph: "ex:g"}},
		}},
	} {
		if _, err := s.apply(t.Context(), u.who, u.patches, "why"); err != nil {
			t.Fatal(err)
		}
	}
	q := `SELECT s.source, count(*), sum(length(CAST(s.subject AS BLOB)) + length(CAST(s.predicate AS BLOB)) + length(CAST(s.obj_key AS BLOB)) + length(CAST(s.graph AS BLOB))
		+ coalesce(length(CAST(s.object_id AS BLOB)), 0) + coalesce(length(CAST(s.value_json AS BLOB)), 0) + coalesce(length(CAST(s.datatype AS BLOB)), 0)
		+ coalesce(length(CAST(s.provenance AS BLOB)), 0) + coalesce(length(CAST(s.justification AS BLOB)), 0))
		FROM kg_statements s GROUP BY s.source`
	if db.Postgres() {
		q = `SELECT s.source, count(*), sum(octet_length(s.subject) + octet_length(s.predicate) + octet_length(s.obj_key) + octet_length(s.graph)
		+ coalesce(octet_length(s.object_id), 0) + coalesce(octet_length(s.value_json), 0) + coalesce(octet_length(s.datatype), 0)
		+ coalesce(octet_length(s.provenance), 0) + coalesce(octet_length(s.justification), 0))
		FROM kg_statements s GROUP BY s.source`
	}
	rows, err := db.Reader.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var who string
		var want usage
		if err := rows.Scan(&who, &want.statements, &want.bytes); err != nil {
			t.Fatal(err)
		}
		got, err := usageOf(t.Context(), db.Reader, who)
		if err != nil || got != want {
			t.Fatalf("%s: kg_usage %+v (%v), kg_statements %+v", who, got, err, want)
		}
		seen++
	}
	if a, _ := usageOf(t.Context(), db.Reader, "agent://a"); a.statements != 1 || seen < 2 {
		t.Fatalf("agent://a has %d statements (%d principals), want 1", a.statements, seen)
	}
	if b, _ := usageOf(t.Context(), db.Reader, "agent://b"); b.statements != 1 {
		t.Fatalf("agent://b has %d statements, want 1", b.statements)
	}
	if c, _ := usageOf(t.Context(), db.Reader, "agent://c"); c.statements != 4 {
		t.Fatalf("agent://c has %d statements, want 4", c.statements)
	}
}

// TestRulesFileWithoutQuotasGetsDefaults: a rules file written before the quotas existed is still
// valid, and gets the default quotas; a new file is written with them.
func TestRulesFileWithoutQuotasGetsDefaults(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(`{"readOnlyNamespaces":["agenthub:"],"forbiddenPredicates":[],"certaintyFloor":0,"maxPatchSize":1000,"writers":["agent://*"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRules(old)
	if err != nil {
		t.Fatal(err)
	}
	if r.QuotaStatements != DefaultQuotaStatements || r.QuotaBytes != DefaultQuotaBytes || r.quotaOf("user://owner") != nil || r.quotaOf("agent://x") == nil {
		t.Fatalf("an old file's quotas: %+v", r)
	}
	fresh := filepath.Join(dir, "new.json")
	if _, err := LoadRules(fresh); err != nil {
		t.Fatal(err)
	}
	if r, err := LoadRules(fresh); err != nil || r.QuotaBytes != DefaultQuotaBytes || len(r.QuotaExempt) != 1 {
		t.Fatalf("a new file's quotas: %+v (%v)", r, err)
	}
}
