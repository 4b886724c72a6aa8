package knowledge

import (
	"regexp"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
)

// In Gizmo a quoted "x" is the string literal x and an IRI is written "<x>", so g.V("agenthub:agent/demo")
// found nothing for the id the UI shows for a node. gizmoNodeStrings reads such a string as the node
// when the graph holds a node with that id and no literal with that text: the ids a person copies from
// the UI work as shown, and a string the graph holds as a literal keeps its meaning.

// gizmoString is a JavaScript string literal without escapes (one with escapes is left as written).
var gizmoString = regexp.MustCompile(`"([^"\\\n<>]+)"|'([^'\\\n<>]+)'`)

// maxGizmoIDLookups bounds the store lookups one script can cause (two per distinct string).
const maxGizmoIDLookups = 200

func gizmoNodeStrings(qs graph.QuadStore, script string) string {
	seen := map[string]bool{}
	return gizmoString.ReplaceAllStringFunc(script, func(m string) string {
		text := m[1 : len(m)-1]
		if strings.ContainsAny(text, " \t") || !strings.Contains(text, ":") {
			// Ids the UI shows are CURIEs or IRIs; a word is more likely a tag name (Tag("id")) or a
			// literal, and an IRI has no spaces.
			return m
		}
		id := canonicalTerm(text) // the stored key of the id, as a statement's would be
		node, done := seen[text]
		if !done {
			if len(seen) >= maxGizmoIDLookups {
				return m
			}
			node = qs.ValueOf(quad.IRI(id)) != nil && qs.ValueOf(quad.String(text)) == nil
			seen[text] = node
		}
		if !node {
			return m
		}
		return m[:1] + "<" + id + ">" + m[len(m)-1:]
	})
}
