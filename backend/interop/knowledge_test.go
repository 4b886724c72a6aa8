package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/knowledge"
)

// kgHub is a hub on dataDir (rules written there first when given) with an agent principal "alice"
// whose key is returned; anonymous callers are refused.
func kgHub(t *testing.T, dataDir string, rules *knowledge.Rules) (*hub.Hub, map[string]string) {
	t.Helper()
	if rules != nil {
		b, _ := json.Marshal(rules)
		if err := os.WriteFile(filepath.Join(dataDir, knowledge.RulesFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: dataDir, Addr: "127.0.0.1:0", NoDemo: true, Version: "test", Secrets: "file",
		Logger: slog.New(slog.NewTextHandler(&serverLogBuffer{}, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	if err := h.Auth.SetAnonymousPolicy(t.Context(), auth.AnonymousOff); err != nil {
		t.Fatal(err)
	}
	key := addPrincipal(t, h, "alice")
	return h, map[string]string{"X-Api-Key": key}
}

func addPrincipal(t *testing.T, h *hub.Hub, name string) string {
	t.Helper()
	if p, err := h.Auth.Principals.List(t.Context()); err == nil {
		for _, x := range p {
			if x.Name == name {
				_, key, err := h.Auth.Principals.Rotate(t.Context(), name)
				if err != nil {
					t.Fatal(err)
				}
				return key
			}
		}
	}
	_, key, err := h.Auth.Principals.Add(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// kgCall calls method and decodes the result into out; it fails the test on a JSON-RPC error.
func kgCall(t *testing.T, h *hub.Hub, headers map[string]string, method string, params, out any) {
	t.Helper()
	_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", headers, method, params)
	if e != nil {
		t.Fatalf("%s: error %d %s\n%s", method, e.Code, e.Message, body)
	}
	var env struct{ Result json.RawMessage }
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		t.Fatalf("%s: %v\n%s", method, err, body)
	}
}

// kgError calls method, expects JSON-RPC error code and returns the error's data.
func kgError(t *testing.T, h *hub.Hub, headers map[string]string, method string, params any, code int) map[string]any {
	t.Helper()
	_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", headers, method, params)
	if e == nil || e.Code != code {
		t.Fatalf("%s: want error %d, got %s", method, code, body)
	}
	var env struct {
		Error struct{ Data map[string]any }
	}
	json.Unmarshal([]byte(body), &env)
	return env.Error.Data
}

func gql(t *testing.T, h *hub.Hub, headers map[string]string, query string, extra map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{"query": query, "queryLanguage": "graphql"}
	for k, v := range extra {
		params[k] = v
	}
	var res struct {
		Data          map[string]any
		QueryMetadata map[string]any
	}
	kgCall(t, h, headers, "knowledge/query", params, &res)
	if res.QueryMetadata["queryLanguage"] != "graphql" {
		t.Fatalf("queryMetadata: %v", res.QueryMetadata)
	}
	return res.Data
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func stmt(s, p string, o map[string]any, certainty float64) map[string]any {
	return map[string]any{"subject": map[string]any{"id": s}, "predicate": map[string]any{"id": p}, "object": o, "certainty": certainty}
}

func update(t *testing.T, h *hub.Hub, headers map[string]string, justification string, patches ...map[string]any) map[string]any {
	t.Helper()
	var res map[string]any
	kgCall(t, h, headers, "knowledge/update", map[string]any{"mutations": patches, "justification": justification}, &res)
	return res
}

func patch(op string, st map[string]any) map[string]any {
	return map[string]any{"op": op, "statement": st}
}

// TestKnowledgeCardAndSampleGraph: the card declares the extension; a new hub's graph holds the
// hub, the demo agent and their skills, read through GraphQL from the Cayley store.
func TestKnowledgeCardAndSampleGraph(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	res, err := http.Get(h.Agent.BaseURL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Capabilities map[string]any `json:"capabilities"`
	}
	json.NewDecoder(res.Body).Decode(&card)
	res.Body.Close()
	if card.Capabilities["knowledgeGraph"] != true || jsonOf(card.Capabilities["knowledgeGraphQueryLanguages"]) != `["graphql","gizmo"]` ||
		!strings.Contains(jsonOf(card.Capabilities["extensions"]), knowledge.ExtensionURI) {
		t.Fatalf("card capabilities: %s", jsonOf(card.Capabilities))
	}
	data := gql(t, h, hdr, `{ node(id: "agenthub:hub") { id types label degree out(predicate: "agenthub:hosts") { object } } }`, nil)
	if got := jsonOf(data); got != `{"node":{"degree":4,"id":"agenthub:hub","label":"AgentHub","out":[{"object":"agenthub:agent/demo"}],"types":["a2a:Agent"]}}` {
		t.Fatalf("sample graph: %s", got)
	}
	data = gql(t, h, hdr, `{ nodes(type: "a2a:Agent") { items { id label } nextCursor } }`, nil)
	if got := jsonOf(data); got != `{"nodes":{"items":[{"id":"agenthub:agent/demo","label":"Demo agent"},{"id":"agenthub:hub","label":"AgentHub"}],"nextCursor":null}}` {
		t.Fatalf("agents: %s", got)
	}
}

// TestKnowledgeQueryLanguagesFiltersAndErrors: GraphQL (statements, nodes with filters, search)
// and Gizmo over the same graph; requiredCertainty applies to both; syntax errors are -32010 with
// their line and column.
func TestKnowledgeQueryLanguagesFiltersAndErrors(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	update(t, h, hdr, "people",
		patch("add", stmt("ex:ada", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:ada", "ex:age", map[string]any{"value": 36}, 0.9)),
		patch("add", stmt("ex:ada", "ex:knows", map[string]any{"id": "ex:bob"}, 0.4)),
		patch("add", stmt("ex:bob", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:bob", "ex:age", map[string]any{"value": 20}, 0.95)),
	)
	data := gql(t, h, hdr, `query($s: ID) { statements(subject: $s, first: 2) { items { predicate object value certainty } nextCursor } }`,
		map[string]any{"variables": map[string]any{"s": "ex:ada"}})
	page := data["statements"].(map[string]any)
	if len(page["items"].([]any)) != 2 || page["nextCursor"] == nil {
		t.Fatalf("first page: %s", jsonOf(data))
	}
	data = gql(t, h, hdr, `query($c: String) { statements(subject: "ex:ada", after: $c) { items { predicate } nextCursor } }`,
		map[string]any{"variables": map[string]any{"c": page["nextCursor"]}})
	if got := jsonOf(data); got != `{"statements":{"items":[{"predicate":"ex:knows"}],"nextCursor":null}}` {
		t.Fatalf("second page: %s", got)
	}
	data = gql(t, h, hdr, `{ nodes(type: "ex:Person", where: [{predicate: "ex:age", gt: 30}]) { items { id } } }`, nil)
	if got := jsonOf(data); got != `{"nodes":{"items":[{"id":"ex:ada"}]}}` {
		t.Fatalf("where: %s", got)
	}
	data = gql(t, h, hdr, `{ search(text: "BOB") { id } }`, nil)
	if got := jsonOf(data); got != `{"search":[{"id":"ex:bob"}]}` {
		t.Fatalf("search: %s", got)
	}
	// requiredCertainty hides ada's 0.4 "knows" in both languages.
	data = gql(t, h, hdr, `{ node(id: "ex:bob") { in { subject } } }`, nil)
	if got := jsonOf(data); got != `{"node":{"in":[{"subject":"ex:ada"}]}}` {
		t.Fatalf("in: %s", got)
	}
	data = gql(t, h, hdr, `{ node(id: "ex:bob") { in { subject } } }`, map[string]any{"requiredCertainty": 0.5})
	if got := jsonOf(data); got != `{"node":{"in":[]}}` {
		t.Fatalf("in with requiredCertainty: %s", got)
	}
	var gz struct {
		Data          []map[string]any
		QueryMetadata map[string]any
	}
	kgCall(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<ex:ada>").Out("<ex:knows>").All()`}, &gz)
	if jsonOf(gz.Data) != `[{"id":"\u003cex:bob\u003e"}]` || gz.QueryMetadata["resultCount"] != 1.0 {
		t.Fatalf("gizmo: %s", jsonOf(gz))
	}
	kgCall(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<ex:ada>").Out("<ex:knows>").All()`, "requiredCertainty": 0.5}, &gz)
	if jsonOf(gz.Data) != `[]` {
		t.Fatalf("gizmo with requiredCertainty: %s", jsonOf(gz.Data))
	}
	// Named graphs: a statement in ex:g1 is found by its graph.
	g1 := stmt("ex:ada", "ex:note", map[string]any{"value": "in g1"}, 1)
	g1["graph"] = "ex:g1"
	update(t, h, hdr, "", patch("add", g1))
	data = gql(t, h, hdr, `{ statements(graph: "ex:g1") { items { subject value graph } } }`, nil)
	if got := jsonOf(data); got != `{"statements":{"items":[{"graph":"ex:g1","subject":"ex:ada","value":"in g1"}]}}` {
		t.Fatalf("named graph: %s", got)
	}
	// maxAgeSeconds 0 sees nothing older than now.
	data = gql(t, h, hdr, `{ statements(subject: "ex:ada") { items { predicate } } }`, map[string]any{"maxAgeSeconds": 0})
	if got := jsonOf(data); got != `{"statements":{"items":[]}}` {
		t.Fatalf("maxAgeSeconds: %s", got)
	}

	d := kgError(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "graphql", "query": "{\n  node(id: \"x\") {\n    id }"}, knowledge.CodeQueryError)
	if d["line"] != 3.0 || d["column"] == nil {
		t.Fatalf("graphql syntax error data: %v", d)
	}
	d = kgError(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "graphql", "query": `{ nosuch }`}, knowledge.CodeQueryError)
	if d["line"] != 1.0 || d["column"] != 3.0 {
		t.Fatalf("graphql validation error data: %v", d)
	}
	d = kgError(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": "g.V(\n  ))"}, knowledge.CodeQueryError)
	if d["line"] != 2.0 || d["column"] == nil {
		t.Fatalf("gizmo syntax error data: %v", d)
	}
	kgError(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "sparql", "query": "SELECT *"}, knowledge.CodeInvalidParams)

	// A script that never ends is interrupted at the time limit.
	defer func(d time.Duration) { knowledge.GizmoTimeout = d }(knowledge.GizmoTimeout)
	knowledge.GizmoTimeout = 50 * time.Millisecond
	_, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": "while (true) {}"})
	if e == nil || e.Code != knowledge.CodeQueryError || !strings.Contains(e.Message, "out of time") {
		t.Fatalf("endless gizmo script: %s", body)
	}
}

// TestKnowledgeUpdateAllOrNothingReplaceAndRules: a request with one failing patch changes
// nothing (-32011); replace supersedes the subject's predicate; each alignment rule is -32013
// with its verification status, and changes nothing.
func TestKnowledgeUpdateAllOrNothingReplaceAndRules(t *testing.T) {
	dir := t.TempDir()
	h, hdr := kgHub(t, dir, &knowledge.Rules{ReadOnlyNamespaces: []string{"agenthub:"}, ForbiddenPredicates: []string{"ex:password"},
		CertaintyFloor: 0.3, MaxPatchSize: 3, Writers: []string{"agent://alice"}})
	res := update(t, h, hdr, "colour", patch("add", stmt("ex:sky", "ex:colour", map[string]any{"value": "blue"}, 0.8)))
	if res["success"] != true || res["statementsAffected"] != 1.0 || jsonOf(res["affectedIds"]) != `["ex:sky"]` || res["verificationStatus"] != "Verified" {
		t.Fatalf("add: %v", res)
	}
	colours := func() string {
		return jsonOf(gql(t, h, hdr, `{ statements(subject: "ex:sky") { items { value certainty provenance } } }`, nil))
	}
	before := colours()
	if !strings.Contains(before, `"sourceAgentId":"agent://alice"`) {
		t.Fatalf("provenance: %s", before)
	}
	d := kgError(t, h, hdr, "knowledge/update", map[string]any{"mutations": []any{
		patch("add", stmt("ex:sky", "ex:colour", map[string]any{"value": "grey"}, 0.8)),
		patch("remove", stmt("ex:sky", "ex:colour", map[string]any{"value": "green"}, 0.8)),
	}}, knowledge.CodeUpdateError)
	if d["verificationStatus"] != knowledge.StatusConflict || colours() != before {
		t.Fatalf("all-or-nothing: %v, now %s", d, colours())
	}
	res = update(t, h, hdr, "it is grey today", patch("replace", stmt("ex:sky", "ex:colour", map[string]any{"value": "grey"}, 0.7)))
	if res["statementsAffected"] != 2.0 || colours() == before || !strings.Contains(colours(), `"value":"grey"`) || strings.Contains(colours(), "blue") {
		t.Fatalf("replace: %v, now %s", res, colours())
	}
	before = colours()

	mallory := map[string]string{"X-Api-Key": addPrincipal(t, h, "mallory")}
	ok := stmt("ex:sky", "ex:colour", map[string]any{"value": "red"}, 0.9)
	for name, c := range map[string]struct {
		hdr     map[string]string
		patches []any
	}{
		"not a writer":        {mallory, []any{patch("add", ok)}},
		"read-only namespace": {hdr, []any{patch("add", ok), patch("add", stmt("agenthub:hub", "ex:colour", map[string]any{"value": "red"}, 1))}},
		"forbidden predicate": {hdr, []any{patch("add", ok), patch("add", stmt("ex:sky", "ex:password", map[string]any{"value": "x"}, 1))}},
		"certainty floor":     {hdr, []any{patch("add", ok), patch("add", stmt("ex:sky", "ex:colour", map[string]any{"value": "pink"}, 0.1))}},
		"patch size":          {hdr, []any{patch("add", ok), patch("add", ok), patch("add", ok), patch("add", ok)}},
	} {
		d := kgError(t, h, c.hdr, "knowledge/update", map[string]any{"mutations": c.patches}, knowledge.CodeAlignmentError)
		if d["verificationStatus"] != knowledge.StatusRejected || d["verificationDetails"] == "" {
			t.Fatalf("%s: %v", name, d)
		}
		if colours() != before {
			t.Fatalf("%s changed the graph: %s", name, colours())
		}
	}
	kgError(t, h, hdr, "knowledge/update", map[string]any{"mutations": []any{patch("upsert", ok)}}, knowledge.CodeInvalidParams)
	kgError(t, h, hdr, "knowledge/update", map[string]any{"mutations": []any{patch("add", stmt("ex:a", "ex:b", map[string]any{"id": "ex:c", "value": 1}, 1))}}, knowledge.CodeInvalidParams)
}

// kgEvent is one SSE event of knowledge/subscribe.
type kgEvent struct {
	Result *knowledge.ChangeEvent `json:"result"`
	Error  *rpcErr                `json:"error"`
}

// subscribe opens knowledge/subscribe and returns its events; the stream ends with ctx (the test).
func subscribe(t *testing.T, h *hub.Hub, headers map[string]string, params map[string]any) <-chan kgEvent {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "knowledge/subscribe", "params": params})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.Agent.BaseURL+"/a2a", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		t.Fatalf("subscribe: %s %s", ct, raw)
	}
	out := make(chan kgEvent, 64)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var e kgEvent
				if json.Unmarshal([]byte(data), &e) == nil {
					out <- e
				}
			}
		}
	}()
	return out
}

// next is the next event, failing the test if the stream ends first.
func next(t *testing.T, events <-chan kgEvent) *knowledge.ChangeEvent {
	t.Helper()
	e, ok := <-events
	if !ok || e.Result == nil {
		t.Fatalf("stream ended or failed: %+v", e.Error)
	}
	return e.Result
}

// TestKnowledgeSubscribeResumesAcrossRestart: a subscription gets the matching changes live; after
// the hub restarts, subscribing again after the last change id seen gets exactly the later matching
// changes (also those made while nobody listened), none missed or doubled; one without a change id
// gets only the changes made after it opened, and one after "0" the whole log. Invalid subscriptions
// are -32012 before any stream opens.
func TestKnowledgeSubscribeResumesAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	h, hdr := kgHub(t, dir, nil)
	sub := map[string]any{"subscriptionQuery": `subscription { changes(predicate: "ex:temp") { op changeId } }`}
	events := subscribe(t, h, hdr, sub)
	temp := func(v float64) map[string]any { return stmt("ex:room", "ex:temp", map[string]any{"value": v}, 1) }
	update(t, h, hdr, "", patch("add", temp(20)), patch("add", stmt("ex:room", "ex:name", map[string]any{"value": "lab"}, 1)))
	update(t, h, hdr, "", patch("replace", temp(21)))
	var seen []string
	for range 3 { // add 20; remove 20 and replace with 21 (the name does not match)
		e := next(t, events)
		seen = append(seen, e.Op+" "+literal(e.Statement.Object.Value))
	}
	if strings.Join(seen, ",") != "add 20,remove 20,replace 21" {
		t.Fatalf("live events: %v", seen)
	}
	kgEvents := func(events <-chan kgEvent, n int) string {
		var out []string
		for range n {
			e := next(t, events)
			out = append(out, e.Op+" "+literal(e.Statement.Object.Value))
		}
		return strings.Join(out, ",")
	}
	// A second subscriber from the start of the log ("0") reads back the same three, with their ids.
	all := subscribe(t, h, hdr, map[string]any{"subscriptionQuery": sub["subscriptionQuery"], "afterChangeId": "0"})
	var last *knowledge.ChangeEvent
	for range 3 {
		last = next(t, all)
	}
	if last.Op != "replace" {
		t.Fatalf("backlog: last is %+v", last)
	}
	h.Stop()

	h, hdr = kgHub(t, dir, nil)
	update(t, h, hdr, "while nobody listened", patch("replace", temp(22)))
	resumed := subscribe(t, h, hdr, map[string]any{"subscriptionQuery": sub["subscriptionQuery"], "afterChangeId": last.ChangeID})
	fresh := subscribe(t, h, hdr, sub) // no afterChangeId: the changes from now on
	update(t, h, hdr, "", patch("remove", temp(22)))
	update(t, h, hdr, "sentinel", patch("add", temp(99)))
	// The sentinel comes right after: nothing was doubled between the backlog and the live events.
	if got := kgEvents(resumed, 4); got != "remove 21,replace 22,remove 22,add 99" {
		t.Fatalf("resumed: %s", got)
	}
	if got := kgEvents(fresh, 2); got != "remove 22,add 99" {
		t.Fatalf("a subscription without afterChangeId got %s, want only the changes made after it opened", got)
	}

	for name, params := range map[string]map[string]any{
		"a query":          {"subscriptionQuery": `{ node(id: "x") { id } }`},
		"a syntax error":   {"subscriptionQuery": `subscription { changes(`},
		"an unknown field": {"subscriptionQuery": `subscription { changes(colour: "x") { op } }`},
		"gizmo":            {"subscriptionQuery": `g.V().All()`, "queryLanguage": "gizmo"},
		"a bad change id":  {"subscriptionQuery": sub["subscriptionQuery"], "afterChangeId": "x"},
	} {
		if _, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", hdr, "knowledge/subscribe", params); e == nil || e.Code != knowledge.CodeSubscriptionError || strings.HasPrefix(body, "event") {
			t.Fatalf("%s: %s", name, body)
		}
	}
}

func literal(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestKnowledgeSchemaLoadsInReferenceGraphQLClient: the reference GraphQL implementation (npm
// graphql, pinned in js/package.json) loads the schema by introspection through knowledge/query,
// and a query it builds from that schema validates and runs.
func TestKnowledgeSchemaLoadsInReferenceGraphQLClient(t *testing.T) {
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "graphql", "package.json")); err != nil {
		t.Fatal("npm graphql is not installed; run: npm ci --prefix backend/interop/js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH")
	}
	h, hdr := kgHub(t, t.TempDir(), nil)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "kg-introspect.mjs", h.Agent.BaseURL, hdr["X-Api-Key"])
	cmd.Dir = jsDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kg-introspect.mjs: %v\n%s", err, stderr.String())
	}
	var res struct {
		SDL   string
		Query string
		Data  map[string]map[string]any
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// graphql-go lists a field's arguments in map order, so each one is looked for on its own.
	for field, want := range map[string][]string{
		"node(":                 {"id: ID!", "): Node"},
		"search(":               {"text: String!", "first: Int", "): [Node!]!"},
		"nodes(":                {"type: ID", "where: [AttributeFilter!]", "first: Int", "after: String", "): NodePage!"},
		"statements(":           {"subject: ID", "predicate: ID", "object: ID", "graph: ID", "minCertainty: Float", "first: Int", "after: String", "): StatementPage!"},
		"changes(":              {"subject: ID", "predicate: ID", "object: ID", "type: ID"},
		"out(":                  {"predicate: ID", "first: Int", "): [Statement!]!"},
		"input AttributeFilter": {},
	} {
		line := ""
		for _, l := range strings.Split(res.SDL, "\n") {
			if strings.Contains(l, field) {
				line = l
			}
		}
		for _, w := range want {
			if !strings.Contains(line, w) {
				line = ""
			}
		}
		if line == "" {
			t.Errorf("the schema as the client sees it lacks %s%v:\n%s", field, want, res.SDL)
		}
	}
	if n := res.Data["node"]; n["id"] != "agenthub:hub" || n["label"] != "AgentHub" || n["degree"] != 4.0 {
		t.Errorf("the client's query %s answered %v", res.Query, res.Data)
	}
}

// TestKnowledgeSubscribeByType: changes(type:) streams the changes of subjects of that rdf:type.
func TestKnowledgeSubscribeByType(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	events := subscribe(t, h, hdr, map[string]any{"subscriptionQuery": `subscription($t: ID) { changes(type: $t) { op } }`,
		"variables": map[string]any{"t": "ex:Person"}})
	update(t, h, hdr, "", patch("add", stmt("ex:x", "rdf:type", map[string]any{"id": "ex:Person"}, 1)))
	update(t, h, hdr, "", patch("add", stmt("ex:x", "ex:age", map[string]any{"value": 3}, 1)), patch("add", stmt("ex:y", "ex:age", map[string]any{"value": 4}, 1)))
	update(t, h, hdr, "", patch("add", stmt("ex:x", "ex:name", map[string]any{"value": "x"}, 1)))
	var got []string
	for range 3 {
		e := next(t, events)
		got = append(got, e.Statement.Subject.ID+" "+e.Statement.Predicate.ID)
	}
	if strings.Join(got, ",") != "ex:x http://www.w3.org/1999/02/22-rdf-syntax-ns#type,ex:x ex:age,ex:x ex:name" { // stored and answered as the full IRI
		t.Fatalf("events: %v", got)
	}
}

// TestKnowledgeNodesEqFilter: nodes(where: {eq}) starts from the statements holding the value (an
// index), and still answers as the filter reads: eq is the value's text, so it matches a number and
// a string spelled the same, a typed string, not another predicate's value, not a node of another
// type or one whose type statement the view hides, and pages by id.
func TestKnowledgeNodesEqFilter(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	update(t, h, hdr, "people",
		patch("add", stmt("ex:a", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:a", "ex:code", map[string]any{"value": 7}, 1)),
		patch("add", stmt("ex:b", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:b", "ex:code", map[string]any{"value": "7"}, 1)),
		patch("add", stmt("ex:c", "rdf:type", map[string]any{"id": "ex:Person"}, 0.3)),
		patch("add", stmt("ex:c", "ex:code", map[string]any{"value": 7}, 1)),
		patch("add", stmt("ex:d", "rdf:type", map[string]any{"id": "ex:Robot"}, 1)),
		patch("add", stmt("ex:d", "ex:code", map[string]any{"value": 7}, 1)),
		patch("add", stmt("ex:e", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:e", "ex:other", map[string]any{"value": 7}, 1)),
		patch("add", stmt("ex:f", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:f", "ex:code", map[string]any{"value": "7", "type": "ex:Code"}, 1)),
		patch("add", stmt("ex:g", "rdf:type", map[string]any{"id": "ex:Person"}, 1)),
		patch("add", stmt("ex:g", "ex:code", map[string]any{"value": 7.5}, 1)),
	)
	q := `query($c: String) { nodes(type: "ex:Person", where: [{predicate: "ex:code", eq: "7"}], first: 2, after: $c) { items { id } nextCursor } }`
	data := gql(t, h, hdr, q, map[string]any{"requiredCertainty": 0.5})
	if got := jsonOf(data); got != `{"nodes":{"items":[{"id":"ex:a"},{"id":"ex:b"}],"nextCursor":"ex:b"}}` {
		t.Fatalf("first page: %s", got)
	}
	data = gql(t, h, hdr, q, map[string]any{"requiredCertainty": 0.5, "variables": map[string]any{"c": "ex:b"}})
	if got := jsonOf(data); got != `{"nodes":{"items":[{"id":"ex:f"}],"nextCursor":null}}` {
		t.Fatalf("second page: %s", got)
	}
	data = gql(t, h, hdr, `{ nodes(where: [{predicate: "ex:code", eq: "7.5"}, {predicate: "ex:code", gt: 7}]) { items { id } } }`, nil)
	if got := jsonOf(data); got != `{"nodes":{"items":[{"id":"ex:g"}]}}` {
		t.Fatalf("any type, two filters: %s", got)
	}
}

// TestKnowledgeReplaceOfSeveralValuesKeepsTheNewOne: a replace of a predicate with two values
// removes both and adds the new one; the graph (what node.out reads) has the new value, and it can
// be removed and added again. Cayley's kv store, given the removals and the addition in one batch,
// dropped the new value (its node went with the removed quads) and then refused to add it again
// ("quad exists").
func TestKnowledgeReplaceOfSeveralValuesKeepsTheNewOne(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	to := func(o string) map[string]any { return stmt("ex:a", "ex:p", map[string]any{"id": o}, 1) }
	out := func() string {
		return jsonOf(gql(t, h, hdr, `{ node(id: "ex:a") { out(predicate: "ex:p") { object } } }`, nil))
	}
	update(t, h, hdr, "two values", patch("add", to("ex:o1")), patch("add", to("ex:o2")))
	update(t, h, hdr, "one value", patch("replace", to("ex:o3")))
	if got := out(); got != `{"node":{"out":[{"object":"ex:o3"}]}}` {
		t.Fatalf("after the replace: %s", got)
	}
	update(t, h, hdr, "gone", patch("remove", to("ex:o3")))
	update(t, h, hdr, "back", patch("add", to("ex:o3")))
	if got := out(); got != `{"node":{"out":[{"object":"ex:o3"}]}}` {
		t.Fatalf("after removing and adding it again: %s", got)
	}
}

// TestKnowledgeGizmoViewRunsOnTheGraph: a Gizmo query with requiredCertainty sees neither the
// hidden statements, in either direction, nor the nodes that only hidden statements hold, both
// when few statements are hidden (the script runs on the graph less them) and when most are (it
// runs on a copy of the visible ones).
func TestKnowledgeGizmoViewRunsOnTheGraph(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	update(t, h, hdr, "people",
		patch("add", stmt("ex:ada", "ex:knows", map[string]any{"id": "ex:bob"}, 1)),
		patch("add", stmt("ex:ada", "ex:knows", map[string]any{"id": "ex:eve"}, 0.2)),
		patch("add", stmt("ex:bob", "ex:knows", map[string]any{"id": "ex:ada"}, 1)),
		patch("add", stmt("ex:eve", "ex:secret", map[string]any{"value": "hidden literal"}, 0.1)),
	)
	gizmo := func(q string, certainty float64) string {
		var gz struct{ Data []map[string]any }
		kgCall(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": q, "requiredCertainty": certainty}, &gz)
		var ids []string
		for _, d := range gz.Data {
			ids = append(ids, fmt.Sprint(d["id"]))
		}
		slices.Sort(ids)
		return strings.Join(ids, " ")
	}
	for _, c := range []struct {
		certainty float64
		query     string
		want      string
	}{
		{0.5, `g.V("<ex:ada>").Out("<ex:knows>").All()`, "<ex:bob>"},
		{0.5, `g.V("<ex:eve>").In("<ex:knows>").All()`, ""},
		{0.5, `g.V("<ex:ada>").In().All()`, "<ex:bob>"},
		{0.5, `g.V().Has("<ex:knows>").All()`, "<ex:ada> <ex:bob>"},
		{0.5, `g.V("<ex:eve>", "<ex:bob>").All()`, "<ex:bob>"},
		{0.05, `g.V("<ex:eve>").Out().All()`, "hidden literal"},
		// With 0.99 the sample graph of a new hub (certainty 1) stays, ada/bob stay, eve goes.
		{0.99, `g.V("<ex:ada>").Out("<ex:knows>").All()`, "<ex:bob>"},
	} {
		if got := gizmo(c.query, c.certainty); got != c.want {
			t.Errorf("%s with requiredCertainty %v: %q, want %q", c.query, c.certainty, got, c.want)
		}
	}
	// More hidden statements than GizmoMaxHidden: the copy of the visible ones answers the same.
	defer func(n int) { knowledge.GizmoMaxHidden = n }(knowledge.GizmoMaxHidden)
	knowledge.GizmoMaxHidden = 10
	var many []map[string]any
	for i := range 40 {
		many = append(many, patch("add", stmt(fmt.Sprintf("ex:n%d", i), "ex:knows", map[string]any{"id": "ex:ada"}, 0.3)))
	}
	update(t, h, hdr, "many", many...)
	if got := gizmo(`g.V("<ex:ada>").In("<ex:knows>").All()`, 0.5); got != "<ex:bob>" {
		t.Errorf("many hidden: %q", got)
	}
	if got := gizmo(`g.V("<ex:eve>", "<ex:bob>").All()`, 0.5); got != "<ex:bob>" {
		t.Errorf("many hidden, nodes: %q", got)
	}
}

// Who wrote a statement is the principal whose credential made the update, whatever the update says:
// bob's statements that claim to be alice's read as bob's (author), with what bob claimed kept as he
// gave it (provenance); and author filters statements, a node's links and its attributes.
func TestKnowledgeAuthorIsTheCallersPrincipal(t *testing.T) {
	h, alice := kgHub(t, t.TempDir(), nil)
	bob := map[string]string{"X-Api-Key": addPrincipal(t, h, "bob")}
	claimed := func(st map[string]any) map[string]any {
		st["provenance"] = map[string]any{"sourceAgentId": "agent://alice", "note": "as alice said"}
		return st
	}
	update(t, h, bob, "bob writes as alice",
		patch("add", claimed(stmt("ex:fact", "ex:about", map[string]any{"id": "ex:topic"}, 0.9))),
		patch("add", claimed(stmt("ex:fact", "rdfs:label", map[string]any{"value": "bob's fact"}, 0.9))))
	update(t, h, alice, "alice writes her own",
		patch("add", stmt("ex:fact", "ex:seenBy", map[string]any{"id": "ex:alice"}, 1)),
		patch("add", stmt("ex:other", "ex:about", map[string]any{"id": "ex:topic"}, 1)))

	data := gql(t, h, alice, `{ statements(subject: "ex:fact") { items { predicate author provenance } } }`, nil)
	got := map[string]string{}
	for _, it := range data["statements"].(map[string]any)["items"].([]any) {
		st := it.(map[string]any)
		got[st["predicate"].(string)] = st["author"].(string)
		if st["predicate"] != "ex:seenBy" && jsonOf(st["provenance"]) != `{"note":"as alice said","sourceAgentId":"agent://alice"}` {
			t.Errorf("bob's provenance is not kept as he gave it: %s", jsonOf(st["provenance"]))
		}
	}
	if want := map[string]string{"ex:about": "agent://bob", "http://www.w3.org/2000/01/rdf-schema#label": "agent://bob", "ex:seenBy": "agent://alice"}; jsonOf(got) != jsonOf(want) {
		t.Fatalf("authors %v, want %v", got, want)
	}

	data = gql(t, h, alice, `{ statements(author: "agent://bob") { items { subject predicate } } }`, nil)
	if s := jsonOf(data); s != `{"statements":{"items":[{"predicate":"ex:about","subject":"ex:fact"},{"predicate":"http://www.w3.org/2000/01/rdf-schema#label","subject":"ex:fact"}]}}` {
		t.Errorf("statements by bob: %s", s)
	}
	data = gql(t, h, alice, `{ node(id: "ex:fact") {
		bobs: out(author: "agent://bob") { object author }
		alices: out(author: "agent://alice") { object author }
		attributes(author: "agent://alice") { value } } }`, nil)
	if s := jsonOf(data["node"]); s != `{"alices":[{"author":"agent://alice","object":"ex:alice"}],"attributes":[],"bobs":[{"author":"agent://bob","object":"ex:topic"}]}` {
		t.Errorf("a node's statements by author: %s", s)
	}
	data = gql(t, h, alice, `{ node(id: "ex:topic") { in(author: "agent://alice") { subject } } }`, nil)
	if s := jsonOf(data["node"]); s != `{"in":[{"subject":"ex:other"}]}` {
		t.Errorf("links into a node by author: %s", s)
	}

	// The query's authors param: GraphQL and Gizmo see only what those principals wrote.
	data = gql(t, h, alice, `{ node(id: "ex:topic") { in { subject author } } }`, map[string]any{"authors": []string{"agent://bob"}})
	if s := jsonOf(data["node"]); s != `{"in":[{"author":"agent://bob","subject":"ex:fact"}]}` {
		t.Errorf("GraphQL with authors [bob]: %s", s)
	}
	for _, c := range []struct {
		authors []string
		want    string
	}{
		{[]string{"agent://bob"}, `[{"id":"\u003cex:fact\u003e"}]`},
		{[]string{"agent://alice"}, `[{"id":"\u003cex:other\u003e"}]`},
		{[]string{"agent://alice", "agent://bob"}, `[{"id":"\u003cex:fact\u003e"},{"id":"\u003cex:other\u003e"}]`},
		{[]string{"agent://nobody"}, `[]`},
	} {
		var gz struct{ Data []map[string]any }
		kgCall(t, h, alice, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<ex:topic>").In("<ex:about>").All()`,
			"authors": c.authors}, &gz)
		slices.SortFunc(gz.Data, func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a["id"]), fmt.Sprint(b["id"])) })
		if s := jsonOf(gz.Data); s != c.want {
			t.Errorf("Gizmo with authors %v: %s, want %s", c.authors, s, c.want)
		}
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("agent://a%d", i)
	}
	kgError(t, h, alice, "knowledge/query", map[string]any{"query": `{ node(id: "ex:topic") { id } }`, "authors": many}, -32602)
}

// Alignment rules can name authors: with editors set, an agent may change or remove only the
// statements it wrote (removing, replacing away, or adding again one that is there, which would make
// it the author); an editor may change anyone's. A refused update changes nothing.
func TestKnowledgeEditorsRuleKeepsAgentsToTheirOwnStatements(t *testing.T) {
	rules := knowledge.DefaultRules()
	rules.Editors = []string{"agent://carol"}
	h, alice := kgHub(t, t.TempDir(), &rules)
	bob := map[string]string{"X-Api-Key": addPrincipal(t, h, "bob")}
	carol := map[string]string{"X-Api-Key": addPrincipal(t, h, "carol")}
	fact := stmt("ex:fact", "ex:status", map[string]any{"value": "draft"}, 1)
	update(t, h, alice, "alice's fact", patch("add", fact))
	state := func() string {
		return jsonOf(gql(t, h, alice, `{ statements(subject: "ex:fact") { items { value author certainty } } }`, nil))
	}
	before := state()
	if before != `{"statements":{"items":[{"author":"agent://alice","certainty":1,"value":"draft"}]}}` {
		t.Fatalf("alice's fact: %s", before)
	}
	for _, try := range []struct {
		what string
		p    map[string]any
	}{
		{"remove", patch("remove", fact)},
		{"replace", patch("replace", stmt("ex:fact", "ex:status", map[string]any{"value": "final"}, 1))},
		{"add again", patch("add", stmt("ex:fact", "ex:status", map[string]any{"value": "draft"}, 0.2))},
	} {
		data := kgError(t, h, bob, "knowledge/update", map[string]any{"mutations": []any{
			patch("add", stmt("ex:bobs", "ex:status", map[string]any{"value": "mine"}, 1)), try.p}}, knowledge.CodeAlignmentError)
		if data["verificationStatus"] != knowledge.StatusNotAuthor || data["author"] != "agent://alice" ||
			!strings.Contains(fmt.Sprint(data["verificationDetails"]), "mutations[1]") {
			t.Errorf("bob's %s of alice's statement: %v", try.what, data)
		}
		if after := state(); after != before {
			t.Fatalf("bob's refused %s changed alice's statement: %s", try.what, after)
		}
	}
	if s := jsonOf(gql(t, h, alice, `{ statements(author: "agent://bob") { items { subject } } }`, nil)); s != `{"statements":{"items":[]}}` {
		t.Fatalf("a refused update stored some of its statements: %s", s)
	}
	// Bob's own statements are his to change; carol, an editor, may change alice's.
	update(t, h, bob, "bob's own", patch("add", stmt("ex:bobs", "ex:status", map[string]any{"value": "mine"}, 1)))
	update(t, h, bob, "bob's own", patch("replace", stmt("ex:bobs", "ex:status", map[string]any{"value": "still mine"}, 1)))
	update(t, h, carol, "the editor", patch("replace", stmt("ex:fact", "ex:status", map[string]any{"value": "final"}, 1)))
	if s := state(); s != `{"statements":{"items":[{"author":"agent://carol","certainty":1,"value":"final"}]}}` {
		t.Fatalf("after the editor's replace: %s", s)
	}
}

// GraphQL walks the graph: a statement's ends are Nodes, so three hops are one query, answered
// exactly; a walk that would visit too much is refused with -32010, before it runs when its lists'
// `first` say so, and once it has walked GraphQLMaxNodes otherwise.
func TestKnowledgeGraphQLWalksThreeHops(t *testing.T) {
	h, alice := kgHub(t, t.TempDir(), nil)
	knows := func(s, o string) map[string]any { return patch("add", stmt(s, "ex:knows", map[string]any{"id": o}, 1)) }
	label := func(s string) map[string]any {
		return patch("add", stmt(s, "rdfs:label", map[string]any{"value": strings.TrimPrefix(s, "ex:")}, 1))
	}
	var ps []map[string]any
	for _, e := range [][2]string{{"ex:a", "ex:b1"}, {"ex:a", "ex:b2"}, {"ex:b1", "ex:c1"}, {"ex:b2", "ex:c2"}, {"ex:b2", "ex:c3"}, {"ex:c1", "ex:d1"}, {"ex:c3", "ex:d2"}, {"ex:c3", "ex:d3"}} {
		ps = append(ps, knows(e[0], e[1]))
	}
	for _, n := range []string{"ex:a", "ex:b1", "ex:b2", "ex:c1", "ex:c2", "ex:c3", "ex:d1", "ex:d2", "ex:d3"} {
		ps = append(ps, label(n))
	}
	update(t, h, alice, "a small tree", ps...)

	data := gql(t, h, alice, `{ node(id: "ex:a") { label out(predicate: "ex:knows", first: 10) { objectNode { label
		out(predicate: "ex:knows", first: 10) { predicateNode { id } objectNode { label
			out(predicate: "ex:knows", first: 10) { subjectNode { id } objectNode { id label } } } } } } } }`, nil)
	var paths []string
	root := data["node"].(map[string]any)
	for _, b := range root["out"].([]any) {
		bn := b.(map[string]any)["objectNode"].(map[string]any)
		for _, c := range bn["out"].([]any) {
			cs := c.(map[string]any)
			if cs["predicateNode"].(map[string]any)["id"] != "ex:knows" {
				t.Fatalf("predicateNode: %v", cs)
			}
			cn := cs["objectNode"].(map[string]any)
			paths = append(paths, fmt.Sprintf("%s>%s>%s", root["label"], bn["label"], cn["label"]))
			for _, d := range cn["out"].([]any) {
				ds := d.(map[string]any)
				dn := ds["objectNode"].(map[string]any)
				if ds["subjectNode"].(map[string]any)["id"] != "ex:"+fmt.Sprint(cn["label"]) || dn["id"] != "ex:"+fmt.Sprint(dn["label"]) {
					t.Fatalf("the third hop's ends: %v", ds)
				}
				paths = append(paths, fmt.Sprintf("%s>%s>%s>%s", root["label"], bn["label"], cn["label"], dn["label"]))
			}
		}
	}
	slices.Sort(paths)
	if s := strings.Join(paths, " "); s != "a>b1>c1 a>b1>c1>d1 a>b2>c2 a>b2>c3 a>b2>c3>d2 a>b2>c3>d3" {
		t.Fatalf("three hops from ex:a: %s", s)
	}
	// Links read for a walk carry their metadata too when asked (read then, not for the walk).
	data = gql(t, h, alice, `{ node(id: "ex:b2") { out(predicate: "ex:knows") { object author certainty updatedAt } } }`, nil)
	for _, l := range data["node"].(map[string]any)["out"].([]any) {
		m := l.(map[string]any)
		if m["author"] != "agent://alice" || m["certainty"] != 1.0 || m["updatedAt"] == nil {
			t.Errorf("a link's metadata: %v", m)
		}
	}
	if n := len(data["node"].(map[string]any)["out"].([]any)); n != 2 {
		t.Errorf("ex:b2 has %d links, want 2", n)
	}
	// A literal's objectNode is null; its value stays on the statement.
	data = gql(t, h, alice, `{ node(id: "ex:a") { attributes { value objectNode { id } } } }`, nil)
	if s := jsonOf(data["node"]); s != `{"attributes":[{"objectNode":null,"value":"a"}]}` {
		t.Fatalf("a literal's ends: %s", s)
	}

	// Three hops of a thousand each: a billion values, refused before anything runs.
	e := kgError(t, h, alice, "knowledge/query", map[string]any{"queryLanguage": "graphql", "query": `{ node(id: "ex:a") {
		out(first: 1000) { objectNode { out(first: 1000) { objectNode { out(first: 1000) { object } } } } } } }`}, knowledge.CodeQueryError)
	if !strings.Contains(jsonOf(e), "more than the limit") {
		t.Errorf("the refusal does not say its limit: %v", e)
	}
	// A walk past the nodes limit is stopped as it goes.
	saved := knowledge.GraphQLMaxNodes
	knowledge.GraphQLMaxNodes = 5
	t.Cleanup(func() { knowledge.GraphQLMaxNodes = saved })
	e = kgError(t, h, alice, "knowledge/query", map[string]any{"queryLanguage": "graphql", "query": `{ node(id: "ex:a") {
		out(first: 3) { objectNode { out(first: 3) { objectNode { out(first: 3) { objectNode { id } } } } } } } }`}, knowledge.CodeQueryError)
	if e["limit"] != 5.0 {
		t.Errorf("the walk's refusal: %v", e)
	}
}
