package uiapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/tasks"
)

func isNotFound(err error) bool { return errors.Is(err, a2a.ErrTaskNotFound) }

func isInvalidParams(err error) bool { return errors.Is(err, a2a.ErrInvalidParams) }

func invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// call dispatches one method.
func (g *Gateway) call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "hub.info":
		return g.hubInfo(ctx)
	case "agents.list":
		out, err := g.allAgents(ctx)
		return map[string]any{"agents": out}, err
	case "agents.get":
		var p struct{ ID string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if a, err := g.agent(p.ID); err == nil {
			return agentInfo(a), nil
		}
		rem, err := g.cfg.Registry.Get(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		return g.remoteInfo(rem), nil
	case "agents.add":
		var p struct{ URL string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		rem, err := g.cfg.Registry.Add(ctx, p.URL)
		if err != nil {
			return nil, err
		}
		if a, ok := g.agents[rem.ID]; ok {
			return agentInfo(a), nil // the URL of an agent on this hub: already there, listed once
		}
		return g.remoteInfo(rem), nil
	case "agents.refresh":
		var p struct{ ID string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		rem, err := g.cfg.Registry.Refresh(ctx, p.ID)
		if errors.Is(err, agents.ErrNotFound) {
			return nil, err
		}
		return g.remoteInfo(rem), nil // a failed fetch is in lastError, with the last card kept
	case "agents.call":
		return g.rawCall(ctx, params)
	case "agents.setBinding":
		var p struct{ ID, Binding string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if _, ok := g.agents[p.ID]; ok {
			return nil, &Error{Code: CodeConflict, Message: fmt.Sprintf("%q runs on this hub: there is no binding to choose", p.ID)}
		}
		b, ok := agents.ParseBinding(p.Binding)
		if !ok {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("binding %q: want auto, JSONRPC, HTTP+JSON or GRPC", p.Binding)}
		}
		rem, err := g.cfg.Registry.SetBinding(ctx, p.ID, b)
		if err != nil {
			return nil, err
		}
		return g.remoteInfo(rem), nil
	case "agents.trustCard":
		var p struct{ ID string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if _, ok := g.agents[p.ID]; ok {
			return nil, &Error{Code: CodeConflict, Message: fmt.Sprintf("%q runs on this hub: its card needs no confirming", p.ID)}
		}
		rem, err := g.cfg.Registry.TrustCard(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		return g.remoteInfo(rem), nil
	case "agents.remove":
		var p struct{ ID string }
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		if _, ok := g.agents[p.ID]; ok {
			return nil, &Error{Code: CodeConflict, Message: fmt.Sprintf("%q runs on this hub and cannot be removed", p.ID)}
		}
		if err := g.cfg.Registry.Remove(ctx, p.ID); err != nil {
			return nil, err
		}
		// It leaves every channel: the bridge can no longer speak for it there.
		if g.cfg.Channels != nil {
			if _, err := g.cfg.Channels.RemoveEverywhere(ctx, auth.Remote(p.ID).ID); err != nil {
				return nil, err
			}
		}
		// Its conversations stay readable; its saved credentials go.
		return map[string]any{}, g.cfg.Clients.Forget(p.ID)
	case "tasks.list":
		return g.listTasks(ctx, params)
	case "tasks.get":
		return g.getTask(ctx, params)
	case "tasks.cancel":
		var p taskRef
		if err := decode(params, &p); err != nil {
			return nil, err
		}
		return map[string]any{}, g.cancelTask(ctx, p)
	case "tasks.agents":
		if err := decode(params, &struct{}{}); err != nil {
			return nil, err
		}
		return g.taskAgents(ctx)
	case "tasks.events":
		return g.taskEvents(ctx, params)
	case "inbox.list":
		return g.inboxList(ctx)
	case "inbox.act":
		return g.inboxAct(ctx, params)
	case "inbox.markRead":
		return g.inboxMarkRead(ctx, params)
	case "ui.regenerateToken":
		if err := decode(params, &struct{}{}); err != nil {
			return nil, err
		}
		c, _ := ctx.Value(connKey{}).(*conn)
		token, err := g.regenerate(ctx, c)
		if err != nil {
			return nil, err
		}
		return map[string]any{"token": token, "uiUrl": g.UIURL()}, nil
	}
	switch method {
	case "ext.call":
		return g.extCall(ctx, params)
	case "ext.stream":
		return g.extStream(ctx, params)
	case "ext.close":
		return g.extClose(ctx, params)
	}
	if result, err, ok := g.chatCall(ctx, method, params); ok {
		return result, err
	}
	if result, err, ok := g.accessCall(ctx, method, params); ok {
		return result, err
	}
	if result, err, ok := g.bridgeCall(ctx, method, params); ok {
		return result, err
	}
	if result, err, ok := g.channelsCall(ctx, method, params); ok {
		return result, err
	}
	if result, err, ok := g.scenarioCall(ctx, method, params); ok {
		return result, err
	}
	return nil, &Error{Code: CodeUnknownMethod, Message: fmt.Sprintf("unknown method %q", method)}
}

// decode reads params strictly: unknown fields and wrong types are the caller's mistake.
func decode(params json.RawMessage, into any) error {
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return invalid("params: %v", err)
	}
	return nil
}

// HubInfo describes the hub to the UI.
type HubInfo struct {
	Version string      `json:"version"`
	DataDir string      `json:"dataDir"`
	UIURL   string      `json:"uiUrl"`
	Agents  []AgentInfo `json:"agents"`
}

// AgentInfo is an agent card with what the hub knows about it.
type AgentInfo struct {
	ID               string           `json:"id"`
	Name             string           `json:"name"`
	Description      string           `json:"description"`
	Kind             string           `json:"kind"`
	URL              string           `json:"url"`
	CardURL          string           `json:"cardUrl"`
	Online           bool             `json:"online"`
	ProtocolVersions []string         `json:"protocolVersions"`
	Card             json.RawMessage  `json:"card"`
	Problems         []agents.Problem `json:"problems"`
	FetchedAt        string           `json:"fetchedAt,omitempty"` // remote: when the card was read
	LastError        string           `json:"lastError,omitempty"` // remote: why the last read failed
	Dialect          string           `json:"dialect,omitempty"`   // remote: the protocol the hub speaks to it
	// Remote: the bindings its card offers that the hub speaks ("JSONRPC", "HTTP+JSON", "GRPC"), the
	// owner's choice ("auto" or one of them), and the one in use ("" before the first call).
	Bindings     []string      `json:"bindings,omitempty"`
	Binding      string        `json:"binding,omitempty"`
	BindingInUse string        `json:"bindingInUse,omitempty"`
	Streaming    bool          `json:"streaming"`
	Auth         *authInfo     `json:"auth,omitempty"` // remote: the credentials its card asks for
	CanChat      bool          `json:"canChat"`        // chats.start accepts it
	Signature    signatureInfo `json:"signature"`
}

// signatureInfo is what the hub made of the card's signatures (A2A §8.4) and the key it pinned.
type signatureInfo struct {
	// State: "signed" (verified, with the pinned key), "unsigned", "invalid" (a signature failed, or a
	// formerly signed agent's card is unsigned), "key_changed" (verified, but not with the pinned key),
	// "unchecked" (fetched before the hub checked signatures: refresh to check).
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
	// PinnedKey and PendingKey are RFC 7638 thumbprints; PendingKey is the key a key_changed card
	// verified with, pinned by agents.trustCard.
	PinnedKey  string `json:"pinnedKey,omitempty"`
	PendingKey string `json:"pendingKey,omitempty"`
	// Blocked: the hub refuses to talk to the agent until the owner confirms (agents.trustCard).
	Blocked bool `json:"blocked"`
	// Confirmed: the owner confirmed this card in spite of an invalid signature or its other hosts.
	Confirmed bool `json:"confirmed,omitempty"`
	// ForeignHosts are the hosts the card's interfaces are on besides its own (see agents.Trust).
	ForeignHosts []string `json:"foreignHosts,omitempty"`
}

func signatureOf(t agents.Trust) signatureInfo {
	state := t.State
	if state == agents.TrustUnchecked {
		state = "unchecked"
	}
	return signatureInfo{State: state, Detail: t.Detail, PinnedKey: t.PinnedKey, PendingKey: t.PendingKey,
		Blocked: !t.Usable(), Confirmed: t.Confirmed, ForeignHosts: t.ForeignHosts}
}

// localSignature is the signature state of a card this hub serves itself: signed with the agent's
// own key, nothing to verify.
func localSignature(card []byte) signatureInfo {
	var doc struct {
		Signatures []json.RawMessage `json:"signatures"`
	}
	json.Unmarshal(card, &doc)
	if len(doc.Signatures) == 0 {
		return signatureInfo{State: "unsigned", Detail: "the card carries no signature"}
	}
	return signatureInfo{State: "signed", Detail: "signed by this hub with the agent's own key"}
}

func (g *Gateway) hubInfo(ctx context.Context) (HubInfo, error) {
	all, err := g.allAgents(ctx)
	return HubInfo{Version: g.cfg.Version, DataDir: g.cfg.DataDir, UIURL: g.UIURL(), Agents: all}, err
}

// allAgents is the agents on this hub, then the registered remote ones in the order they were added.
func (g *Gateway) allAgents(ctx context.Context) ([]AgentInfo, error) {
	out := []AgentInfo{}
	for _, a := range g.cfg.Agents {
		out = append(out, agentInfo(&a))
	}
	remotes, err := g.cfg.Registry.List(ctx)
	for _, r := range remotes {
		if _, local := g.agents[r.ID]; local {
			continue // a local agent pinned for chats: listed once, as itself
		}
		out = append(out, g.remoteInfo(r))
	}
	return out, err
}

func (g *Gateway) remoteInfo(r agents.Remote) AgentInfo {
	report := agents.CheckCard(r.Card)
	var card struct {
		Description string `json:"description"`
	}
	json.Unmarshal(r.Card, &card)
	problems := report.Problems
	if problems == nil {
		problems = []agents.Problem{}
	}
	versions := report.Versions
	if versions == nil {
		versions = []string{}
	}
	return AgentInfo{ID: r.ID, Name: r.Name, Description: card.Description, Kind: "remote", URL: r.AddedURL,
		CardURL: r.CardURL, Online: r.FetchError == "", ProtocolVersions: versions, Card: r.Card, Problems: problems,
		FetchedAt: timeString(r.FetchedAt), LastError: r.FetchError,
		Dialect: g.dialectOf(r), Streaming: agents.Streaming(r.Card), Auth: g.authOf(r), CanChat: true, Signature: signatureOf(r.Trust),
		Bindings: bindingNames(agents.Bindings(r.Card)), Binding: bindingName(r.Binding), BindingInUse: g.bindingInUse(r.ID)}
}

func bindingName(b agents.Binding) string {
	if b == agents.Automatic {
		return "auto"
	}
	return b.Name()
}

func bindingNames(bs []agents.Binding) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name()
	}
	return out
}

func (g *Gateway) bindingInUse(id string) string {
	if b, ok := g.cfg.Clients.Binding(id); ok {
		return b.Name()
	}
	return ""
}

// dialectOf is the dialect the hub talks to the agent in: the one in use, else the card's best.
func (g *Gateway) dialectOf(r agents.Remote) string {
	if d := g.cfg.Clients.Dialect(r.ID); d != "" {
		return string(d)
	}
	if eps, err := agents.Endpoints(r.Card); err == nil && len(eps) > 0 {
		return string(eps[0].Dialect)
	}
	return ""
}

func agentInfo(a *LocalAgent) AgentInfo {
	report := agents.CheckCard(a.CardJSON)
	versions := report.Versions
	if a.Kind == "hub" || a.Kind == "local" { // our own server also answers the v0.1 draft on agent.json
		if !slices.Contains(versions, "0.1") {
			versions = append(versions, "0.1")
		}
	}
	problems := report.Problems
	if problems == nil {
		problems = []agents.Problem{}
	}
	return AgentInfo{ID: a.ID, Name: a.Name, Description: a.Description, Kind: a.Kind, URL: a.BaseURL,
		CardURL: a.BaseURL + "/.well-known/agent-card.json", Online: true, ProtocolVersions: versions,
		Card: a.CardJSON, Problems: problems, Streaming: agents.Streaming(a.CardJSON), CanChat: a.Chat, Signature: localSignature(a.CardJSON)}
}

func (g *Gateway) agent(id string) (*LocalAgent, error) {
	if a, ok := g.agents[id]; ok {
		return a, nil
	}
	return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no agent %q on this hub", id)}
}

func (g *Gateway) summary(agent string, r tasks.Row) TaskSummary {
	title := tasks.Title(r.Task)
	if r.Unreadable != "" {
		title = "Unreadable task"
	}
	return TaskSummary{
		Agent: agent, ID: string(r.Task.ID), ContextID: r.Task.ContextID, State: stateName(r.Task.Status.State),
		Dialect: string(r.Dialect), Direction: "incoming", Title: title,
		CreatedAt: timeString(r.CreatedAt), UpdatedAt: timeString(r.UpdatedAt),
		WaitingForOwner: agent == g.cfg.InboxAgent && inbox.WaitingForOwner(r.Task.Status.State),
		Unreadable:      r.Unreadable,
	}
}

const (
	defaultListLimit = 50
	maxListLimit     = 200
)

func (g *Gateway) listTasks(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Agent  string
		State  string
		Cursor string
		Limit  int
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.Limit == 0 {
		p.Limit = defaultListLimit
	}
	if p.Limit < 1 || p.Limit > maxListLimit {
		return nil, invalid("limit must be between 1 and %d", maxListLimit)
	}
	q := tasks.PageQuery{Limit: p.Limit + 1}
	if p.State != "" {
		st, ok := stateOf(p.State)
		if !ok {
			return nil, invalid("unknown state %q", p.State)
		}
		q.States = []a2a.TaskState{st}
	}
	if p.Cursor != "" {
		pos, err := tasks.ParsePosition(p.Cursor)
		if err != nil {
			return nil, fmt.Errorf("cursor: %w", err)
		}
		q.After = &pos
	}
	// Every task, in and out: the local agents' own (a task the owner sent one of them from a chat is
	// marked outgoing, one a channel started is marked with the channel), the tasks the owner sent
	// other agents from chats, and the tasks channels started with other agents.
	sources := g.cfg.Agents
	sent := chats.TaskQuery{States: q.States, After: q.After, Limit: q.Limit}
	inChannels := bridge.TaskQuery{States: q.States, After: q.After, Limit: q.Limit}
	for _, a := range g.cfg.Agents {
		sent.Skip = append(sent.Skip, a.ID)
		inChannels.Skip = append(inChannels.Skip, a.ID)
	}
	if p.Agent != "" {
		if a, ok := g.agents[p.Agent]; ok {
			sources, sent.Limit, inChannels.Limit = []LocalAgent{*a}, 0, 0
		} else {
			// an added agent: what the owner sent it, and what channels did
			sources, sent.AgentID, inChannels.AgentID = nil, p.Agent, p.Agent
		}
	}
	type sourced struct {
		pos     tasks.Position
		summary TaskSummary
	}
	var all []sourced
	for _, a := range sources {
		rows, err := a.Tasks.Page(ctx, q)
		if err != nil {
			return nil, err
		}
		list, err := g.summaries(ctx, a.ID, rows)
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			all = append(all, sourced{tasks.PositionOf(r), list[i]})
		}
	}
	if sent.Limit > 0 {
		rows, err := g.cfg.Chats.Tasks(ctx, sent)
		if err != nil {
			return nil, err
		}
		for _, t := range rows {
			all = append(all, sourced{tasks.Position{CreatedAt: t.CreatedAt.UnixNano(), ID: t.TaskID}, g.sentSummary(t)})
		}
	}
	if inChannels.Limit > 0 && g.cfg.Bridge != nil {
		rows, err := g.cfg.Bridge.Tasks(ctx, inChannels)
		if err != nil {
			return nil, err
		}
		names := map[string]string{}
		for _, t := range rows {
			all = append(all, sourced{tasks.Position{CreatedAt: t.CreatedAt.UnixNano(), ID: t.TaskID}, g.channelSummary(ctx, t, names)})
		}
	}
	// Merge the sources' pages in one creation order, newest first.
	slices.SortFunc(all, func(x, y sourced) int {
		switch {
		case x.pos.Newer(y.pos):
			return -1
		case y.pos.Newer(x.pos):
			return 1
		}
		return 0
	})
	out := map[string]any{}
	list := make([]TaskSummary, 0, min(len(all), p.Limit))
	for i, s := range all {
		if i == p.Limit {
			out["next"] = all[i-1].pos.Token()
			break
		}
		list = append(list, s.summary)
	}
	out["tasks"] = list
	return out, nil
}

