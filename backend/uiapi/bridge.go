package uiapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
)

// bridgeCall serves bridge.states (the working state of each added agent in a channel) and
// bridge.deliver (a message that mentioned an agent before it joined, sent to it now); see doc.go.
func (g *Gateway) bridgeCall(ctx context.Context, method string, params json.RawMessage) (any, error, bool) {
	if method != "bridge.states" && method != "bridge.deliver" {
		return nil, nil, false
	}
	var p struct {
		ChannelID string `json:"channelId"`
		Sequence  int64  `json:"sequence"`
		Member    string `json:"member"`
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
	notFound := func(err error) error {
		var ce *channels.Error
		if errors.As(err, &ce) && ce.Code == channels.CodeChannelNotFound {
			return &Error{Code: CodeNotFound, Message: ce.Message}
		}
		return err
	}
	if method == "bridge.deliver" {
		if p.Sequence <= 0 || p.Member == "" {
			return nil, invalid("sequence and member are required"), true
		}
		err := g.cfg.Bridge.Deliver(ctx, p.ChannelID, p.Sequence, p.Member)
		if errors.Is(err, bridge.ErrNotDeliverable) {
			return nil, invalid("%s", err.Error()), true
		}
		if err != nil {
			return nil, notFound(err), true
		}
		return map[string]any{"delivered": true}, nil, true
	}
	states, err := g.cfg.Bridge.States(ctx, p.ChannelID)
	if err != nil {
		return nil, notFound(err), true
	}
	return map[string]any{"agents": states}, nil, true
}

// bridgeUpdate is what the bridge topic pushes: the state itself.
func bridgeUpdate(e bus.Event) (*bridge.State, bool) {
	st, ok := e.Data.(*bridge.State)
	return st, ok && e.Topic == bridge.Topic
}
