package uiapi_test

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

type conversation struct {
	ID, AgentID, AgentName, ContextID, Title, State, Dialect string
	Busy                                                     bool
	Preview                                                  *struct{ From, Text string }
}

type chatEntry struct {
	Seq       int64
	Direction string
	Kind      string
	TaskID    string
	State     string
	Final     bool
}

type chatUpdate struct {
	ConversationID string
	Conversation   *conversation
	Entry          *chatEntry
}

func TestChatWithARemoteAgentThroughTheGateway(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var agent struct {
		ID, Dialect string
		Streaming   bool
		Auth        struct{ Required, Satisfied bool }
	}
	c.result("agents.add", map[string]any{"url": otherDemo(t)}, &agent)
	if agent.Dialect != "1.0" || !agent.Streaming || agent.Auth.Required || !agent.Auth.Satisfied {
		t.Fatalf("the demo agent as added: %+v", agent)
	}
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": agent.ID}, &conv)
	if conv.AgentName != "AgentHub demo agent" || conv.Busy {
		t.Fatalf("a new conversation: %+v", conv)
	}
	var sent chatEntry
	c.result("chats.send", map[string]any{"id": conv.ID, "text": "hello over the gateway"}, &sent)
	if sent.Seq != 1 || sent.Direction != "out" || sent.Kind != "message" {
		t.Fatalf("the message sent: %+v", sent)
	}
	// The answer is pushed as it is recorded, entry by entry, until the task completes.
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.State == "completed" && up.Entry.Direction == "in"
	})
	var got struct {
		Conversation conversation
		Entries      []chatEntry
	}
	c.result("chats.get", map[string]any{"id": conv.ID}, &got)
	if got.Conversation.ContextID == "" || got.Conversation.State != "completed" || len(got.Entries) < 4 {
		t.Fatalf("the conversation after the answer: %+v with %d entries", got.Conversation, len(got.Entries))
	}
	var list struct{ Conversations []conversation }
	c.result("chats.list", map[string]any{"agentId": agent.ID}, &list)
	if len(list.Conversations) != 1 || list.Conversations[0].Title != "hello over the gateway" {
		t.Fatalf("chats.list: %+v", list)
	}
	// The list previews the newest words: the agent's streamed echo, its chunks joined.
	if p := list.Conversations[0].Preview; p == nil || p.From != "agent" || !strings.Contains(p.Text, "hello over the gateway") {
		t.Fatalf("preview: %+v", p)
	}

	// The raw log has the streaming call: request, response, events.
	var wire struct {
		Entries []struct{ Kind, Method string }
	}
	c.result("wire.list", map[string]any{"agentId": agent.ID}, &wire)
	kinds := map[string]int{}
	for _, e := range wire.Entries {
		if e.Method == "SendStreamingMessage" {
			kinds[e.Kind]++
		}
	}
	if kinds["request"] != 1 || kinds["response"] != 1 || kinds["event"] < 3 {
		t.Errorf("the raw log of the streaming call: %v", kinds)
	}

	c.result("chats.rename", map[string]any{"id": conv.ID, "title": "Renamed"}, &conv)
	if conv.Title != "Renamed" {
		t.Errorf("renamed to %q", conv.Title)
	}
	c.result("chats.delete", map[string]any{"id": conv.ID}, nil)
	if f := c.call("chats.get", map[string]any{"id": conv.ID}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("a deleted conversation: %+v", f.Error)
	}
}

