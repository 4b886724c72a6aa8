package interop

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/knowledge"
)

// heapAfterGC is the live heap, in MiB, after a collection.
func heapAfterGC() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// assertHubAnswers: the hub still answers a plain query (it was not killed or wedged).
func assertHubAnswers(t *testing.T, h *hub.Hub, hdr map[string]string) {
	t.Helper()
	if d := gql(t, h, hdr, `{ node(id: "agenthub:hub") { label } }`, nil); jsonOf(d) != `{"node":{"label":"AgentHub"}}` {
		t.Fatalf("the next query: %s", jsonOf(d))
	}
}

// TestKnowledgeGraphQLFragmentCyclesRefused: a fragment spreading itself, or two spreading each
// other, sent to knowledge/query or knowledge/subscribe, is refused where it spreads (-32010,
// -32012 before any stream opens); graphql-go's validation overflowed the goroutine stack on it, a
// fatal error that killed the hub with every stream and agent. The hub answers the next request.
func TestKnowledgeGraphQLFragmentCyclesRefused(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	for _, doc := range []struct {
		query        string
		line, column float64
	}{
		{"query { node(id: \"x\") { ...A } }\nfragment A on Node { id ...A }", 2, 25},
		{"query { node(id: \"x\") { ...A } }\nfragment A on Node { id ...B }\nfragment B on Node { label ...A }", 3, 28},
		{"fragment A on Node { id ...A }\nquery { node(id: \"x\") { id } }", 1, 25},
	} {
		d := kgError(t, h, hdr, "knowledge/query", map[string]any{"query": doc.query, "queryLanguage": "graphql"}, knowledge.CodeQueryError)
		if d["line"] != doc.line || d["column"] != doc.column || d["errors"] == nil {
			t.Fatalf("%q: error data %v, want line %v column %v and the errors", doc.query, d, doc.line, doc.column)
		}
		assertHubAnswers(t, h, hdr)
	}
	sub := "subscription { changes { op ...C } }\nfragment C on KnowledgeGraphChangeEvent { changeId ...C }"
	d := kgError(t, h, hdr, "knowledge/subscribe", map[string]any{"subscriptionQuery": sub}, knowledge.CodeSubscriptionError)
	if d["line"] != float64(2) || d["column"] != float64(52) {
		t.Fatalf("subscription's error data %v", d)
	}
	assertHubAnswers(t, h, hdr)
}

