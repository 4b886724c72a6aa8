package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// Extension calls: the methods of the channels and knowledge-graph extensions (`channels/*`,
// `knowledge/*`), called on an added agent's JSON-RPC endpoint, so the owner can browse and edit
// another hub's channels and knowledge graph through their own. They go through the same HTTP
// client as the agent's conversations (its saved credentials, the wire log with every secret
// masked, cross-origin redirects refused), under the same limits (jsonrpc.MaxJSONBody for an
// answer, jsonrpc.MaxSSEEvent for one stream event). The methods' params and results are the
// extensions' own; they are passed through as JSON, never reinterpreted here.

// The extensions an agent may offer, by method prefix.
const (
	ExtChannels  = "channels"
	ExtKnowledge = "knowledge"
)

// ErrExtensionNotOffered means the agent's card does not advertise the extension a method belongs
// to (capabilities.messaging.channels, capabilities.knowledgeGraph), or the method belongs to none.
var ErrExtensionNotOffered = errors.New("the agent does not offer this extension")

// RPCError is a JSON-RPC error the agent answered, passed on as it is: its code (an extension's own,
// e.g. -32020 channel not found), message and data. Its message and data are masked like
// everything else returned from the agent.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage // nil when the agent sent none
}

func (e *RPCError) Error() string { return e.Message }

// RPCCode is the agent's JSON-RPC code.
func (e *RPCError) RPCCode() int { return e.Code }

// RPCData is the agent's error data (a json.RawMessage), or nil.
func (e *RPCError) RPCData() any {
	if len(e.Data) == 0 || string(e.Data) == "null" {
		return nil
	}
	return e.Data
}

// ExtensionOf names the extension a method belongs to: ExtChannels, ExtKnowledge, or "".
func ExtensionOf(method string) string {
	prefix, rest, ok := strings.Cut(method, "/")
	if !ok || rest == "" {
		return ""
	}
	switch prefix {
	case ExtChannels, ExtKnowledge:
		return prefix
	}
	return ""
}

// OffersExtension checks that a card (raw JSON) advertises the extension method belongs to: an
// object at capabilities.messaging.channels for `channels/*`, capabilities.knowledgeGraph true for
// `knowledge/*`. The error wraps ErrExtensionNotOffered and says which.
func OffersExtension(card []byte, method string) error {
	ext := ExtensionOf(method)
	if ext == "" {
		return fmt.Errorf("%w: %q is neither a channels/ nor a knowledge/ method", ErrExtensionNotOffered, method)
	}
	var doc struct {
		Capabilities struct {
			Messaging struct {
				Channels json.RawMessage `json:"channels"`
			} `json:"messaging"`
			KnowledgeGraph json.RawMessage `json:"knowledgeGraph"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(card, &doc) // a card that is not the expected shape offers nothing
	switch ext {
	case ExtChannels:
		var obj map[string]json.RawMessage
		if json.Unmarshal(doc.Capabilities.Messaging.Channels, &obj) == nil && obj != nil {
			return nil
		}
		return fmt.Errorf("%w: its card has no capabilities.messaging.channels, so it has no channels", ErrExtensionNotOffered)
	default:
		var on bool
		if json.Unmarshal(doc.Capabilities.KnowledgeGraph, &on) == nil && on {
			return nil
		}
		return fmt.Errorf("%w: its card does not set capabilities.knowledgeGraph, so it has no knowledge graph", ErrExtensionNotOffered)
	}
}

// extEndpoint is the URL extension methods are sent to: the card's first v1.0 or v0.3 JSON-RPC
// endpoint (the extensions are JSON-RPC methods of their own, the same in every dialect), else its
// first JSON-RPC endpoint of any dialect.
func extEndpoint(card []byte) (string, error) {
	eps, err := Endpoints(card)
	if err != nil {
		return "", err
	}
	for _, ep := range eps {
		if ep.Binding == JSONRPC && (ep.Dialect == V10 || ep.Dialect == V03) {
			return ep.URL, nil
		}
	}
	for _, ep := range eps {
		if ep.Binding == JSONRPC {
			return ep.URL, nil
		}
	}
	return "", fmt.Errorf("%w: its card offers no JSON-RPC endpoint, where the extensions' methods are", ErrExtensionNotOffered)
}

// extTarget is where and how one extension call goes.
type extTarget struct {
	url    string
	hc     *http.Client
	masker func() (*wirelog.Masker, error) // nil: nothing to mask
}

func (c *Clients) extTarget(ctx context.Context, agentID, method string) (extTarget, error) {
	rem, hc, err := c.client(ctx, agentID)
	if err != nil {
		return extTarget{}, err
	}
	if err := OffersExtension(rem.Card, method); err != nil {
		return extTarget{}, err
	}
	u, err := extEndpoint(rem.Card)
	if err != nil {
		return extTarget{}, err
	}
	return extTarget{url: u, hc: hc, masker: credentials.MaskerOf(hc)}, nil
}

// mask hides the agent's secrets in raw JSON (through wirelog.Masker.Text, which keeps it JSON).
func (t extTarget) mask(raw json.RawMessage) (json.RawMessage, error) {
	if t.masker == nil || raw == nil {
		return raw, nil
	}
	m, err := t.masker()
	if err != nil {
		return nil, err
	}
	return json.RawMessage(m.Text(string(raw))), nil
}

// maskErr hides the agent's secrets in an error: in an RPCError's message and data, else in the
// error's text.
func (t extTarget) maskErr(err error) error {
	if t.masker == nil || err == nil {
		return err
	}
	m, merr := t.masker()
	if merr != nil {
		return merr
	}
	var rpc *RPCError
	if errors.As(err, &rpc) {
		out := &RPCError{Code: rpc.Code, Message: m.Text(rpc.Message)}
		if rpc.Data != nil {
			out.Data = json.RawMessage(m.Text(string(rpc.Data)))
		}
		return out
	}
	return maskError(m, err)
}

// extResponse is a JSON-RPC response as an agent sends it.
type extResponse struct {
	Result json.RawMessage      `json:"result"`
	Error  *jsonrpc.ErrorObject `json:"error"`
}

// rpcErrorOf turns the agent's error object into an RPCError, with its own code.
func rpcErrorOf(e *jsonrpc.ErrorObject) *RPCError {
	code, err := e.Code.Int64()
	if err != nil {
		// Not a number: still the agent's answer, which the caller sees as an internal error.
		return &RPCError{Code: -32603, Message: fmt.Sprintf("agent error %q: %s", e.Code, e.Message), Data: e.Data}
	}
	return &RPCError{Code: int(code), Message: e.Message, Data: e.Data}
}

// post sends one JSON-RPC request for method to the target. A non-200 answer that carries a JSON-RPC
// error is that error; one that does not is an HTTP status error (a 401/403 is a
// *credentials.AuthError, from the client's transport).
func (t extTarget) post(ctx context.Context, method string, params json.RawMessage, stream bool) (*http.Response, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		params = json.RawMessage("{}")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      string          `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{"2.0", uuid.NewString(), method, params})
	if err != nil {
		return nil, fmt.Errorf("params are not JSON: %w", err)
	}
	return jsonrpc.Post(ctx, t.hc, t.url, body, stream, func(body []byte) error {
		var r extResponse
		if json.Unmarshal(body, &r) == nil && r.Error != nil {
			return rpcErrorOf(r.Error)
		}
		return nil
	})
}

// decodeResponse reads one JSON-RPC response: its result, or its error as an *RPCError.
func decodeResponse(method string, body []byte) (json.RawMessage, error) {
	var r extResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the agent's answer to %s is not a JSON-RPC response: %v", method, err)
	}
	if r.Error != nil {
		return nil, rpcErrorOf(r.Error)
	}
	if len(r.Result) == 0 {
		return nil, fmt.Errorf("the agent's answer to %s has neither a result nor an error", method)
	}
	return r.Result, nil
}