// The owner types a secret once; the UI is told it is saved, never what it is.
func TestCredentialsAreSavedButNeverShown(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	resp, err := http.Get(h.Demo.BaseURL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	var card map[string]any
	json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	card["securitySchemes"] = map[string]any{"key": map[string]any{"apiKeySecurityScheme": map[string]any{"location": "header", "name": "X-Api-Key"}}}
	card["securityRequirements"] = []any{map[string]any{"schemes": map[string]any{"key": []any{}}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { json.NewEncoder(w).Encode(card) }))
	t.Cleanup(srv.Close)

	type info struct {
		ID   string
		Auth struct {
			Required, Satisfied bool
			Store               string
			Schemes             []struct {
				Name, Kind, In, ParamName string
				Saved                     bool
			}
		}
	}
	var a info
	c.result("agents.add", map[string]any{"url": srv.URL + "/card.json"}, &a)
	if !a.Auth.Required || a.Auth.Satisfied || len(a.Auth.Schemes) != 1 || a.Auth.Schemes[0].ParamName != "X-Api-Key" || a.Auth.Schemes[0].Saved {
		t.Fatalf("an agent that requires an API key: %+v", a.Auth)
	}
	const secret = "sk-do-not-show-me-0123"
	f := c.call("agents.setCredential", map[string]any{"id": a.ID, "scheme": "key", "apiKey": secret})
	if f.Error != nil {
		t.Fatal(f.Error.Message)
	}
	json.Unmarshal(f.Result, &a)
	wantStore := "file" // hubtest's: a file in the data dir, or the database on PostgreSQL
	if storetest.Postgres() {
		wantStore = "database"
	}
	if !a.Auth.Satisfied || !a.Auth.Schemes[0].Saved || !strings.HasPrefix(a.Auth.Store, wantStore) {
		t.Errorf("after saving the key: %+v", a.Auth)
	}
	list := c.call("agents.list", nil)
	for _, raw := range [][]byte{f.Result, list.Result} {
		if strings.Contains(string(raw), secret) {
			t.Fatalf("the secret was sent to the UI: %s", raw)
		}
	}
	c.result("agents.clearCredential", map[string]any{"id": a.ID, "scheme": "key"}, &a)
	if a.Auth.Satisfied || a.Auth.Schemes[0].Saved {
		t.Errorf("after forgetting the key: %+v", a.Auth)
	}
}

func TestBadChatCallsGetClearErrors(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var agent struct{ ID string }
	c.result("agents.add", map[string]any{"url": h.Demo.BaseURL}, &agent)
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": agent.ID}, &conv)
	cases := []struct {
		method string
		params any
		code   string
	}{
		{"chats.start", map[string]any{"agentId": "nope"}, "not_found"},
		{"chats.get", map[string]any{"id": "nope"}, "not_found"},
		{"chats.send", map[string]any{"id": "nope", "text": "hi"}, "not_found"},
		{"chats.send", map[string]any{"id": conv.ID, "text": "   "}, "invalid_params"},
		{"chats.send", map[string]any{"id": conv.ID, "files": "not a list"}, "invalid_params"},
		{"chats.send", map[string]any{"id": conv.ID, "text": 42}, "invalid_params"},
		{"chats.cancel", map[string]any{"id": conv.ID}, "invalid_params"},
		{"chats.cancel", map[string]any{"id": conv.ID, "taskId": "no-such-task"}, "agent_error"},
		{"chats.rename", map[string]any{"id": conv.ID, "title": ""}, "invalid_params"},
		{"chats.rename", map[string]any{"id": "nope", "title": "x"}, "not_found"},
		{"chats.delete", map[string]any{"id": "nope"}, "not_found"},
		{"agents.setCredential", map[string]any{"id": agent.ID, "scheme": "none-declared", "apiKey": "x"}, "invalid_params"},
		{"agents.setCredential", map[string]any{"id": "nope", "scheme": "x"}, "not_found"},
		{"wire.list", map[string]any{"agentId": agent.ID, "limit": 1000}, "invalid_params"},
	}
	for _, tc := range cases {
		f := c.call(tc.method, tc.params)
		if f.Error == nil || f.Error.Code != tc.code || f.Error.Message == "" {
			t.Errorf("%s %v: got %+v, want %s", tc.method, tc.params, f.Error, tc.code)
		}
	}
	// None of the refused messages was recorded.
	var got struct{ Entries []chatEntry }
	c.result("chats.get", map[string]any{"id": conv.ID}, &got)
	for _, e := range got.Entries {
		if e.Direction == "out" {
			t.Errorf("a refused message was recorded: %+v", e)
		}
	}
}

// keyEchoer is an agent that tells the caller the API key it was sent: in its status message, in an
// artifact, and (for a second message) in a JSON-RPC error.
type keyEchoer struct{}

func (keyEchoer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		keys, _ := ec.ServiceParams.Get("x-api-key")
		key := strings.Join(keys, ",")
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		art := &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "echo", Parts: a2a.ContentParts{
			a2a.NewTextPart("key=" + key), a2a.NewDataPart(map[string]any{"sent": key})}}
		if !yield(&a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Artifact: art, LastChunk: true}, nil) {
			return
		}
		msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("You sent me the key "+key+"."))
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, msg), nil)
	}
}

