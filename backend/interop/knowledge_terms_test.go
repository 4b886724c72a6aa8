package interop

import (
	"testing"
)

// TestKnowledgeFullIRIAndCURIEAreOneTerm: a type and a label written with the full rdf/rdfs IRIs
// are the node's type and label, as if written as rdf:type and rdfs:label; a query naming a type
// or a predicate by either form finds them (nodes(type:), types, label, search, statements, Gizmo).
func TestKnowledgeFullIRIAndCURIEAreOneTerm(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	const rdf, rdfs = "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/2000/01/rdf-schema#"
	update(t, h, hdr, "full IRIs",
		patch("add", stmt("ex:acme", rdf+"type", map[string]any{"id": "http://example.org/Organization"}, 1)),
		patch("add", stmt("ex:acme", rdfs+"label", map[string]any{"value": "Acme Widgets"}, 1)),
		patch("add", stmt("ex:acme", "http://schema.org/name", map[string]any{"value": "Acme"}, 1)),
	)
	update(t, h, hdr, "CURIEs",
		patch("add", stmt("ex:bolt", "rdf:type", map[string]any{"id": "schema:Product"}, 1)),
		patch("add", stmt("ex:bolt", "rdfs:label", map[string]any{"value": "Bolt"}, 1)),
	)
	for _, c := range []struct{ query, want string }{
		{`{ nodes(type: "http://example.org/Organization") { items { id types label } } }`,
			`{"nodes":{"items":[{"id":"ex:acme","label":"Acme Widgets","types":["http://example.org/Organization"]}]}}`},
		{`{ nodes(type: "https://schema.org/Product") { items { id types label } } }`,
			`{"nodes":{"items":[{"id":"ex:bolt","label":"Bolt","types":["schema:Product"]}]}}`},
		{`{ nodes(type: "schema:Product") { items { id } } }`, `{"nodes":{"items":[{"id":"ex:bolt"}]}}`},
		{`{ search(text: "widgets") { id label } }`, `{"search":[{"id":"ex:acme","label":"Acme Widgets"}]}`},
		{`{ nodes(where: [{predicate: "http://www.w3.org/2000/01/rdf-schema#label", eq: "Bolt"}]) { items { id } } }`,
			`{"nodes":{"items":[{"id":"ex:bolt"}]}}`},
		{`{ statements(subject: "ex:acme", predicate: "http://schema.org/name") { items { predicate value } } }`,
			`{"statements":{"items":[{"predicate":"schema:name","value":"Acme"}]}}`},
	} {
		if got := jsonOf(gql(t, h, hdr, c.query, nil)); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.query, got, c.want)
		}
	}
	for _, q := range []string{
		`g.V("<ex:acme>").Out("<rdf:type>").All()`,
		`g.V("<ex:acme>").Out("<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>").All()`,
	} {
		var gz struct{ Data []map[string]any }
		kgCall(t, h, hdr, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": q}, &gz)
		if got := jsonOf(gz.Data); got != `[{"id":"\u003chttp://example.org/Organization\u003e"}]` {
			t.Errorf("gizmo %s: %s", q, got)
		}
	}
}
