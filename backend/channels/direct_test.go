package channels_test

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"testing"
)

// specDirectID is the direct channel id as the channels extension's §5 defines it, written from
// its text and not from the hub's code: "chan:direct:{hash(principalA,principalB)}", the two
// principal ids sorted lexicographically, SHA-256, truncated to the first 24 hex characters.
func specDirectID(a, b string) string {
	ids := []string{a, b}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(ids[0] + "," + ids[1]))
	return "chan:direct:" + hex.EncodeToString(sum[:])[:24]
}

// A client written from the spec reaches a direct channel by the id it derives, with no creation
// call and no recipientId: the first publish creates it, the other party reads and answers there,
// and a third principal is still kept out. recipientId keeps working and names the same channel.
func TestDirectChannelReachedByTheSpecsID(t *testing.T) {
	h := startHub(t, "")
	alice, bob, carol := h.principal(t, "alice"), h.principal(t, "bob"), h.principal(t, "carol")
	id := specDirectID(alice.ID, bob.ID)
	text := func(s string) []any { return []any{map[string]any{"kind": "text", "text": s}} }

	var first struct{ Event event }
	alice.ok("channels/publish", map[string]any{"channelId": id, "parts": text("hi bob")}, &first)
	if first.Event.ChannelID != id || first.Event.Sequence != 1 {
		t.Fatalf("published to %s seq %d, want %s seq 1", first.Event.ChannelID, first.Event.Sequence, id)
	}
	bob.ok("channels/publish", map[string]any{"channelId": id, "parts": text("hi alice")}, nil)
	if got := bob.history(map[string]any{"channelId": id}); len(got.Events) != 2 {
		t.Fatalf("bob reads %d events of %s", len(got.Events), id)
	}
	var viaRecipient struct{ Event event }
	alice.ok("channels/publish", map[string]any{"recipientId": bob.ID, "parts": text("again")}, &viaRecipient)
	if viaRecipient.Event.ChannelID != id {
		t.Fatalf("recipientId published to %s, the spec's id is %s", viaRecipient.Event.ChannelID, id)
	}

	carol.fails(-32020, "channels/publish", map[string]any{"channelId": id, "parts": text("let me in")})
	carol.fails(-32020, "channels/history", map[string]any{"channelId": id})
	// An id no pair of the hub's principals makes is an unknown channel.
	alice.fails(-32020, "channels/publish", map[string]any{"channelId": specDirectID(alice.ID, "agent://nobody"), "parts": text("?")})
}
