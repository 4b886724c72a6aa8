package hub

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/uiapi"
)

// remoteExtensions is the UI gateway's way to added agents' extensions (ext.call / ext.stream with
// an agent): their channels/* and knowledge/* methods, called on the agent's JSON-RPC endpoint by
// its client (saved credentials, wire log, limits). The agent's own JSON-RPC errors pass through
// with their codes (rpc_error); the rest is said in the gateway's codes.
type remoteExtensions struct{ clients *agents.Clients }

var _ uiapi.RemoteExtensions = remoteExtensions{}

func (r remoteExtensions) Call(ctx context.Context, agentID, method string, params json.RawMessage) (json.RawMessage, error) {
	res, err := r.clients.ExtCall(ctx, agentID, method, params)
	if err != nil {
		return nil, remoteError(err)
	}
	return res, nil
}

// Raw sends a JSON-RPC request the owner wrote by hand (agents.call).
func (r remoteExtensions) Raw(ctx context.Context, agentID, method string, params json.RawMessage) (json.RawMessage, error) {
	res, err := r.clients.RawCall(ctx, agentID, method, params)
	if err != nil {
		return nil, remoteError(err)
	}
	return res, nil
}

// OpenStream opens the agent's stream now (so a refusal is the call's error), and runs it when asked;
// ctx, the gateway's stream context, ends it (the request is made under it).
func (r remoteExtensions) OpenStream(ctx context.Context, agentID, method string, params json.RawMessage) (func(context.Context, func(json.RawMessage) error) error, error) {
	s, err := r.clients.ExtStream(ctx, agentID, method, params)
	if err != nil {
		return nil, remoteError(err)
	}
	return func(ctx context.Context, send func(json.RawMessage) error) error {
		defer s.Close()
		stop := context.AfterFunc(ctx, func() { s.Close() }) // ext.close: the connection is cut now
		defer stop()
		for res, err := range s.Results() {
			if err != nil {
				return remoteError(err)
			}
			if err := send(res); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// remoteError says a failure in the gateway's terms: the agent's JSON-RPC error as it is (the
// gateway makes it rpc_error), an extension the card does not offer as invalid params, an unknown
// agent as not found, and a refusal of the credentials, an unreachable agent or an answer that is
// not JSON-RPC as agent_error, in words the owner can act on.
func remoteError(err error) error {
	var rpc *agents.RPCError
	switch {
	case errors.As(err, &rpc), errors.Is(err, agents.ErrNotFound):
		return err
	case errors.Is(err, agents.ErrExtensionNotOffered):
		return &uiapi.Error{Code: uiapi.CodeInvalidParams, Message: err.Error()}
	}
	_, msg := agents.Classify(err)
	return &uiapi.Error{Code: uiapi.CodeAgent, Message: msg}
}
