package uiapi

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/server"
)

// The UI reaches the extensions (channels, the knowledge graph) in their own JSON-RPC terms: ext.call
// and ext.stream carry a spec method and its params, and hand back its result or its JSON-RPC error
// unchanged. So the UI speaks one vocabulary whether the channel or graph lives on this hub or on an
// added agent, and the spec documents every shape it sees; the gateway adds no second API to keep in
// step.

// extPrefixes are the method families ext.* carries: the extensions' own, never the A2A core (the UI
// reaches tasks and chats through their own gateway methods, which know the owner's records).
var extPrefixes = []string{"channels/", "knowledge/"}

// maxExtStreams bounds the streams one UI connection has open (a channel view and a graph view each
// hold one; more means a leak in the UI, not a need).
const maxExtStreams = 32

// RemoteExtensions calls extension methods on an added agent's JSON-RPC endpoint, with the
// credentials saved for it. A JSON-RPC error the agent answers comes back as a server.RPCError, so
// the UI sees its code.
type RemoteExtensions interface {
	Call(ctx context.Context, agentID, method string, params json.RawMessage) (json.RawMessage, error)
	// OpenStream is server.ExtensionMethod.Stream's shape: an error before the stream opens, or a
	// function that runs it, calling send for each result in order.
	OpenStream(ctx context.Context, agentID, method string, params json.RawMessage) (run func(ctx context.Context, send func(result json.RawMessage) error) error, err error)
	// Raw sends any JSON-RPC method, written by hand in the raw log (agents.call).
	Raw(ctx context.Context, agentID, method string, params json.RawMessage) (json.RawMessage, error)
}

// maxRawParams bounds a hand-written request's params: a request typed into a box, not a file.
const maxRawParams = 1 << 20

// rawCall serves agents.call: one JSON-RPC request the owner wrote, sent to an added agent through the
// hub's client (credentials, wire log) and its answer; the agent's error as rpc_error.
func (g *Gateway) rawCall(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.ID == "":
		return nil, invalid("id (the agent) is required")
	case strings.TrimSpace(p.Method) == "" || len(p.Method) > 200:
		return nil, invalid("method must be a method name")
	case len(p.Params) > maxRawParams:
		return nil, invalid("params are over %d bytes", maxRawParams)
	}
	if len(p.Params) == 0 || string(p.Params) == "null" {
		p.Params = json.RawMessage("{}")
	}
	if g.cfg.RemoteExtensions == nil {
		return nil, invalid("this hub cannot reach other agents")
	}
	res, err := g.cfg.RemoteExtensions.Raw(ctx, p.ID, p.Method, p.Params)
	if err != nil {
		return nil, extError(err)
	}
	return map[string]any{"result": res}, nil
}

