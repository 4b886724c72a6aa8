package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// The knowledge skill: a question sent to the hub as an ordinary A2A message, answered at once from
// the graph, without the owner. Which messages are questions (QuestionOf):
//
//   - a message with a data part that is knowledge/query params, {"queryLanguage": "graphql" |
//     "gizmo", "query": "...", "variables"?, "requiredCertainty"?, "maxAgeSeconds"?}: the query runs;
//   - a message whose metadata says {"skill": "knowledge"}: its data part as above (queryLanguage
//     may then be left out: GraphQL), else its text is searched for in the graph's labels and
//     literals (Search), scoped by the metadata's requiredCertainty / maxAgeSeconds when given.
//
// Only a message that starts a task is a question; a turn of an existing task goes to that task.
// Everything else is for the owner's inbox.

// SkillID is the knowledge skill's id on the card and in a question's metadata.
const SkillID = "knowledge"

// Skill is the knowledge skill's entry on the hub's card.
var Skill = a2a.AgentSkill{
	ID:   SkillID,
	Name: "Ask the hub's knowledge graph",
	Description: "Answered at once from the hub's knowledge graph, without the owner. Send a data part " +
		`{"queryLanguage": "graphql" or "gizmo", "query": "...", optionally "variables", "requiredCertainty", "maxAgeSeconds"} ` +
		`to run a query, or text with message metadata {"skill": "knowledge"} to search the graph's labels and literals. ` +
		"The task completes with a short text summary and a data part holding the result; a query that fails " +
		"fails the task, saying why (and where, for a syntax error). Any other message goes to the owner's inbox.",
	Tags:        []string{"knowledge", "graphql", "gizmo", "search"},
	Examples:    []string{`{"queryLanguage": "graphql", "query": "{ search(text: \"demo\") { id label } }"}`, "demo agent"},
	InputModes:  []string{"application/json", "text/plain"},
	OutputModes: []string{"application/json", "text/plain"},
}

// Question is a message for the knowledge skill: a query (its knowledge/query params, as sent) or a
// text search.
type Question struct {
	Query  json.RawMessage // knowledge/query params; nil for a search
	Search string
	Scope  SearchOptions // a search's scope, from the message metadata
}

// QuestionOf says whether msg is for the knowledge skill, and what it asks.
func QuestionOf(msg *a2a.Message) (Question, bool) {
	if msg == nil {
		return Question{}, false
	}
	marked := msg.Metadata["skill"] == SkillID
	for _, p := range msg.Parts {
		data, ok := p.Data().(map[string]any)
		if !ok {
			continue
		}
		if _, ok := data["query"].(string); !ok {
			continue
		}
		if _, named := data["queryLanguage"].(string); !named && !marked {
			continue
		}
		raw, err := json.Marshal(data)
		if err != nil {
			continue
		}
		return Question{Query: raw}, true
	}
	if !marked {
		return Question{}, false
	}
	var text []string
	for _, p := range msg.Parts {
		if t := strings.TrimSpace(p.Text()); t != "" {
			text = append(text, t)
		}
	}
	q := Question{Search: strings.Join(text, " ")}
	if c, ok := msg.Metadata["requiredCertainty"].(float64); ok {
		q.Scope.RequiredCertainty = &c
	}
	if a, ok := msg.Metadata["maxAgeSeconds"].(float64); ok {
		age := int64(a)
		q.Scope.MaxAgeSeconds = &age
	}
	return q, true
}

// SearchResult is what a text search answers in its data part.
type SearchResult struct {
	Search string      `json:"search"`
	Hits   []SearchHit `json:"hits"`
}

// Answer answers a question: a short summary for people, and the result (a *QueryResult or a
// *SearchResult) for programs. A failure is an *Error in the extension's codes.
func (s *Service) Answer(ctx context.Context, q Question) (summary string, result any, err error) {
	if q.Query == nil {
		hits, err := s.Search(ctx, q.Search, q.Scope)
		if err != nil {
			return "", nil, err
		}
		return searchSummary(q.Search, hits), &SearchResult{Search: q.Search, Hits: hits}, nil
	}
	var p QueryParams
	if err := decodeParams(q.Query, &p); err != nil {
		return "", nil, err
	}
	res, err := s.Query(ctx, p)
	if err != nil {
		return "", nil, err
	}
	switch p.QueryLanguage {
	case "gizmo":
		summary = fmt.Sprintf("Gizmo query answered: %v results.", res.QueryMetadata["resultCount"])
	default:
		summary = fmt.Sprintf("GraphQL query answered (%v nodes and %v statements read).", res.QueryMetadata["nodeCount"], res.QueryMetadata["statementCount"])
	}
	return summary, res, nil
}

func searchSummary(text string, hits []SearchHit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("Nothing in the knowledge graph matches %q.", text)
	}
	const named = 5
	var names []string
	for _, h := range hits[:min(len(hits), named)] {
		if h.Label != "" && h.Label != h.ID {
			names = append(names, fmt.Sprintf("%s (%s)", h.Label, h.ID))
		} else {
			names = append(names, h.ID)
		}
	}
	more := ""
	if len(hits) > named {
		more = fmt.Sprintf(" and %d more", len(hits)-named)
	}
	noun := "nodes match"
	if len(hits) == 1 {
		noun = "node matches"
	}
	return fmt.Sprintf("%d %s %q: %s%s.", len(hits), noun, text, strings.Join(names, ", "), more)
}

// Execute answers a question the hub received as a message (ec.Message, for which QuestionOf is
// true): the task is submitted, then completed with the answer, or failed with why. The task's
// metadata names the skill, so the inbox can tell it is not for the owner.
func (s *Service) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		task := a2a.NewSubmittedTask(ec, ec.Message)
		task.Metadata = map[string]any{"skill": SkillID}
		if !yield(task, nil) {
			return
		}
		q, _ := QuestionOf(ec.Message)
		summary, result, err := s.Answer(ctx, q)
		if err != nil {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateFailed, failure(ec, err)), nil)
			return
		}
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(summary), a2a.NewDataPart(asJSONValue(result)))
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, msg), nil)
	}
}

// Cancel ends a question's task (it is answered at once, so there is rarely one to cancel).
func (s *Service) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// IsSkillTask reports whether a task was answered by the knowledge skill.
func IsSkillTask(t *a2a.Task) bool { return t != nil && t.Metadata["skill"] == SkillID }

// failure is the failed task's message: why in words (with the position of a syntax error), and the
// error in the extension's terms ({code, message, data}) as a data part.
func failure(ec *a2asrv.ExecutorContext, err error) *a2a.Message {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Code: codeInternal, Message: err.Error()}
	}
	text := "The knowledge graph could not answer: " + e.Message
	if d, ok := e.Data.(map[string]any); ok {
		if line, ok := d["line"]; ok {
			text += fmt.Sprintf(" (line %v, column %v)", line, d["column"])
		}
	}
	body := map[string]any{"code": e.Code, "message": e.Message}
	if e.Data != nil {
		body["data"] = asJSONValue(e.Data)
	}
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text), a2a.NewDataPart(map[string]any{"error": body}))
}

// asJSONValue is v as plain JSON values (maps, slices, strings, numbers), the form a data part is
// stored and sent in.
func asJSONValue(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return map[string]any{"error": err.Error()}
	}
	return out
}
