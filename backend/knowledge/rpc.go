package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/quad"
	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/gqlerrors"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/server"
)

// ExtensionURI names the extension on the agent card.
const ExtensionURI = "https://github.com/a2aproject/A2A/extensions/knowledge-graph/v1"

// GizmoMaxResults bounds a Gizmo script's results.
const GizmoMaxResults = 1000

// GizmoTimeout bounds a Gizmo script's run time (a variable for tests).
var GizmoTimeout = 5 * time.Second

// Methods serves knowledge/query, knowledge/update and knowledge/subscribe.
func (s *Service) Methods() map[string]server.ExtensionMethod {
	return map[string]server.ExtensionMethod{
		"knowledge/query":     {Call: s.callQuery},
		"knowledge/update":    {Call: s.callUpdate},
		"knowledge/subscribe": {Stream: s.openSubscribe},
	}
}

// Card declares the extension and the capabilities its spec adds.
func (s *Service) Card() server.ExtensionCard {
	return server.ExtensionCard{
		Extension: a2a.AgentExtension{URI: ExtensionURI, Description: "Knowledge graph: knowledge/query (GraphQL, Gizmo), knowledge/update, knowledge/subscribe"},
		Capabilities: map[string]any{
			"knowledgeGraph":               true,
			"knowledgeGraphQueryLanguages": []string{"graphql", "gizmo"},
		},
	}
}

func decodeParams(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return errorf(CodeInvalidParams, "invalid params: "+err.Error(), nil)
	}
	return nil
}

// QueryParams are KnowledgeQueryParams.
type QueryParams struct {
	Query             string         `json:"query"`
	QueryLanguage     string         `json:"queryLanguage"`
	Variables         map[string]any `json:"variables"`
	RequiredCertainty *float64       `json:"requiredCertainty"`
	MaxAgeSeconds     *int64         `json:"maxAgeSeconds"`
	// Authors, when given, limits the query to the statements these principals wrote (their
	// author: the credential of the update, see Statement.author), in GraphQL and Gizmo alike.
	Authors []string `json:"authors"`
	// MinChangeID, the highest change id the caller has seen (an update's changeId, a query's
	// queryMetadata.changeId), makes the query wait for the graph to hold it: read-your-writes
	// when the update went through another replica. Without it the query waits for every change
	// logged when it started.
	MinChangeID string `json:"minChangeId"`
	// Prefixes declares CURIE prefixes for the query's terms (GraphQL arguments, Gizmo IRIs).
	Prefixes Prefixes `json:"prefixes"`
}

// QueryResult is KnowledgeQueryResponseResult.
type QueryResult struct {
	Data          any            `json:"data"`
	QueryMetadata map[string]any `json:"queryMetadata"`
}

