package knowledge

import (
	"regexp"
	"strings"
)

// wellKnown are the namespaces whose terms the hub keys on one spelling. A statement or a query
// may name a term by its full IRI or its CURIE; both are read as the one stored key, so
// "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" types a node as "rdf:type" does.
//
// The stored key is still the CURIE (the form existing data dirs hold): turning the stored form
// into the full IRI needs a migration of every data dir and compaction for display, which is
// the next step of "Knowledge graph, round 2"; canonicalTerm is the one place that changes then.
var wellKnown = []struct{ prefix, ns string }{
	{"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
	{"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
	{"xsd", "http://www.w3.org/2001/XMLSchema#"},
	{"owl", "http://www.w3.org/2002/07/owl#"},
	{"schema", "https://schema.org/"},
	{"schema", "http://schema.org/"},
	{"foaf", "http://xmlns.com/foaf/0.1/"},
	{"skos", "http://www.w3.org/2004/02/skos/core#"},
	{"dcterms", "http://purl.org/dc/terms/"},
}

// canonicalTerm is the stored key of an IRI: a full IRI in a well-known namespace becomes its
// CURIE; anything else is kept as given. A namespace with nothing after it (the bare namespace
// IRI) is no term of it and is kept.
func canonicalTerm(iri string) string {
	if !strings.Contains(iri, "://") {
		return iri
	}
	for _, w := range wellKnown {
		if local, ok := strings.CutPrefix(iri, w.ns); ok && local != "" {
			return w.prefix + ":" + local
		}
	}
	return iri
}

// canonicalize rewrites s's IRIs to their stored keys (see canonicalTerm).
func (s *Statement) canonicalize() {
	s.Subject.ID = canonicalTerm(s.Subject.ID)
	s.Subject.Type = canonicalTerm(s.Subject.Type)
	s.Predicate.ID = canonicalTerm(s.Predicate.ID)
	s.Object.ID = canonicalTerm(s.Object.ID)
	s.Object.Type = canonicalTerm(s.Object.Type)
	s.Graph = canonicalTerm(s.Graph)
}

// termArg is a GraphQL argument naming a term, as its stored key.
func termArg(args map[string]any, name string) string {
	return canonicalTerm(strArg(args, name))
}

// gizmoIRI is an IRI as a Gizmo script names it: <scheme://…>.
var gizmoIRI = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9+.-]*://[^<>"\s]*>`)

// canonicalGizmo names a Gizmo script's well-known full IRIs by their stored keys, so
// g.V().Has("<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", …) reads rdf:type statements.
func canonicalGizmo(script string) string {
	if !strings.Contains(script, "://") {
		return script
	}
	return gizmoIRI.ReplaceAllStringFunc(script, func(m string) string {
		return "<" + canonicalTerm(m[1:len(m)-1]) + ">"
	})
}
