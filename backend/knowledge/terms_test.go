package knowledge

import "testing"

// TestCanonicalTerm: well-known full IRIs read as their CURIE; other IRIs, CURIEs, bare
// namespaces and look-alikes are kept as given.
func TestCanonicalTerm(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.w3.org/1999/02/22-rdf-syntax-ns#type": "rdf:type",
		"http://www.w3.org/2000/01/rdf-schema#label":      "rdfs:label",
		"http://www.w3.org/2001/XMLSchema#integer":        "xsd:integer",
		"http://www.w3.org/2002/07/owl#sameAs":            "owl:sameAs",
		"https://schema.org/Person":                       "schema:Person",
		"http://schema.org/name":                          "schema:name",
		"http://xmlns.com/foaf/0.1/knows":                 "foaf:knows",
		"http://www.w3.org/2004/02/skos/core#prefLabel":   "skos:prefLabel",
		"http://purl.org/dc/terms/created":                "dcterms:created",
		"rdf:type":                                        "rdf:type",
		"http://example.org/Organization":                 "http://example.org/Organization",
		"http://www.w3.org/1999/02/22-rdf-syntax-ns#":     "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
		"http://www.w3.org/1999/02/22-rdf-syntax-ns":      "http://www.w3.org/1999/02/22-rdf-syntax-ns",
		"": "",
	} {
		if got := canonicalTerm(in); got != want {
			t.Errorf("canonicalTerm(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCanonicalGizmo: a script's well-known full IRIs become their CURIEs; others are kept.
func TestCanonicalGizmo(t *testing.T) {
	in := `g.V("<ex:a>").Out("<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>").Is("<http://example.org/Org>").Out("<https://schema.org/name>").All()`
	want := `g.V("<ex:a>").Out("<rdf:type>").Is("<http://example.org/Org>").Out("<schema:name>").All()`
	if got := canonicalGizmo(in); got != want {
		t.Fatalf("canonicalGizmo = %s, want %s", got, want)
	}
}
