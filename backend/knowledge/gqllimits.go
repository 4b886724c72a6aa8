package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/graphql-go/graphql/gqlerrors"
	"github.com/graphql-go/graphql/language/ast"
	"github.com/graphql-go/graphql/language/parser"
	"github.com/graphql-go/graphql/language/source"
)

// Limits of one GraphQL document (knowledge/query, the knowledge skill, knowledge/subscribe),
// checked on the parsed document before graphql-go validates or runs it: its validation recurses
// through fragment spreads without a cycle check (a fragment spreading itself overflowed the
// goroutine stack, a fatal error that killed the hub), and nothing else bounded what a query may
// ask for (5,000 aliases of search(first: 1000) ran 77 s and answered 17.9 MB).
const (
	// GraphQLMaxQueryBytes bounds the document's text, and with it the parser's recursion.
	GraphQLMaxQueryBytes = 64 << 10
	// GraphQLMaxDepth bounds how deeply fields nest, fragments expanded (graphql-js's own
	// introspection query nests 13 deep).
	GraphQLMaxDepth = 20
	// GraphQLMaxFields bounds the fields selected, fragments expanded, aliases counted each: the
	// UI's largest query (the links among a view's nodes, 100 aliased nodes) selects 700.
	GraphQLMaxFields = 2000
	// GraphQLMaxCost bounds the values a query may answer, estimated: each field counts once per
	// item of every list above it, a list counting its `first` (or its default).
	GraphQLMaxCost = 1_000_000
)

// GraphQLTimeout bounds a query's run time; GraphQLMaxAnswerBytes the text of the values it
// answers (variables for tests).
var (
	GraphQLTimeout              = 5 * time.Second
	GraphQLMaxAnswerBytes int64 = 16 << 20
	// GraphQLMaxNodes bounds the nodes a run walks to through statements (subjectNode,
	// predicateNode, objectNode): the estimate refuses most deep walks before they run, this stops
	// one whose lists were longer than their `first` told.
	GraphQLMaxNodes int64 = 100_000
)

// listItems is how many items a list field of the schema may answer, given its arguments; fields
// not listed answer one value (introspection's lists are bounded by the schema).
func listItems(field string, first int) int {
	switch field {
	case "search":
		return firstOr(first, 20)
	case "nodes", "statements", "out", "in":
		return firstOr(first, defaultFirst)
	case "links", "literals": // the graph's schema
		return schemaRows
	case "attributes":
		// All of a node's literals, up to maxFirst; most nodes have a few. The answer-size cap and
		// the deadline bound the rare node that has many.
		return defaultFirst
	}
	return 1
}

// firstOr is firstArg's rule for a `first` known from the document (0: not given).
func firstOr(first, def int) int {
	if first <= 0 {
		return def
	}
	return min(first, maxFirst)
}

// docSize is what a selection asks for: fields, estimated cost and depth, fragments expanded.
type docSize struct {
	fields int
	cost   float64 // a float: fragments spread many times multiply it past any int
	depth  int
}

// docCheck walks a document's selections; fragments are sized once each (memo), so a document
// whose fragments spread each other many times is still walked in linear time.
type docCheck struct {
	src       *source.Source
	vars      map[string]any
	fragments map[string]*ast.FragmentDefinition
	memo      map[string]docSize
	visiting  map[string]bool
}

