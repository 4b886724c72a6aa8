package uiapi_test

import (
	"encoding/json"
	"testing"

	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/channels"
)

// bridge.states lists the added agents of a channel with their working state, and the bridge topic
// pushes each change: the demo agent mentioned with "ask" goes working, then input-required with
// the task that asks.
func TestGatewayBridgeStatesAndTopic(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	ch, err := h.Channels.Create(t.Context(), channels.CreateParams{Name: "ui", Members: []string{"remote://demo"}})
	if err != nil {
		t.Fatal(err)
	}
	var res struct{ Agents []bridge.State }
	c.result("bridge.states", map[string]any{"channelId": ch.ID}, &res)
	if len(res.Agents) != 1 || res.Agents[0] != (bridge.State{ChannelID: ch.ID, Member: "remote://demo", AgentID: "demo", State: "idle", UpdatedAt: res.Agents[0].UpdatedAt}) {
		t.Fatalf("states before any mention: %+v", res.Agents)
	}

	if _, err := h.Channels.Publish(t.Context(), channels.PublishParams{ChannelID: ch.ID,
		Parts: []json.RawMessage{json.RawMessage(`{"type":"text","text":"@demo ask"}`)}}); err != nil {
		t.Fatal(err)
	}
	state := func(want string) func(json.RawMessage) bool {
		return func(d json.RawMessage) bool {
			var st bridge.State
			return json.Unmarshal(d, &st) == nil && st.ChannelID == ch.ID && st.Member == "remote://demo" && st.State == want
		}
	}
	c.await("bridge", state("working"))
	var asking bridge.State
	json.Unmarshal(c.await("bridge", state("input-required")), &asking)
	if asking.TaskID == "" || asking.AgentID != "demo" || asking.UpdatedAt == 0 {
		t.Errorf("pushed input-required state: %+v", asking)
	}
	c.result("bridge.states", map[string]any{"channelId": ch.ID}, &res)
	if len(res.Agents) != 1 || res.Agents[0] != asking {
		t.Errorf("states %+v, the last pushed %+v", res.Agents, asking)
	}

	if f := c.call("bridge.states", map[string]any{"channelId": "no-such-channel"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("unknown channel: %+v", f)
	}
	if f := c.call("bridge.states", map[string]any{}); f.Error == nil || f.Error.Code != "invalid_params" {
		t.Errorf("no channelId: %+v", f)
	}
}

// bridge.deliver sends a message that mentioned the demo agent before it joined the channel, once it
// has: the agent goes to work on it. What a mention could not have sent is refused.
func TestGatewayBridgeDeliver(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	ch, err := h.Channels.Create(t.Context(), channels.CreateParams{Name: "late"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Channels.Publish(t.Context(), channels.PublishParams{ChannelID: ch.ID,
		Parts: []json.RawMessage{json.RawMessage(`{"type":"text","text":"@demo ask"}`)}}); err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"channelId": ch.ID, "sequence": 1, "member": "remote://demo"}
	if f := c.call("bridge.deliver", params); f.Error == nil || f.Error.Code != "invalid_params" {
		t.Errorf("deliver to a non-member: %+v", f)
	}
	if _, err := h.Channels.AddMember(t.Context(), ch.ID, "remote://demo", ""); err != nil {
		t.Fatal(err)
	}
	var res struct{ Delivered bool }
	c.result("bridge.deliver", params, &res)
	if !res.Delivered {
		t.Errorf("deliver: %+v", res)
	}
	c.await("bridge", func(d json.RawMessage) bool {
		var st bridge.State
		return json.Unmarshal(d, &st) == nil && st.ChannelID == ch.ID && st.Member == "remote://demo" && st.State == "input-required"
	})
	if f := c.call("bridge.deliver", map[string]any{"channelId": "no-such-channel", "sequence": 1, "member": "remote://demo"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("unknown channel: %+v", f)
	}
	if f := c.call("bridge.deliver", map[string]any{"channelId": ch.ID}); f.Error == nil || f.Error.Code != "invalid_params" {
		t.Errorf("no sequence: %+v", f)
	}
}

// channels.memberLog lists a channel's joins and leaves, oldest first, from its audit.
func TestGatewayChannelMemberLog(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	ch, err := h.Channels.Create(t.Context(), channels.CreateParams{Name: "log", Members: []string{"remote://demo"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Channels.RemoveMember(t.Context(), ch.ID, "remote://demo"); err != nil {
		t.Fatal(err)
	}
	var res struct{ Entries []channels.MemberEntry }
	c.result("channels.memberLog", map[string]any{"channelId": ch.ID}, &res)
	if len(res.Entries) != 2 || !res.Entries[0].Joined || res.Entries[0].Principal != "remote://demo" ||
		res.Entries[1].Joined || res.Entries[1].Principal != "remote://demo" || res.Entries[1].Actor != "user://owner" {
		t.Fatalf("member log: %+v", res.Entries)
	}
	if f := c.call("channels.memberLog", map[string]any{"channelId": "no-such-channel"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("unknown channel: %+v", f)
	}
}
