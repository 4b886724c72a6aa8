package bridge

import (
	"encoding/json"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/auth"
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
	created := a2ui.Created{}
	a2ui.AddCreated(created, a2a.ContentParts{a2ui.NewPart(a2uiMessagesOf(raw))})
	if len(created) != 1 || created["s"] != a2ui.V09 {
		t.Errorf("created: %v", created)
	}
}

// Act sends the action once, to the agent that drew the surface, in its task; the channel's line of
// the action is never forwarded by the mentions its typed values may hold ("@echo" here). An action
// about a surface the agent did not draw in that task is refused and sends nothing.
func TestActSendsTheActionOnlyOnce(t *testing.T) {
	ctx := t.Context()
	agent := &echoAgent{more: make(chan struct{}, 10)}
	_, _, chans, c, br := openBridge(t, agent)
	if err := br.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	// The agent's form, as the bridge publishes it (only the bridge publishes as remote://…).
	form := channelParts([]*a2a.Part{a2ui.NewPart([]any{map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s", "catalogId": "c"}}})})
	br.publishRaw("echo", c.ID, form, Meta{TaskID: "t1", State: "input-required"}, "form")

	action := func(surface, note string) []any {
		return []any{map[string]any{"version": "v0.9", "action": map[string]any{"name": "go", "surfaceId": surface, "sourceComponentId": "b",
			"timestamp": "2026-11-28T12:00:00Z", "context": map[string]any{"note": note}}}}
	}
	owner := auth.WithPrincipal(ctx, auth.Owner)
	for name, a := range map[string]Action{
		"another task":    {ChannelID: c.ID, Member: "remote://echo", TaskID: "t2", Messages: action("s", "")},
		"another surface": {ChannelID: c.ID, Member: "remote://echo", TaskID: "t1", Messages: action("x", "")},
		"not a member":    {ChannelID: c.ID, Member: "remote://other", TaskID: "t1", Messages: action("s", "")},
	} {
		if _, err := br.Act(owner, a); !IsRefused(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	ev, err := br.Act(owner, Action{ChannelID: c.ID, Member: "remote://echo", TaskID: "t1", Messages: action("s", "@echo look")})
	if err != nil {
		t.Fatal(err)
	}
	if got := eventText(ev); got != "chose go (note: @echo look)" {
		t.Errorf("the channel's line: %q", got)
	}
	<-agent.more
	// A message after it, in the same queue: had the action's line been forwarded too, it would
	// have been sent before this one.
	say(t, chans, c.ID, "@echo after")
	<-agent.more
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 2 || agent.got[1] != "after" {
		t.Errorf("the agent got %q, want the action (no text) and then \"after\"", agent.got)
	}
}
