package uiapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
)

// bridgeCall serves bridge.states: the working state of each added agent in a channel (see doc.go).
func (g *Gateway) bridgeCall(ctx context.Context, method string, params json.RawMessage) (any, error, bool) {
	if method != "bridge.states" {
		return nil, nil, false
	}
	var p struct {
		ChannelID string `json:"channelId"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err, true
	}
	if p.ChannelID == "" {
		return nil, invalid("channelId is required"), true
	}
	if g.cfg.Bridge == nil {
		return nil, &Error{Code: CodeNotFound, Message: "this hub bridges no agents into channels"}, true
	}
	// The gateway acts as the owner: a channel the owner may not see is not found.
	states, err := g.cfg.Bridge.States(ctx, p.ChannelID)
	var ce *channels.Error
	if errors.As(err, &ce) && ce.Code == channels.CodeChannelNotFound {
		return nil, &Error{Code: CodeNotFound, Message: ce.Message}, true
	}
	if err != nil {
		return nil, err, true
	}
	return map[string]any{"agents": states}, nil, true
}

// bridgeUpdate is what the bridge topic pushes: the state itself.
func bridgeUpdate(e bus.Event) (*bridge.State, bool) {
	st, ok := e.Data.(*bridge.State)
	return st, ok && e.Topic == bridge.Topic
}