// cancelTask asks the task's agent to cancel it, over A2A as any client would: through its chat when
// the owner sent it from one (the chat records the answer), else with a call of its own.
func (g *Gateway) cancelTask(ctx context.Context, ref taskRef) error {
	if ref.Agent == "" || ref.ID == "" {
		return invalid("agent and id are required")
	}
	convs, err := g.cfg.Chats.TaskConversations(ctx, ref.Agent, []string{ref.ID})
	if err != nil {
		return err
	}
	if conv, ok := convs[ref.ID]; ok {
		return g.cfg.Chats.Cancel(ctx, conv, a2a.TaskID(ref.ID))
	}
	conn, err := g.cfg.Clients.Conn(ctx, ref.Agent)
	if err != nil {
		return err
	}
	if _, err := conn.Cancel(ctx, a2a.TaskID(ref.ID)); err != nil {
		kind, message := agents.Classify(err)
		return &chats.CallError{Kind: kind, Message: message}
	}
	return nil
}

// taskAgents is who the Tasks list's agent filter offers: the hub's own agents, then every agent the
// owner sent a task to from a chat (named as registered, or "(removed agent)").
func (g *Gateway) taskAgents(ctx context.Context) (any, error) {
	type named struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	out := []named{}
	for _, a := range g.cfg.Agents {
		out = append(out, named{a.ID, a.Name})
	}
	ids, err := g.cfg.Chats.TaskAgents(ctx)
	if err != nil {
		return nil, err
	}
	if g.cfg.Bridge != nil {
		more, err := g.cfg.Bridge.TaskAgents(ctx)
		if err != nil {
			return nil, err
		}
		for _, id := range more {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		if _, local := g.agents[id]; local {
			continue
		}
		name := "(removed agent)"
		if rem, err := g.cfg.Registry.Get(ctx, id); err == nil {
			name = rem.Name
		}
		out = append(out, named{id, name})
	}
	return map[string]any{"agents": out}, nil
}

// summaries are the rows of a local agent as the owner sees them: what they sent from a chat is
// outgoing, and an inbox task they answered (open, the sender's turn) is not waiting for them.
func (g *Gateway) summaries(ctx context.Context, agent string, rows []tasks.Row) ([]TaskSummary, error) {
	list := make([]TaskSummary, len(rows))
	for i, r := range rows {
		list[i] = g.summary(agent, r)
	}
	if err := g.markSent(ctx, agent, list); err != nil {
		return nil, err
	}
	if err := g.markChannel(ctx, agent, list); err != nil {
		return nil, err
	}
	if agent == g.cfg.InboxAgent && g.cfg.Inbox != nil {
		answered, err := g.cfg.Inbox.Answered(ctx, rows)
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			if answered[r.Task.ID] {
				list[i].WaitingForOwner = false
			}
		}
	}
	return list, nil
}

