package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/language/ast"
)

// Limits of one query's lists.
const (
	defaultFirst = 100
	maxFirst     = 1000
)

// view is what a query may see (requiredCertainty, maxAgeSeconds, authors) and what it counted.
type view struct {
	minCertainty float64
	since        time.Time // zero: any age
	authors      []string  // empty: any author
	statements   atomic.Int64
	nodes        atomic.Int64
}

type viewKey struct{}

func viewOf(ctx context.Context) *view {
	if v, ok := ctx.Value(viewKey{}).(*view); ok {
		return v
	}
	return &view{}
}

// hides says whether the view hides any statement at all.
func (v *view) hides() bool { return v.minCertainty > 0 || !v.since.IsZero() || len(v.authors) > 0 }

func (v *view) sees(r *row) bool {
	return r != nil && *r.Stmt.Certainty >= v.minCertainty && (v.since.IsZero() || !r.UpdatedAt.Before(v.since)) &&
		(len(v.authors) == 0 || slices.Contains(v.authors, r.Source))
}

// sqlFilter is the view as a WHERE fragment over kg_statements.
func (v *view) sqlFilter() (string, []any) { return v.sqlFilterOn("") }

// sqlFilterOn is sqlFilter on the columns of table alias t ("": unqualified).
func (v *view) sqlFilterOn(t string) (string, []any) {
	if t != "" {
		t += "."
	}
	w, args := t+"certainty >= ?", []any{v.minCertainty}
	if !v.since.IsZero() {
		w += " AND " + t + "updated_at >= ?"
		args = append(args, v.since.UTC().Format(time.RFC3339Nano))
	}
	if len(v.authors) > 0 {
		w += " AND " + t + "source IN (?" + strings.Repeat(", ?", len(v.authors)-1) + ")"
		for _, a := range v.authors {
			args = append(args, a)
		}
	}
	return w, args
}

// nodeRef is a Node being resolved.
type nodeRef struct{ id string }

