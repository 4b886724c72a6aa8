package knowledge

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// Well-known predicates the schema reads: a node's types and its label, stored as full IRIs (terms.go).
const (
	RDFType   = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	RDFSLabel = "http://www.w3.org/2000/01/rdf-schema#label"
)

// Statement is the extension's KGStatement on the wire.
type Statement struct {
	Subject    Subject        `json:"subject"`
	Predicate  Predicate      `json:"predicate"`
	Object     Object         `json:"object"`
	Graph      string         `json:"graph,omitempty"`
	Certainty  *float64       `json:"certainty,omitempty"`
	Provenance map[string]any `json:"provenance,omitempty"`
}

// Subject is KGSubject; Type is informative only (types are rdf:type statements).
type Subject struct {
	ID   string `json:"id"`
	Type string `json:"type,omitempty"`
}

// Predicate is KGPredicate.
type Predicate struct {
	ID string `json:"id"`
}

// Object is KGObject: exactly one of ID (a resource) or Value (a literal: string, number, boolean);
// Type is the literal's datatype, or "@tag" for a string with a language, whose tag Language
// repeats (the extension has no language field: this one is the hub's, optional on the way in).
type Object struct {
	ID       string `json:"id,omitempty"`
	Value    any    `json:"value,omitempty"`
	Type     string `json:"type,omitempty"`
	Language string `json:"language,omitempty"`
}

// Limits of one statement's fields, in bytes: each was accepted at 7 MB, and a literal is stored
// about five times over (the row, its unique key, the log, the graph).
const (
	MaxIRIBytes           = 4 << 10  // subject, predicate, object id, graph, types
	MaxLiteralBytes       = 64 << 10 // a literal's text
	MaxProvenanceBytes    = 16 << 10 // the provenance, as JSON
	MaxJustificationBytes = 16 << 10 // an update's justification (stored with each statement)
)

// FieldTooLarge is a field past its limit.
type FieldTooLarge struct {
	Field       string
	Size, Limit int
}

func (e *FieldTooLarge) Error() string {
	return fmt.Sprintf("%s is %d bytes, more than the limit of %d", e.Field, e.Size, e.Limit)
}

// checkSizes reports the first field of s past its limit.
func (s *Statement) checkSizes() error {
	for _, f := range []struct {
		name, value string
	}{
		{"statement.subject.id", s.Subject.ID}, {"statement.subject.type", s.Subject.Type},
		{"statement.predicate.id", s.Predicate.ID}, {"statement.object.id", s.Object.ID},
		{"statement.object.type", s.Object.Type}, {"statement.graph", s.Graph},
	} {
		if len(f.value) > MaxIRIBytes {
			return &FieldTooLarge{f.name, len(f.value), MaxIRIBytes}
		}
	}
	if v, ok := s.Object.Value.(string); ok && len(v) > MaxLiteralBytes {
		return &FieldTooLarge{"statement.object.value", len(v), MaxLiteralBytes}
	}
	if len(s.Provenance) > 0 {
		b, err := json.Marshal(s.Provenance)
		if err != nil {
			return fmt.Errorf("statement.provenance: %v", err)
		}
		if len(b) > MaxProvenanceBytes {
			return &FieldTooLarge{"statement.provenance", len(b), MaxProvenanceBytes}
		}
	}
	return nil
}

// check reports what makes s unusable as a statement.
func (s *Statement) check() error {
	if err := s.checkSizes(); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(s.Subject.ID) == "":
		return fmt.Errorf("statement.subject.id is required")
	case strings.TrimSpace(s.Predicate.ID) == "":
		return fmt.Errorf("statement.predicate.id is required")
	case (s.Object.ID == "") == (s.Object.Value == nil):
		return fmt.Errorf("statement.object must have exactly one of id or value")
	case s.Certainty != nil && (*s.Certainty < 0 || *s.Certainty > 1 || math.IsNaN(*s.Certainty)):
		return fmt.Errorf("statement.certainty must be within [0, 1]")
	}
	switch v := s.Object.Value.(type) {
	case nil, string, bool:
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("statement.object.value must be finite")
		}
	default:
		return fmt.Errorf("statement.object.value must be a string, number or boolean")
	}
	return nil
}

// objectValue is the object as a Cayley value: an IRI, or a native literal (so Gizmo compares
// numbers as numbers), or a typed string when the caller named a datatype of a string.
func (o Object) quadValue() quad.Value {
	if o.ID != "" {
		return quad.IRI(o.ID)
	}
	switch v := o.Value.(type) {
	case string:
		if lang, ok := strings.CutPrefix(o.Type, "@"); ok {
			return quad.LangString{Value: quad.String(v), Lang: lang}
		}
		if o.Type != "" && o.Type != xsdString {
			return quad.TypedString{Value: quad.String(v), Type: quad.IRI(o.Type)}
		}
		return quad.String(v)
	case bool:
		return quad.Bool(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return quad.Int(int64(v))
		}
		return quad.Float(v)
	}
	return nil
}

// datatype is the literal's datatype as stored (empty for a resource).
func (o Object) datatype() string {
	if o.ID != "" {
		return ""
	}
	if o.Type != "" {
		return o.Type
	}
	switch v := o.Value.(type) {
	case bool:
		return xsdNS + "boolean"
	case float64:
		if v == math.Trunc(v) {
			return xsdNS + "integer"
		}
		return xsdNS + "double"
	}
	return xsdString
}

// objectKey identifies an object within a statement: the N-Quads form of its Cayley value, which is
// what a quad read back from the graph gives too.
func objectKey(v quad.Value) string { return v.String() }

// quadOf is the statement as a Cayley quad; the default graph has no label.
func (s *Statement) quadOf() quad.Quad {
	q := quad.Quad{Subject: quad.IRI(s.Subject.ID), Predicate: quad.IRI(s.Predicate.ID), Object: s.Object.quadValue()}
	if s.Graph != "" {
		q.Label = quad.IRI(s.Graph)
	}
	return q
}

// key identifies a statement: subject, predicate, object and graph.
type key struct{ subject, predicate, object, graph string }

func (s *Statement) key() key {
	return key{s.Subject.ID, s.Predicate.ID, objectKey(s.Object.quadValue()), s.Graph}
}

// literalText is a literal's value as text, for filters and search.
func literalText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
