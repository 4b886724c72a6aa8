package uiapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type conversation struct {
	ID, AgentID, AgentName, ContextID, Title, State, Dialect string
	Busy                                                     bool
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
	c.result("agents.add", map[string]any{"url": h.Demo.BaseURL}, &agent)
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
	if !a.Auth.Satisfied || !a.Auth.Schemes[0].Saved || !strings.HasPrefix(a.Auth.Store, "file") {
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