func (keyEchoer) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// An agent that echoes the owner's API key back: what is kept in hub.db and what the UI reads
// carry "•••" where the key was, as the wire log does.
func TestAKeyEchoedByAnAgentIsMaskedInTheConversation(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	card := &a2a.AgentCard{
		Name: "Key echoer", Description: "says which key it got", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: srv.URL + "/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills:               []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "echo", Tags: []string{"echo"}}},
		SecuritySchemes:      a2a.NamedSecuritySchemes{"key": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Api-Key"}},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{"key": {}}},
	}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(keyEchoer{}))
	mux.Handle("/rpc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != key {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		rpc.ServeHTTP(w, r)
	}))

	h := startHub(t)
	c := dial(t, h)
	var agent struct{ ID string }
	c.result("agents.add", map[string]any{"url": srv.URL}, &agent)
	c.result("agents.setCredential", map[string]any{"id": agent.ID, "scheme": "key", "apiKey": key}, nil)
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": agent.ID}, &conv)
	c.result("chats.send", map[string]any{"id": conv.ID, "text": "which key did I send?"}, nil)
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.State == "completed"
	})

	// hub.db: the agent's entries have the mask, and the key nowhere.
	rows, err := h.Agent.DB.Reader.QueryContext(t.Context(), `SELECT kind, body FROM chat_entries WHERE conversation_id = ? AND direction = 'in'`, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	masked := map[string]bool{}
	for rows.Next() {
		var kind, body string
		if err := rows.Scan(&kind, &body); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(body, key) {
			t.Errorf("hub.db keeps the key in a %s entry: %s", kind, body)
		}
		if strings.Contains(body, "•••") {
			masked[kind] = true
		}
	}
	if !masked["status"] || !masked["artifact"] {
		t.Errorf("entries with the mask in hub.db: %v; want the status and the artifact", masked)
	}

	// The UI: the same, in every part it is shown.
	got := c.call("chats.get", map[string]any{"id": conv.ID})
	if got.Error != nil || strings.Contains(string(got.Result), key) || !strings.Contains(string(got.Result), "You sent me the key •••.") ||
		!strings.Contains(string(got.Result), "key=•••") {
		t.Fatalf("chats.get returns %s %+v", got.Result, got.Error)
	}
}

type taskRow struct {
	Agent, ID, Title, Direction, State, ConversationID string
}

// chatTo starts a conversation with an agent, sends text and waits for the task to end.
func chatTo(t *testing.T, c *ui, agentID, text string) conversation {
	t.Helper()
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": agentID}, &conv)
	c.result("chats.send", map[string]any{"id": conv.ID, "text": text}, nil)
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.Direction == "in" && up.Entry.State == "completed"
	})
	return conv
}