// checkGraphQL parses query and refuses, as a *Error of code (with the location), a document that
// is too large, deep or costly, or whose fragments spread each other in a cycle.
func checkGraphQL(query string, vars map[string]any, code int) (*ast.Document, error) {
	if len(query) > GraphQLMaxQueryBytes {
		return nil, errorf(code, fmt.Sprintf("graphql: the query is %d bytes, more than the limit of %d", len(query), GraphQLMaxQueryBytes),
			map[string]any{"line": 1, "column": 1, "limit": GraphQLMaxQueryBytes})
	}
	src := source.NewSource(&source.Source{Body: []byte(query), Name: "GraphQL request"})
	doc, err := parser.Parse(parser.ParseParams{Source: src})
	if err != nil {
		return nil, errorf(code, "graphql: "+gqlerrors.FormatError(err).Message, queryErrorData(gqlerrors.FormatErrors(err)))
	}
	c := &docCheck{src: src, vars: vars, fragments: map[string]*ast.FragmentDefinition{}, memo: map[string]docSize{}, visiting: map[string]bool{}}
	for _, d := range doc.Definitions {
		if f, ok := d.(*ast.FragmentDefinition); ok && f.Name != nil {
			c.fragments[f.Name.Value] = f
		}
	}
	for _, d := range doc.Definitions {
		var ss *ast.SelectionSet
		var at ast.Node
		switch d := d.(type) {
		case *ast.OperationDefinition:
			ss, at = d.SelectionSet, d
		case *ast.FragmentDefinition: // checked even when unused: validation walks it too
			if _, err := c.fragment(d.Name.Value, d); err != nil {
				return nil, c.refuse(code, err)
			}
			continue
		default:
			continue
		}
		size, err := c.selections(ss)
		if err != nil {
			return nil, c.refuse(code, err)
		}
		if err := limitsOf(size); err != nil {
			return nil, c.refuse(code, &locatedErr{err.Error(), at})
		}
	}
	return doc, nil
}

// limitsOf says which limit a document of this size passes, if any.
func limitsOf(size docSize) error {
	switch {
	case size.depth > GraphQLMaxDepth:
		return fmt.Errorf("the query nests %d fields deep, more than the limit of %d", size.depth, GraphQLMaxDepth)
	case size.fields > GraphQLMaxFields:
		return fmt.Errorf("the query selects %d fields (fragments expanded, aliases counted), more than the limit of %d", size.fields, GraphQLMaxFields)
	case size.cost > GraphQLMaxCost:
		return fmt.Errorf("the query may answer about %.0f values (each list counted at its first), more than the limit of %d", size.cost, GraphQLMaxCost)
	}
	return nil
}

// locatedErr is a refusal at a node of the document.
type locatedErr struct {
	msg string
	at  ast.Node
}

func (e *locatedErr) Error() string { return e.msg }

func (c *docCheck) refuse(code int, err error) error {
	var le *locatedErr
	if !errors.As(err, &le) {
		return errorf(code, "graphql: "+err.Error(), nil)
	}
	fe := gqlerrors.FormatError(gqlerrors.NewLocatedError(le.msg, []ast.Node{le.at}))
	return errorf(code, "graphql: "+le.msg, queryErrorData([]gqlerrors.FormattedError{fe}))
}

