package draft

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
)

// A draft stream is Server-Sent Events. In the v0.1 draft each `data:` is a JSON-RPC response whose
// result is a status update {id, status, final} or an artifact update {id, artifact}. AgentVault
// instead names its events (task_status, task_message, task_artifact, error) and sends the payload
// bare: {taskId, state, message, timestamp}, {taskId, message}, {taskId, artifact}, {error, message}.

type wireStatusEvent struct {
	ID        string          `json:"id"`
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Status    json.RawMessage `json:"status"`
	State     string          `json:"state"`
	Message   json.RawMessage `json:"message"`
	Timestamp json.RawMessage `json:"timestamp"`
	Final     *bool           `json:"final"`
	Metadata  map[string]any  `json:"metadata"`
}

type wireArtifactEvent struct {
	ID        string         `json:"id"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  *wireArtifact  `json:"artifact"`
	Append    bool           `json:"append"` // where drafts after v0.1 put them
	LastChunk bool           `json:"lastChunk"`
	Metadata  map[string]any `json:"metadata"`
}

type wireMessageEvent struct {
	ID        string          `json:"id"`
	TaskID    string          `json:"taskId"`
	ContextID string          `json:"contextId"`
	Message   json.RawMessage `json:"message"`
}

// events opens a streaming call and yields its events as a2a-go types until the stream ends, a
// final status arrives, or an error (yielded once). info names the task the stream is about.
func (d *Client) events(ctx context.Context, method string, params any, info a2a.TaskInfo, yield func(a2a.Event, error) bool) {
	resp, err := d.post(ctx, method, params, true)
	if err != nil {
		yield(nil, err)
		return
	}
	defer resp.Body.Close()
	d.read(resp, info, yield)
}

// read passes on the events of an open stream (see events).
func (d *Client) read(resp *http.Response, info a2a.TaskInfo, yield func(a2a.Event, error) bool) {
	var said *a2a.Message // the agent's last message in this stream
	for ev, err := range streamOf(resp) {
		if err != nil {
			yield(nil, err)
			return
		}
		out, final, err := decodeEvent(ev, info)
		if err != nil {
			yield(nil, err)
			return
		}
		switch v := out.(type) {
		case nil:
			continue
		case *a2a.Message:
			if v.Role == a2a.MessageRoleAgent {
				said = v
			}
		case *a2a.TaskStatusUpdateEvent:
			// AgentVault asks its question as a task_message, then sends INPUT_REQUIRED with no
			// message: the question is the status's message, as in the other dialects.
			if v.Status.Message == nil && waitsForClient(v.Status.State) && said != nil && said.TaskID == v.TaskID {
				v.Status.Message = said
			}
		}
		if !yield(out, nil) || final {
			return
		}
	}
}

// streamOf reads an event stream; an agent that answers with one JSON document instead is read as
// a stream of that one event.
func streamOf(resp *http.Response) iter.Seq2[jsonrpc.Event, error] {
	if jsonrpc.IsEventStream(resp.Header) {
		return jsonrpc.ReadSSE(resp.Body, jsonrpc.MaxSSEEvent)
	}
	return func(yield func(jsonrpc.Event, error) bool) {
		body, err := jsonrpc.ReadBody(resp)
		yield(jsonrpc.Event{Data: body}, err)
	}
}

// decodeEvent converts one stream event. It returns nil for an event to skip (an unknown name), and
// final when the event ends the stream.
func decodeEvent(ev jsonrpc.Event, info a2a.TaskInfo) (a2a.Event, bool, error) {
	kind := ev.Name
	switch kind {
	case "", "message":
		kind = ""
	case "task_status", "task_message", "task_artifact":
	case "error":
		return nil, false, streamError(ev.Data)
	default:
		return nil, false, nil
	}
	payload, err := unwrapResponse(ev.Data)
	if err != nil {
		return nil, false, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil || fields == nil {
		return nil, false, fmt.Errorf("%w: stream event is not a JSON object: %.200s", a2a.ErrInvalidAgentResponse, payload)
	}
	has := func(k string) bool { _, ok := fields[k]; return ok }
	if kind == "" {
		switch {
		case has("artifact"):
			kind = "task_artifact"
		case has("status") || has("state"):
			kind = "task_status"
		case has("message"):
			kind = "task_message"
		case has("role") && has("parts"):
			var m wireMessage
			if err := json.Unmarshal(payload, &m); err != nil {
				return nil, false, fmt.Errorf("%w: stream message: %v", a2a.ErrInvalidAgentResponse, err)
			}
			msg, err := m.toA2A(info)
			return msg, false, err
		default:
			return nil, false, fmt.Errorf("%w: stream event is neither a status, an artifact nor a message: %.200s", a2a.ErrInvalidAgentResponse, payload)
		}
	}
	switch kind {
	case "task_status":
		return statusEvent(payload, info)
	case "task_artifact":
		return artifactEvent(payload, info)
	default:
		var w wireMessageEvent
		if err := json.Unmarshal(payload, &w); err != nil {
			return nil, false, fmt.Errorf("%w: stream message event: %v", a2a.ErrInvalidAgentResponse, err)
		}
		msg, err := messageFrom(w.Message, eventInfo(info, w.ID, w.TaskID, w.ContextID))
		if msg == nil || err != nil {
			return nil, false, err
		}
		return msg, false, nil
	}
}

func statusEvent(payload json.RawMessage, info a2a.TaskInfo) (a2a.Event, bool, error) {
	var w wireStatusEvent
	if err := json.Unmarshal(payload, &w); err != nil {
		return nil, false, fmt.Errorf("%w: stream status event: %v", a2a.ErrInvalidAgentResponse, err)
	}
	ti := eventInfo(info, w.ID, w.TaskID, w.ContextID)
	status, err := statusFrom(w.Status, w.State, w.Message, w.Timestamp, ti)
	if err != nil {
		return nil, false, err
	}
	// Without the draft's final flag (AgentVault), a state that waits for the client or has ended
	// ends the stream.
	s := status.State
	final := s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
	if w.Final != nil {
		final = *w.Final
	}
	return &a2a.TaskStatusUpdateEvent{TaskID: ti.TaskID, ContextID: ti.ContextID, Status: status, Metadata: w.Metadata}, final, nil
}

func artifactEvent(payload json.RawMessage, info a2a.TaskInfo) (a2a.Event, bool, error) {
	var w wireArtifactEvent
	if err := json.Unmarshal(payload, &w); err != nil {
		return nil, false, fmt.Errorf("%w: stream artifact event: %v", a2a.ErrInvalidAgentResponse, err)
	}
	if w.Artifact == nil {
		return nil, false, fmt.Errorf("%w: stream artifact event without an artifact", a2a.ErrInvalidAgentResponse)
	}
	art, err := w.Artifact.toA2A(0)
	if err != nil {
		return nil, false, err
	}
	ti := eventInfo(info, w.ID, w.TaskID, w.ContextID)
	return &a2a.TaskArtifactUpdateEvent{TaskID: ti.TaskID, ContextID: ti.ContextID, Artifact: art,
		Append: w.Artifact.Append || w.Append, LastChunk: w.Artifact.LastChunk || w.LastChunk, Metadata: w.Metadata}, false, nil
}

// eventInfo is the task an event is about: the ids it names, else the stream's.
func eventInfo(info a2a.TaskInfo, id, taskID, contextID string) a2a.TaskInfo {
	if id := firstOf(id, taskID); id != "" {
		info.TaskID = a2a.TaskID(id)
	}
	if contextID != "" {
		info.ContextID = contextID
	}
	return info
}

// unwrapResponse returns a JSON-RPC response's result, or its error; data that is not a JSON-RPC
// response (AgentVault's bare payloads) is returned as it is.
func unwrapResponse(data []byte) (json.RawMessage, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("%w: stream event is not JSON: %v", a2a.ErrInvalidAgentResponse, err)
	}
	if raw := firstRaw(env["error"]); raw != nil {
		var e jsonrpc.ErrorObject
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("%w: stream error event: %.200s", a2a.ErrInvalidAgentResponse, raw)
		}
		return nil, e.ToA2AError()
	}
	if result, ok := env["result"]; ok {
		return result, nil
	}
	if _, ok := env["jsonrpc"]; ok {
		return nil, fmt.Errorf("%w: JSON-RPC response with neither result nor error", a2a.ErrInvalidAgentResponse)
	}
	return data, nil
}

// streamError reads AgentVault's error event, {"error": code, "message": text}, or a JSON-RPC
// error object.
func streamError(data []byte) error {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("%w: stream error event is not JSON: %.200s", a2a.ErrInvalidAgentResponse, data)
	}
	var rpc jsonrpc.ErrorObject
	if json.Unmarshal(e.Error, &rpc) == nil && rpc.Code != "" {
		return rpc.ToA2AError()
	}
	code := string(bytes.Trim(firstRaw(e.Error), `"`))
	return a2a.NewError(a2a.ErrServerError, fmt.Sprintf("agent stream error %s: %s", firstOf(code, "(no code)"), firstOf(e.Message, "(no message)")))
}