// ExtCall calls an extension method (`channels/*`, `knowledge/*`) on a registered agent and returns
// its JSON-RPC result. The agent's JSON-RPC error is an *RPCError; a card that does not advertise
// the extension is ErrExtensionNotOffered, without any network I/O.
func (c *Clients) ExtCall(ctx context.Context, agentID, method string, params json.RawMessage) (json.RawMessage, error) {
	t, err := c.extTarget(ctx, agentID, method)
	if err != nil {
		return nil, err
	}
	result, err := t.call(ctx, method, params)
	if err != nil {
		return nil, t.maskErr(err)
	}
	return t.mask(result)
}

// RawCall sends one JSON-RPC request the owner wrote by hand (any method, as a2a-inspector lets
// one) to a registered agent's JSON-RPC endpoint, with its saved credentials, recorded in its wire
// log like every other call; its result, or the agent's JSON-RPC error as an *RPCError. A streaming
// method's answer is not one JSON document: the caller reads its events in the wire log.
func (c *Clients) RawCall(ctx context.Context, agentID, method string, params json.RawMessage) (json.RawMessage, error) {
	rem, hc, err := c.client(ctx, agentID)
	if err != nil {
		return nil, err
	}
	u, err := extEndpoint(rem.Card)
	if err != nil {
		return nil, fmt.Errorf("%w (a request by hand goes to a JSON-RPC endpoint)", err)
	}
	t := extTarget{url: u, hc: hc, masker: credentials.MaskerOf(hc)}
	result, err := t.call(ctx, method, params)
	if err != nil {
		return nil, t.maskErr(err)
	}
	return t.mask(result)
}

func (t extTarget) call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	resp, err := t.post(ctx, method, params, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := jsonrpc.ReadBody(resp)
	if err != nil {
		return nil, err
	}
	return decodeResponse(method, body)
}

// ExtStream is an open stream of an extension method (channels/stream, knowledge/subscribe).
type ExtStream struct {
	t      extTarget
	method string
	resp   *http.Response
	first  json.RawMessage // a result the agent answered with one JSON document instead of a stream
}