// markSent marks the tasks of a local agent the owner sent it from a chat: outgoing, with the chat.
func (g *Gateway) markSent(ctx context.Context, agent string, list []TaskSummary) error {
	ids := make([]string, len(list))
	for i, t := range list {
		ids[i] = t.ID
	}
	convs, err := g.cfg.Chats.TaskConversations(ctx, agent, ids)
	if err != nil {
		return err
	}
	for i := range list {
		if c, ok := convs[list[i].ID]; ok {
			list[i].Direction, list[i].ConversationID = "outgoing", c
		}
	}
	return nil
}

// markChannel marks the tasks of a local agent a channel started (the demo agent in a channel):
// from that channel, not incoming.
func (g *Gateway) markChannel(ctx context.Context, agent string, list []TaskSummary) error {
	if g.cfg.Bridge == nil || len(list) == 0 {
		return nil
	}
	ids := make([]string, len(list))
	for i, t := range list {
		ids[i] = t.ID
	}
	chans, err := g.cfg.Bridge.TaskChannels(ctx, agent, ids)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for i := range list {
		if c, ok := chans[list[i].ID]; ok {
			list[i].Direction, list[i].ChannelID, list[i].ChannelName = "channel", c, g.channelName(ctx, c, names)
		}
	}
	return nil
}