// TestKnowledgeGraphQLCostLimits: a query past the limits of depth, fields (aliases counted) or
// estimated cost is refused (-32010, saying which limit, where) before it runs; one that passes
// them stops at the answer-size limit and at the deadline. 5,000 aliases of search(first: 1000)
// ran 77 s, answered 17.9 MB and took the hub to 431 MB.
func TestKnowledgeGraphQLCostLimits(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	before := heapAfterGC()
	var aliases strings.Builder
	aliases.WriteString("{")
	for i := range 5000 {
		fmt.Fprintf(&aliases, " a%d: search(text: \"a\", first: 1000) { id label types }", i)
	}
	aliases.WriteString(" }")
	var fields strings.Builder
	fields.WriteString("{")
	for i := range 700 {
		fmt.Fprintf(&fields, " a%d: search(text: \"a\") { id label }", i)
	}
	fields.WriteString(" }")
	deep := strings.Repeat("{ a ", 25) + strings.Repeat("} ", 25) // 25 fields nested
	for _, c := range []struct{ query, limit string }{
		{aliases.String(), fmt.Sprint(knowledge.GraphQLMaxQueryBytes)},
		{fields.String(), fmt.Sprint(knowledge.GraphQLMaxFields)},
		{deep, fmt.Sprint(knowledge.GraphQLMaxDepth)},
		{`{ nodes(first: 1000) { items { out(first: 1000) { subject predicate object } } } }`, fmt.Sprint(knowledge.GraphQLMaxCost)},
		{`query($n: Int) { a: nodes(first: $n) { items { in(first: $n) { subject } out(first: $n) { subject } } } }`, fmt.Sprint(knowledge.GraphQLMaxCost)},
	} {
		_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/query", map[string]any{"query": c.query, "variables": map[string]any{"n": 900}})
		if e == nil || e.Code != knowledge.CodeQueryError || !strings.Contains(e.Message, c.limit) || !strings.Contains(body, `"line"`) {
			t.Fatalf("query of %d bytes: want -32010 naming %s with its line, got %.400s", len(c.query), c.limit, body)
		}
		assertHubAnswers(t, h, hdr)
	}
	t.Logf("heap after GC: %.1f MiB before the attacks, %.1f MiB after", before, heapAfterGC())

	// Within the static limits, the answer's size and the run's time still end it.
	defer func(b int64) { knowledge.GraphQLMaxAnswerBytes = b }(knowledge.GraphQLMaxAnswerBytes)
	knowledge.GraphQLMaxAnswerBytes = 200
	_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/query", map[string]any{"query": `{ statements(first: 1000) { items { subject predicate object value } } }`})
	if e == nil || e.Code != knowledge.CodeQueryError || !strings.Contains(e.Message, "200 bytes") {
		t.Fatalf("an answer past the size limit: %.400s", body)
	}
	knowledge.GraphQLMaxAnswerBytes = 16 << 20
	defer func(d time.Duration) { knowledge.GraphQLTimeout = d }(knowledge.GraphQLTimeout)
	knowledge.GraphQLTimeout = time.Nanosecond
	_, e, body = rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/query", map[string]any{"query": `{ statements(first: 10) { items { subject } } }`})
	if e == nil || e.Code != knowledge.CodeQueryError || !strings.Contains(e.Message, "ran out of time") {
		t.Fatalf("a query past its deadline: %.400s", body)
	}
	knowledge.GraphQLTimeout = 5 * time.Second
	assertHubAnswers(t, h, hdr)
}

// gizmoDoubling is the script: a string doubled 31 times (2 GiB) before a traversal.
const gizmoDoubling = `var s="x"; for (var i=0;i<31;i++){ s=s+s }; g.V().All()`

// TestKnowledgeGizmoMemoryBound: a script growing a string without end is stopped at the memory
// limit (-32010 naming it), alone or four at once (each stopped or refused while the hub's slots
// are full), and the hub answers the next script; the heap after GC is printed before and after.
// Unbounded, one such script took a fresh hub from 32 MB to 718 MB, four to 1.9 GB.
func TestKnowledgeGizmoMemoryBound(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	before := heapAfterGC()
	gizmo := func(script string) (*rpcErr, string) {
		_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": script})
		return e, body
	}
	wantStopped := func(e *rpcErr, body string) {
		t.Helper()
		limit := fmt.Sprintf("memory limit (%d MiB", knowledge.GizmoMaxMemory>>20)
		busy := fmt.Sprintf("%d scripts are already running", knowledge.GizmoMaxConcurrent)
		if e == nil || e.Code != knowledge.CodeQueryError || !strings.Contains(e.Message, limit) && !strings.Contains(e.Message, busy) {
			t.Fatalf("the doubling script: want -32010 naming the memory limit, got %.300s", body)
		}
	}
	e, body := gizmo(gizmoDoubling)
	wantStopped(e, body)
	if !strings.Contains(e.Message, "memory limit") {
		t.Fatalf("alone, the doubling script was not stopped for memory: %s", e.Message)
	}
	t.Logf("heap after GC: %.1f MiB before, %.1f MiB after one doubling script", before, heapAfterGC())
	type answer struct {
		e    *rpcErr
		body string
	}
	answers := make(chan answer, 4)
	for range 4 {
		go func() {
			e, body := gizmo(gizmoDoubling)
			answers <- answer{e, body}
		}()
	}
	// Four at once: each is stopped, by the memory bound, as busy, or (under the race detector on a
	// loaded machine, where a script allocates slowly) by the time limit, whichever comes first; the
	// memory bound itself is what the script alone above shows.
	for range 4 {
		a := <-answers
		if a.e != nil && a.e.Code == knowledge.CodeQueryError && strings.Contains(a.e.Message, "ran out of time") {
			continue
		}
		wantStopped(a.e, a.body)
	}
	// The hub answers the next script once the stopped ones have let go of their slots.
	var res struct{ Data []any }
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<agenthub:hub>").Out("<rdfs:label>").All()`})
		if e == nil {
			if err := json.Unmarshal([]byte(body), &struct{ Result any }{&res}); err != nil || len(res.Data) != 1 {
				t.Fatalf("the next script: %s", body)
			}
			break
		}
		if !strings.Contains(e.Message, "already running") || time.Now().After(deadline) {
			t.Fatalf("the next script: %s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("heap after GC: %.1f MiB before, %.1f MiB after four more at once", before, heapAfterGC())
}

// diskUse is the space the files under dir take on disk, in bytes.
func diskUse(t *testing.T, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Sys().(*syscall.Stat_t).Blocks * 512
			}
		}
		return nil
	})
	return n
}