func (s *Service) callQuery(ctx context.Context, raw json.RawMessage) (any, error) {
	var p QueryParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	res, err := s.Query(ctx, p)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Query runs a knowledge/query: GraphQL or Gizmo, seeing only statements within the scope the
// params ask for (requiredCertainty, maxAgeSeconds). Its errors are *Error, in the extension's codes.
func (s *Service) Query(ctx context.Context, p QueryParams) (*QueryResult, error) {
	if p.Query == "" {
		return nil, errorf(CodeInvalidParams, "query is required", nil)
	}
	v, err := scopeOf(p.RequiredCertainty, p.MaxAgeSeconds, p.Authors...)
	if err != nil {
		return nil, err
	}
	var seen int64
	if p.MinChangeID != "" {
		if seen, err = strconv.ParseInt(p.MinChangeID, 10, 64); err != nil || seen < 0 {
			return nil, errorf(CodeInvalidParams, "minChangeId is not a change id of this graph", nil)
		}
	}
	if err := p.Prefixes.check(); err != nil {
		return nil, errorf(CodeInvalidParams, err.Error(), nil)
	}
	ctx = withPrefixes(context.WithValue(ctx, viewKey{}, v), p.Prefixes)
	start := time.Now()
	seq, err := s.graphForQuery(ctx, seen)
	if err != nil {
		return nil, err
	}
	var data any
	// The graph holds every change up to seq: a client that shows the result and then subscribes
	// with afterChangeId set to it misses no change (one made meanwhile may come twice; a change
	// applies idempotently).
	meta := map[string]any{"changeId": strconv.FormatInt(seq, 10)}
	switch p.QueryLanguage {
	case "", "graphql":
		p.QueryLanguage = "graphql"
		data, err = s.queryGraphQL(ctx, p)
		meta["statementCount"], meta["nodeCount"] = v.statements.Load(), v.nodes.Load()
	case "gizmo":
		var res []any
		res, err = s.queryGizmo(ctx, p.Query, v, p.RequiredCertainty != nil || p.MaxAgeSeconds != nil || len(p.Authors) > 0)
		data, meta["resultCount"] = res, len(res)
	default:
		return nil, errorf(CodeInvalidParams, fmt.Sprintf("queryLanguage %q is not supported (graphql, gizmo)", p.QueryLanguage), nil)
	}
	if err != nil {
		return nil, err
	}
	meta["queryLanguage"], meta["elapsedMs"] = p.QueryLanguage, float64(time.Since(start).Microseconds())/1000
	return &QueryResult{Data: data, QueryMetadata: meta}, nil
}

// QueryWait bounds how long a query waits for the graph to catch up with the log (a variable for
// tests).
var QueryWait = 30 * time.Second

// graphForQuery waits until the graph holds what the query must see, and says up to which change
// it does. Updates are answered before the graph has applied them (Service.update): the graph must
// hold every update this process answered before the query started. On PostgreSQL other replicas
// answer updates too, which reach this graph by a note, maybe later: the graph is brought up to the
// change the caller has seen (seen, when given), else to the last one logged when the query started,
// which includes every update answered anywhere before. A graph write that fails meanwhile ends the
// wait (it is logged, and tried again by the next update, note or query); a graph that does not get
// there within QueryWait (or ctx) is an error.
func (s *Service) graphForQuery(ctx context.Context, seen int64) (int64, error) {
	want := s.acked.Load()
	if s.db.Postgres() {
		s.progressMu.Lock()
		shown := s.shown
		s.progressMu.Unlock()
		if seen == 0 || seen > shown {
			last, err := lastChangeSeq(ctx, s.db.Reader)
			if err != nil {
				return 0, err
			}
			if seen == 0 || seen > last { // not a change of this log (yet): the last one is
				seen = last
			}
			want = max(want, seen)
			s.want(want)
		}
	}
	wait, cancel := context.WithTimeout(ctx, QueryWait)
	defer cancel()
	shown := s.waitGraph(wait, want)
	if shown < want && wait.Err() != nil {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return 0, errorf(CodeQueryError, fmt.Sprintf("the knowledge graph of this hub replica is behind its log (at change %d, the query needs %d); try again", shown, want),
			map[string]any{"changeId": strconv.FormatInt(shown, 10)})
	}
	return shown, nil
}

// queryErrorData is a GraphQL error list with the first error's location at the top.
func queryErrorData(errs []gqlerrors.FormattedError) map[string]any {
	d := map[string]any{"errors": errs}
	if len(errs) > 0 && len(errs[0].Locations) > 0 {
		d["line"], d["column"] = errs[0].Locations[0].Line, errs[0].Locations[0].Column
	}
	return d
}

func (s *Service) queryGraphQL(ctx context.Context, p QueryParams) (any, error) {
	if _, err := checkGraphQL(p.Query, p.Variables, CodeQueryError); err != nil {
		return nil, err
	}
	ctx, done := withGraphQLLimits(ctx)
	defer done()
	res := graphql.Do(graphql.Params{Schema: s.schema, RequestString: p.Query, VariableValues: p.Variables, Context: ctx})
	if err := limitError(ctx); err != nil {
		return nil, err
	}
	if len(res.Errors) > 0 {
		return nil, errorf(CodeQueryError, "graphql: "+res.Errors[0].Message, queryErrorData(res.Errors))
	}
	return res.Data, nil
}

var gojaPosition = regexp.MustCompile(`Line (\d+):(\d+)`)

// GizmoMaxHidden is how many hidden statements a filtered Gizmo query leaves out of the graph
// itself (Cayley's fixed iterator checks them one by one); beyond, it runs on a copy of the visible
// ones (a variable for tests).
var GizmoMaxHidden = 1000

// queryGizmo runs a Gizmo script against the graph, or, when the query filters by certainty or
// age, against the graph less the statements it may not see (viewStore), or, when more than
// GizmoMaxHidden are hidden, against an in-memory copy of the ones it may see.
func (s *Service) queryGizmo(ctx context.Context, script string, v *view, filtered bool) ([]any, error) {
	script = canonicalGizmo(script, prefixesOf(ctx))
	var qs graph.QuadStore = s.qs
	if filtered {
		w, args := v.sqlFilter()
		hidden, err := selectRows(ctx, s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE NOT (`+w+`) LIMIT ?`, append(args, GizmoMaxHidden+1)...)
		if err != nil {
			return nil, err
		}
		if len(hidden) <= GizmoMaxHidden {
			if qs, err = s.newViewStore(ctx, hidden); err != nil {
				return nil, err
			}
		} else {
			rs, err := selectRows(ctx, s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements WHERE `+w, args...)
			if err != nil {
				return nil, err
			}
			qs2 := memstore.New()
			var quads []quad.Quad
			for _, r := range rs {
				quads = append(quads, r.Stmt.quadOf())
			}
			if err := qs2.ApplyDeltas(deltasOf(quads), graph.IgnoreOpts{IgnoreDup: true}); err != nil {
				return nil, err
			}
			qs = qs2
		}
	}
	return s.gizmo.runGizmo(ctx, qs, gizmoNodeStrings(qs, script))
}

