package uiapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/channels"
)

// Tasks lists every task a channel started, for any agent (the hub's demo agent and an added one),
// as "from #channel" with the channel's name, in the state word the channel uses for it too
// ("rejected", not "failed" in one place and "rejected" in the other); the agent filter and the
// state filter take them, and an added agent's channel task opens with what the agent says of it.
func TestTasksListsWhatChannelsStarted(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var remote struct{ ID, Name string }
	c.result("agents.add", map[string]any{"url": otherDemo(t)}, &remote)
	ch, err := h.Channels.Create(t.Context(), channels.CreateParams{Name: "team", Members: []string{"remote://demo", "remote://" + remote.ID}})
	if err != nil {
		t.Fatal(err)
	}
	say := func(text string) {
		t.Helper()
		if _, err := h.Channels.Publish(t.Context(), channels.PublishParams{ChannelID: ch.ID,
			Parts: []json.RawMessage{json.RawMessage(`{"type":"text","text":` + strings.TrimSpace(mustJSON(t, text)) + `}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	ended := func(member, state, taskState string) bridge.State {
		t.Helper()
		var st bridge.State
		json.Unmarshal(c.await("bridge", func(d json.RawMessage) bool {
			var s bridge.State
			return json.Unmarshal(d, &s) == nil && s.Member == member && s.State == state && s.TaskState == taskState
		}), &st)
		return st
	}
	say("@demo hello near agent")
	ended("remote://demo", "idle", "completed")
	say("@" + remote.ID + " slow x") // the demo agent rejects a duration that is not a number
	ended("remote://"+remote.ID, "failed", "rejected")

	type row struct {
		Agent, ID, Title, Direction, State, ConversationID, ChannelID, ChannelName string
	}
	var all struct{ Tasks []row }
	c.result("tasks.list", nil, &all)
	if len(all.Tasks) != 2 {
		t.Fatalf("tasks: %+v", all.Tasks)
	}
	far, near := all.Tasks[0], all.Tasks[1]
	if far.Agent != remote.ID || far.Direction != "channel" || far.State != "rejected" || far.ChannelID != ch.ID || far.ChannelName != "team" ||
		!strings.Contains(far.Title, "slow x") || far.ID == "" {
		t.Errorf("the added agent's channel task: %+v", far)
	}
	if near.Agent != "demo" || near.Direction != "channel" || near.State != "completed" || near.ChannelID != ch.ID || near.ChannelName != "team" ||
		!strings.Contains(near.Title, "hello near agent") {
		t.Errorf("the demo agent's channel task: %+v", near)
	}

	// The channel says the same word for the task its agent last had.
	var states struct{ Agents []bridge.State }
	c.result("bridge.states", map[string]any{"channelId": ch.ID}, &states)
	words := map[string]string{}
	for _, st := range states.Agents {
		words[st.AgentID] = st.TaskState
	}
	if len(words) != 2 || words["demo"] != "completed" || words[remote.ID] != "rejected" {
		t.Errorf("bridge.states: %+v", states.Agents)
	}

	var filter struct{ Agents []struct{ ID, Name string } }
	c.result("tasks.agents", nil, &filter)
	if n := len(filter.Agents); n != 3 || filter.Agents[2].ID != remote.ID || filter.Agents[2].Name != remote.Name {
		t.Errorf("tasks.agents: %+v", filter.Agents)
	}
	var only struct{ Tasks []row }
	c.result("tasks.list", map[string]any{"agent": remote.ID}, &only)
	if len(only.Tasks) != 1 || only.Tasks[0] != far {
		t.Errorf("the added agent's tasks: %+v", only.Tasks)
	}
	c.result("tasks.list", map[string]any{"state": "rejected"}, &only)
	if len(only.Tasks) != 1 || only.Tasks[0] != far {
		t.Errorf("rejected tasks: %+v", only.Tasks)
	}

	var detail struct {
		Summary row
		Status  struct{ State string }
		History []struct{ Role string }
	}
	c.result("tasks.get", map[string]any{"agent": remote.ID, "id": far.ID}, &detail)
	if detail.Summary != far || detail.Status.State != "rejected" || len(detail.History) == 0 || detail.History[0].Role != "user" {
		t.Errorf("the added agent's channel task opened: %+v", detail)
	}
	if f := c.call("tasks.get", map[string]any{"agent": remote.ID, "id": "no-such-task"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("an unknown task of an added agent: %+v", f)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
