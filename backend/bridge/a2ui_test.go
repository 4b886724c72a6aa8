package bridge

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2ui"
)

// An agent's A2UI part reaches the channel as draft data parts, one object per message, each with
// its media type in metadata.mimeType (the draft's data is an object, so a list cannot stand as
// data); other data parts keep their media type too; and the channel's parts give the messages back
// in order, as do a list or the v1.0 shape another hub's client may write.
func TestChannelPartsKeepA2UI(t *testing.T) {
	msgs := []any{
		map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s", "catalogId": "c"}},
		map[string]any{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "s", "components": []any{}}},
	}
	legacy := a2a.NewDataPart(msgs)
	legacy.Metadata = map[string]any{"mimeType": a2ui.LegacyMediaType}
	plain := a2a.NewDataPart([]any{1, 2})
	plain.MediaType = "application/vnd.example+json"
	raw := channelParts([]*a2a.Part{a2a.NewTextPart("Fill in:"), a2ui.NewPart(msgs), legacy, plain})
	want := []string{
		`{"type":"text","text":"Fill in:"}`,
		`{"type":"data","data":{"createSurface":{"catalogId":"c","surfaceId":"s"},"version":"v0.9"},"metadata":{"mimeType":"application/a2ui+json"}}`,
		`{"type":"data","data":{"updateComponents":{"components":[],"surfaceId":"s"},"version":"v0.9"},"metadata":{"mimeType":"application/a2ui+json"}}`,
		`{"type":"data","data":{"createSurface":{"catalogId":"c","surfaceId":"s"},"version":"v0.9"},"metadata":{"mimeType":"application/json+a2ui"}}`,
		`{"type":"data","data":{"updateComponents":{"components":[],"surfaceId":"s"},"version":"v0.9"},"metadata":{"mimeType":"application/json+a2ui"}}`,
		`{"type":"data","data":{"value":[1,2]},"metadata":{"mimeType":"application/vnd.example+json"}}`,
	}
	if len(raw) != len(want) {
		t.Fatalf("%d parts: %s", len(raw), raw)
	}
	for i := range want {
		if string(raw[i]) != want[i] {
			t.Errorf("part %d: %s\nwant %s", i, raw[i], want[i])
		}
	}
	if got := a2uiMessagesOf(raw); len(got) != 4 {
		t.Errorf("messages read back: %d, want 4", len(got))
	}
	other := []json.RawMessage{
		json.RawMessage(`{"kind":"data","mediaType":"application/a2ui+json","data":[{"version":"v0.9","deleteSurface":{"surfaceId":"s"}},{"version":"v0.9","deleteSurface":{"surfaceId":"t"}}]}`),
		json.RawMessage(`{"type":"data","data":{"version":"v0.9","createSurface":{"surfaceId":"x"}}}`), // no media type: not A2UI
		json.RawMessage(`{"type":"data","data":"nonsense","metadata":{"mimeType":"application/a2ui+json"}}`),
	}
	if got := a2uiMessagesOf(other); len(got) != 2 {
		t.Errorf("messages of another hub's parts: %v", got)
	}
	created := map[string]bool{}
	a2ui.AddCreated(created, a2a.ContentParts{a2ui.NewPart(a2uiMessagesOf(raw))})
	if len(created) != 1 || !created["s"] {
		t.Errorf("created: %v", created)
	}
}
