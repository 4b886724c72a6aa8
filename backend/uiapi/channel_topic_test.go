package uiapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/server"
)

// channelPush is topic "channel"'s data.
type channelPush struct {
	ChannelID string `json:"channelId"`
	Sequence  int64  `json:"sequence"`
	Author    string `json:"author"`
	Change    string `json:"change"`
}

// rpcAs calls one of the hub's channels methods on its JSON-RPC endpoint with a principal's key,
// as a remote agent would, and decodes the result into out.
func rpcAs(t *testing.T, h *hub.Hub, key, method string, params, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, h.Agent.BaseURL+server.RPCPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Error != nil {
		t.Fatalf("%s: HTTP %d %s", method, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			t.Fatal(err)
		}
	}
}

// awaitChannel returns every channel push up to and including the first that satisfies ok.
func (c *ui) awaitChannel(ok func(channelPush) bool) []channelPush {
	c.t.Helper()
	var seen []channelPush
	c.await("channel", func(d json.RawMessage) bool {
		var p channelPush
		if err := json.Unmarshal(d, &p); err != nil {
			c.t.Fatalf("channel push %s: %v", d, err)
		}
		seen = append(seen, p)
		return ok(p)
	})
	return seen
}

// The owner hears of new events and changes in the channels it may see, on one topic for all of
// them, and of nothing in a private channel of someone else: the pushes come in order, so what
// alice did in her own private channel before a visible change would have come before it.
func TestChannelTopicTellsTheOwnerOfVisibleChannelsOnly(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var alice issued
	c.result("access.add", map[string]any{"name": "alice"}, &alice)
	text := []map[string]any{{"kind": "text", "text": "hi"}}
	type created struct{ Channel struct{ ID string } }

	// The owner's own channel: created, then its events.
	var mine created
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "mine"}}, &mine)
	c.awaitChannel(func(p channelPush) bool { return p.ChannelID == mine.Channel.ID && p.Change == "created" })
	c.result("ext.call", map[string]any{"method": "channels/publish", "params": map[string]any{"channelId": mine.Channel.ID, "parts": text}}, nil)
	c.awaitChannel(func(p channelPush) bool {
		return p.ChannelID == mine.Channel.ID && p.Sequence == 1 && p.Author == "user://owner"
	})

	// alice's private channel, without the owner: created, written, renamed, deleted, unheard of.
	var secret created
	rpcAs(t, h, alice.Key, "channels/create", map[string]any{"name": "secret"}, &secret)
	rpcAs(t, h, alice.Key, "channels/publish", map[string]any{"channelId": secret.Channel.ID, "parts": text}, nil)
	rpcAs(t, h, alice.Key, "channels/update", map[string]any{"channelId": secret.Channel.ID, "expectedVersion": 1, "name": "still secret"}, nil)
	// A public one of hers the owner may read: its creation and its events are heard.
	var open created
	rpcAs(t, h, alice.Key, "channels/create", map[string]any{"name": "open", "visibility": "public"}, &open)
	rpcAs(t, h, alice.Key, "channels/publish", map[string]any{"channelId": open.Channel.ID, "parts": text}, nil)
	seen := c.awaitChannel(func(p channelPush) bool {
		return p.ChannelID == open.Channel.ID && p.Sequence == 1 && p.Author == "agent://alice"
	})
	if len(seen) != 2 || seen[0] != (channelPush{ChannelID: open.Channel.ID, Change: "created"}) {
		t.Fatalf("pushed %+v: want the public channel's creation, then its event, and nothing of the private one", seen)
	}

	// Adding the owner to another private channel is a "members" change the owner hears of.
	var team created
	rpcAs(t, h, alice.Key, "channels/create", map[string]any{"name": "team"}, &team)
	rpcAs(t, h, alice.Key, "channels/publish", map[string]any{"channelId": secret.Channel.ID, "parts": text}, nil)
	rpcAs(t, h, alice.Key, "channels/addMember", map[string]any{"channelId": team.Channel.ID, "principalId": "user://owner"}, nil)
	seen = c.awaitChannel(func(p channelPush) bool { return p.ChannelID == team.Channel.ID })
	if len(seen) != 1 || seen[0].Change != "members" {
		t.Fatalf("pushed %+v: want only the owner's addition to team", seen)
	}

	// A direct chat alice opens with the owner shows as created by her first publish, then its event.
	rpcAs(t, h, alice.Key, "channels/delete", map[string]any{"channelId": secret.Channel.ID}, nil)
	rpcAs(t, h, alice.Key, "channels/publish", map[string]any{"recipientId": "user://owner", "parts": text}, nil)
	direct := channels.DirectID("agent://alice", "user://owner")
	seen = c.awaitChannel(func(p channelPush) bool { return p.ChannelID == direct && p.Sequence == 1 })
	if len(seen) != 2 || seen[0] != (channelPush{ChannelID: direct, Change: "created"}) || seen[1].Author != "agent://alice" {
		t.Fatalf("pushed %+v: want the direct channel created, then alice's event, and nothing of her deleted private channel", seen)
	}

	// Renaming and deleting a channel the owner sees are pushed too.
	rpcAs(t, h, alice.Key, "channels/update", map[string]any{"channelId": open.Channel.ID, "expectedVersion": 1, "visibility": "private"}, nil)
	c.awaitChannel(func(p channelPush) bool { return p.ChannelID == open.Channel.ID && p.Change == "updated" })
	rpcAs(t, h, alice.Key, "channels/delete", map[string]any{"channelId": team.Channel.ID}, nil)
	c.awaitChannel(func(p channelPush) bool { return p.ChannelID == team.Channel.ID && p.Change == "deleted" })
}

// A burst of events (published at once from many writers, grouped in few commits) does not hold
// up the hub: the pushes that do not fit are dropped and the client is told it lagged, and what it
// then reads (channels/get's lastSequence) with what was pushed reaches the last event.
func TestChannelTopicBurstEndsAtTheLastEventOrALag(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	h.Channels.SetRateLimit(1e6, 1e6)
	var bulk struct{ Channel struct{ ID string } }
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "bulk"}}, &bulk)
	id := bulk.Channel.ID

	const writers, each = 20, 150
	owner := auth.WithPrincipal(t.Context(), auth.Owner)
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := h.Channels.Publish(owner, channels.PublishParams{ChannelID: id, Parts: []json.RawMessage{json.RawMessage(`{"kind":"text","text":"x"}`)}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()

	var newest, lags int64
	deadline := time.After(30 * time.Second)
	for newest < writers*each {
		select {
		case f, open := <-c.pushes:
			if !open {
				t.Fatal("connection closed during the burst")
			}
			switch f.Topic {
			case "channel":
				var p channelPush
				json.Unmarshal(f.Data, &p)
				if p.ChannelID == id {
					newest = max(newest, p.Sequence)
				}
			case "lagged":
				lags++
				var got struct{ Channel struct{ LastSequence int64 } }
				c.result("ext.call", map[string]any{"method": "channels/get", "params": map[string]any{"channelId": id}}, &got)
				newest = max(newest, got.Channel.LastSequence)
			}
		case <-deadline:
			t.Fatalf("after the burst the client knows of sequence %d of %d (%d lags)", newest, writers*each, lags)
		}
	}
	t.Logf("%d events, %d lagged frames", writers*each, lags)
}
