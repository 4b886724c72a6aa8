package uiapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
)

// ChannelUpdate is the pushed form of a channel change the owner may hear of: a new event
// (Sequence, Author), or Change for the channel itself, after which the UI reads its list again.
type ChannelUpdate struct {
	ChannelID string `json:"channelId"`
	Sequence  int64  `json:"sequence,omitempty"`
	Author    string `json:"author,omitempty"`
	Change    string `json:"change,omitempty"` // created | members | updated | deleted
}

// channelUpdate turns a change of this hub's channels into what the owner is told, if anything:
// the channels service decides whether the owner may hear of it (never a private channel they are
// not in), with one prepared query, so a burst of events costs little.
func (g *Gateway) channelUpdate(ctx context.Context, e bus.Event) (ChannelUpdate, bool) {
	ch, ok := e.Data.(*channels.Change)
	if !ok || g.cfg.Channels == nil || !g.cfg.Channels.Concerns(ctx, e.Key, ch, auth.Owner.ID) {
		return ChannelUpdate{}, false
	}
	up := ChannelUpdate{ChannelID: e.Key}
	switch {
	case ch.Event != nil:
		up.Sequence, up.Author = ch.Event.Sequence, ch.Event.Author
	case ch.Created:
		up.Change = "created"
	case ch.Added != "" || ch.Removed != "":
		up.Change = "members"
	case ch.Updated:
		up.Change = "updated"
	case ch.Deleted:
		up.Change = "deleted"
	default:
		return ChannelUpdate{}, false
	}
	return up, true
}

// channelsCall serves channels.memberLog {channelId}: the joins and leaves of one of this hub's
// channels, from its audit rows, which the UI shows in the channel as system lines (see doc.go).
func (g *Gateway) channelsCall(ctx context.Context, method string, params json.RawMessage) (any, error, bool) {
	if method != "channels.memberLog" {
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
	if g.cfg.Channels == nil {
		return nil, &Error{Code: CodeNotFound, Message: "this hub has no channels"}, true
	}
	// The gateway acts as the owner: a channel the owner may not see is not found.
	log, err := g.cfg.Channels.MemberLog(ctx, p.ChannelID)
	var ce *channels.Error
	if errors.As(err, &ce) && ce.Code == channels.CodeChannelNotFound {
		return nil, &Error{Code: CodeNotFound, Message: ce.Message}, true
	}
	if err != nil {
		return nil, err, true
	}
	if log == nil {
		log = []channels.MemberEntry{}
	}
	return map[string]any{"entries": log}, nil, true
}
