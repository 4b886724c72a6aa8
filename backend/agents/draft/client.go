package draft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
)

// Client speaks the v0.1 draft: tasks/send, tasks/sendSubscribe, tasks/get, tasks/cancel and
// tasks/resubscribe, in which the client chooses a new task's id and its sessionId.
//
// With vault set it speaks the AgentVault profile instead: the agent chooses a new task's id (the
// client sends none), there are no sessions on the wire, and a stream is tasks/send followed by
// tasks/sendSubscribe {id}, which only subscribes to the task's events.
type Client struct {
	url      string
	hc       *http.Client
	vault    bool
	sessions sessionCache
}

// New returns the client of one v0.1 endpoint; vault selects the AgentVault profile.
func New(url string, hc *http.Client, vault bool) *Client {
	return &Client{url: url, hc: hc, vault: vault}
}

// vaultSendParams is the profile's TaskSendParams: {id?, message}.
type vaultSendParams struct {
	ID      string     `json:"id,omitempty"`
	Message outMessage `json:"message"`
}

// wire is the tasks/send params as this agent reads them.
func (d *Client) wire(p draftSendParams, isNew bool) any {
	if !d.vault {
		return p
	}
	v := vaultSendParams{ID: p.ID, Message: p.Message}
	if isNew {
		v.ID = "" // the agent names its tasks
	}
	return v
}

type draftSendParams struct {
	ID        string     `json:"id,omitempty"`
	SessionID string     `json:"sessionId,omitempty"`
	Message   outMessage `json:"message"`
}

type draftIDParams struct {
	ID string `json:"id"`
}

type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// sendParams builds tasks/send params: a new task gets an id chosen here and, unless the message
// continues a conversation, a new session. A turn of a known task keeps the task's session (left out
// when unknown: the server knows it).
func (d *Client) sendParams(msg *a2a.Message) (p draftSendParams, isNew bool, err error) {
	if p.Message, err = toWireMessage(msg); err != nil {
		return p, false, err
	}
	p.ID, p.SessionID = string(msg.TaskID), msg.ContextID
	if p.ID == "" {
		isNew = true
		p.ID = uuid.NewString()
		if p.SessionID == "" {
			p.SessionID = uuid.NewString()
		}
	} else if p.SessionID == "" {
		p.SessionID = d.sessions.get(p.ID)
	}
	return p, isNew, nil
}

// Send is tasks/send: a new task when msg.TaskID is empty, else a turn of that task.
func (d *Client) Send(ctx context.Context, msg *a2a.Message) (a2a.SendMessageResult, error) {
	p, isNew, err := d.sendParams(msg)
	if err != nil {
		return nil, err
	}
	raw, err := d.call(ctx, "tasks/send", d.wire(p, isNew))
	if err != nil && isNew && !d.vault && errors.Is(err, a2a.ErrTaskNotFound) {
		// An AgentVault server whose card did not say so chooses a new task's id itself and refuses
		// one it does not know.
		p.ID = ""
		raw, err = d.call(ctx, "tasks/send", p)
	}
	if err != nil {
		return nil, err
	}
	var t wireTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%w: tasks/send result: %v", a2a.ErrInvalidAgentResponse, err)
	}
	if t.ID == "" { // an agent that answers with a message rather than a task
		var m wireMessage
		if json.Unmarshal(raw, &m) == nil && m.Parts != nil {
			return asResult(m.toA2A(a2a.TaskInfo{ContextID: p.SessionID}))
		}
	}
	if t.idOnly() {
		d.sessions.put(t.ID, p.SessionID)
		return asResult(d.GetTask(ctx, a2a.TaskID(t.ID)))
	}
	return asResult(d.task(&t, p.SessionID))
}

// asResult passes on a task or message, without turning a nil one into a non-nil interface.
func asResult[T a2a.SendMessageResult](v T, err error) (a2a.SendMessageResult, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Stream is tasks/sendSubscribe (in the AgentVault profile, tasks/send then a subscription).
func (d *Client) Stream(ctx context.Context, msg *a2a.Message) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		p, isNew, err := d.sendParams(msg)
		if err != nil {
			yield(nil, err)
			return
		}
		if d.vault {
			d.vaultStream(ctx, p, isNew, yield)
			return
		}
		d.sessions.put(p.ID, p.SessionID)
		d.events(ctx, "tasks/sendSubscribe", p, a2a.TaskInfo{TaskID: a2a.TaskID(p.ID), ContextID: p.SessionID}, yield)
	}
}

// vaultStream is the AgentVault profile's stream: tasks/send delivers the message and names the
// task, then tasks/sendSubscribe {id} streams the task's events.
func (d *Client) vaultStream(ctx context.Context, p draftSendParams, isNew bool, yield func(a2a.Event, error) bool) {
	raw, err := d.call(ctx, "tasks/send", d.wire(p, isNew))
	if err != nil {
		yield(nil, err)
		return
	}
	var sent struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &sent); err != nil || sent.ID == "" {
		yield(nil, fmt.Errorf("%w: tasks/send result names no task: %.200s", a2a.ErrInvalidAgentResponse, raw))
		return
	}
	d.sessions.put(sent.ID, p.SessionID)
	info := a2a.TaskInfo{TaskID: a2a.TaskID(sent.ID), ContextID: p.SessionID}
	resp, err := d.post(ctx, "tasks/sendSubscribe", draftIDParams{ID: sent.ID}, true)
	if err != nil {
		yield(nil, err)
		return
	}
	defer resp.Body.Close()
	// The profile's subscription carries real-time updates only: what the agent did between
	// tasks/send's answer and the subscription (all of it, for an agent that answers at once, as one
	// answering a question in place does) went to nobody. Ask once, now that the subscription is
	// open, and pass that on as the events a stream would have carried.
	caught, final, err := d.vaultCatchUp(ctx, info)
	if err != nil {
		yield(nil, err)
		return
	}
	for _, ev := range caught {
		if !yield(ev, nil) {
			return
		}
	}
	if !final {
		d.read(resp, info, yield)
	}
}

