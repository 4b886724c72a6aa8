package channels

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
)

// Heartbeat bounds for channels/stream.
const (
	DefaultHeartbeat = 15 * time.Second
	MinHeartbeat     = 100 * time.Millisecond
	MaxHeartbeat     = 5 * time.Minute
)

// StreamParams are channels/stream's params.
type StreamParams struct {
	ChannelID           string `json:"channelId"`
	SinceSequence       *int64 `json:"sinceSequence"`
	HeartbeatIntervalMs int64  `json:"heartbeatIntervalMs"`
}

// StreamItem is one item of the stream: {kind:"messageEvent", event} or {kind:"heartbeat"}.
type StreamItem struct {
	Kind      string        `json:"kind"`
	Event     *MessageEvent `json:"event,omitempty"`
	Timestamp int64         `json:"timestamp,omitempty"`
}

// eventItem is a stream's {kind:"messageEvent", event} with the event as stored: a stream's events
// are sent without being decoded and encoded again for every subscriber.
type eventItem struct {
	Kind  string          `json:"kind"`
	Event json.RawMessage `json:"event"`
}

func messageItem(event json.RawMessage) eventItem {
	return eventItem{Kind: "messageEvent", Event: event}
}

// streamable is the stream item of a stored event: the event itself, or, when its JSON is longer
// than MaxEventJSON, a placeholder in its place. A reader takes one stream event of at most
// MaxEventBytes (agents/jsonrpc.MaxSSEEvent at another hub): sent whole, such an event would end the
// reader's stream there, and every resume at it again, for ever.
func streamable(event json.RawMessage) any {
	if len(event) <= MaxEventJSON {
		return messageItem(event)
	}
	return StreamItem{Kind: "messageEvent", Event: placeholder(event)}
}

// placeholder stands for an event too large for a stream: the same id, sequence, author and time,
// one text part saying why, and metadata.agenthub.omitted {sequence, bytes, reason}.
func placeholder(event json.RawMessage) *MessageEvent {
	var ev MessageEvent
	_ = json.Unmarshal(event, &ev) // what it holds of id, sequence, author: the stream goes on regardless
	text := fmt.Sprintf("Event %d is too large for a stream (%d bytes; a stream carries %d): read it with channels/history.",
		ev.Sequence, len(event), MaxEventJSON)
	part, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return &MessageEvent{ID: ev.ID, ChannelID: ev.ChannelID, Sequence: ev.Sequence, Timestamp: ev.Timestamp, Author: ev.Author,
		Parts: []json.RawMessage{part}, Kind: "messageEvent",
		Metadata: map[string]any{"agenthub": map[string]any{"omitted": map[string]any{
			"sequence": ev.Sequence, "bytes": len(event), "reason": "too large for a stream"}}}}
}

// openStream checks the caller may read the channel (same rules as history: a private channel of
// others is ChannelNotFound) before the stream opens, and subscribes to its changes then: the
// stream starts at the channel's present as of its opening, so an event published once the client
// has the stream's response is always sent, however late the stream starts running.
func (s *Service) openStream(ctx context.Context, raw json.RawMessage) (func(context.Context, func(any) error) error, error) {
	var p StreamParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalid("%v", err)
	}
	if p.ChannelID == "" {
		return nil, invalid("channelId is required")
	}
	if p.SinceSequence != nil && *p.SinceSequence < 0 {
		return nil, invalid("sinceSequence is not negative")
	}
	who := caller(ctx)
	sub := s.bus.Subscribe(func(e bus.Event) bool {
		return (e.Topic == Topic && e.Key == p.ChannelID) || (e.Topic == ResyncTopic && (e.Key == "" || e.Key == p.ChannelID))
	}, 256)
	// Closed when the stream ends, or with the request if the stream never runs.
	context.AfterFunc(ctx, sub.Close)
	// Read the channel once its changes are subscribed to: a removal, a deletion or an event after
	// this read is on the subscription.
	c, err := load(ctx, s.db.Reader, p.ChannelID, who)
	if err != nil {
		sub.Close()
		return nil, err
	}
	beat := DefaultHeartbeat
	if p.HeartbeatIntervalMs != 0 {
		beat = min(max(time.Duration(p.HeartbeatIntervalMs)*time.Millisecond, MinHeartbeat), MaxHeartbeat)
	}
	last := c.LastSequence
	if p.SinceSequence != nil {
		last = *p.SinceSequence
	}
	member := c.callerIs != ""
	return func(ctx context.Context, send func(any) error) error {
		defer sub.Close()
		return s.runStream(ctx, p, who, member, beat, sub, last, send)
	}, nil
}