// channelName is a channel's name as the owner sees it ("" for one they may not see), read once per
// call through names.
func (g *Gateway) channelName(ctx context.Context, id string, names map[string]string) string {
	if n, ok := names[id]; ok {
		return n
	}
	n := ""
	if g.cfg.Channels != nil {
		if c, err := g.cfg.Channels.Get(ctx, id); err == nil {
			n = c.Name
		}
	}
	names[id] = n
	return n
}

// channelSummary is a task a channel started with an added agent.
func (g *Gateway) channelSummary(ctx context.Context, t bridge.Task, names map[string]string) TaskSummary {
	return TaskSummary{Agent: t.AgentID, ID: t.TaskID, State: stateName(t.State), Dialect: string(g.cfg.Clients.Dialect(t.AgentID)),
		Direction: "channel", Title: t.Title, CreatedAt: timeString(t.CreatedAt), UpdatedAt: timeString(t.UpdatedAt),
		ChannelID: t.ChannelID, ChannelName: g.channelName(ctx, t.ChannelID, names)}
}

// channelDetail is a task a channel started with an added agent: the task as the agent tells it now
// (the bridge keeps what it said in the channel, not its log), or the summary alone when it can't be
// reached.
func (g *Gateway) channelDetail(ctx context.Context, ref taskRef) (TaskDetail, error) {
	t, err := g.cfg.Bridge.Task(ctx, ref.Agent, ref.ID)
	if errors.Is(err, bridge.ErrNoTask) {
		return TaskDetail{}, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no task %q with agent %q", ref.ID, ref.Agent)}
	}
	if err != nil {
		return TaskDetail{}, err
	}
	d := TaskDetail{Summary: g.channelSummary(ctx, t, map[string]string{}), History: []Message{}, Artifacts: []Artifact{}, Events: []TimelineEvent{},
		Status: Status{State: stateName(t.State)}, Raw: json.RawMessage(`{}`)}
	conn, err := g.cfg.Clients.Conn(ctx, ref.Agent)
	if err != nil {
		return d, nil
	}
	task, err := conn.GetTask(ctx, a2a.TaskID(ref.ID))
	if err != nil || task == nil {
		return d, nil
	}
	for _, m := range task.History {
		if msg := messageOf(m); msg != nil {
			d.History = append(d.History, *msg)
		}
	}
	for _, a := range task.Artifacts {
		if art := artifactOf(a); art != nil {
			d.Artifacts = append(d.Artifacts, *art)
		}
	}
	d.Status = statusOf(task.Status)
	if raw, err := json.Marshal(task); err == nil {
		d.Raw = raw
	}
	return d, nil
}