// TestKnowledgeDiskPerStatement prints how much the data dir grows per statement of 8 KB literals
// (the load: 3 updates of 1,000, 24.5 MB sent, grew it by 183 MB).
func TestKnowledgeDiskPerStatement(t *testing.T) {
	dir := t.TempDir()
	h, hdr := kgHub(t, dir, nil)
	before := diskUse(t, dir)
	literal := strings.Repeat("x", 8<<10)
	for u := range 3 {
		var patches []map[string]any
		for i := range 1000 {
			patches = append(patches, patch("add", stmt(fmt.Sprintf("ex:n%d-%d", u, i), "ex:blob", map[string]any{"value": literal}, 1)))
		}
		update(t, h, hdr, "", patches...)
	}
	gql(t, h, hdr, `{ node(id: "ex:n0-0") { id } }`, nil) // the graph holds them all
	grown := diskUse(t, dir) - before
	t.Logf("3 updates of 1,000 statements with 8 KiB literals grew the data dir by %.1f MiB, %.1f KiB per statement",
		float64(grown)/(1<<20), float64(grown)/3000/1024)
}

// statementsOf are the ids of the subjects of predicate's statements, read back through GraphQL.
func statementsOf(t *testing.T, h *hub.Hub, hdr map[string]string, predicate string) int {
	t.Helper()
	d := gql(t, h, hdr, `query($p: ID) { statements(predicate: $p, first: 1000) { items { subject } } }`, map[string]any{"variables": map[string]any{"p": predicate}})
	return len(d["statements"].(map[string]any)["items"].([]any))
}

// TestKnowledgeUpdateFieldLimits: an IRI, a literal, a provenance or a justification past its
// limit is refused (-32602 naming the field and the limit) and nothing is written; each was
// accepted at 7 MB.
func TestKnowledgeUpdateFieldLimits(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	big := func(n int) string { return strings.Repeat("x", n+1) }
	for _, c := range []struct {
		field  string
		limit  int
		params map[string]any
	}{
		{"mutations[0].statement.subject.id", knowledge.MaxIRIBytes, map[string]any{"mutations": []any{patch("add", stmt("ex:"+big(knowledge.MaxIRIBytes), "ex:p", map[string]any{"value": "v"}, 1))}}},
		{"mutations[1].statement.object.id", knowledge.MaxIRIBytes, map[string]any{"mutations": []any{patch("add", stmt("ex:a", "ex:p", map[string]any{"value": "v"}, 1)), patch("add", stmt("ex:a", "ex:p", map[string]any{"id": big(knowledge.MaxIRIBytes)}, 1))}}},
		{"mutations[0].statement.object.value", knowledge.MaxLiteralBytes, map[string]any{"mutations": []any{patch("add", stmt("ex:a", "ex:p", map[string]any{"value": big(knowledge.MaxLiteralBytes)}, 1))}}},
		{"mutations[0].statement.provenance", knowledge.MaxProvenanceBytes, map[string]any{"mutations": []any{patch("add", map[string]any{"subject": map[string]any{"id": "ex:a"}, "predicate": map[string]any{"id": "ex:p"},
			"object": map[string]any{"value": "v"}, "provenance": map[string]any{"note": big(knowledge.MaxProvenanceBytes)}})}}},
		{"justification", knowledge.MaxJustificationBytes, map[string]any{"justification": big(knowledge.MaxJustificationBytes), "mutations": []any{patch("add", stmt("ex:a", "ex:p", map[string]any{"value": "v"}, 1))}}},
	} {
		d := kgError(t, h, hdr, "knowledge/update", c.params, -32602)
		if d["field"] != c.field || d["limit"] != float64(c.limit) {
			t.Fatalf("%s: error data %v", c.field, d)
		}
	}
	if n := statementsOf(t, h, hdr, "ex:p"); n != 0 {
		t.Fatalf("refused updates wrote %d statements", n)
	}
}

