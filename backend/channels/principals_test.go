package channels_test

import (
	"context"
	"testing"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
)

// readsNothingOf checks that p sees none of the channels: not listed, not readable.
func readsNothingOf(t *testing.T, p *principal, ids ...string) {
	t.Helper()
	var l struct{ Channels []channel }
	p.ok("channels/list", map[string]any{}, &l)
	for _, c := range l.Channels {
		for _, id := range ids {
			if c.ID == id {
				t.Fatalf("%s lists %s", p.ID, id)
			}
		}
	}
	for _, id := range ids {
		p.fails(-32020, "channels/get", map[string]any{"channelId": id})
		p.fails(-32020, "channels/history", map[string]any{"channelId": id})
	}
}

// A removed principal leaves its channels, private and direct: the next holder of its name, added
// again in Settings → Access, lists and reads none of them.
func TestRemovedPrincipalsNameStartsWithNothing(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	erin := h.principal(t, "erin")
	c := alice.create(map[string]any{"name": "private", "visibility": "private", "members": []string{erin.ID}})
	erin.publish(c.ID, "secret")
	var d struct{ Event event }
	erin.ok("channels/publish", map[string]any{"recipientId": alice.ID, "parts": []any{map[string]any{"kind": "text", "text": "dm"}}}, &d)

	gatewayCall(t, h, "access.remove", map[string]any{"name": "erin"})
	again := h.principal(t, "erin")
	readsNothingOf(t, again, c.ID, d.Event.ChannelID)
	// The channel and its history are still there for those who stay.
	if got := alice.history(map[string]any{"channelId": c.ID}); len(got.Events) != 1 {
		t.Fatalf("alice reads %d events", len(got.Events))
	}
}

// `agenthub principals remove` then `add` while the hub is stopped: at its next start the hub
// drops the memberships the earlier holder had.
func TestPrincipalReplacedWhileHubStoppedStartsWithNothing(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, dir)
	alice := h.principal(t, "alice")
	dave := h.principal(t, "dave")
	c := alice.create(map[string]any{"name": "private", "visibility": "private", "members": []string{dave.ID}})
	h.Stop()

	ctx := context.Background()
	db, err := store.Open(hubtest.Target(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := auth.OpenPrincipals(ctx, db) // as runPrincipals does
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Remove(ctx, "dave"); err != nil {
		t.Fatal(err)
	}
	_, key, err := ps.Add(ctx, "dave")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	h = startHub(t, dir)
	again := &principal{t: t, url: h.URL, key: key, ID: "agent://dave"}
	readsNothingOf(t, again, c.ID)
}

// Members and direct recipients must be principals the hub has: naming one nobody holds would
// hand its access to whoever is given the name later.
func TestUnknownPrincipalsAreRefused(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{"name": "c", "visibility": "private"})
	alice.fails(-32602, "channels/addMember", map[string]any{"channelId": c.ID, "principalId": "agent://ghost"})
	alice.fails(-32602, "channels/create", map[string]any{"name": "d", "members": []string{"agent://ghost"}})
	alice.fails(-32602, "channels/publish", map[string]any{"recipientId": "agent://nobody",
		"parts": []any{map[string]any{"kind": "text", "text": "hi"}}})
	// The owner is always known.
	alice.ok("channels/addMember", map[string]any{"channelId": c.ID, "principalId": "user://owner"}, nil)
}
