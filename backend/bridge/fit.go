package bridge

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/agenthub/agenthub/backend/channels"
)

// fit holds an agent's answer to what a member may publish in one channel event: its JSON within
// channels.MaxEventJSON, at most channels.MaxParts parts. Sent whole, a 10 MiB answer was stored as
// one event no stream could carry, and one of 40 parts was refused and lost. The parts that fit are
// kept in order; the text part that overflows is cut where it must, any other part that does not
// fit is left out; and a last part says what was left out and that the whole answer is the agent's
// task. author is who the event is published as.
func fit(author string, p channels.PublishParams, taskID string) channels.PublishParams {
	size, err := channels.EventJSONSize(author, p)
	if err != nil || size <= channels.MaxEventJSON && len(p.Parts) <= channels.MaxParts {
		return p // unencodable: Publish says why
	}
	note := func(cut bool) json.RawMessage {
		text := fmt.Sprintf("[The agent's answer is shortened here: it was %d bytes in %d parts, and a channel event holds %d bytes in %d parts. The whole answer is the agent's task %s.]",
			size, len(p.Parts), channels.MaxEventJSON, channels.MaxParts, taskID)
		if !cut {
			text = fmt.Sprintf("[Some parts of the agent's answer are left out: it was %d bytes in %d parts, and a channel event holds %d bytes in %d parts. The whole answer is the agent's task %s.]",
				size, len(p.Parts), channels.MaxEventJSON, channels.MaxParts, taskID)
		}
		raw, _ := json.Marshal(map[string]string{"type": "text", "text": text})
		return raw
	}
	whole := p.Parts
	p.Parts = []json.RawMessage{note(false)} // the longer of the two notes: room is counted with it
	base, err := channels.EventJSONSize(author, p)
	if err != nil {
		return p
	}
	room := channels.MaxEventJSON - base
	var kept []json.RawMessage
	cut := false
	for _, part := range whole {
		if len(kept) == channels.MaxParts-1 {
			break
		}
		if len(part)+1 <= room { // and its comma
			kept = append(kept, part)
			room -= len(part) + 1
			continue
		}
		if short := cutText(part, room-1); short != nil {
			kept = append(kept, short)
			cut = true
			break
		}
	}
	p.Parts = append(kept, note(cut))
	return p
}

// cutText is a text part (raw JSON) cut to at most room bytes of JSON, at a character boundary;
// nil when the part is not text or no text fits.
func cutText(part json.RawMessage, room int) json.RawMessage {
	var fields map[string]json.RawMessage
	var text string
	if json.Unmarshal(part, &fields) != nil || string(fields["type"]) != `"text"` || json.Unmarshal(fields["text"], &text) != nil {
		return nil
	}
	n := len(text)
	for n > 0 {
		for n > 0 && n < len(text) && !utf8.RuneStart(text[n]) {
			n--
		}
		fields["text"], _ = json.Marshal(text[:n])
		raw, err := json.Marshal(fields)
		if err != nil {
			return nil
		}
		if len(raw) <= room {
			return raw
		}
		// Every byte of text takes at least one byte of JSON: dropping the overshoot's worth of
		// text brings the part within room, or close with escapes.
		n -= len(raw) - room
	}
	return nil
}
