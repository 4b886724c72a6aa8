package uiapi

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/tasks"
)

// Conversation is a chat with a remote agent as the UI shows it.
type Conversation struct {
	ID        string `json:"id"`
	AgentID   string `json:"agentId"`
	AgentName string `json:"agentName"`
	ContextID string `json:"contextId,omitempty"`
	Title     string `json:"title"`
	CreatedAt string `json:"createdAt"`
	UpdatedAt string `json:"updatedAt"`
	State     string `json:"state,omitempty"`
	Busy      bool   `json:"busy"`
	Dialect   string `json:"dialect,omitempty"`
	// Preview is the newest words exchanged: {from: "you"|"agent", text}; absent before any.
	Preview *ConversationPreview `json:"preview,omitempty"`
}

// ConversationPreview is the newest text of a conversation, for the list.
type ConversationPreview struct {
	From string `json:"from"`
	Text string `json:"text"`
}

// ChatEntry is one recorded exchange of a conversation: a timeline event with who it came from.
type ChatEntry struct {
	TimelineEvent
	Direction string           `json:"direction"`
	TaskID    string           `json:"taskId,omitempty"`
	Error     *chats.CallError `json:"error,omitempty"`
}

// ChatUpdate is what the "chat" topic pushes.
type ChatUpdate struct {
	ConversationID string        `json:"conversationId"`
	Conversation   *Conversation `json:"conversation,omitempty"` // absent once deleted
	Entry          *ChatEntry    `json:"entry,omitempty"`        // absent when only the conversation changed
}

// WireEntry is one raw exchange with a remote agent, secrets masked.
type WireEntry struct {
	ID         int64             `json:"id"`
	At         string            `json:"at"`
	CallID     string            `json:"callId"`
	Kind       string            `json:"kind"`
	Method     string            `json:"method"`
	URL        string            `json:"url"`
	Status     int               `json:"status,omitempty"`
	DurationMs float64           `json:"durationMs,omitempty"`
	Header     map[string]string `json:"header"`
	Body       string            `json:"body"`
}

func (g *Gateway) conversationOf(ctx context.Context, c chats.Conversation) Conversation {
	name := "(removed agent)"
	if rem, err := g.cfg.Registry.Get(ctx, c.AgentID); err == nil {
		name = rem.Name
	}
	out := Conversation{ID: c.ID, AgentID: c.AgentID, AgentName: name, ContextID: c.ContextID, Title: c.Title,
		CreatedAt: timeString(c.CreatedAt), UpdatedAt: timeString(c.UpdatedAt), Busy: c.Busy,
		Dialect: string(g.cfg.Clients.Dialect(c.AgentID))}
	if c.State != "" {
		out.State = stateName(c.State)
	}
	if c.Preview.Text != "" {
		from := "agent"
		if c.Preview.Direction == chats.Out {
			from = "you"
		}
		out.Preview = &ConversationPreview{From: from, Text: c.Preview.Text}
	}
	return out
}

func chatEntryOf(e chats.Entry) ChatEntry {
	out := ChatEntry{TimelineEvent: TimelineEvent{Seq: e.Seq, At: timeString(e.At), Kind: e.Kind, Final: e.Final},
		Direction: e.Direction, TaskID: e.TaskID, Error: e.Error}
	if e.Event != nil {
		out.TimelineEvent = eventOf(e.Seq, e.At, e.Kind, e.Final, e.Event)
		out.Raw = nil // the UI's raw views are the task's and the wire log; files would be sent twice
	}
	return out
}

func wireEntryOf(e wirelog.Entry) WireEntry {
	h := e.Header
	if h == nil {
		h = map[string]string{}
	}
	return WireEntry{ID: e.ID, At: timeString(e.At), CallID: e.CallID, Kind: e.Kind, Method: e.Method, URL: e.URL,
		Status: e.Status, DurationMs: float64(e.Duration) / float64(time.Millisecond), Header: h, Body: e.Body}
}

// chatCall dispatches the chats.*, credential and wire methods; ok is false for any other method.
func (g *Gateway) chatCall(ctx context.Context, method string, params json.RawMessage) (result any, err error, ok bool) {
	switch method {
	case "chats.list":
		result, err = g.chatsList(ctx, params)
	case "chats.start":
		var p struct{ AgentID string }
		if err = decode(params, &p); err == nil {
			var c chats.Conversation
			if c, err = g.cfg.Chats.Start(ctx, p.AgentID); err == nil {
				result = g.conversationOf(ctx, c)
			}
		}
	case "chats.get":
		result, err = g.chatsGet(ctx, params)
	case "chats.send":
		result, err = g.chatsSend(ctx, params)
	case "chats.cancel":
		var p struct{ ID, TaskID string }
		if err = decode(params, &p); err == nil {
			if p.TaskID == "" {
				return nil, invalid("taskId is required"), true
			}
			err = g.cfg.Chats.Cancel(ctx, p.ID, a2a.TaskID(p.TaskID))
			result = map[string]any{}
		}
	case "chats.rename":
		var p struct{ ID, Title string }
		if err = decode(params, &p); err == nil {
			var c chats.Conversation
			if c, err = g.cfg.Chats.Rename(ctx, p.ID, p.Title); err == nil {
				result = g.conversationOf(ctx, c)
			} else if !errors.Is(err, chats.ErrNotFound) {
				err = invalid("%v", err)
			}
		}
	case "chats.delete":
		var p struct{ ID string }
		if err = decode(params, &p); err == nil {
			err = g.cfg.Chats.Delete(ctx, p.ID)
			result = map[string]any{}
		}
	case "agents.setCredential":
		result, err = g.setCredential(ctx, params)
	case "agents.clearCredential":
		var p struct{ ID, Scheme string }
		if err = decode(params, &p); err == nil {
			if err = g.cfg.Clients.ForgetCredential(ctx, p.ID, p.Scheme); err == nil {
				g.cfg.Bus.Publish(bus.Event{Topic: agents.Topic, Key: p.ID})
				result, err = g.remoteAgent(ctx, p.ID)
			}
		}
	case "wire.list":
		result, err = g.wireList(ctx, params)
	default:
		return nil, nil, false
	}
	return result, err, true
}