// sentSummary is a task the owner sent an added agent from a chat.
func (g *Gateway) sentSummary(t chats.SentTask) TaskSummary {
	return TaskSummary{Agent: t.AgentID, ID: t.TaskID, State: stateName(t.State), Dialect: string(g.cfg.Clients.Dialect(t.AgentID)),
		Direction: "outgoing", Title: t.Title, CreatedAt: timeString(t.CreatedAt), UpdatedAt: timeString(t.UpdatedAt),
		ConversationID: t.ConversationID}
}

// sentDetail is a task the owner sent an added agent, as its conversation recorded it: the message
// that started it and every event the agent sent for it, numbered in order.
func (g *Gateway) sentDetail(ctx context.Context, ref taskRef) (TaskDetail, error) {
	t, err := g.cfg.Chats.Task(ctx, ref.Agent, ref.ID)
	if errors.Is(err, chats.ErrNotFound) {
		return TaskDetail{}, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no task %q with agent %q", ref.ID, ref.Agent)}
	}
	if err != nil {
		return TaskDetail{}, err
	}
	entries, err := g.cfg.Chats.TaskEntries(ctx, t.ConversationID, t.TaskID)
	if err != nil {
		return TaskDetail{}, err
	}
	d := TaskDetail{Summary: g.sentSummary(t), History: []Message{}, Artifacts: []Artifact{}, Events: []TimelineEvent{},
		Status: Status{State: stateName(t.State)}, Raw: json.RawMessage(`{}`)}
	for i, e := range entries {
		if e.Event == nil {
			continue
		}
		ev := eventOf(int64(i+1), e.At, e.Kind, e.Final, e.Event)
		d.Events = append(d.Events, ev)
		switch v := e.Event.(type) {
		case *a2a.Message:
			if m := messageOf(v); m != nil {
				d.History = append(d.History, *m)
			}
		case *a2a.Task:
			d.Raw = ev.Raw
		}
		if ev.Status != nil {
			d.Status = *ev.Status
		}
	}
	return d, nil
}

