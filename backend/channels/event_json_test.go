package channels

import (
	"encoding/json"
	"testing"
)

// An event encoded before its sequence and timestamp, then completed, is byte for byte what
// json.Marshal writes for the whole event (and its stream item), even when a string before the fields reads like them.
func TestEventJSONIsTheMarshaledEvent(t *testing.T) {
	for _, ev := range []MessageEvent{
		{ID: "e1", ChannelID: "c1", Author: "agent://a", Parts: []json.RawMessage{json.RawMessage(`{"type":"text", "text":"hi"}`)}, Kind: "messageEvent"},
		{ID: "e2", ChannelID: `"sequence":0,"timestamp":0`, Author: "agent://a", Parts: []json.RawMessage{json.RawMessage(`{"text":"\"sequence\":0,\"timestamp\":0"}`)},
			ArtifactRefs: []string{"x"}, Metadata: map[string]any{"b": 1, "a": "<&>"}, IdempotencyKey: "k", Kind: "messageEvent"},
	} {
		enc, err := encodeEvent(&ev)
		if err != nil {
			t.Fatal(err)
		}
		ev.Sequence, ev.Timestamp = 1234567, 1737052500456
		want, _ := json.Marshal(&ev)
		item := enc.item(ev.Sequence, ev.Timestamp)
		if got := item.event(); string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
		// The stream item around it is what json.Marshal writes for it, and the event inside
		// it cannot be appended to over the item's end.
		wantItem, _ := json.Marshal(messageItem(want))
		if string(item) != string(wantItem) {
			t.Fatalf("item %s\nwant %s", item, wantItem)
		}
		_ = append(item.event(), 'x')
		if string(item) != string(wantItem) {
			t.Fatalf("an append to the event wrote over its item: %s", item)
		}
	}
}

// A history page written from stored events is what json.Marshal writes for it.
func TestHistoryPageEncodeIsMarshal(t *testing.T) {
	ev, _ := json.Marshal(MessageEvent{ID: "e1", ChannelID: "c", Sequence: 3, Author: "agent://a",
		Parts: []json.RawMessage{json.RawMessage(`{"text":"<b> & \"q\""}`)}, Metadata: map[string]any{"z": 1.5, "a": []any{"x"}}, Kind: "messageEvent"})
	for _, p := range []HistoryPage{
		{Events: []json.RawMessage{}},
		{Events: []json.RawMessage{ev}},
		{Events: []json.RawMessage{ev, ev}, NextPageToken: "eyJjIjoiYyJ9.c2ln"},
	} {
		want, err := json.Marshal(&p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.encode(); string(got) != string(want) {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	}
}