func gizmoError(err error) error {
	var data map[string]any
	if m := gojaPosition.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		data = map[string]any{"line": line, "column": col}
	}
	return errorf(CodeQueryError, "gizmo: "+err.Error(), data)
}

func deltasOf(qs []quad.Quad) []graph.Delta {
	out := make([]graph.Delta, len(qs))
	for i, q := range qs {
		out[i] = graph.Delta{Quad: q, Action: graph.Add}
	}
	return out
}

// UpdateParams are KnowledgeUpdateParams.
type UpdateParams struct {
	Mutations     []Patch `json:"mutations"`
	SourceAgentID string  `json:"sourceAgentId"`
	Justification string  `json:"justification"`
	// Prefixes declares CURIE prefixes expanded in the mutations' terms (terms.go).
	Prefixes Prefixes `json:"prefixes"`
}

func (s *Service) callUpdate(ctx context.Context, raw json.RawMessage) (any, error) {
	var p UpdateParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	return s.Update(withPrefixes(ctx, p.Prefixes), p.Mutations, p.Justification)
}

// SubscribeParams are KnowledgeSubscribeParams; AfterChangeID resumes after that change ("0": from
// the start of the log). Without it the stream has the changes made from now on: a subscriber asks
// for real-time changes, and replaying a large graph's whole log to it would bury them.
type SubscribeParams struct {
	SubscriptionQuery string         `json:"subscriptionQuery"`
	QueryLanguage     string         `json:"queryLanguage"`
	Variables         map[string]any `json:"variables"`
	AfterChangeID     string         `json:"afterChangeId"`
	Prefixes          Prefixes       `json:"prefixes"` // for the subscription's arguments
}

type subscriptionKey struct{}

// changeFilter is what a subscription's changes(...) field asks for.
type changeFilter struct {
	set                             bool
	subject, predicate, object, typ string
}

// ChangeEvent is KnowledgeGraphChangeEvent; changeId is the change's sequence number.
type ChangeEvent struct {
	Op             string         `json:"op"`
	Statement      Statement      `json:"statement"`
	ChangeID       string         `json:"changeId"`
	Timestamp      time.Time      `json:"timestamp"`
	ChangeMetadata map[string]any `json:"changeMetadata"`
}