// vaultCatchUp is what an AgentVault task did since the client's last message, read with tasks/get,
// as stream events: the agent's messages since then, its artifacts, and its status (the question
// as the message of one that waits for the client). final reports a state that ends a stream.
func (d *Client) vaultCatchUp(ctx context.Context, info a2a.TaskInfo) (evs []a2a.Event, final bool, err error) {
	task, err := d.GetTask(ctx, info.TaskID)
	if err != nil {
		return nil, false, err
	}
	since := 0
	for i, m := range task.History {
		if m.Role == a2a.MessageRoleUser {
			since = i + 1
		}
	}
	for _, m := range task.History[since:] {
		if m != task.Status.Message { // the question goes with its status, as a stream carries it
			evs = append(evs, m)
		}
	}
	for _, a := range task.Artifacts {
		evs = append(evs, &a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: a, LastChunk: true})
	}
	evs = append(evs, &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status})
	state := task.Status.State
	return evs, state.Terminal() || waitsForClient(state), nil
}

// GetTask is tasks/get.
func (d *Client) GetTask(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	raw, err := d.call(ctx, "tasks/get", draftIDParams{ID: string(id)})
	if err != nil {
		return nil, err
	}
	var t wireTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%w: tasks/get result: %v", a2a.ErrInvalidAgentResponse, err)
	}
	return d.task(&t, d.sessions.get(string(id)))
}

// Cancel is tasks/cancel; it returns the task as it then is.
func (d *Client) Cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	raw, err := d.call(ctx, "tasks/cancel", draftIDParams{ID: string(id)})
	if err != nil {
		return nil, err
	}
	var t wireTask
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%w: tasks/cancel result: %v", a2a.ErrInvalidAgentResponse, err)
	}
	// AgentVault answers {success, message} rather than the task.
	var verdict struct {
		Success *bool  `json:"success"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &verdict)
	if verdict.Success != nil && !*verdict.Success {
		return nil, a2a.NewError(a2a.ErrTaskNotCancelable, firstOf(verdict.Message, "the agent refused to cancel the task"))
	}
	if t.Status == nil && t.State == "" {
		return d.GetTask(ctx, id)
	}
	return d.task(&t, d.sessions.get(string(id)))
}

// Subscribe is tasks/resubscribe (tasks/sendSubscribe {id} in the AgentVault profile).
func (d *Client) Subscribe(ctx context.Context, id a2a.TaskID) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		session := d.sessions.get(string(id))
		if session == "" { // events carry no session in the draft: learn it, for the events' context id
			if t, err := d.GetTask(ctx, id); err == nil {
				session = t.ContextID
			}
		}
		method := "tasks/resubscribe"
		if d.vault { // the profile has no resubscribe: tasks/sendSubscribe {id} is one
			method = "tasks/sendSubscribe"
		}
		d.events(ctx, method, draftIDParams{ID: string(id)}, a2a.TaskInfo{TaskID: id, ContextID: session}, yield)
	}
}

// Close releases nothing: the client holds no connection of its own.
func (d *Client) Close() error { return nil }

func (d *Client) task(t *wireTask, session string) (*a2a.Task, error) {
	task, err := t.toA2A(session)
	if err != nil {
		return nil, err
	}
	d.sessions.put(string(task.ID), task.ContextID)
	return task, nil
}

// post sends one JSON-RPC request. A non-200 answer is an error: the JSON-RPC error it carries when
// it carries one, else the HTTP status.
func (d *Client) post(ctx context.Context, method string, params any, stream bool) (*http.Response, error) {
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: uuid.NewString(), Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	return jsonrpc.Post(ctx, d.hc, d.url, body, stream, func(body []byte) error {
		var r rpcResponse
		if json.Unmarshal(body, &r) == nil && r.Error != nil {
			return r.Error.ToA2AError()
		}
		return nil
	})
}

type rpcResponse struct {
	Result json.RawMessage      `json:"result"`
	Error  *jsonrpc.ErrorObject `json:"error"`
}

// call sends a request and returns its result, or its error as an a2a-go error.
func (d *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	resp, err := d.post(ctx, method, params, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := jsonrpc.ReadBody(resp)
	if err != nil {
		return nil, err
	}
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%w: %s answer is not a JSON-RPC response: %v", a2a.ErrInvalidAgentResponse, method, err)
	}
	if r.Error != nil {
		return nil, r.Error.ToA2AError()
	}
	if len(r.Result) == 0 || string(r.Result) == "null" {
		return nil, fmt.Errorf("%w: %s answer has no result", a2a.ErrInvalidAgentResponse, method)
	}
	return r.Result, nil
}

// sessionCache remembers each task's sessionId, which draft stream events do not carry. It is
// bounded: when full it starts over, and a forgotten session is fetched again with tasks/get.
type sessionCache struct {
	mu sync.Mutex
	m  map[string]string
}

const maxRememberedSessions = 4096

func (s *sessionCache) get(taskID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[taskID]
}

func (s *sessionCache) put(taskID, session string) {
	if taskID == "" || session == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxRememberedSessions {
		s.m = map[string]string{}
	}
	s.m[taskID] = session
}
