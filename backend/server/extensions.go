package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// An Extension is a package serving JSON-RPC methods of its own on the agent's endpoint (the
// channels and knowledge-graph extensions). The router owns the envelope (batches, notifications,
// limits, auth: the caller's principal is in ctx, see auth.PrincipalFrom); the extension sees only
// params and answers a result or an error. Extensions depend on nothing in this package: their
// errors carry their JSON-RPC code through the RPCError interface.
type Extension interface {
	// Methods maps each JSON-RPC method name the extension serves to its handler.
	Methods() map[string]ExtensionMethod
	// Card is what the extension adds to the agent card.
	Card() ExtensionCard
}

// ExtensionMethod answers one method: Call for a unary one, Stream for a streaming one (SSE).
type ExtensionMethod struct {
	// Call returns the result (marshalled as JSON) or an error.
	Call func(ctx context.Context, params json.RawMessage) (any, error)
	// Stream checks params and returns an error (answered as a plain JSON-RPC error, before any
	// stream opens) or a function that runs the stream: it calls send for each result, in order,
	// until it returns (an error it returns is the stream's last event) or ctx ends (the client left).
	Stream func(ctx context.Context, params json.RawMessage) (run func(ctx context.Context, send func(result any) error) error, err error)
}

// RawResult is a Call's result already encoded: valid, compact JSON as json.Marshal writes it
// (events read as stored, say). The answer carries it as it is instead of encoding it again;
// anywhere else it marshals as the JSON it holds.
type RawResult []byte

// MarshalJSON is r itself.
func (r RawResult) MarshalJSON() ([]byte, error) { return r, nil }

// ExtensionCard is what an extension declares on the agent card: an entry of
// capabilities.extensions, and fields the extension's spec adds to capabilities (e.g.
// "knowledgeGraph": true) or to the card itself.
type ExtensionCard struct {
	Extension    a2a.AgentExtension
	Capabilities map[string]any
	Card         map[string]any
}

// RPCError is an error that knows its JSON-RPC code (an extension's own codes, e.g. -32020); its
// Error() is the message, and RPCData, when not nil, the error's data.
type RPCError interface {
	error
	RPCCode() int
}

// rpcDataError is an RPCError with data.
type rpcDataError interface {
	RPCError
	RPCData() any
}

// addExtension adds e's methods to the router. Their errors are answered in v1.0's plain shape:
// extensions are defined over JSON-RPC, not over a dialect.
func (rt *router) addExtension(e Extension, keepAlive time.Duration) error {
	for name, m := range e.Methods() {
		if _, taken := rt.methods[name]; taken {
			return errors.New("extension method " + name + " is already served")
		}
		rt.methods[name] = extensionMethod(m, keepAlive)
	}
	return nil
}

func extensionMethod(m ExtensionMethod, keepAlive time.Duration) method {
	out := method{dialect: tasks.DialectV1}
	if m.Call != nil {
		call := m.Call
		out.call = func(ctx context.Context, r *request) (json.RawMessage, error) {
			res, err := call(ctx, paramsOrEmpty(r.Params))
			if err != nil {
				return nil, err
			}
			if pre, ok := res.(RawResult); ok {
				return resultJSON(r.ID, json.RawMessage(pre)), nil
			}
			raw, err := json.Marshal(res)
			if err != nil {
				return nil, err
			}
			return resultJSON(r.ID, raw), nil
		}
		return out
	}
	open := m.Stream
	out.stream = func(ctx context.Context, r *request, w http.ResponseWriter) {
		run, err := open(ctx, paramsOrEmpty(r.Params))
		if err != nil {
			writeJSON(w, http.StatusOK, errorResponse(r.ID, err))
			return
		}
		sse, err := newSSEWriter(w)
		if err != nil {
			writeJSON(w, http.StatusOK, errorResponse(r.ID, err))
			return
		}
		// A RawResult is written as it is, after this stream's own head (its id), encoded once for
		// the stream: a channel's event is encoded once for all its subscribers, not once for each.
		head, headOK := resultHead(r.ID)
		var frame []byte // reused: a stream writes one frame at a time
		sse.direct(ctx, keepAlive, func(ctx context.Context, write func(v any) error, writeRaw func([]byte) error) {
			send := func(result any) error {
				if pre, ok := result.(RawResult); ok && headOK {
					frame = append(append(append(append(frame[:0], "data: "...), head...), pre...), "}\n\n"...)
					return writeRaw(frame)
				}
				return write(resultResponse(r.ID, result))
			}
			if err := run(ctx, send); err != nil && ctx.Err() == nil {
				_ = write(errorResponse(r.ID, err))
			}
		})
	}
	return out
}

func paramsOrEmpty(p json.RawMessage) json.RawMessage {
	if p == nil {
		return json.RawMessage("{}")
	}
	return p
}

// withExtensionCards adds each extension's declarations to the served card document.
func withExtensionCards(cardJSON []byte, exts []Extension) ([]byte, error) {
	if len(exts) == 0 {
		return cardJSON, nil
	}
	var doc map[string]any
	if err := json.Unmarshal(cardJSON, &doc); err != nil {
		return nil, err
	}
	caps, _ := doc["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
		doc["capabilities"] = caps
	}
	list, _ := caps["extensions"].([]any)
	for _, e := range exts {
		c := e.Card()
		if c.Extension.URI != "" {
			list = append(list, c.Extension)
		}
		for k, v := range c.Capabilities {
			caps[k] = v
		}
		for k, v := range c.Card {
			doc[k] = v
		}
	}
	if len(list) > 0 {
		caps["extensions"] = list
	}
	return json.Marshal(doc)
}

// resultJSON is marshal(&response{JSONRPC: "2.0", ID: id, Result: result}) for a result already
// encoded by json.Marshal: marshalling the response around it would compact the result a second
// time, which for a page of channel events cost more than reading the page.
func resultJSON(id, result json.RawMessage) json.RawMessage {
	head, ok := resultHead(id)
	if !ok {
		return marshal(&response{JSONRPC: "2.0", ID: id, Result: result})
	}
	// +2: the closing brace, and the newline writeRaw appends (without room for it, the append
	// copied the whole answer again: a page of 50 events is about 15 KB).
	out := make([]byte, 0, len(head)+len(result)+2)
	out = append(out, head...)
	out = append(out, result...)
	return append(out, '}')
}

// resultHead is a result response's JSON up to its result, `{"jsonrpc":"2.0","id":ID,"result":`,
// with id as json.Marshal writes it; ok is false for an id that does not marshal.
func resultHead(id json.RawMessage) (head []byte, ok bool) {
	idJSON := []byte("null")
	if len(id) > 0 {
		var err error
		if idJSON, err = json.Marshal(id); err != nil {
			return nil, false
		}
	}
	head = make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":`)+len(idJSON))
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, idJSON...)
	return append(head, `,"result":`...), true
}