// page is a list with the cursor of the next page.
type page struct {
	Items      any     `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

func firstArg(args map[string]any, def int) int {
	n, ok := args["first"].(int)
	if !ok || n <= 0 {
		return def
	}
	return min(n, maxFirst)
}

func strArg(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

var jsonScalar = graphql.NewScalar(graphql.ScalarConfig{
	Name:        "JSON",
	Description: "Any JSON value: a literal's value (string, number, boolean) or a provenance object.",
	Serialize:   func(v any) any { return v },
	ParseValue:  func(v any) any { return v },
	ParseLiteral: func(v ast.Value) any {
		return v.GetValue()
	},
})

// newSchema is the knowledge graph's GraphQL schema (queries and the changes subscription).
func newSchema(s *Service) (graphql.Schema, error) {
	id := graphql.NewNonNull(graphql.ID)
	statement := graphql.NewObject(graphql.ObjectConfig{
		Name:        "Statement",
		Description: "A triple with its metadata.",
		Fields: graphql.Fields{
			"subject":   &graphql.Field{Type: id, Resolve: rowField(func(r *row) any { return r.Stmt.Subject.ID })},
			"predicate": &graphql.Field{Type: id, Resolve: rowField(func(r *row) any { return r.Stmt.Predicate.ID })},
			"object": &graphql.Field{Type: graphql.ID, Description: "The object's id when it is a resource.",
				Resolve: rowField(func(r *row) any { return nilIfEmpty(r.Stmt.Object.ID) })},
			"value": &graphql.Field{Type: jsonScalar, Description: "The object's value when it is a literal.",
				Resolve: metaField(func(r *row) any { return r.Stmt.Object.Value })},
			"datatype": &graphql.Field{Type: graphql.String, Description: "The literal's datatype IRI, or \"@tag\" for a string with a language.",
				Resolve: metaField(func(r *row) any { return nilIfEmpty(r.Stmt.Object.Type) })},
			"language": &graphql.Field{Type: graphql.String, Description: "The language tag of a language-tagged string literal.",
				Resolve: metaField(func(r *row) any { return nilIfEmpty(r.Stmt.Object.Language) })},
			"graph": &graphql.Field{Type: graphql.ID, Resolve: rowField(func(r *row) any { return nilIfEmpty(r.Stmt.Graph) })},
			"certainty": &graphql.Field{Type: graphql.NewNonNull(graphql.Float),
				Resolve: metaField(func(r *row) any { return *r.Stmt.Certainty })},
			"provenance": &graphql.Field{Type: jsonScalar, Description: "What the writer said of where the statement comes from, as given.",
				Resolve: metaField(func(r *row) any { return r.Stmt.Provenance })},
			"author": &graphql.Field{Type: id, Description: "The principal whose credential wrote the statement (never taken from the request).",
				Resolve: metaField(func(r *row) any { return r.Source })},
			"updatedAt": &graphql.Field{Type: graphql.NewNonNull(graphql.DateTime),
				Resolve: metaField(func(r *row) any { return r.UpdatedAt })},
		},
	})
	edgeArgs := graphql.FieldConfigArgument{"predicate": {Type: graphql.ID}, "author": {Type: graphql.ID}, "first": {Type: graphql.Int}}
	stmtList := graphql.NewNonNull(graphql.NewList(graphql.NewNonNull(statement)))
	node := graphql.NewObject(graphql.ObjectConfig{
		Name:        "Node",
		Description: "A resource of the graph, read from the Cayley store.",
		Fields: graphql.Fields{
			"id": &graphql.Field{Type: id, Resolve: func(p graphql.ResolveParams) (any, error) {
				n := p.Source.(nodeRef).id
				return n, budgetOf(p.Context).charge(n)
			}},
			"types": &graphql.Field{Type: graphql.NewNonNull(graphql.NewList(id)), Resolve: func(p graphql.ResolveParams) (any, error) {
				rs, err := s.edges(p.Context, p.Source.(nodeRef).id, quad.Subject, RDFType, maxFirst)
				var out []string
				for _, r := range rs {
					if r.Stmt.Object.ID != "" {
						out = append(out, r.Stmt.Object.ID)
					}
				}
				if err == nil {
					err = budgetOf(p.Context).charge(out)
				}
				return out, err
			}},
			"label": &graphql.Field{Type: graphql.String, Resolve: func(p graphql.ResolveParams) (any, error) {
				rs, err := s.edges(p.Context, p.Source.(nodeRef).id, quad.Subject, RDFSLabel, 1)
				if err != nil || len(rs) == 0 {
					return nil, err
				}
				l := literalText(rs[0].Stmt.Object.Value)
				return l, budgetOf(p.Context).charge(l)
			}},
			"attributes": &graphql.Field{Type: stmtList, Description: "Statements about the node whose object is a literal.",
				Args: graphql.FieldConfigArgument{"author": {Type: graphql.ID}},
				Resolve: func(p graphql.ResolveParams) (any, error) {
					rs, err := s.edges(p.Context, p.Source.(nodeRef).id, quad.Subject, "", maxFirst)
					out := rs[:0]
					for _, r := range rs {
						if r.Stmt.Object.ID == "" && byAuthor(p.Args, r) {
							out = append(out, r)
						}
					}
					return out, err
				}},
			"out": &graphql.Field{Type: stmtList, Args: edgeArgs, Description: "Statements from the node to other resources.",
				Resolve: func(p graphql.ResolveParams) (any, error) { return s.links(p, quad.Subject) }},
			"in": &graphql.Field{Type: stmtList, Args: edgeArgs, Description: "Statements from other resources to the node.",
				Resolve: func(p graphql.ResolveParams) (any, error) { return s.links(p, quad.Object) }},
			"degree": &graphql.Field{Type: graphql.NewNonNull(graphql.Int), Description: "How many visible statements link the node to other resources, either way.",
				Resolve: func(p graphql.ResolveParams) (any, error) {
					n := p.Source.(nodeRef).id
					out, err := s.edges(p.Context, n, quad.Subject, "", -1)
					if err != nil {
						return nil, err
					}
					in, err := s.edges(p.Context, n, quad.Object, "", -1)
					d := len(in)
					for _, r := range out {
						if r.Stmt.Object.ID != "" {
							d++
						}
					}
					return d, err
				}},
		},
	})
	// A statement's ends as Nodes, so that a query walks the graph: node { out { objectNode { out {
	// … } } } }, as deep as the document limits allow. Added once Node exists (the two types refer
	// to each other); subject, predicate and object stay the ids they always were.
	nodeOf := func(id func(*row) string) graphql.FieldResolveFn {
		return func(p graphql.ResolveParams) (any, error) {
			n := id(p.Source.(*row))
			if n == "" {
				return nil, nil // a literal: its value is on the statement
			}
			viewOf(p.Context).nodes.Add(1)
			return nodeRef{n}, budgetOf(p.Context).walk()
		}
	}
	statement.AddFieldConfig("subjectNode", &graphql.Field{Type: graphql.NewNonNull(node), Description: "The subject, as a node to read further.",
		Resolve: nodeOf(func(r *row) string { return r.Stmt.Subject.ID })})
	statement.AddFieldConfig("predicateNode", &graphql.Field{Type: graphql.NewNonNull(node), Description: "The predicate, as a node to read further.",
		Resolve: nodeOf(func(r *row) string { return r.Stmt.Predicate.ID })})
	statement.AddFieldConfig("objectNode", &graphql.Field{Type: node, Description: "The object as a node to read further; null for a literal.",
		Resolve: nodeOf(func(r *row) string { return r.Stmt.Object.ID })})
	nodeList := graphql.NewNonNull(graphql.NewList(graphql.NewNonNull(node)))
	pageOf := func(name string, items graphql.Output) *graphql.Object {
		return graphql.NewObject(graphql.ObjectConfig{Name: name, Fields: graphql.Fields{
			"items":      &graphql.Field{Type: items},
			"nextCursor": &graphql.Field{Type: graphql.String, Description: "Pass as `after` for the next page; null on the last page."},
		}})
	}
	filter := graphql.NewInputObject(graphql.InputObjectConfig{
		Name:        "AttributeFilter",
		Description: "Matches a node having a literal of predicate that satisfies every condition given.",
		Fields: graphql.InputObjectConfigFieldMap{
			"predicate": {Type: id},
			"eq":        {Type: graphql.String, Description: "the value's text equals"},
			"lt":        {Type: graphql.Float, Description: "the value is a number below"},
			"gt":        {Type: graphql.Float, Description: "the value is a number above"},
			"contains":  {Type: graphql.String, Description: "the value's text contains, ignoring case"},
		},
	})
	query := graphql.NewObject(graphql.ObjectConfig{
		Name: "Query",
		Fields: graphql.Fields{
			"node": &graphql.Field{Type: node, Args: graphql.FieldConfigArgument{"id": {Type: id}},
				Resolve: func(p graphql.ResolveParams) (any, error) {
					n := expandTerm(p.Args["id"].(string), prefixesOf(p.Context))
					ok, err := s.nodeExists(p.Context, n)
					if err != nil || !ok {
						return nil, err
					}
					viewOf(p.Context).nodes.Add(1)
					return nodeRef{n}, nil
				}},
			"search": &graphql.Field{Type: nodeList, Description: "Nodes whose id or a literal contains text, ignoring case.",
				Args: graphql.FieldConfigArgument{"text": {Type: graphql.NewNonNull(graphql.String)}, "first": {Type: graphql.Int}},
				Resolve: func(p graphql.ResolveParams) (any, error) {
					return s.search(p.Context, p.Args["text"].(string), firstArg(p.Args, 20))
				}},
			"nodes": &graphql.Field{Type: graphql.NewNonNull(pageOf("NodePage", nodeList)),
				Args: graphql.FieldConfigArgument{"type": {Type: graphql.ID}, "where": {Type: graphql.NewList(graphql.NewNonNull(filter))},
					"first": {Type: graphql.Int}, "after": {Type: graphql.String}},
				Resolve: func(p graphql.ResolveParams) (any, error) {
					var where []map[string]any
					if ws, ok := p.Args["where"].([]any); ok {
						for _, w := range ws {
							f := w.(map[string]any)
							if pr, ok := f["predicate"].(string); ok {
								f["predicate"] = expandTerm(pr, prefixesOf(p.Context))
							}
							where = append(where, f)
						}
					}
					return s.nodes(p.Context, termArg(p.Context, p.Args, "type"), where, firstArg(p.Args, defaultFirst), strArg(p.Args, "after"))
				}},
			"schema": &graphql.Field{Type: graphql.NewNonNull(schemaType()), Description: "The graph's types and predicates with their counts.",
				Resolve: func(p graphql.ResolveParams) (any, error) { return s.graphSchema(p.Context) }},
			"statements": &graphql.Field{Type: graphql.NewNonNull(pageOf("StatementPage", stmtList)),
				Args: graphql.FieldConfigArgument{"subject": {Type: graphql.ID}, "predicate": {Type: graphql.ID}, "object": {Type: graphql.ID},
					"graph": {Type: graphql.ID}, "author": {Type: graphql.ID}, "minCertainty": {Type: graphql.Float}, "first": {Type: graphql.Int}, "after": {Type: graphql.String}},
				Resolve: func(p graphql.ResolveParams) (any, error) { return s.statements(p.Context, p.Args) },
			},
		},
	})
	change := graphql.NewObject(graphql.ObjectConfig{
		Name:        "KnowledgeGraphChangeEvent",
		Description: "One change; knowledge/subscribe streams them whole, whatever the selection.",
		Fields: graphql.Fields{
			"op":        &graphql.Field{Type: graphql.NewNonNull(graphql.String)},
			"changeId":  &graphql.Field{Type: id},
			"timestamp": &graphql.Field{Type: graphql.NewNonNull(graphql.DateTime)},
			"statement": &graphql.Field{Type: graphql.NewNonNull(jsonScalar)},
		},
	})
	subscription := graphql.NewObject(graphql.ObjectConfig{
		Name: "Subscription",
		Fields: graphql.Fields{
			"changes": &graphql.Field{Type: change, Description: "Changes to statements matching every argument given; type matches subjects of that rdf:type.",
				Args: graphql.FieldConfigArgument{"subject": {Type: graphql.ID}, "predicate": {Type: graphql.ID}, "object": {Type: graphql.ID}, "type": {Type: graphql.ID}},
				Resolve: func(p graphql.ResolveParams) (any, error) {
					if f, ok := p.Context.Value(subscriptionKey{}).(*changeFilter); ok {
						f.subject, f.predicate, f.object, f.typ = termArg(p.Context, p.Args, "subject"), termArg(p.Context, p.Args, "predicate"), termArg(p.Context, p.Args, "object"), termArg(p.Context, p.Args, "type")
						f.set = true
					}
					return nil, nil
				}},
		},
	})
	return graphql.NewSchema(graphql.SchemaConfig{Query: query, Subscription: subscription})
}

// links resolves a node's out (dir quad.Subject) or in (quad.Object): its statements with a resource
// at the other end, of the predicate and author asked for, at most first. Only those quads are
// looked up, and no more than asked, so a node's literals and its links past first cost nothing;
// without an author to check, a link is answered from its quad (see edgesOf).
func (s *Service) links(p graphql.ResolveParams, dir quad.Direction) ([]*row, error) {
	first := firstArg(p.Args, defaultFirst)
	limit := first
	_, byAuthors := p.Args["author"]
	if byAuthors {
		limit = maxFirst
	}
	rs, err := s.edgesOf(p.Context, p.Source.(nodeRef).id, dir, termArg(p.Context, p.Args, "predicate"), limit, true, !byAuthors)
	out := rs[:0]
	for _, r := range rs {
		if byAuthor(p.Args, r) && len(out) < first {
			out = append(out, r)
		}
	}
	return out, err
}

// byAuthor says whether r passes a field's author argument (no argument: every statement does).
func byAuthor(args map[string]any, r *row) bool {
	a, ok := args["author"].(string)
	return !ok || r.Source == a
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func rowField(f func(*row) any) graphql.FieldResolveFn {
	return func(p graphql.ResolveParams) (any, error) {
		v := f(p.Source.(*row))
		return v, budgetOf(p.Context).charge(v)
	}
}

// metaField is rowField for a field the statement's quad does not hold (its value, certainty,
// provenance, author, time): a row edgesOf left unread is read first.
func metaField(f func(*row) any) graphql.FieldResolveFn {
	return func(p graphql.ResolveParams) (any, error) {
		r := p.Source.(*row)
		if err := r.meta(p.Context); err != nil {
			return nil, err
		}
		v := f(r)
		return v, budgetOf(p.Context).charge(v)
	}
}

// iriOf is an IRI value's text, or "" for a literal or nil.
func iriOf(v quad.Value) string {
	if iri, ok := v.(quad.IRI); ok {
		return string(iri)
	}
	return ""
}

// edges are the visible statements with node as subject (dir quad.Subject) or object (quad.Object),
// of predicate when given, at most limit (< 0: all), read from the graph and joined with their
// metadata.
func (s *Service) edges(ctx context.Context, node string, dir quad.Direction, predicate string, limit int) ([]*row, error) {
	return s.edgesOf(ctx, node, dir, predicate, limit, false, false)
}

// edgesOf is edges, of the statements whose object is a resource only when resources is set (those
// are told from the quad, before the statement's row is read). With unread, and a view that hides
// nothing (every stored statement is seen), links to resources are answered from their quads and
// their rows are read only if a field asks for what only the row holds (row.meta): a walk through
// objectNode reads no row at all.
func (s *Service) edgesOf(ctx context.Context, node string, dir quad.Direction, predicate string, limit int, resources, unread bool) ([]*row, error) {
	ref := s.qs.ValueOf(quad.IRI(node))
	if ref == nil {
		return nil, nil
	}
	var it graph.Iterator
	var pref graph.Ref
	if predicate != "" {
		// Only the quads of that predicate: Cayley's kv indexes quads by subject+predicate, so (on
		// the cached store) a subject's are read from that index, not every quad of the node (a
		// node lookup asks for its types and its label this way).
		if pref = s.qs.ValueOf(quad.IRI(predicate)); pref == nil {
			return nil, nil
		}
		if ns, ok := s.qs.(*namedStore); ok {
			it = ns.quadsWith(dir, ref, pref)
		}
	}
	if it == nil {
		it = s.qs.QuadIterator(dir, ref)
	}
	defer it.Close()
	v := viewOf(ctx)
	var out []*row
	for it.Next(ctx) && (limit < 0 || len(out) < limit) {
		if pref != nil && s.qs.QuadDirection(it.Result(), quad.Predicate) != pref {
			continue // read but not of the predicate: not named, not looked up
		}
		q := s.qs.Quad(it.Result())
		if resources && iriOf(q.Object) == "" {
			continue
		}
		p := iriOf(q.Predicate)
		if predicate != "" && p != predicate {
			continue
		}
		k := key{iriOf(q.Subject), p, objectKey(q.Object), iriOf(q.Label)}
		if unread && !v.hides() && iriOf(q.Object) != "" {
			out = append(out, &row{Stmt: Statement{Subject: Subject{ID: k.subject}, Predicate: Predicate{ID: p},
				Object: Object{ID: iriOf(q.Object)}, Graph: k.graph}, unread: &unreadRow{find: s.st.find, key: k}})
			continue
		}
		r, err := findRow(ctx, s.st.find, k)
		if err != nil {
			return nil, err
		}
		if v.sees(r) {
			out = append(out, r)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	v.statements.Add(int64(len(out)))
	return out, ctx.Err()
}

// nodeExists says whether node is in a visible statement, either way.
func (s *Service) nodeExists(ctx context.Context, node string) (bool, error) {
	for _, dir := range []quad.Direction{quad.Subject, quad.Object} {
		rs, err := s.edges(ctx, node, dir, "", 1)
		if err != nil || len(rs) > 0 {
			return len(rs) > 0, err
		}
	}
	return false, nil
}

func (s *Service) search(ctx context.Context, text string, first int) ([]nodeRef, error) {
	v := viewOf(ctx)
	w, args := v.sqlFilter()
	lower := strings.ToLower(strings.TrimSpace(text))
	like := "%" + likeEscape(lower) + "%"
	// The id as the UI shows it ("ex:alice", or with a request's prefixes) names its node, though the
	// stored full IRI does not contain that text.
	id := expandTerm(strings.TrimSpace(text), prefixesOf(ctx))
	label, _ := json.Marshal(lower)                                        // a string literal's value_json, lowered
	labelStart := likeEscape(strings.TrimSuffix(string(label), `"`)) + "%" // one that starts with the text
	// Best first: the node named, then nodes with a literal that is the text (a label, say), then
	// one that starts with it, then the rest, each by id: a page of 20 holds the exact hits whatever
	// else contains the text.
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT subject, min(CASE WHEN subject = ? THEN 0 WHEN lower(value_json) = ? THEN 1
		WHEN lower(value_json) LIKE ? ESCAPE '\' THEN 2 ELSE 3 END) AS rank FROM kg_statements WHERE `+w+
		` AND (subject = ? OR lower(subject) LIKE ? ESCAPE '\' OR lower(value_json) LIKE ? ESCAPE '\') GROUP BY subject ORDER BY rank, subject LIMIT ?`,
		append(append([]any{id, string(label), labelStart}, args...), id, like, like, first)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []nodeRef{}
	for rows.Next() {
		var n string
		var rank int
		if err := rows.Scan(&n, &rank); err != nil {
			return nil, err
		}
		out = append(out, nodeRef{n})
	}
	v.nodes.Add(int64(len(out)))
	return out, rows.Err()
}

// nodes pages through the subjects (of type typ), ordered by id, keeping those that pass where.
func (s *Service) nodes(ctx context.Context, typ string, where []map[string]any, first int, after string) (*page, error) {
	v := viewOf(ctx)
	var q string
	var args []any
	exact := false // the query alone decides: where is one eq filter, which the SQL matches exactly
	if eq, pred := eqFilter(where); pred != "" {
		exact = len(where) == 1 && onlyEq(where[0])
		// Start from the statements holding the value (index kg_statements_value_prefix, on the
		// literal's first 64 characters, written as the index is), not from every node of the
		// type: each candidate still passes through matches below.
		w, wargs := v.sqlFilterOn("a")
		values := eqValues(eq)
		in := `(?` + strings.Repeat(", ?", len(values)-1) + `)`
		prefixes := `(substr(?, 1, 64)` + strings.Repeat(", substr(?, 1, 64)", len(values)-1) + `)`
		q = `SELECT DISTINCT a.subject FROM kg_statements a WHERE a.predicate = ? AND a.object_id IS NULL AND substr(a.value_json, 1, 64) IN ` +
			prefixes + ` AND a.value_json IN ` + in + ` AND ` + w + ` AND a.subject > ?`
		args = append(append(append([]any{pred}, values...), values...), wargs...)
		args = append(args, after)
		if typ != "" {
			tw, targs := v.sqlFilterOn("t")
			// +t.object_id keeps SQLite from answering this through the object index, which holds
			// every node of the type, per candidate: the lookup goes by subject and predicate.
			// PostgreSQL has no unary + on text (and its planner weighs the indexes itself).
			objectID := "+t.object_id"
			if s.db.Postgres() {
				objectID = "t.object_id"
			}
			q += ` AND EXISTS (SELECT 1 FROM kg_statements t WHERE t.subject = a.subject AND t.predicate = ? AND ` + objectID + ` = ? AND ` + tw + `)`
			args = append(append(args, RDFType, typ), targs...)
		}
		q += ` ORDER BY a.subject`
	} else {
		w, wargs := v.sqlFilter()
		q = `SELECT DISTINCT subject FROM kg_statements WHERE ` + w + ` AND subject > ?`
		args = append(wargs, after)
		if typ != "" {
			q += ` AND predicate = ? AND object_id = ?`
			args = append(args, RDFType, typ)
		}
		q += ` ORDER BY subject`
	}
	rows, err := s.db.Reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := []nodeRef{}
	var next *string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if !exact {
			ok, err := s.matches(ctx, n, where)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		if len(items) == first {
			c := items[len(items)-1].id
			next = &c
			break
		}
		items = append(items, nodeRef{n})
	}
	v.nodes.Add(int64(len(items)))
	return &page{Items: items, NextCursor: next}, rows.Err()
}

// eqFilter is the first filter of where with an eq condition: its text and predicate.
func eqFilter(where []map[string]any) (eq, predicate string) {
	for _, f := range where {
		if e, ok := f["eq"].(string); ok {
			p, _ := f["predicate"].(string)
			return e, p
		}
	}
	return "", ""
}

// onlyEq says whether filter f has no condition but eq: then the statements whose value_json is
// one of eqValues are exactly those it holds for (same JSON encoding both ways).
func onlyEq(f map[string]any) bool {
	for k, v := range f {
		if k != "predicate" && k != "eq" && v != nil {
			return false
		}
	}
	return true
}

// eqValues are the value_json texts of every literal whose text (literalText) is eq: the string
// itself, and the number or boolean eq spells exactly.
func eqValues(eq string) []any {
	str, _ := json.Marshal(eq)
	out := []any{string(str)}
	if f, err := strconv.ParseFloat(eq, 64); err == nil && literalText(f) == eq {
		num, _ := json.Marshal(f)
		out = append(out, string(num))
	}
	if eq == "true" || eq == "false" {
		out = append(out, eq)
	}
	return out
}

// matches says whether node passes every filter.
func (s *Service) matches(ctx context.Context, node string, where []map[string]any) (bool, error) {
	v := viewOf(ctx)
	for _, f := range where {
		rs, err := selectRows(ctx, s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE subject = ? AND predicate = ? AND object_id IS NULL`,
			node, f["predicate"])
		if err != nil {
			return false, err
		}
		found := false
		for _, r := range rs {
			if v.sees(r) && filterHolds(f, r.Stmt.Object.Value) {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

func filterHolds(f map[string]any, value any) bool {
	text := literalText(value)
	if eq, ok := f["eq"].(string); ok && text != eq {
		return false
	}
	if c, ok := f["contains"].(string); ok && !strings.Contains(strings.ToLower(text), strings.ToLower(c)) {
		return false
	}
	num, isNum := value.(float64)
	if lt, ok := f["lt"].(float64); ok && (!isNum || num >= lt) {
		return false
	}
	if gt, ok := f["gt"].(float64); ok && (!isNum || num <= gt) {
		return false
	}
	return true
}

// statements pages through the stored statements by id.
func (s *Service) statements(ctx context.Context, args map[string]any) (*page, error) {
	v := viewOf(ctx)
	w, qargs := v.sqlFilter()
	for _, c := range []struct{ arg, col string }{{"subject", "subject"}, {"predicate", "predicate"}, {"object", "object_id"}, {"graph", "graph"}, {"author", "source"}} {
		if val, ok := args[c.arg].(string); ok {
			if c.arg != "author" {
				val = expandTerm(val, prefixesOf(ctx))
			}
			w += " AND " + c.col + " = ?"
			qargs = append(qargs, val)
		}
	}
	if mc, ok := args["minCertainty"].(float64); ok {
		w += " AND certainty >= ?"
		qargs = append(qargs, mc)
	}
	if after := strArg(args, "after"); after != "" {
		n, err := strconv.ParseInt(after, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("after: not a cursor of statements")
		}
		w += " AND id > ?"
		qargs = append(qargs, n)
	}
	first := firstArg(args, defaultFirst)
	rs, err := selectRows(ctx, s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE `+w+` ORDER BY id LIMIT ?`, append(qargs, first+1)...)
	if err != nil {
		return nil, err
	}
	var next *string
	if len(rs) > first {
		rs = rs[:first]
		c := strconv.FormatInt(rs[first-1].ID, 10)
		next = &c
	}
	if rs == nil {
		rs = []*row{}
	}
	v.statements.Add(int64(len(rs)))
	return &page{Items: rs, NextCursor: next}, nil
}
