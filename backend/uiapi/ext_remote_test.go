package uiapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// extOn is an ext.* request's params for agent (empty: this hub).
func extOn(agent, method string, params any) map[string]any {
	p := map[string]any{"method": method, "params": params}
	if agent != "" {
		p["agent"] = agent
	}
	return p
}

// Two whole hubs on loopback: the owner of hub A adds hub B by URL with the key of a principal made
// on B ("alice"), and through A's gateway browses and edits B's channels and knowledge graph in the
// extensions' own terms, as alice: lists, creates, joins (added by B's owner), publishes, reads
// history, streams live events published on B, queries and updates B's graph (seen by B's own
// query) and subscribes to it. B's JSON-RPC errors arrive with their codes; a wrong key is an
// agent_error naming the refusal; an agent without the extensions is invalid params; everything
// went through A's wire log with the key masked.
func TestExtReachesAnotherHubsChannelsAndKnowledgeGraph(t *testing.T) {
	a, b := startHub(t), startHub(t)
	_, key, err := b.Auth.Principals.Add(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	ui, bOwner := dial(t, a), dial(t, b)

	var added struct {
		ID   string          `json:"id"`
		Card json.RawMessage `json:"card"`
	}
	ui.result("agents.add", map[string]any{"url": b.Agent.BaseURL}, &added)
	if added.ID == "" || !strings.Contains(string(added.Card), `"knowledgeGraph":true`) {
		t.Fatalf("hub B as added to A: %+v", added)
	}
	remote := added.ID

	// A wrong key: B refuses, and the owner is told so in words.
	ui.result("agents.setCredential", map[string]any{"id": remote, "scheme": "apiKey", "apiKey": "ahk_not-a-key-of-b"}, nil)
	if e := ui.extFail("ext.call", extOn(remote, "channels/list", nil)); e.Code != "agent_error" || !strings.Contains(e.Message, "401") {
		t.Fatalf("a wrong key: %+v, want agent_error saying B answered 401", e)
	}
	ui.result("agents.setCredential", map[string]any{"id": remote, "scheme": "apiKey", "apiKey": key}, nil)

	// B's owner makes a channel with alice in it: A sees it in B's list.
	type channel struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Members []struct {
			PrincipalID string `json:"principalId"`
			Role        string `json:"role"`
		} `json:"members"`
	}
	var lobby struct{ Channel channel }
	bOwner.result("ext.call", extOn("", "channels/create", map[string]any{"name": "lobby", "visibility": "private", "members": []string{"agent://alice"}}), &lobby)
	var listed struct{ Channels []channel }
	ui.result("ext.call", extOn(remote, "channels/list", nil), &listed)
	if len(listed.Channels) != 1 || listed.Channels[0].ID != lobby.Channel.ID {
		t.Fatalf("B's channels as alice sees them: %+v", listed.Channels)
	}

	// Alice creates her own channel on B, and publishes in B's lobby.
	var mine struct{ Channel channel }
	ui.result("ext.call", extOn(remote, "channels/create", map[string]any{"name": "alice's room", "visibility": "private"}), &mine)
	if m := mine.Channel.Members; len(m) != 1 || m[0].PrincipalID != "agent://alice" || m[0].Role != "owner" {
		t.Fatalf("the channel A created on B: %+v, want alice as its owner", mine.Channel)
	}
	var opened struct{ Stream string }
	ui.result("ext.stream", extOn(remote, "channels/stream", map[string]any{"channelId": lobby.Channel.ID}), &opened)
	type event struct {
		Sequence int64  `json:"sequence"`
		Author   string `json:"author"`
		Parts    []struct {
			Text string `json:"text"`
		} `json:"parts"`
	}
	var published struct{ Event event }
	ui.result("ext.call", extOn(remote, "channels/publish", map[string]any{"channelId": lobby.Channel.ID,
		"parts": []any{map[string]any{"type": "text", "text": "hello from hub A"}}}), &published)
	if published.Event.Sequence != 1 || published.Event.Author != "agent://alice" {
		t.Fatalf("published on B: %+v, want sequence 1 by agent://alice", published.Event)
	}

	// B's owner answers on B; the event arrives live at A's UI through A's stream of B.
	bOwner.result("ext.call", extOn("", "channels/publish", map[string]any{"channelId": lobby.Channel.ID,
		"parts": []any{map[string]any{"type": "text", "text": "hello from B's owner"}}}), nil)
	var live []event
	ui.awaitExt(opened.Stream, func(f extFrame) bool {
		var item struct{ Event event }
		if len(f.Result) > 0 && json.Unmarshal(f.Result, &item) == nil {
			live = append(live, item.Event)
		}
		return len(live) == 2
	})
	if live[0].Author != "agent://alice" || live[1].Author != "user://owner" || live[1].Parts[0].Text != "hello from B's owner" {
		t.Fatalf("the live events of B's lobby at A: %+v", live)
	}
	ui.result("ext.close", map[string]any{"stream": opened.Stream}, nil)

	var history struct{ Events []event }
	ui.result("ext.call", extOn(remote, "channels/history", map[string]any{"channelId": lobby.Channel.ID}), &history)
	if len(history.Events) != 2 || history.Events[0].Parts[0].Text != "hello from hub A" || history.Events[1].Sequence != 2 {
		t.Fatalf("B's lobby history at A: %+v", history.Events)
	}

	// B's errors, with B's codes: before a stream opens, and on a call.
	for _, c := range []struct{ gw, method string }{{"ext.call", "channels/get"}, {"ext.stream", "channels/stream"}} {
		e := ui.extFail(c.gw, extOn(remote, c.method, map[string]any{"channelId": "chan:nope"}))
		if e.Code != "rpc_error" || e.RPC == nil || e.RPC.Code != -32020 {
			t.Fatalf("%s %s of an unknown channel on B: %+v, want rpc_error -32020", c.gw, c.method, e)
		}
	}

	// B's knowledge graph: a subscription, a query, an update seen by B's own query and by the
	// subscription, and a syntax error with B's code and position.
	ui.result("ext.stream", extOn(remote, "knowledge/subscribe", map[string]any{"subscriptionQuery": `subscription { changes(subject: "ex:hubA") { op } }`}), &opened)
	var q struct {
		Data struct {
			Node struct{ Label string } `json:"node"`
		} `json:"data"`
	}
	ui.result("ext.call", extOn(remote, "knowledge/query", map[string]any{"queryLanguage": "graphql", "query": `{ node(id: "agenthub:hub") { label } }`}), &q)
	if q.Data.Node.Label != "AgentHub" {
		t.Fatalf("B's graph queried from A: %+v", q)
	}
	var upd struct {
		Success bool `json:"success"`
	}
	ui.result("ext.call", extOn(remote, "knowledge/update", map[string]any{"justification": "met hub A",
		"mutations": []any{map[string]any{"op": "add", "statement": map[string]any{"subject": map[string]any{"id": "ex:hubA"},
			"predicate": map[string]any{"id": "rdfs:label"}, "object": map[string]any{"value": "Hub A"}}}}}), &upd)
	if !upd.Success {
		t.Fatal("knowledge/update on B from A did not succeed")
	}
	var onB struct {
		Data struct {
			Node struct {
				Label      string
				Attributes []struct{ Provenance map[string]any }
			} `json:"node"`
		} `json:"data"`
	}
	bOwner.result("ext.call", extOn("", "knowledge/query", map[string]any{"query": `{ node(id: "ex:hubA") { label attributes { provenance } } }`}), &onB)
	if onB.Data.Node.Label != "Hub A" || len(onB.Data.Node.Attributes) != 1 || onB.Data.Node.Attributes[0].Provenance["sourceAgentId"] != "agent://alice" {
		t.Fatalf("B's own query after A's update: %+v", onB.Data)
	}
	change := ui.awaitExt(opened.Stream, func(f extFrame) bool { return len(f.Result) > 0 })
	if !strings.Contains(string(change.Result), `"op":"add"`) || !strings.Contains(string(change.Result), "Hub A") {
		t.Fatalf("the subscription's change at A: %s", change.Result)
	}
	e := ui.extFail("ext.call", extOn(remote, "knowledge/query", map[string]any{"query": "{ node(id: \"x\") {"}))
	if e.Code != "rpc_error" || e.RPC == nil || e.RPC.Code != -32010 || !strings.Contains(string(e.RPC.Data), `"line":1`) {
		t.Fatalf("a syntax error in B's graph: %+v", e)
	}

	// An agent whose card has neither extension: invalid params, nothing sent.
	var demo struct{ ID string }
	ui.result("agents.add", map[string]any{"url": b.Demo.BaseURL}, &demo)
	for _, m := range []string{"channels/list", "knowledge/query"} {
		if e := ui.extFail("ext.call", extOn(demo.ID, m, map[string]any{"query": "{ x }"})); e.Code != "invalid_params" {
			t.Fatalf("%s on the demo agent: %+v, want invalid_params", m, e)
		}
	}
	if e := ui.extFail("ext.call", extOn("no-such-agent", "channels/list", nil)); e.Code != "not_found" {
		t.Fatalf("an unknown agent: %+v, want not_found", e)
	}

	// A's wire log of B: every extension call is there, and alice's key never is. (The log is
	// written behind the calls, so it is read until the last of them shows.)
	want := []string{"channels/list", "channels/create", "channels/publish", "channels/stream", "channels/history", "knowledge/query", "knowledge/update", "knowledge/subscribe"}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var wire struct {
			Entries []struct {
				Method string            `json:"method"`
				Header map[string]string `json:"header"`
				Body   string            `json:"body"`
			} `json:"entries"`
		}
		ui.result("wire.list", map[string]any{"agentId": remote, "limit": 500}, &wire)
		seen := map[string]bool{}
		for _, w := range wire.Entries {
			seen[w.Method] = true
			if strings.Contains(w.Body, key) || strings.Contains(w.Header["X-Api-Key"], key) {
				t.Fatalf("A's wire log holds alice's key: %+v", w)
			}
		}
		var missing []string
		for _, m := range want {
			if !seen[m] {
				missing = append(missing, m)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("A's wire log has no %v call to B", missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// An event stored on hub B larger than a stream carries (put there the way an older hub's bridge
// did, straight into B's store: a 10 MiB agent answer) does not end hub A's stream of B's channel,
// from the start or resumed: A's UI sees a placeholder naming the event's sequence and why, then
// the events after it.
func TestRemoteStreamPassesAnEventTooLargeToCarry(t *testing.T) {
	a, b := startHub(t), startHub(t)
	_, key, err := b.Auth.Principals.Add(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	ui, bOwner := dial(t, a), dial(t, b)
	var added struct {
		ID string `json:"id"`
	}
	ui.result("agents.add", map[string]any{"url": b.Agent.BaseURL}, &added)
	ui.result("agents.setCredential", map[string]any{"id": added.ID, "scheme": "apiKey", "apiKey": key}, nil)
	var room struct {
		Channel struct {
			ID string `json:"id"`
		}
	}
	bOwner.result("ext.call", extOn("", "channels/create", map[string]any{"name": "room", "members": []string{"agent://alice"}}), &room)
	ch := room.Channel.ID

	huge := strings.Repeat("x", 10<<20)
	stored, _ := json.Marshal(map[string]any{"id": "ev-huge", "channelId": ch, "sequence": 1, "timestamp": 1, "author": "remote://demo",
		"parts": []any{map[string]any{"type": "text", "text": huge}}, "kind": "messageEvent"})
	if _, err := b.Agent.DB.Writer.ExecContext(t.Context(), `INSERT INTO channel_events(channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json)
		VALUES (?, 1, 'ev-huge', 1, 'remote://demo', NULL, ?, ?)`, ch, []byte{}, stored); err != nil {
		t.Fatal(err)
	}
	if b.Agent.DB.Postgres() { // there the channel's row keeps its last sequence (replicas take the next from it)
		if _, err := b.Agent.DB.Writer.ExecContext(t.Context(), `UPDATE channels SET last_seq = 1 WHERE id = ?`, ch); err != nil {
			t.Fatal(err)
		}
	}
	bOwner.result("ext.call", extOn("", "channels/publish", map[string]any{"channelId": ch,
		"parts": []any{map[string]any{"type": "text", "text": "after the big one"}}}), nil)

	type item struct {
		Event struct {
			ID       string `json:"id"`
			Sequence int64  `json:"sequence"`
			Parts    []struct {
				Text string `json:"text"`
			} `json:"parts"`
			Metadata struct {
				Agenthub struct {
					Omitted *struct {
						Bytes  int    `json:"bytes"`
						Reason string `json:"reason"`
					} `json:"omitted"`
				} `json:"agenthub"`
			} `json:"metadata"`
		} `json:"event"`
	}
	for _, since := range []int64{0, 0} { // a resume meets the same event again, and passes it again
		var opened struct{ Stream string }
		ui.result("ext.stream", extOn(added.ID, "channels/stream", map[string]any{"channelId": ch, "sinceSequence": since}), &opened)
		var got []item
		ui.awaitExt(opened.Stream, func(f extFrame) bool {
			if f.Error != nil || f.End {
				t.Fatalf("the stream of B's channel ended at the large event: %+v", f)
			}
			var it item
			if len(f.Result) > 0 && json.Unmarshal(f.Result, &it) == nil && it.Event.Sequence > 0 {
				got = append(got, it)
			}
			return len(got) == 2
		})
		ui.result("ext.close", map[string]any{"stream": opened.Stream}, nil)
		first, next := got[0].Event, got[1].Event
		if first.Sequence != 1 || first.ID != "ev-huge" || first.Metadata.Agenthub.Omitted == nil || first.Metadata.Agenthub.Omitted.Bytes != len(stored) ||
			len(first.Parts) != 1 || !strings.Contains(first.Parts[0].Text, "too large") {
			t.Errorf("the large event at A: %+v, want a placeholder naming sequence 1 and its size", first)
		}
		if next.Sequence != 2 || next.Parts[0].Text != "after the big one" {
			t.Errorf("the event after it: %+v", next)
		}
	}
}