type taskRef struct {
	Agent string
	ID    string
}

// task finds the task a call names.
func (g *Gateway) task(ctx context.Context, ref taskRef) (*LocalAgent, tasks.Row, error) {
	a, err := g.agent(ref.Agent)
	if err != nil {
		return nil, tasks.Row{}, err
	}
	if ref.ID == "" {
		return nil, tasks.Row{}, invalid("id is required")
	}
	r, err := a.Tasks.Row(ctx, a2a.TaskID(ref.ID))
	if isNotFound(err) {
		return nil, tasks.Row{}, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no task %q at %s", ref.ID, a.Name)}
	}
	return a, r, err
}

func (g *Gateway) getTask(ctx context.Context, params json.RawMessage) (any, error) {
	var p taskRef
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if _, local := g.agents[p.Agent]; !local && p.Agent != "" {
		d, err := g.sentDetail(ctx, p)
		var e *Error
		if errors.As(err, &e) && e.Code == CodeNotFound && g.cfg.Bridge != nil && p.ID != "" {
			return g.channelDetail(ctx, p) // not from a chat: from a channel, if any
		}
		return d, err
	}
	a, r, err := g.task(ctx, p)
	if err != nil {
		return nil, err
	}
	log, err := a.Tasks.Log(ctx, r.Task.ID, 0)
	if err != nil {
		return nil, err
	}
	d, err := g.detail(a.ID, r, log)
	if err != nil {
		return nil, err
	}
	s, err := g.summaries(ctx, a.ID, []tasks.Row{r})
	if err != nil {
		return nil, err
	}
	d.Summary = s[0]
	d.Push, err = g.pushSummary(ctx, a, string(r.Task.ID))
	return d, err
}