// ExtStream opens a streaming extension method on a registered agent. An error before the stream
// opens (the agent's JSON-RPC error: unknown channel, bad query) is returned here, and then there is
// no stream. Otherwise the caller reads Results and must Close the stream.
func (c *Clients) ExtStream(ctx context.Context, agentID, method string, params json.RawMessage) (*ExtStream, error) {
	t, err := c.extTarget(ctx, agentID, method)
	if err != nil {
		return nil, err
	}
	resp, err := t.post(ctx, method, params, true)
	if err != nil {
		return nil, t.maskErr(err)
	}
	s := &ExtStream{t: t, method: method, resp: resp}
	if !jsonrpc.IsEventStream(resp.Header) {
		// One JSON document: an error refusing the stream (answered with HTTP 200), or an agent that
		// does not stream and answered once.
		defer resp.Body.Close()
		body, err := jsonrpc.ReadBody(resp)
		if err != nil {
			return nil, t.maskErr(err)
		}
		if s.first, err = decodeResponse(method, body); err != nil {
			return nil, t.maskErr(err)
		}
		s.resp = nil
	}
	return s, nil
}

// Results yields each result of the stream, in order, until the agent ends it (the sequence ends),
// an error arrives (yielded once: the agent's JSON-RPC error event as an *RPCError, or a broken
// connection), or the caller stops. Secrets are masked as in ExtCall. The body is closed when the
// sequence ends.
func (s *ExtStream) Results() iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		if s.first != nil {
			res, err := s.t.mask(s.first)
			yield(res, err)
			return
		}
		if s.resp == nil {
			return
		}
		defer s.Close()
		// A channel event too large to take in (an older hub stored a 10 MiB answer) is passed as a
		// placeholder: ending the stream there would end it there again on every resume.
		pass := s.method == "channels/stream"
		for ev, err := range jsonrpc.ScanSSE(s.resp.Body, jsonrpc.MaxSSEEvent, pass) {
			var res json.RawMessage
			switch {
			case err == nil && ev.TooLarge:
				res = channelPlaceholder(ev)
			case err == nil:
				res, err = decodeResponse(s.method, ev.Data)
			}
			if err != nil {
				yield(nil, s.t.maskErr(err))
				return
			}
			if res, err = s.t.mask(res); err != nil {
				yield(nil, err)
				return
			}
			if !yield(res, nil) {
				return
			}
		}
	}
}

// Close ends the stream (closing the connection); safe to call more than once.
func (s *ExtStream) Close() error {
	if s.resp == nil {
		return nil
	}
	return s.resp.Body.Close()
}

// channelPlaceholder is the channels/stream result that stands for an event too large to take in:
// a messageEvent with the fields the event's head names (its id, sequence, author, time), one text
// part saying why, and metadata.agenthub.omitted {sequence, bytes, reason}, as the hub's own
// streams send in place of an event too large for them.
func channelPlaceholder(ev jsonrpc.Event) json.RawMessage {
	head := eventHead(ev.Data)
	text := fmt.Sprintf("Event %d is too large to receive (%d bytes; a stream event holds %d): read it with channels/history.",
		head.Sequence, ev.Size, jsonrpc.MaxSSEEvent)
	head.Parts = []map[string]string{{"type": "text", "text": text}}
	head.Metadata = map[string]any{"agenthub": map[string]any{"omitted": map[string]any{
		"sequence": head.Sequence, "bytes": ev.Size, "reason": "too large to receive"}}}
	head.Kind = "messageEvent"
	raw, _ := json.Marshal(map[string]any{"kind": "messageEvent", "event": head})
	return raw
}

// placeholderEvent is a channel event as a placeholder names it.
type placeholderEvent struct {
	ID        string              `json:"id"`
	ChannelID string              `json:"channelId"`
	Sequence  int64               `json:"sequence"`
	Timestamp int64               `json:"timestamp"`
	Author    string              `json:"author"`
	Parts     []map[string]string `json:"parts"`
	Metadata  map[string]any      `json:"metadata"`
	Kind      string              `json:"kind"`
}

// eventHead reads what it can of result.event's plain fields (id, channelId, sequence, timestamp,
// author) from the head of a JSON-RPC response cut short, in whatever order they come before the
// cut.
func eventHead(data []byte) placeholderEvent {
	var out placeholderEvent
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// enter descends into the object at key name of the object being read.
	enter := func(name string) bool {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return false
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return false
			}
			if key == name {
				return true
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return false
			}
		}
		return false
	}
	if !enter("result") || !enter("event") {
		return out
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return out
		}
		value, err := dec.Token()
		if err != nil {
			return out
		}
		if d, ok := value.(json.Delim); ok && (d == '[' || d == '{') {
			return out // the payload: what came before it is all the head holds for sure
		}
		n, _ := value.(json.Number)
		str, _ := value.(string)
		switch key {
		case "id":
			out.ID = str
		case "channelId":
			out.ChannelID = str
		case "author":
			out.Author = str
		case "sequence":
			out.Sequence, _ = n.Int64()
		case "timestamp":
			out.Timestamp, _ = n.Int64()
		}
	}
	return out
}
