package uiapi_test

import (
	"testing"
)

// An added agent the owner removes leaves every channel it was in (the bridge can no longer speak
// for it there): the member lists no longer name it, each channel's version goes up, and the UI is
// told by a "members" change on the channel topic.
func TestRemovedAgentLeavesEveryChannel(t *testing.T) {
	a, b := startHub(t), startHub(t)
	c := dial(t, a)
	var added struct{ ID string }
	c.result("agents.add", map[string]any{"url": b.Agent.BaseURL}, &added)
	member := "remote://" + added.ID

	type channel struct {
		ID      string
		Version int64
		Members []struct{ PrincipalID string }
	}
	var with1, with2, without struct{ Channel channel }
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "one", "members": []string{member}}}, &with1)
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "two", "visibility": "public", "members": []string{member}}}, &with2)
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "none"}}, &without)
	if len(with1.Channel.Members) != 2 || len(with2.Channel.Members) != 2 {
		t.Fatalf("created with the agent: %+v, %+v", with1.Channel, with2.Channel)
	}
	c.awaitChannel(func(p channelPush) bool { return p.ChannelID == without.Channel.ID && p.Change == "created" })

	c.result("agents.remove", map[string]any{"id": added.ID}, nil)
	changed := map[string]bool{}
	seen := c.awaitChannel(func(p channelPush) bool {
		if p.Change == "members" {
			changed[p.ChannelID] = true
		}
		return len(changed) == 2
	})
	if len(seen) != 2 || !changed[with1.Channel.ID] || !changed[with2.Channel.ID] {
		t.Fatalf("pushed %+v: want a members change of each channel the agent was in, and nothing else", seen)
	}
	for _, ch := range []channel{with1.Channel, with2.Channel} {
		var got struct{ Channel channel }
		c.result("ext.call", map[string]any{"method": "channels/get", "params": map[string]any{"channelId": ch.ID}}, &got)
		if len(got.Channel.Members) != 1 || got.Channel.Members[0].PrincipalID != "user://owner" || got.Channel.Version != ch.Version+1 {
			t.Errorf("%s after the agent's removal: %+v, want the owner alone at version %d", ch.ID, got.Channel, ch.Version+1)
		}
	}
	var states struct{ Agents []any }
	c.result("bridge.states", map[string]any{"channelId": with1.Channel.ID}, &states)
	if len(states.Agents) != 0 {
		t.Errorf("bridge states after the removal: %+v", states.Agents)
	}
}
