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
	if method == "bridge.act" {
		res, err := g.bridgeAct(ctx, params)
		return res, err, true
	}
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

// bridgeAct serves bridge.act: the owner's A2UI action about a surface an added agent drew in a
// channel, sent to that agent only (bridge.Act); see doc.go.
func (g *Gateway) bridgeAct(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		ChannelID     string
		Member        string
		TaskID        string
		A2UI          []any
		A2UIDataModel map[string]any
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.ChannelID == "" || p.Member == "" || p.TaskID == "" || len(p.A2UI) == 0 {
		return nil, invalid("channelId, member, taskId and a2ui are required")
	}
	if g.cfg.Bridge == nil {
		return nil, &Error{Code: CodeNotFound, Message: "this hub bridges no agents into channels"}
	}
	ev, err := g.cfg.Bridge.Act(ctx, bridge.Action{ChannelID: p.ChannelID, Member: p.Member, TaskID: p.TaskID, Messages: p.A2UI, DataModel: p.A2UIDataModel})
	if bridge.IsRefused(err) {
		return nil, invalid("%v", err)
	}
	var ce *channels.Error
	if errors.As(err, &ce) && ce.Code == channels.CodeChannelNotFound {
		return nil, &Error{Code: CodeNotFound, Message: ce.Message}
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"event": ev}, nil
}

// bridgeUpdate is what the bridge topic pushes: the state itself.
func bridgeUpdate(e bus.Event) (*bridge.State, bool) {
	st, ok := e.Data.(*bridge.State)
	return st, ok && e.Topic == bridge.Topic
}