func (g *Gateway) detail(agent string, r tasks.Row, log []*tasks.Logged) (TaskDetail, error) {
	raw, err := json.Marshal(r.Task)
	if err != nil {
		return TaskDetail{}, err
	}
	d := TaskDetail{Summary: g.summary(agent, r), History: []Message{}, Artifacts: []Artifact{},
		Status: statusOf(r.Task.Status), Events: timeline(log), Raw: raw}
	for _, m := range r.Task.History {
		if m := messageOf(m); m != nil {
			d.History = append(d.History, *m)
		}
	}
	for _, a := range r.Task.Artifacts {
		if a := artifactOf(a); a != nil {
			d.Artifacts = append(d.Artifacts, *a)
		}
	}
	return d, nil
}

func (g *Gateway) taskEvents(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		taskRef
		After int64
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if _, local := g.agents[p.Agent]; !local && p.Agent != "" {
		d, err := g.sentDetail(ctx, p.taskRef)
		if err != nil {
			return nil, err
		}
		events := []TimelineEvent{}
		for _, e := range d.Events {
			if e.Seq > p.After {
				events = append(events, e)
			}
		}
		return map[string]any{"events": events}, nil
	}
	a, r, err := g.task(ctx, p.taskRef)
	if err != nil {
		return nil, err
	}
	log, err := a.Tasks.Log(ctx, r.Task.ID, p.After)
	if err != nil {
		return nil, err
	}
	return map[string]any{"events": timeline(log)}, nil
}

// taskUpdate is the pushed form of a logged task event.
func (g *Gateway) taskUpdate(ctx context.Context, e bus.Event) (TaskUpdate, bool) {
	l, ok := e.Data.(*tasks.Logged)
	a, known := g.agents[e.Source]
	if !ok || !known {
		return TaskUpdate{}, false
	}
	r, err := a.Tasks.Row(ctx, l.TaskID)
	if err != nil {
		return TaskUpdate{}, false
	}
	sum, err := g.summaries(ctx, a.ID, []tasks.Row{r})
	if err != nil {
		return TaskUpdate{}, false
	}
	return TaskUpdate{Agent: a.ID, TaskID: string(l.TaskID), Summary: sum[0], Event: timelineOf(l)}, true
}

// inboxLimit bounds the inbox list: the newest tasks, which is what a person scrolls.
const inboxLimit = 200

func (g *Gateway) inboxAgent() (*LocalAgent, error) {
	if g.cfg.Inbox == nil {
		return nil, &Error{Code: CodeNotFound, Message: "this hub has no inbox"}
	}
	return g.agent(g.cfg.InboxAgent)
}

