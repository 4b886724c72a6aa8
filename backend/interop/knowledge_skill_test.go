package interop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/knowledge"
)

// TestKnowledgeSkillAnswersMessages: a2a-go's own client sends the hub ordinary messages. Those for
// the knowledge skill (a data part with a query; text marked {"skill": "knowledge"}) are answered at
// once from the graph, as a completed task with a text summary and a data part, or a failed task
// saying where a syntax error is; the scope asked for (requiredCertainty) is respected; and any
// other message still goes to the owner's inbox, while the answered ones never do.
func TestKnowledgeSkillAnswersMessages(t *testing.T) {
	h, hdr := kgHub(t, t.TempDir(), nil)
	ctx := t.Context()
	card, err := agentcard.DefaultResolver.Resolve(ctx, h.Agent.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	var listed bool
	for _, s := range card.Skills {
		listed = listed || s.ID == "knowledge"
	}
	if !listed {
		t.Fatalf("the hub's card lists no knowledge skill: %+v", card.Skills)
	}
	creds := a2aclient.NewInMemoryCredentialsStore()
	creds.Set("alice", "apiKey", a2aclient.AuthCredential(hdr["X-Api-Key"]))
	client, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithCallInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
	if err != nil {
		t.Fatal(err)
	}
	ctx = a2aclient.AttachSessionID(ctx, "alice")
	send := func(msg *a2a.Message) *a2a.Task {
		t.Helper()
		res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
		if err != nil {
			t.Fatalf("send: %v", err)
		}
		task, ok := res.(*a2a.Task)
		if !ok {
			t.Fatalf("the hub answered %T, want a task", res)
		}
		return task
	}
	// answer reads a finished knowledge task: its summary and its data part, as JSON.
	answer := func(task *a2a.Task, want a2a.TaskState) (string, map[string]any) {
		t.Helper()
		if task.Status.State != want || task.Status.Message == nil {
			t.Fatalf("task %s: state %s, message %v; want %s with a message", task.ID, task.Status.State, task.Status.Message, want)
		}
		var text string
		var data map[string]any
		for _, p := range task.Status.Message.Parts {
			text += p.Text()
			if d, ok := p.Data().(map[string]any); ok {
				data = d
			}
		}
		if text == "" || data == nil {
			t.Fatalf("task %s's answer has no text summary or no data part: %+v", task.ID, task.Status.Message.Parts)
		}
		return text, data
	}
	marked := func(text string, meta map[string]any) *a2a.Message {
		m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
		m.Metadata = map[string]any{"skill": "knowledge"}
		for k, v := range meta {
			m.Metadata[k] = v
		}
		return m
	}
	query := func(lang, q string, extra map[string]any) *a2a.Message {
		d := map[string]any{"queryLanguage": lang, "query": q}
		for k, v := range extra {
			d[k] = v
		}
		return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(d))
	}
	hitIDs := func(data map[string]any) []string {
		var out []string
		hits, _ := data["hits"].([]any)
		for _, h := range hits {
			out = append(out, h.(map[string]any)["id"].(string))
		}
		return out
	}

	// A text search finds a node of the sample graph by its label.
	text, data := answer(send(marked("demo AGENT", nil)), a2a.TaskStateCompleted)
	if ids := hitIDs(data); len(ids) != 1 || ids[0] != "agenthub:agent/demo" {
		t.Fatalf("searching %q found %v (%s)", "demo AGENT", ids, jsonOf(data))
	}
	if !strings.Contains(text, "Demo agent") || !strings.Contains(text, "agenthub:agent/demo") {
		t.Errorf("the summary does not name what was found: %q", text)
	}

	// A GraphQL query in a data part, with no metadata at all.
	_, data = answer(send(query("graphql", `{ node(id: "agenthub:hub") { label types } }`, nil)), a2a.TaskStateCompleted)
	if got := jsonOf(data["data"]); got != `{"node":{"label":"AgentHub","types":["a2a:Agent"]}}` {
		t.Fatalf("the GraphQL answer: %s", jsonOf(data))
	}

	// A syntax error fails the task, saying where, in words and in the extension's error terms.
	text, data = answer(send(query("graphql", "{ node(id: \"agenthub:hub\") {\n  label\n", nil)), a2a.TaskStateFailed)
	e, _ := data["error"].(map[string]any)
	line, _ := e["data"].(map[string]any)["line"].(float64)
	col, _ := e["data"].(map[string]any)["column"].(float64)
	if e["code"] != float64(knowledge.CodeQueryError) || line != 3 || col < 1 {
		t.Fatalf("the syntax error's answer: %s", jsonOf(data))
	}
	if want := "(line 3, column "; !strings.Contains(text, want) {
		t.Errorf("the failed task's text %q does not say where (%s...)", text, want)
	}

	// A fragment that spreads itself fails the task where it spreads (graphql-go's validation
	// overflowed the stack on it, which killed the hub), and the skill answers the next question.
	_, data = answer(send(query("graphql", "query { node(id: \"x\") { ...A } }\nfragment A on Node { id ...A }", nil)), a2a.TaskStateFailed)
	e, _ = data["error"].(map[string]any)
	if d, _ := e["data"].(map[string]any); e["code"] != float64(knowledge.CodeQueryError) || d["line"] != float64(2) || d["column"] != float64(25) {
		t.Fatalf("the fragment cycle's answer: %s", jsonOf(data))
	}
	answer(send(query("graphql", `{ node(id: "agenthub:hub") { label } }`, nil)), a2a.TaskStateCompleted)

	// Scope: a statement below the certainty asked for is not seen, by a search or by a query.
	update(t, h, hdr, "a rumour", patch("add", stmt("ex:rumour", knowledge.RDFSLabel, map[string]any{"value": "Zebra sighting"}, 0.4)))
	if _, data := answer(send(marked("zebra", nil)), a2a.TaskStateCompleted); len(hitIDs(data)) != 1 {
		t.Fatalf("the unscoped search misses the rumour: %s", jsonOf(data))
	}
	text, data = answer(send(marked("zebra", map[string]any{"requiredCertainty": 0.9})), a2a.TaskStateCompleted)
	if ids := hitIDs(data); len(ids) != 0 || !strings.Contains(text, "Nothing") {
		t.Fatalf("a search asking for certainty 0.9 sees a 0.4 statement: %q %s", text, jsonOf(data))
	}
	_, data = answer(send(query("graphql", `{ search(text: "zebra") { id } }`, map[string]any{"requiredCertainty": 0.9})), a2a.TaskStateCompleted)
	if got := jsonOf(data["data"]); got != `{"search":[]}` {
		t.Fatalf("a query asking for certainty 0.9 sees a 0.4 statement: %s", got)
	}
	_, data = answer(send(query("gizmo", `g.V("<ex:rumour>").Out("<rdfs:label>").All()`, nil)), a2a.TaskStateCompleted)
	if got := jsonOf(data["data"]); !strings.Contains(got, "Zebra sighting") {
		t.Fatalf("a Gizmo query in a data part: %s", got)
	}

	// The v0.3 SDK's client asks the same in its dialect (a DataPart; metadata on the message).
	legacyCard, err := legacycard.DefaultResolver.Resolve(ctx, h.Agent.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	legacyCreds := legacyclient.NewInMemoryCredentialsStore()
	legacyCreds.Set("alice", "apiKey", legacyclient.AuthCredential(hdr["X-Api-Key"]))
	v03, err := legacyclient.NewFromCard(ctx, legacyCard, legacyclient.WithInterceptors(&legacyclient.AuthInterceptor{Service: legacyCreds}))
	if err != nil {
		t.Fatal(err)
	}
	lctx := legacyclient.WithSessionID(t.Context(), "alice")
	for _, m := range []*legacy.Message{
		legacy.NewMessage(legacy.MessageRoleUser, legacy.DataPart{Data: map[string]any{"queryLanguage": "graphql", "query": `{ search(text: "zebra") { id } }`}}),
		{ID: "v03-text", Role: legacy.MessageRoleUser, Parts: legacy.ContentParts{legacy.TextPart{Text: "zebra"}}, Metadata: map[string]any{"skill": "knowledge"}},
	} {
		res, err := v03.SendMessage(lctx, &legacy.MessageSendParams{Message: m})
		if err != nil {
			t.Fatal(err)
		}
		task, ok := res.(*legacy.Task)
		if !ok || task.Status.State != legacy.TaskStateCompleted || task.Status.Message == nil || len(task.Status.Message.Parts) != 2 {
			t.Fatalf("the v0.3 client's question: %#v", res)
		}
		if d, ok := task.Status.Message.Parts[1].(legacy.DataPart); !ok || !strings.Contains(jsonOf(d.Data), "ex:rumour") {
			t.Fatalf("the v0.3 answer's data part: %#v", task.Status.Message.Parts[1])
		}
	}

	// Anything else is for the owner: it waits in the inbox. The answered questions never do.
	for _, m := range []*a2a.Message{
		a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Can you approve the release?")),
		a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"query": "not marked, no queryLanguage"})),
	} {
		res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: m, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
		if err != nil {
			t.Fatal(err)
		}
		if task, ok := res.(*a2a.Task); !ok || !inbox.WaitingForOwner(task.Status.State) {
			t.Fatalf("a message for the owner: %#v, want a task waiting in the inbox", res)
		}
	}
	waiting, err := h.Inbox.Waiting(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 2 {
		var got []string
		for _, r := range waiting {
			b, _ := json.Marshal(r.Task.History)
			got = append(got, string(b))
		}
		t.Fatalf("the inbox holds %d tasks, want the 2 for the owner: %v", len(waiting), got)
	}
}
