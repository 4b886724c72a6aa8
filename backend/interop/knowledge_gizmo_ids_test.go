package interop

import "testing"

// TestGizmoReadsNodeIdsAsShown: the ids the UI shows (ex:acme) name their nodes in Gizmo without the
// <…> Gizmo's own syntax needs; a string the graph holds as a literal, or names no node, keeps its
// meaning as a string.
func TestGizmoReadsNodeIdsAsShown(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	update(t, h, hdr, "ids",
		patch("add", stmt("ex:acme", "rdf:type", map[string]any{"id": "ex:Organization"}, 1)),
		patch("add", stmt("ex:acme", "schema:name", map[string]any{"value": "Acme"}, 1)),
		// ex:both is a node and also a literal's text: the literal wins, as Gizmo reads it.
		patch("add", stmt("ex:both", "rdf:type", map[string]any{"id": "ex:Organization"}, 1)),
		patch("add", stmt("ex:note", "schema:text", map[string]any{"value": "ex:both"}, 1)),
	)
	gizmo := func(q string) string {
		var gz struct{ Data []map[string]any }
		kgCall(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": q}, &gz)
		return jsonOf(gz.Data)
	}
	for _, c := range []struct{ query, want string }{
		{`g.V("ex:acme").Out("<rdf:type>").All()`, `[{"id":"\u003cex:Organization\u003e"}]`},
		{`g.V('ex:acme').Out("rdf:type").All()`, `[{"id":"\u003cex:Organization\u003e"}]`},
		{`g.V("<ex:acme>").Out("<rdf:type>").All()`, `[{"id":"\u003cex:Organization\u003e"}]`},
		{`g.V("ex:acme").Tag("ex:tag").Out("schema:name").All()`, `[{"ex:tag":"\u003cex:acme\u003e","id":"Acme"}]`},
		{`g.V().Has("schema:name", "Acme").All()`, `[{"id":"\u003cex:acme\u003e"}]`},
		{`g.V("ex:both").In("schema:text").All()`, `[{"id":"\u003cex:note\u003e"}]`},
		{`g.V("ex:nobody").Out().All()`, `[]`},
	} {
		if got := gizmo(c.query); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.query, got, c.want)
		}
	}
}