type extParams struct {
	Agent  string          `json:"agent"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// RPCErrorDetail is a JSON-RPC error as the extension answered it.
type RPCErrorDetail struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// rpcError turns an extension's coded error into the gateway's rpc_error; ok is false for any other.
func rpcError(err error) (*Error, bool) {
	var coded server.RPCError
	if !errors.As(err, &coded) {
		return nil, false
	}
	d := &RPCErrorDetail{Code: coded.RPCCode(), Message: coded.Error()}
	if withData, ok := coded.(interface{ RPCData() any }); ok {
		d.Data = withData.RPCData()
	}
	return &Error{Code: CodeRPC, Message: coded.Error(), RPC: d}, true
}

// methodNotFound is JSON-RPC's own answer to an extension method nobody serves.
type methodNotFound struct{ method string }

func (e methodNotFound) Error() string { return "method not found: " + e.method }
func (e methodNotFound) RPCCode() int  { return -32601 }

func (g *Gateway) extParams(params json.RawMessage) (extParams, error) {
	var p extParams
	if err := decode(params, &p); err != nil {
		return p, err
	}
	for _, prefix := range extPrefixes {
		if strings.HasPrefix(p.Method, prefix) {
			if len(p.Params) == 0 || string(p.Params) == "null" {
				p.Params = json.RawMessage("{}")
			}
			return p, nil
		}
	}
	return p, invalid("method is a channels/… or knowledge/… method, not %q", p.Method)
}

// localMethod is this hub's handler of method.
func (g *Gateway) localMethod(method string) (server.ExtensionMethod, error) {
	m, ok := g.cfg.Extensions[method]
	if !ok {
		return m, methodNotFound{method}
	}
	return m, nil
}

// asOwner is ctx acting for the person at the UI: the gateway's token made them the owner.
func asOwner(ctx context.Context) context.Context { return auth.WithPrincipal(ctx, auth.Owner) }

func (g *Gateway) extCall(ctx context.Context, params json.RawMessage) (any, error) {
	p, err := g.extParams(params)
	if err != nil {
		return nil, err
	}
	if p.Agent != "" {
		if g.cfg.RemoteExtensions == nil {
			return nil, invalid("this hub cannot reach other agents' extensions")
		}
		res, err := g.cfg.RemoteExtensions.Call(ctx, p.Agent, p.Method, p.Params)
		return res, extError(err)
	}
	m, err := g.localMethod(p.Method)
	if err != nil {
		return nil, extError(err)
	}
	if m.Call == nil {
		return nil, invalid("%s is a stream: open it with ext.stream", p.Method)
	}
	res, err := m.Call(asOwner(ctx), p.Params)
	return res, extError(err)
}

// extError is err as the UI sees it: the extension's JSON-RPC error as rpc_error; errors of the
// gateway's own (bad params, an unknown agent) as they are.
func extError(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := rpcError(err); ok {
		return e
	}
	return err
}

// extStreamFrame is what topic "ext" pushes.
type extStreamFrame struct {
	Stream string          `json:"stream"`
	Result any             `json:"result,omitempty"`
	Error  *RPCErrorDetail `json:"error,omitempty"`
	End    bool            `json:"end,omitempty"`
}

// afterReply is a call's result with work to start once the reply is queued: a stream's frames must
// not reach the UI before the reply that names the stream.
type afterReply struct {
	result any
	then   func()
}

func (g *Gateway) extStream(ctx context.Context, params json.RawMessage) (any, error) {
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil {
		return nil, invalid("ext.stream needs a connection")
	}
	p, err := g.extParams(params)
	if err != nil {
		return nil, err
	}
	// The stream lives as long as the connection (or until ext.close), not as long as this call.
	streamCtx, cancel := context.WithCancel(c.ctx)
	var run func(ctx context.Context, send func(any) error) error
	if p.Agent != "" {
		if g.cfg.RemoteExtensions == nil {
			cancel()
			return nil, invalid("this hub cannot reach other agents' extensions")
		}
		remote, err := g.cfg.RemoteExtensions.OpenStream(streamCtx, p.Agent, p.Method, p.Params)
		if err != nil {
			cancel()
			return nil, extError(err)
		}
		run = func(ctx context.Context, send func(any) error) error {
			return remote(ctx, func(r json.RawMessage) error { return send(r) })
		}
	} else {
		m, err := g.localMethod(p.Method)
		if err != nil {
			cancel()
			return nil, extError(err)
		}
		if m.Stream == nil {
			cancel()
			return nil, invalid("%s is not a stream: call it with ext.call", p.Method)
		}
		streamCtx = asOwner(streamCtx)
		local, err := m.Stream(streamCtx, p.Params)
		if err != nil {
			cancel()
			return nil, extError(err)
		}
		run = local
	}
	id, err := c.addStream(cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	return afterReply{result: map[string]string{"stream": id}, then: func() {
		go c.runStream(streamCtx, id, run)
	}}, nil
}

// runStream pushes the stream's results in order, then its error if any, then its end. Its frames
// wait for room in the queue like replies do: a dropped frame would be a gap the UI cannot see.
func (c *conn) runStream(ctx context.Context, id string, run func(ctx context.Context, send func(any) error) error) {
	defer c.closeStream(id)
	send := func(result any) error {
		return c.pushWaiting(ctx, extStreamFrame{Stream: id, Result: result})
	}
	err := run(ctx, send)
	if ctx.Err() != nil { // closed by the UI or the connection: nobody to tell
		return
	}
	if err != nil {
		detail := &RPCErrorDetail{Code: -32603, Message: err.Error()}
		if e, ok := rpcError(err); ok {
			detail = e.RPC
		} else if server.StorageUnavailable(err) {
			detail.Message = storageMessage
		}
		c.pushWaiting(ctx, extStreamFrame{Stream: id, Error: detail})
	}
	c.pushWaiting(ctx, extStreamFrame{Stream: id, End: true})
}

func (c *conn) addStream(cancel context.CancelFunc) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.streams) >= maxExtStreams {
		return "", &Error{Code: CodeConflict, Message: "too many open streams on this connection (" + strconv.Itoa(maxExtStreams) + "): close one first"}
	}
	c.nextStream++
	id := "s" + strconv.Itoa(c.nextStream)
	c.streams[id] = cancel
	return id, nil
}

func (c *conn) closeStream(id string) bool {
	c.mu.Lock()
	cancel, ok := c.streams[id]
	delete(c.streams, id)
	c.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

func (g *Gateway) extClose(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Stream string `json:"stream"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	c, _ := ctx.Value(connKey{}).(*conn)
	if c == nil || !c.closeStream(p.Stream) {
		return nil, &Error{Code: CodeNotFound, Message: "no open stream " + strconv.Quote(p.Stream)}
	}
	return struct{}{}, nil
}

// pushWaiting queues a pushed frame, waiting for room as replies do.
func (c *conn) pushWaiting(ctx context.Context, data extStreamFrame) error {
	frame, err := json.Marshal(push{Topic: "ext", Data: data})
	if err != nil {
		frame, _ = json.Marshal(push{Topic: "ext", Data: extStreamFrame{Stream: data.Stream,
			Error: &RPCErrorDetail{Code: -32603, Message: "a stream result could not be encoded"}}})
	}
	select {
	case c.out <- frame:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
