package knowledge

import (
	"strings"
	"testing"
)

// TestCanonicalTerm: well-known CURIEs become their full IRIs; schema.org's http:// IRIs read as
// its https:// ones; other IRIs, unknown prefixes, blank nodes, a bare prefix and bare namespaces
// are kept as given.
func TestCanonicalTerm(t *testing.T) {
	for in, want := range map[string]string{
		"rdf:type":               "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
		"rdfs:label":             "http://www.w3.org/2000/01/rdf-schema#label",
		"xsd:integer":            "http://www.w3.org/2001/XMLSchema#integer",
		"owl:sameAs":             "http://www.w3.org/2002/07/owl#sameAs",
		"schema:Person":          "https://schema.org/Person",
		"foaf:knows":             "http://xmlns.com/foaf/0.1/knows",
		"skos:prefLabel":         "http://www.w3.org/2004/02/skos/core#prefLabel",
		"dcterms:created":        "http://purl.org/dc/terms/created",
		"http://schema.org/name": "https://schema.org/name",
		"http://www.w3.org/1999/02/22-rdf-syntax-ns#type": "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
		"http://example.org/Organization":                 "http://example.org/Organization",
		"http://www.w3.org/1999/02/22-rdf-syntax-ns#":     "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
		"http://schema.org/":                              "http://schema.org/",
		"rdf:":                                            "rdf:",
		"ex:a":                                            "ex:a",
		"agenthub:hub":                                    "agenthub:hub",
		"_:b0":                                            "_:b0",
		"":                                                "",
	} {
		if got := canonicalTerm(in); got != want {
			t.Errorf("canonicalTerm(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExpandTermDeclared: a request's prefixes expand its CURIEs, before the well-known ones, and
// a declared namespace that is itself a well-known CURIE is expanded too.
func TestExpandTermDeclared(t *testing.T) {
	p := Prefixes{"ex": "http://example.org/", "rdfs": "http://example.org/not-rdfs#", "s": "schema:"}
	for in, want := range map[string]string{
		"ex:a":                 "http://example.org/a",
		"rdfs:label":           "http://example.org/not-rdfs#label",
		"rdf:type":             "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
		"s:name":               "https://schema.org/name",
		"other:x":              "other:x",
		"_:ex":                 "_:ex",
		"http://example.org/b": "http://example.org/b",
	} {
		if got := expandTerm(in, p); got != want {
			t.Errorf("expandTerm(%q) = %q, want %q", in, got, want)
		}
	}
	for _, bad := range []Prefixes{{"1x": "http://a/"}, {"ex": "not an iri"}, {"ex": ""}} {
		if bad.check() == nil {
			t.Errorf("prefixes %v were accepted", bad)
		}
	}
}

// TestCanonicalGizmo: a script's IRIs in strings are named by their stored form.
func TestCanonicalGizmo(t *testing.T) {
	in := `g.V("<ex:a>").Out("<rdf:type>").Is('<http://example.org/Org>').Out("<http://schema.org/name>").Out("<e:p>").All()`
	want := `g.V("<ex:a>").Out("<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>").Is('<http://example.org/Org>').Out("<https://schema.org/name>").Out("<http://e.org/p>").All()`
	if got := canonicalGizmo(in, Prefixes{"e": "http://e.org/"}); got != want {
		t.Fatalf("canonicalGizmo = %s, want %s", got, want)
	}
}

// TestLanguageIsPartOfTheLiteral: the tag is kept (in lower case) as type "@tag" and language,
// named by either; "chat"@fr and "chat"@en are two objects; a tag on a non-string is refused.
func TestLanguageIsPartOfTheLiteral(t *testing.T) {
	lit := func(o Object) (Object, error) {
		st := Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: o}
		err := st.canonicalize(nil)
		return st.Object, err
	}
	fr1, err1 := lit(Object{Value: "chat", Type: "@FR"})
	fr2, err2 := lit(Object{Value: "chat", Language: "fr"})
	fr3, err3 := lit(Object{Value: "chat", Language: "fr", Type: "rdf:langString"})
	en, err4 := lit(Object{Value: "chat", Type: "@en"})
	plain, _ := lit(Object{Value: "chat"})
	if err := errorsOf(err1, err2, err3, err4); err != nil {
		t.Fatal(err)
	}
	if fr1 != fr2 || fr1 != fr3 || fr1.Type != "@fr" || fr1.Language != "fr" {
		t.Fatalf("fr forms: %+v %+v %+v", fr1, fr2, fr3)
	}
	keys := map[string]bool{objectKey(fr1.quadValue()): true, objectKey(en.quadValue()): true, objectKey(plain.quadValue()): true}
	if len(keys) != 3 || !keys[`"chat"@fr`] {
		t.Fatalf("object keys %v", keys)
	}
	for _, bad := range []Object{{Value: 1.0, Language: "fr"}, {Value: "x", Language: "fr", Type: "@en"}, {Value: "x", Type: "@not a tag"},
		{Value: "x", Type: "rdf:langString"}, {Value: "x", Language: "fr", Type: "xsd:string"}} {
		if _, err := lit(bad); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
}

func errorsOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// TestRulesNameTermsEitherWay: a forbidden predicate and a read-only namespace written in the
// rules as CURIEs of the well-known prefixes apply to the statements stored under full IRIs.
func TestRulesNameTermsEitherWay(t *testing.T) {
	r := DefaultRules()
	r.ForbiddenPredicates = []string{"owl:sameAs"}
	r.ReadOnlyNamespaces = []string{"agenthub:", "schema:"}
	for _, c := range []struct {
		st   Statement
		want string
	}{
		{Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "http://www.w3.org/2002/07/owl#sameAs"}, Object: Object{ID: "ex:b"}}, "predicate owl:sameAs is forbidden"},
		{Statement{Subject: Subject{ID: "https://schema.org/Person"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:b"}}, "namespace schema: is read-only"},
		{Statement{Subject: Subject{ID: "agenthub:hub"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:b"}}, "namespace agenthub: is read-only"},
		{Statement{Subject: Subject{ID: "ex:a"}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:b"}}, ""},
	} {
		c.st.Certainty = new(float64)
		*c.st.Certainty = 1
		got := r.check("user://owner", []Patch{{Op: OpAdd, Statement: c.st}})
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}