func (c *docCheck) selections(ss *ast.SelectionSet) (docSize, error) {
	var total docSize
	if ss == nil {
		return total, nil
	}
	add := func(s docSize) error {
		total.fields += s.fields
		total.cost += s.cost
		total.depth = max(total.depth, s.depth)
		// Stop as soon as a limit is passed: the sizes only grow from here.
		if err := limitsOf(total); err != nil {
			return &locatedErr{err.Error(), ss}
		}
		return nil
	}
	for _, sel := range ss.Selections {
		var s docSize
		var err error
		switch sel := sel.(type) {
		case *ast.Field:
			s, err = c.field(sel)
		case *ast.InlineFragment:
			s, err = c.selections(sel.SelectionSet)
		case *ast.FragmentSpread:
			name := sel.Name.Value
			if c.visiting[name] {
				return total, &locatedErr{fmt.Sprintf("fragment %s spreads itself, directly or through other fragments: fragment cycles are not allowed", name), sel}
			}
			f := c.fragments[name]
			if f == nil {
				continue // an unknown fragment: validation reports it
			}
			s, err = c.fragment(name, f)
		}
		if err == nil {
			err = add(s)
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (c *docCheck) fragment(name string, f *ast.FragmentDefinition) (docSize, error) {
	if s, ok := c.memo[name]; ok {
		return s, nil
	}
	c.visiting[name] = true
	s, err := c.selections(f.SelectionSet)
	delete(c.visiting, name)
	if err == nil {
		c.memo[name] = s
	}
	return s, err
}

func (c *docCheck) field(f *ast.Field) (docSize, error) {
	sub, err := c.selections(f.SelectionSet)
	if err != nil {
		return docSize{}, err
	}
	n := float64(listItems(f.Name.Value, c.firstOf(f)))
	return docSize{fields: 1 + sub.fields, cost: 1 + n*sub.cost, depth: 1 + sub.depth}, nil
}

// firstOf is the field's `first` argument, from the document or its variables (0: none, or not
// an integer: the resolver then uses the default too).
func (c *docCheck) firstOf(f *ast.Field) int {
	for _, a := range f.Arguments {
		if a.Name == nil || a.Name.Value != "first" {
			continue
		}
		switch v := a.Value.(type) {
		case *ast.IntValue:
			n, _ := strconv.Atoi(v.Value)
			return n
		case *ast.Variable:
			switch x := c.vars[v.Name.Value].(type) {
			case float64:
				return int(min(x, maxFirst))
			case int:
				return x
			case json.Number:
				n, _ := x.Int64()
				return int(min(n, maxFirst))
			}
			return maxFirst // not known here: counted at the most it may be
		}
	}
	return 0
}

// errAnswerTooLarge and errQueryTimedOut end a GraphQL run (its context's cause).
var (
	errAnswerTooLarge = errors.New("answer too large")
	errQueryTimedOut  = errors.New("query timed out")
	errTooManyNodes   = errors.New("too many nodes walked")
)

// answerBudget counts the text of the values a GraphQL run answers, and ends the run (cancels its
// context) when it passes GraphQLMaxAnswerBytes.
type answerBudget struct {
	used   atomic.Int64
	max    int64
	nodes  atomic.Int64 // nodes walked to through statements
	cancel context.CancelCauseFunc
}

// walk counts a node reached through a statement; an error once the run walked past GraphQLMaxNodes.
func (b *answerBudget) walk() error {
	if b == nil {
		return nil
	}
	if b.nodes.Add(1) > GraphQLMaxNodes {
		b.cancel(errTooManyNodes)
		return errTooManyNodes
	}
	return nil
}

// charge counts value v; an error once the answer is over its limit.
func (b *answerBudget) charge(v any) error {
	if b == nil {
		return nil
	}
	var n int
	switch x := v.(type) {
	case string:
		n = len(x)
	case []string:
		for _, s := range x {
			n += len(s) + 3
		}
	case map[string]any:
		raw, _ := json.Marshal(x)
		n = len(raw)
	default:
		n = 8
	}
	if b.used.Add(int64(n)) > b.max {
		b.cancel(errAnswerTooLarge)
		return errAnswerTooLarge
	}
	return nil
}

type budgetKey struct{}

func budgetOf(ctx context.Context) *answerBudget {
	b, _ := ctx.Value(budgetKey{}).(*answerBudget)
	return b
}

// withGraphQLLimits is ctx for one GraphQL run: with its deadline and answer budget.
func withGraphQLLimits(ctx context.Context) (context.Context, func()) {
	ctx, cancelTime := context.WithTimeoutCause(ctx, GraphQLTimeout, errQueryTimedOut)
	ctx, cancel := context.WithCancelCause(ctx)
	b := &answerBudget{max: GraphQLMaxAnswerBytes, cancel: cancel}
	return context.WithValue(ctx, budgetKey{}, b), func() { cancel(nil); cancelTime() }
}

// limitError is the refusal of a run its limits ended, or nil.
func limitError(ctx context.Context) error {
	switch context.Cause(ctx) {
	case errAnswerTooLarge:
		return errorf(CodeQueryError, fmt.Sprintf("graphql: the answer passed the limit of %d bytes; ask for fewer items (first) or fields", GraphQLMaxAnswerBytes),
			map[string]any{"limit": GraphQLMaxAnswerBytes})
	case errTooManyNodes:
		return errorf(CodeQueryError, fmt.Sprintf("graphql: the query walked past %d nodes; ask for fewer items (first) or hops", GraphQLMaxNodes),
			map[string]any{"limit": GraphQLMaxNodes})
	case errQueryTimedOut:
		return errorf(CodeQueryError, "graphql: the query ran out of time ("+GraphQLTimeout.String()+")", map[string]any{"limit": GraphQLTimeout.String()})
	}
	return nil
}