func (g *Gateway) chatsList(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct{ AgentID string }
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	list, err := g.cfg.Chats.List(ctx, p.AgentID)
	if err != nil {
		return nil, err
	}
	out := make([]Conversation, 0, len(list))
	for _, c := range list {
		out = append(out, g.conversationOf(ctx, c))
	}
	return map[string]any{"conversations": out}, nil
}

func (g *Gateway) chatsGet(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct{ ID string }
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	c, entries, err := g.cfg.Chats.Get(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	out := make([]ChatEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, chatEntryOf(e))
	}
	return map[string]any{"conversation": g.conversationOf(ctx, c), "entries": out}, nil
}

func (g *Gateway) chatsSend(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ID     string
		Text   string
		Files  []File
		Data   any
		TaskID string
		// A2UI client messages (an action, an error) and the data models the surfaces asked to send
		A2UI          []any
		A2UIDataModel map[string]any
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	out := chats.Outgoing{Text: p.Text, Data: p.Data, Task: a2a.TaskID(p.TaskID), A2UI: p.A2UI, A2UIDataModel: p.A2UIDataModel}
	for _, f := range p.Files {
		out.Files = append(out.Files, chats.File{Name: f.Name, MediaType: f.MediaType, Bytes: f.Bytes})
	}
	e, err := g.cfg.Chats.Send(ctx, p.ID, out)
	if err != nil {
		if errors.Is(err, chats.ErrEmpty) || errors.Is(err, chats.ErrTooLarge) || errors.Is(err, chats.ErrEmptyFile) || errors.Is(err, chats.ErrA2UI) {
			return nil, invalid("%v", err)
		}
		return nil, err
	}
	return chatEntryOf(e), nil
}

func (g *Gateway) setCredential(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ID, Scheme                            string
		APIKey, Token, ClientID, ClientSecret string
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	secret := credentials.Secret{APIKey: p.APIKey, Token: p.Token, ClientID: p.ClientID, ClientSecret: p.ClientSecret}
	if err := g.cfg.Clients.SaveCredential(ctx, p.ID, p.Scheme, secret); err != nil {
		return nil, err
	}
	g.cfg.Bus.Publish(bus.Event{Topic: agents.Topic, Key: p.ID})
	return g.remoteAgent(ctx, p.ID)
}

func (g *Gateway) wireList(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		AgentID string
		Before  int64
		Limit   int
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Limit == 0 {
		p.Limit = 100
	}
	if p.Limit < 1 || p.Limit > 500 {
		return nil, invalid("limit is 1 to 500")
	}
	list, err := g.cfg.Wire.List(ctx, p.AgentID, p.Before, p.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]WireEntry, 0, len(list))
	for _, e := range list {
		out = append(out, wireEntryOf(e))
	}
	res := map[string]any{"entries": out}
	if len(list) == p.Limit {
		res["next"] = list[len(list)-1].ID
	}
	return res, nil
}

// chatUpdate is the "chat" push for one bus event.
func (g *Gateway) chatUpdate(ctx context.Context, e bus.Event) ChatUpdate {
	up := ChatUpdate{ConversationID: e.Key}
	if c, err := g.cfg.Chats.Conversation(ctx, e.Key); err == nil {
		conv := g.conversationOf(ctx, c)
		up.Conversation = &conv
	}
	if entry, ok := e.Data.(*chats.Entry); ok {
		ce := chatEntryOf(*entry)
		up.Entry = &ce
	}
	return up
}

// authInfo is what the UI needs to ask for a remote agent's credentials.
type authInfo struct {
	Schemes      []authScheme `json:"schemes"`
	Alternatives [][]string   `json:"alternatives"`
	Required     bool         `json:"required"`
	Satisfied    bool         `json:"satisfied"`
	Store        string       `json:"store"`
}

type authScheme struct {
	credentials.Scheme
	Saved bool `json:"saved"`
}

func (g *Gateway) authOf(r agents.Remote) *authInfo {
	st := g.cfg.Clients.AuthStatus(r)
	info := &authInfo{Schemes: []authScheme{}, Alternatives: st.Needs.Alternatives, Required: st.Needs.Required,
		Satisfied: st.Satisfied, Store: g.cfg.Clients.Secrets().Where()}
	for _, s := range st.Needs.Schemes {
		info.Schemes = append(info.Schemes, authScheme{Scheme: s, Saved: st.Saved[s.Name]})
	}
	return info
}

func (g *Gateway) remoteAgent(ctx context.Context, id string) (AgentInfo, error) {
	rem, err := g.cfg.Registry.Get(ctx, id)
	if err != nil {
		return AgentInfo{}, err
	}
	return g.remoteInfo(rem), nil
}

// eventOf is the timeline shape of one event of a task, wherever it was recorded.
func eventOf(seq int64, at time.Time, kind string, final bool, ev a2a.Event) TimelineEvent {
	return timelineOf(&tasks.Logged{Seq: seq, At: at, Kind: kind, Final: final, Event: ev})
}
