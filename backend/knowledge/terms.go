package knowledge

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// Terms are RDF terms. An IRI is stored and compared in one form, the full IRI: a CURIE whose
// prefix is well known (wellKnown) or declared by the request (Prefixes) is expanded on the way
// in, so "rdf:type" and "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" are one term. Display
// compacts again (the UI, with the same prefixes). Anything else is kept as given: "ex:a" with no
// declared prefix ex is an IRI of the scheme ex, and so are the hub's own ids ("agenthub:hub",
// "a2a:Agent"), which are full IRIs of the hub's schemes already. A blank node ("_:b0") is never
// expanded. Earlier versions stored the well-known CURIEs; Open migrates such data dirs once
// (migrateTerms).
var wellKnown = []struct{ prefix, ns string }{
	{"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
	{"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
	{"xsd", "http://www.w3.org/2001/XMLSchema#"},
	{"owl", "http://www.w3.org/2002/07/owl#"},
	{"schema", "https://schema.org/"},
	{"foaf", "http://xmlns.com/foaf/0.1/"},
	{"skos", "http://www.w3.org/2004/02/skos/core#"},
	{"dcterms", "http://purl.org/dc/terms/"},
}

// nsAliases are namespaces read as another: schema.org's terms were published under http:// first
// and both forms are in use; they are one term here, stored under https://.
var nsAliases = []struct{ from, to string }{
	{"http://schema.org/", "https://schema.org/"},
}

var wellKnownNS = func() map[string]string {
	m := map[string]string{}
	for _, w := range wellKnown {
		m[w.prefix] = w.ns
	}
	return m
}()

const (
	rdfNS          = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	xsdNS          = "http://www.w3.org/2001/XMLSchema#"
	xsdString      = xsdNS + "string"
	rdfLangString  = rdfNS + "langString"
	maxPrefixes    = 64
	maxPrefixBytes = 64
)

// Prefixes are CURIE prefixes a request declares (prefix → namespace IRI), expanded in its terms
// on the way in, before and over the well-known ones.
type Prefixes map[string]string

var prefixName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// check reports what makes p unusable.
func (p Prefixes) check() error {
	if len(p) > maxPrefixes {
		return fmt.Errorf("prefixes: at most %d", maxPrefixes)
	}
	for name, ns := range p {
		switch {
		case len(name) > maxPrefixBytes || !prefixName.MatchString(name):
			return fmt.Errorf("prefixes: %q is not a prefix name (a letter, then letters, digits, _ . -)", name)
		case len(ns) > MaxIRIBytes || !absoluteIRI.MatchString(ns):
			return fmt.Errorf("prefixes: %s: %q is not an absolute IRI", name, ns)
		}
	}
	return nil
}

var absoluteIRI = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20<>"{}|^` + "`" + `\\]*$`)

// canonicalTerm is the stored form of a term named with the well-known prefixes only.
func canonicalTerm(t string) string { return expandTerm(t, nil) }

// expandTerm is the stored form of a term: a CURIE of a declared or well-known prefix expanded
// (declared first), a namespace alias replaced; anything else as given. A prefix with nothing after
// it ("rdf:") and a bare namespace IRI name no term and are kept.
func expandTerm(t string, declared Prefixes) string {
	if t == "" || strings.HasPrefix(t, "_:") {
		return t
	}
	if colon := strings.IndexByte(t, ':'); colon > 0 && !strings.HasPrefix(t[colon+1:], "//") {
		prefix, local := t[:colon], t[colon+1:]
		if ns, ok := declared[prefix]; ok {
			return expandTerm(ns+local, nil) // the namespace may itself be a well-known CURIE
		}
		if ns, ok := wellKnownNS[prefix]; ok && local != "" {
			return ns + local
		}
	}
	for _, a := range nsAliases {
		if local, ok := strings.CutPrefix(t, a.from); ok && local != "" {
			return a.to + local
		}
	}
	return t
}

// namespaceTerm is a namespace as the rules name it, in the stored form of the terms in it: a
// well-known prefix ("schema:") is its namespace IRI; anything else is read as a term.
func namespaceTerm(ns string) string {
	if p, ok := strings.CutSuffix(ns, ":"); ok {
		if full, ok := wellKnownNS[p]; ok {
			return full
		}
	}
	return canonicalTerm(ns)
}

type prefixesKey struct{}

// withPrefixes carries a request's declared prefixes to where its terms are read.
func withPrefixes(ctx context.Context, p Prefixes) context.Context {
	if len(p) == 0 {
		return ctx
	}
	return context.WithValue(ctx, prefixesKey{}, p)
}

func prefixesOf(ctx context.Context) Prefixes {
	p, _ := ctx.Value(prefixesKey{}).(Prefixes)
	return p
}

// langTag is a BCP 47 language tag as RDF takes it.
var langTag = regexp.MustCompile(`^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$`)

// canonicalize rewrites s's terms to their stored form (see expandTerm) and its literal's
// language to the one form: a language-tagged string is {value, type: "@tag"} with the tag in
// lower case (tags compare case-insensitively), and language: "tag" beside it for readers that look
// there; either field may name it on the way in.
func (s *Statement) canonicalize(declared Prefixes) error {
	s.Subject.ID = expandTerm(s.Subject.ID, declared)
	s.Subject.Type = expandTerm(s.Subject.Type, declared)
	s.Predicate.ID = expandTerm(s.Predicate.ID, declared)
	s.Object.ID = expandTerm(s.Object.ID, declared)
	s.Graph = expandTerm(s.Graph, declared)
	o := &s.Object
	lang := o.Language
	if t, ok := strings.CutPrefix(o.Type, "@"); ok {
		if lang != "" && !strings.EqualFold(lang, t) {
			return fmt.Errorf("statement.object: language %q and type %q disagree", lang, o.Type)
		}
		lang = t
	} else if o.Type != "" {
		o.Type = expandTerm(o.Type, declared)
		if lang != "" && o.Type != rdfLangString {
			return fmt.Errorf("statement.object: a literal with a language is of type rdf:langString, not %q", o.Type)
		}
		if lang == "" && o.Type == rdfLangString {
			return fmt.Errorf("statement.object: an rdf:langString literal needs its language")
		}
	}
	if lang == "" {
		o.Language = ""
		return nil
	}
	if _, ok := o.Value.(string); !ok || o.ID != "" {
		return fmt.Errorf("statement.object: only a string literal has a language")
	}
	if !langTag.MatchString(lang) {
		return fmt.Errorf("statement.object: %q is not a language tag", lang)
	}
	lang = strings.ToLower(lang)
	o.Type, o.Language = "@"+lang, lang
	return nil
}

// termArg is a GraphQL argument naming a term, in its stored form.
func termArg(ctx context.Context, args map[string]any, name string) string {
	return expandTerm(strArg(args, name), prefixesOf(ctx))
}

// gizmoIRI is an IRI as a Gizmo script names it, "<scheme:…>" in a string.
var gizmoIRI = regexp.MustCompile(`(["'])<([A-Za-z][A-Za-z0-9+.-]*:[^<>"'\s]*)>(["'])`)

// canonicalGizmo names a Gizmo script's IRIs by their stored form, so
// g.V().Has("<rdf:type>", …) reads the statements stored under the full IRI.
func canonicalGizmo(script string, declared Prefixes) string {
	return gizmoIRI.ReplaceAllStringFunc(script, func(m string) string {
		sm := gizmoIRI.FindStringSubmatch(m)
		return sm[1] + "<" + expandTerm(sm[2], declared) + ">" + sm[3]
	})
}