func (s *Service) openSubscribe(ctx context.Context, raw json.RawMessage) (func(context.Context, func(any) error) error, error) {
	var p SubscribeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.QueryLanguage != "" && p.QueryLanguage != "graphql" {
		return nil, errorf(CodeSubscriptionError, fmt.Sprintf("queryLanguage %q is not supported for subscriptions (graphql)", p.QueryLanguage), nil)
	}
	var after int64
	if p.AfterChangeID != "" {
		n, err := strconv.ParseInt(p.AfterChangeID, 10, 64)
		if err != nil || n < 0 {
			return nil, errorf(CodeSubscriptionError, "afterChangeId is not a change id of this graph", nil)
		}
		after = n
	} else {
		// Read before the stream subscribes to the bus: a change committed in between is after
		// this one, so the stream's catch-up from the log still sends it.
		last, err := lastChangeSeq(ctx, s.db.Reader)
		if err != nil {
			return nil, err
		}
		after = last
	}
	if _, err := checkGraphQL(p.SubscriptionQuery, p.Variables, CodeSubscriptionError); err != nil {
		return nil, err
	}
	if err := p.Prefixes.check(); err != nil {
		return nil, errorf(CodeSubscriptionError, err.Error(), nil)
	}
	f := &changeFilter{}
	res := graphql.Do(graphql.Params{Schema: s.schema, RequestString: p.SubscriptionQuery, VariableValues: p.Variables,
		Context: withPrefixes(context.WithValue(ctx, subscriptionKey{}, f), p.Prefixes)})
	if len(res.Errors) > 0 {
		return nil, errorf(CodeSubscriptionError, "subscription: "+res.Errors[0].Message, queryErrorData(res.Errors))
	}
	if !f.set {
		return nil, errorf(CodeSubscriptionError, "subscriptionQuery must be a subscription selecting changes", nil)
	}
	return func(ctx context.Context, send func(any) error) error { return s.stream(ctx, f, after, send) }, nil
}

// stream sends the changes after `after` that match f, then the new ones as they come. It
// subscribes to the bus before reading the log, so a change committed meanwhile is in one or the
// other (or both: last drops the repeat), and a gap (a lagging subscription) is refilled from the log.
func (s *Service) stream(ctx context.Context, f *changeFilter, after int64, send func(any) error) error {
	sub := s.bus.Subscribe(func(e bus.Event) bool { return e.Topic == Topic && e.Source == s.source }, 256)
	defer sub.Close()
	last := after
	emit := func(c Change) error {
		if c.Seq <= last {
			return nil
		}
		last = c.Seq
		ok, err := s.matchesChange(ctx, f, c)
		if err != nil || !ok {
			return err
		}
		return send(ChangeEvent{Op: c.Op, Statement: c.Statement, ChangeID: strconv.FormatInt(c.Seq, 10), Timestamp: c.At,
			ChangeMetadata: map[string]any{"source": c.Source}})
	}
	catchUp := func() error {
		for {
			cs, err := changesAfter(ctx, s.db.Reader, last, 500)
			if err != nil {
				return err
			}
			for _, c := range cs {
				if err := emit(c); err != nil {
					return err
				}
			}
			if len(cs) < 500 {
				return nil
			}
		}
	}
	if err := catchUp(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Lagged:
			if err := catchUp(); err != nil {
				return err
			}
		case e := <-sub.C:
			c := e.Data.(Change)
			if c.Seq > last+1 { // something was missed: the log has it
				if err := catchUp(); err != nil {
					return err
				}
			}
			if err := emit(c); err != nil {
				return err
			}
		}
	}
}

func (s *Service) matchesChange(ctx context.Context, f *changeFilter, c Change) (bool, error) {
	st := c.Statement
	switch {
	case f.subject != "" && st.Subject.ID != f.subject,
		f.predicate != "" && st.Predicate.ID != f.predicate,
		f.object != "" && st.Object.ID != f.object && literalText(st.Object.Value) != f.object:
		return false, nil
	}
	if f.typ == "" || st.Predicate.ID == RDFType && st.Object.ID == f.typ {
		return true, nil
	}
	var n int
	err := s.db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM kg_statements WHERE subject = ? AND predicate = ? AND object_id = ?`,
		st.Subject.ID, RDFType, f.typ).Scan(&n)
	return n > 0, err
}