// Tasks is one list of every task, in and out, from the owner's side: what they sent from chats (to
// an added agent or to the demo agent) is outgoing and names its chat; what others sent the hub's
// agents is incoming. The agent filter offers the agents with tasks, and takes an added one.
func TestTasksListsWhatTheOwnerSentFromChats(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var remote struct{ ID, Name string }
	c.result("agents.add", map[string]any{"url": otherDemo(t)}, &remote)
	toRemote := chatTo(t, c, remote.ID, "hello far agent")
	toDemo := chatTo(t, c, "demo", "hello near agent")
	direct := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello from a stranger"))
	if _, err := client(t, h.Demo.BaseURL).SendMessage(t.Context(), &a2a.SendMessageRequest{Message: direct}); err != nil {
		t.Fatal(err)
	}

	var all struct {
		Tasks []taskRow
		Next  string
	}
	c.result("tasks.list", nil, &all)
	want := []taskRow{
		{Agent: "demo", Title: "hello from a stranger", Direction: "incoming", State: "completed"},
		{Agent: "demo", Title: "hello near agent", Direction: "outgoing", State: "completed", ConversationID: toDemo.ID},
		{Agent: remote.ID, Title: "hello far agent", Direction: "outgoing", State: "completed", ConversationID: toRemote.ID},
	}
	if len(all.Tasks) != len(want) {
		t.Fatalf("tasks: %+v", all.Tasks)
	}
	for i, w := range want {
		got := all.Tasks[i]
		w.ID = got.ID
		if got != w || got.ID == "" {
			t.Errorf("task %d: %+v, want %+v", i, got, w)
		}
	}
	// Paging one by one walks the same list.
	var walked []string
	for cursor := ""; ; {
		var page struct {
			Tasks []taskRow
			Next  string
		}
		c.result("tasks.list", map[string]any{"limit": 1, "cursor": cursor}, &page)
		for _, r := range page.Tasks {
			walked = append(walked, r.Title)
		}
		if cursor = page.Next; cursor == "" || len(walked) > 5 {
			break
		}
	}
	if strings.Join(walked, ",") != "hello from a stranger,hello near agent,hello far agent" {
		t.Fatalf("paged: %v", walked)
	}

	var filter struct{ Agents []struct{ ID, Name string } }
	c.result("tasks.agents", nil, &filter)
	if len(filter.Agents) != 3 || filter.Agents[0].ID != "hub" || filter.Agents[1].ID != "demo" || filter.Agents[2].ID != remote.ID || filter.Agents[2].Name != remote.Name {
		t.Fatalf("tasks.agents: %+v", filter.Agents)
	}
	var only struct{ Tasks []taskRow }
	c.result("tasks.list", map[string]any{"agent": remote.ID}, &only)
	if len(only.Tasks) != 1 || only.Tasks[0].Title != "hello far agent" {
		t.Fatalf("the added agent's tasks: %+v", only.Tasks)
	}

	// The task sent to the added agent opens with what the chat recorded of it.
	var detail struct {
		Summary taskRow
		Events  []struct {
			Seq     int64
			Kind    string
			Message *struct{ Role string }
		}
	}
	c.result("tasks.get", map[string]any{"agent": remote.ID, "id": only.Tasks[0].ID}, &detail)
	if detail.Summary != only.Tasks[0] || len(detail.Events) < 3 || detail.Events[0].Kind != "message" || detail.Events[0].Message.Role != "user" {
		t.Fatalf("detail: %+v", detail)
	}
	var after struct{ Events []struct{ Seq int64 } }
	c.result("tasks.events", map[string]any{"agent": remote.ID, "id": only.Tasks[0].ID, "after": 1}, &after)
	if len(after.Events) != len(detail.Events)-1 || after.Events[0].Seq != 2 {
		t.Fatalf("events after 1: %+v", after.Events)
	}
	if f := c.call("tasks.get", map[string]any{"agent": remote.ID, "id": "nope"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Fatalf("an unknown task: %+v", f.Error)
	}
}

// Cancel from a task's page: a task someone else sent the demo agent is canceled over A2A; one the
// owner sent from a chat is canceled through its chat, which records the answer.
func TestTasksCancelReachesTheAgent(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	res, err := client(t, h.Demo.BaseURL).SendMessage(t.Context(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 60")), Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	stranger := res.(*a2a.Task)
	c.result("tasks.cancel", map[string]any{"agent": "demo", "id": stranger.ID}, nil)
	var detail struct{ Summary taskRow }
	c.result("tasks.get", map[string]any{"agent": "demo", "id": stranger.ID}, &detail)
	if detail.Summary.State != "canceled" {
		t.Fatalf("the stranger's task after cancel: %+v", detail.Summary)
	}

	var conv conversation
	c.result("chats.start", map[string]any{"agentId": "demo"}, &conv)
	c.result("chats.send", map[string]any{"id": conv.ID, "text": "slow 60"}, nil)
	var taskID string
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		if up.ConversationID != conv.ID || up.Entry == nil || up.Entry.State != "working" {
			return false
		}
		taskID = up.Entry.TaskID
		return true
	})
	c.result("tasks.cancel", map[string]any{"agent": "demo", "id": taskID}, nil)
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.State == "canceled"
	})
	if f := c.call("tasks.cancel", map[string]any{"agent": "nope", "id": "x"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Fatalf("canceling at an unknown agent: %+v", f.Error)
	}
}