func (g *Gateway) inboxList(ctx context.Context) (any, error) {
	a, err := g.inboxAgent()
	if err != nil {
		return nil, err
	}
	rows, err := a.Tasks.Page(ctx, tasks.PageQuery{Limit: inboxLimit})
	if err != nil {
		return nil, err
	}
	unread, err := g.cfg.Inbox.Unread(ctx, rows)
	if err != nil {
		return nil, err
	}
	_, unreadCount, err := g.cfg.Inbox.Counts(ctx)
	if err != nil {
		return nil, err
	}
	summaries, err := g.summaries(ctx, a.ID, rows)
	if err != nil {
		return nil, err
	}
	items := make([]InboxItem, 0, len(rows))
	for i, r := range rows {
		if !inbox.ForOwner(r.Task) { // answered by another skill (knowledge): never the owner's to act on
			continue
		}
		item := InboxItem{TaskSummary: summaries[i], Unread: unread[r.Task.ID], Sender: senderOf(summaries[i], r.Owner)}
		// A task waiting for the owner carries the inbox's note to the sender as its status message;
		// the owner wants the sender's words instead.
		if m := r.Task.Status.Message; m != nil && !inbox.WaitingForOwner(r.Task.Status.State) {
			item.LastMessage = messageOf(m)
		} else {
			for i := len(r.Task.History) - 1; i >= 0; i-- {
				if m := r.Task.History[i]; m.Role == a2a.MessageRoleUser || !inbox.WaitingForOwner(r.Task.Status.State) {
					item.LastMessage = messageOf(m)
					break
				}
			}
		}
		items = append(items, item)
	}
	return map[string]any{"tasks": items, "unread": unreadCount}, nil
}

// senderOf names who sent an inbox task, from the principal that created it (its owner column:
// "agent://NAME" or "anonymous"; "" before callers were told apart): the owner themselves when it came
// from one of their chats.
func senderOf(t TaskSummary, principal string) string {
	switch {
	case t.ConversationID != "":
		return "You (from Chats)"
	case strings.HasPrefix(principal, "agent://"):
		return strings.TrimPrefix(principal, "agent://")
	}
	return "Anonymous (this computer)"
}

// File is an attachment as the UI sends it.
type File struct {
	Name      string `json:"name"`
	MediaType string `json:"mediaType"`
	Bytes     []byte `json:"bytes"` // base64 in JSON
}

func (g *Gateway) inboxAct(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ID     string
		Action string
		Text   string
		Files  []File
		A2UI   []any // A2UI messages about a surface the sender drew (an action, an error)
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	a, err := g.inboxAgent()
	if err != nil {
		return nil, err
	}
	action := inbox.Action(p.Action)
	if !slices.Contains([]inbox.Action{inbox.Answer, inbox.AskBack, inbox.Complete, inbox.Reject}, action) {
		return nil, invalid("action must be answer, ask, complete or reject, not %q", p.Action)
	}
	files := make([]inbox.File, len(p.Files))
	for i, f := range p.Files {
		files[i] = inbox.File{Name: f.Name, MediaType: f.MediaType, Bytes: f.Bytes}
	}
	if err := g.cfg.Inbox.ActReply(ctx, a2a.TaskID(p.ID), action, inbox.Reply{Text: p.Text, Files: files, A2UI: p.A2UI}); err != nil {
		if isNotFound(err) {
			return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no inbox task %q", p.ID)}
		}
		return nil, err
	}
	g.cfg.Bus.Publish(bus.Event{Topic: seenTopic, Key: p.ID})
	r, err := a.Tasks.Row(ctx, a2a.TaskID(p.ID))
	if err != nil {
		return nil, err
	}
	s, err := g.summaries(ctx, a.ID, []tasks.Row{r})
	if err != nil {
		return nil, err
	}
	return s[0], nil
}

func (g *Gateway) inboxMarkRead(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct{ ID string }
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if _, err := g.inboxAgent(); err != nil {
		return nil, err
	}
	if err := g.cfg.Inbox.MarkRead(ctx, a2a.TaskID(p.ID)); err != nil {
		if isNotFound(err) {
			return nil, &Error{Code: CodeNotFound, Message: fmt.Sprintf("no inbox task %q", p.ID)}
		}
		return nil, err
	}
	g.cfg.Bus.Publish(bus.Event{Topic: seenTopic, Key: p.ID})
	_, unread, err := g.cfg.Inbox.Counts(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]int{"unread": unread}, nil
}
