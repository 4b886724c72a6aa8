package interop

import (
	"testing"
)

// TestKnowledgeQueryTellsTheChangeToSubscribeAfter: a query's queryMetadata.changeId is the last
// change the graph had when it ran, so a client (the Knowledge page) that shows a result and then
// subscribes after that id gets exactly the later changes, not the graph's whole history.
func TestKnowledgeQueryTellsTheChangeToSubscribeAfter(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	first := update(t, h, hdr, "before the page opened", patch("add", stmt("ex:a", "ex:knows", map[string]any{"id": "ex:b"}, 1)))
	var res struct{ QueryMetadata map[string]any }
	kgCall(t, h, hdr, "knowledge/query", map[string]any{"query": `{ node(id: "ex:a") { id } }`}, &res)
	if res.QueryMetadata["changeId"] != first["changeId"] {
		t.Fatalf("queryMetadata.changeId = %v, want the last update's %v", res.QueryMetadata["changeId"], first["changeId"])
	}
	var gz struct{ QueryMetadata map[string]any }
	kgCall(t, h, hdr, "knowledge/query", map[string]any{"query": `g.V("ex:a").All()`, "queryLanguage": "gizmo"}, &gz)
	if gz.QueryMetadata["changeId"] != first["changeId"] {
		t.Fatalf("gizmo queryMetadata.changeId = %v, want %v", gz.QueryMetadata["changeId"], first["changeId"])
	}

	events := subscribe(t, h, hdr, map[string]any{"subscriptionQuery": `subscription { changes { op changeId } }`,
		"afterChangeId": res.QueryMetadata["changeId"]})
	later := update(t, h, hdr, "after", patch("add", stmt("ex:a", "ex:knows", map[string]any{"id": "ex:c"}, 1)))
	e := next(t, events)
	if e.ChangeID != later["changeId"] || e.Statement.Object.ID != "ex:c" {
		t.Fatalf("first event after the query's change id: %+v, want change %v (ex:c)", e, later["changeId"])
	}
}