// TestKnowledgeUpdateQuotas: a principal filled to its quota through knowledge/update has its next
// update refused (-32011 naming the quota, its value and the principal's use) with nothing of it
// written; a removal still passes, and another principal has its own quota.
func TestKnowledgeUpdateQuotas(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), &knowledge.Rules{Writers: []string{"agent://*"}, QuotaStatements: 5})
	fill := func(hdr map[string]string, from, n int) map[string]any {
		var ps []any
		for i := range n {
			ps = append(ps, patch("add", stmt(fmt.Sprintf("ex:s%d", from+i), "ex:q", map[string]any{"value": "v"}, 1)))
		}
		_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/update", map[string]any{"mutations": ps})
		if e == nil {
			return nil
		}
		if e.Code != knowledge.CodeUpdateError {
			t.Fatalf("update: %s", body)
		}
		var env struct{ Error struct{ Data map[string]any } }
		json.Unmarshal([]byte(body), &env)
		return env.Error.Data
	}
	if d := fill(hdr, 0, 5); d != nil {
		t.Fatalf("filling the quota was refused: %v", d)
	}
	d := fill(hdr, 5, 3) // three more, one of them over: none is written
	if d == nil || d["quota"] != "quotaStatements" || d["limit"] != 5.0 || d["used"] != 5.0 || d["wouldUse"] != 8.0 || !strings.HasPrefix(d["principal"].(string), "agent://") {
		t.Fatalf("the update past the quota: %v", d)
	}
	if n := statementsOf(t, h, hdr, "ex:q"); n != 5 {
		t.Fatalf("after the refusal the graph has %d statements of ex:q, want 5", n)
	}
	update(t, h, hdr, "", patch("remove", stmt("ex:s0", "ex:q", map[string]any{"value": "v"}, 1)))
	if d := fill(hdr, 5, 1); d != nil {
		t.Fatalf("back under the quota, an update was refused: %v", d)
	}
	bob := map[string]string{"X-Api-Key": addPrincipal(t, h, "bob")}
	if d := fill(bob, 100, 5); d != nil {
		t.Fatalf("another principal's update was refused: %v", d)
	}
	if n := statementsOf(t, h, hdr, "ex:q"); n != 10 {
		t.Fatalf("the graph has %d statements of ex:q, want 10", n)
	}
}

// TestKnowledgeUpdateByteQuota: the bytes a principal's statements hold are bounded too.
func TestKnowledgeUpdateByteQuota(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), &knowledge.Rules{Writers: []string{"agent://*"}, QuotaBytes: 20_000})
	v := strings.Repeat("y", 8000)
	update(t, h, hdr, "", patch("add", stmt("ex:b1", "ex:q", map[string]any{"value": v}, 1)))
	d := kgError(t, h, hdr, "knowledge/update", map[string]any{"mutations": []any{patch("add", stmt("ex:b2", "ex:q", map[string]any{"value": v}, 1))}}, knowledge.CodeUpdateError)
	if d["quota"] != "quotaBytes" || d["limit"] != 20_000.0 || d["used"].(float64) < 16_000 {
		t.Fatalf("the update past the byte quota: %v", d)
	}
	if n := statementsOf(t, h, hdr, "ex:q"); n != 1 {
		t.Fatalf("after the refusal the graph has %d statements of ex:q, want 1", n)
	}
}