// backlogRead, when set (by tests), runs between the backlog replay and the live loop; streamRun,
// when set, as a stream starts running, after its response has begun.
var backlogRead, streamRun func()

// runStream replays the backlog after last from the table, then goes live on sub, subscribed before
// the backlog is read, so an event stored meanwhile is either in the backlog or on the
// subscription; last, the highest sequence sent, skips the ones seen twice. A sequence beyond
// last+1 on the bus means the bus dropped some, or another replica's event is still on its way:
// they are read from the table, so the client never sees a gap. A lag signal, or a resync (notes
// from other replicas may be lost), may also have dropped a removal or a deletion: the caller's
// access is checked again (member: the caller was a member when the stream opened) before the
// stream catches up.
func (s *Service) runStream(ctx context.Context, p StreamParams, who auth.Principal, member bool, beat time.Duration, sub *bus.Subscription, last int64, send func(any) error) error {
	if streamRun != nil {
		streamRun()
	}
	catchUp := func() error {
		for {
			events, err := scanStored(s.pub.backlog.QueryContext(ctx, p.ChannelID, last))
			if err != nil {
				return err
			}
			for _, ev := range events {
				if err := send(streamable(ev.JSON)); err != nil {
					return err
				}
				last = ev.Sequence
			}
			if len(events) < 200 {
				return nil
			}
		}
	}
	removed := func() error {
		return errorf(CodePermissionDenied, "permission denied: %s was removed from %s", who.ID, p.ChannelID)
	}
	recheck := func() error {
		c, err := loadVisible(ctx, s.db.Reader, p.ChannelID, who)
		if code(err) == CodeChannelNotFound && member {
			// A member learns no more than that: the channel is gone, or they are no longer in it.
			var exists int
			if s.db.Reader.QueryRowContext(ctx, `SELECT 1 FROM channels WHERE id = ?`, p.ChannelID).Scan(&exists) == nil {
				return removed()
			}
		}
		if err != nil {
			return err
		}
		if member && c.callerIs == "" {
			return removed()
		}
		return catchUp()
	}
	if err := catchUp(); err != nil {
		return err
	}
	if backlogRead != nil {
		backlogRead()
	}
	ticker := time.NewTicker(beat)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
			if err := send(StreamItem{Kind: "heartbeat", Timestamp: s.millis()}); err != nil {
				return err
			}
		case <-sub.Lagged:
			if err := recheck(); err != nil {
				return err
			}
		case e := <-sub.C:
			ch, _ := e.Data.(*Change)
			switch {
			case e.Topic == ResyncTopic:
				if err := recheck(); err != nil {
					return err
				}
			case ch == nil:
			case ch.Deleted:
				return notFound(p.ChannelID)
			case ch.Removed == who.ID:
				return removed()
			case ch.Updated:
				// A public channel made private ends the streams of those who are not members.
				if _, err := load(ctx, s.db.Reader, p.ChannelID, who); err != nil {
					return err
				}
			case ch.Event == nil || ch.Event.Sequence <= last:
			case ch.Event.Sequence == last+1:
				// The item as publish encoded it, once for every stream: as json.Marshal would
				// write messageItem(ch.EventJSON), compact, so the server frames it as it is.
				item := ch.result
				switch {
				case len(ch.EventJSON) > MaxEventJSON:
					item = streamable(ch.EventJSON)
				case item != nil:
				case ch.EventJSON != nil:
					item = messageItem(ch.EventJSON)
				default: // a change made elsewhere than publish
					item = StreamItem{Kind: "messageEvent", Event: ch.Event}
				}
				if err := send(item); err != nil {
					return err
				}
				last = ch.Event.Sequence
			default:
				if err := catchUp(); err != nil {
					return err
				}
			}
		}
	}
}
