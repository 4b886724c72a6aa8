package knowledge

import (
	"context"

	"github.com/graphql-go/graphql"
)

// schemaRows bounds each list of the graph's schema: the types, links and literals with the most
// statements come first.
const schemaRows = 500

// graphSchema is what the graph holds, counted over every statement the caller's view sees: its types
// (how many nodes have each), the predicates between resources by the types at their two ends, and the
// literal predicates by the subject's type. A node with several types counts under each; an untyped
// end is "". The UI's Schema tab draws it.
type graphSchema struct {
	Types    []typeCount    `json:"types"`
	Links    []linkCount    `json:"links"`
	Literals []literalCount `json:"literals"`
}

type typeCount struct {
	ID    string `json:"id"`
	Count int64  `json:"count"`
}

type linkCount struct {
	Predicate string `json:"predicate"`
	From      string `json:"from"`
	To        string `json:"to"`
	Count     int64  `json:"count"`
}

type literalCount struct {
	Type      string `json:"type"`
	Predicate string `json:"predicate"`
	Count     int64  `json:"count"`
}

// schemaType is the GraphQL type of graphSchema, answered by Query.schema.
func schemaType() *graphql.Object {
	str := graphql.NewNonNull(graphql.String)
	count := &graphql.Field{Type: graphql.NewNonNull(graphql.Float), Description: "How many (a Float: it may pass 2^31)."}
	list := func(o *graphql.Object) graphql.Output {
		return graphql.NewNonNull(graphql.NewList(graphql.NewNonNull(o)))
	}
	return graphql.NewObject(graphql.ObjectConfig{
		Name:        "GraphSchema",
		Description: "The graph's types and predicates with their counts, over every statement the caller sees. An untyped end is \"\". Each list holds the 500 largest.",
		Fields: graphql.Fields{
			"types": &graphql.Field{Type: list(graphql.NewObject(graphql.ObjectConfig{Name: "TypeCount", Fields: graphql.Fields{
				"id": &graphql.Field{Type: str}, "count": count}}))},
			"links": &graphql.Field{Type: list(graphql.NewObject(graphql.ObjectConfig{Name: "LinkCount",
				Description: "Statements of predicate from a node of type from to a node of type to.",
				Fields:      graphql.Fields{"predicate": &graphql.Field{Type: str}, "from": &graphql.Field{Type: str}, "to": &graphql.Field{Type: str}, "count": count}}))},
			"literals": &graphql.Field{Type: list(graphql.NewObject(graphql.ObjectConfig{Name: "LiteralCount",
				Description: "Literal statements of predicate about nodes of type.",
				Fields:      graphql.Fields{"type": &graphql.Field{Type: str}, "predicate": &graphql.Field{Type: str}, "count": count}}))},
		},
	})
}

// graphSchema counts the schema in three grouped scans, each type looked up by the subject (and
// object) index; the query's deadline bounds them on a very large graph.
func (s *Service) graphSchema(ctx context.Context) (*graphSchema, error) {
	v := viewOf(ctx)
	out := &graphSchema{Types: []typeCount{}, Links: []linkCount{}, Literals: []literalCount{}}
	w, args := v.sqlFilter()
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT object_id, count(DISTINCT subject) AS n FROM kg_statements WHERE `+w+
		` AND predicate = ? AND object_id IS NOT NULL GROUP BY object_id ORDER BY n DESC, object_id LIMIT ?`, append(args, RDFType, schemaRows)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t typeCount
		if err := rows.Scan(&t.ID, &t.Count); err != nil {
			rows.Close()
			return nil, err
		}
		out.Types = append(out.Types, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// typeOf joins the types of the node in column on (alias a), as the view sees them.
	typeOf := func(a, on string) (string, []any) {
		tw, targs := v.sqlFilterOn(a)
		return ` LEFT JOIN kg_statements ` + a + ` ON ` + a + `.subject = ` + on + ` AND ` + a + `.predicate = ? AND ` + a + `.object_id IS NOT NULL AND ` + tw,
			append([]any{RDFType}, targs...)
	}
	sw, sargs := v.sqlFilterOn("s")
	from, fargs := typeOf("f", "s.subject")
	to, targs := typeOf("t", "s.object_id")
	q := `SELECT s.predicate, coalesce(f.object_id, ''), coalesce(t.object_id, ''), count(*) AS n FROM kg_statements s` + from + to +
		` WHERE ` + sw + ` AND s.object_id IS NOT NULL AND s.predicate <> ? GROUP BY s.predicate, f.object_id, t.object_id ORDER BY n DESC, 1, 2, 3 LIMIT ?`
	rows, err = s.db.Reader.QueryContext(ctx, q, append(append(append(append(fargs, targs...), sargs...), RDFType), schemaRows)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var l linkCount
		if err := rows.Scan(&l.Predicate, &l.From, &l.To, &l.Count); err != nil {
			rows.Close()
			return nil, err
		}
		out.Links = append(out.Links, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	q = `SELECT coalesce(f.object_id, ''), s.predicate, count(*) AS n FROM kg_statements s` + from +
		` WHERE ` + sw + ` AND s.object_id IS NULL GROUP BY f.object_id, s.predicate ORDER BY n DESC, 2, 1 LIMIT ?`
	rows, err = s.db.Reader.QueryContext(ctx, q, append(append(fargs, sargs...), schemaRows)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var l literalCount
		if err := rows.Scan(&l.Type, &l.Predicate, &l.Count); err != nil {
			return nil, err
		}
		out.Literals = append(out.Literals, l)
	}
	return out, rows.Err()
}
