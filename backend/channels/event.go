package channels

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// MessageEvent is the spec's MessageEvent object.
type MessageEvent struct {
	ID             string            `json:"id"`
	ChannelID      string            `json:"channelId"`
	Sequence       int64             `json:"sequence"`
	Timestamp      int64             `json:"timestamp"`
	Author         string            `json:"author"`
	Parts          []json.RawMessage `json:"parts"`
	ArtifactRefs   []string          `json:"artifactRefs,omitempty"`
	Metadata       map[string]any    `json:"metadata,omitempty"`
	IdempotencyKey string            `json:"idempotencyKey,omitempty"`
	Kind           string            `json:"kind"`
}

// eventJSON is a message event encoded before its sequence and timestamp are known: the JSON up
// to the sequence's value, and the JSON after the timestamp's.
type eventJSON struct{ head, tail []byte }

// encodeEvent encodes ev (its Sequence and Timestamp zero) for with to complete.
func encodeEvent(ev *MessageEvent) (eventJSON, error) {
	raw, err := json.Marshal(ev)
	if err != nil {
		return eventJSON{}, err
	}
	// The fields come in MessageEvent's order, and the strings before them (id, channelId) are
	// escaped, so they hold no quote of their own: the first match is the fields themselves.
	const zero = `"sequence":0,"timestamp":0`
	i := bytes.Index(raw, []byte(zero))
	if i < 0 {
		return eventJSON{}, fmt.Errorf("encoded event has no sequence and timestamp: %s", raw)
	}
	return eventJSON{head: raw[:i+len(`"sequence":`)], tail: raw[i+len(zero):]}, nil
}

// appendTo appends the event's JSON with its sequence and timestamp, as json.Marshal writes it.
func (e eventJSON) appendTo(out []byte, sequence, timestamp int64) []byte {
	out = append(out, e.head...)
	out = strconv.AppendInt(out, sequence, 10)
	out = append(out, `,"timestamp":`...)
	out = strconv.AppendInt(out, timestamp, 10)
	return append(out, e.tail...)
}

// streamItemHead and streamItemTail wrap an event into its stream item, as json.Marshal writes
// eventItem.
const streamItemHead, streamItemTail = `{"kind":"messageEvent","event":`, `}`

// itemJSON is a stream item {"kind":"messageEvent","event":E} holding an event's JSON E.
type itemJSON []byte

// item is the stream item of the event with its sequence and timestamp: built once per event, in
// the one allocation that also holds the event's JSON (see event).
func (e eventJSON) item(sequence, timestamp int64) itemJSON {
	out := make([]byte, 0, len(streamItemHead)+len(e.head)+len(e.tail)+48+len(streamItemTail))
	out = e.appendTo(append(out, streamItemHead...), sequence, timestamp)
	return append(out, streamItemTail...)
}

// event is the event's JSON inside the item, capped so that an append to it copies instead of
// writing over the item's end.
func (it itemJSON) event() []byte {
	end := len(it) - len(streamItemTail)
	return it[len(streamItemHead):end:end]
}
