package channels_test

import (
	"encoding/json"
	"strings"
	"testing"
)

type quotaData struct {
	Quota     string `json:"quota"`
	Limit     int64  `json:"limit"`
	Used      int64  `json:"used"`
	Requested int64  `json:"requested"`
}

// refusedByQuota publishes as p and checks the refusal: -32023 with data naming the quota.
func refusedByQuota(t *testing.T, p *principal, channelID, quota string) quotaData {
	t.Helper()
	_, e := p.rpc("channels/publish", map[string]any{"channelId": channelID, "parts": []any{map[string]any{"kind": "text", "text": "one more"}}})
	if e == nil || e.Code != -32023 {
		t.Fatalf("publish past the %s quota: %+v, want -32023", quota, e)
	}
	var d quotaData
	if err := json.Unmarshal(e.Data, &d); err != nil || d.Quota != quota {
		t.Fatalf("error data %s (%v), want quota %q", e.Data, err, quota)
	}
	return d
}

// A principal stores at most its quota of channel events, in count and in bytes, over all its
// channels: the publish past it is refused with -32023 naming the quota, its limit and the use,
// and nothing of it is stored. The owner has no quota.
func TestChannelQuotasRefusePublishesPastThem(t *testing.T) {
	h := startHub(t, "")
	h.Channels.SetQuota(3, 1<<20)
	alice := h.principal(t, "alice")
	a := alice.create(map[string]any{"name": "a"})
	b := alice.create(map[string]any{"name": "b"})
	alice.publish(a.ID, "1")
	alice.publish(a.ID, "2")
	alice.publish(b.ID, "3")
	d := refusedByQuota(t, alice, b.ID, "events")
	if d.Limit != 3 || d.Used != 3 || d.Requested != 1 {
		t.Fatalf("quota data %+v", d)
	}
	if got := alice.history(map[string]any{"channelId": b.ID}); len(got.Events) != 1 {
		t.Fatalf("%d events stored in b, want 1", len(got.Events))
	}
	// Deleting a channel gives its events' room back.
	alice.ok("channels/delete", map[string]any{"channelId": a.ID}, nil)
	alice.publish(b.ID, "after the delete")

	// Bytes: room for a small event, not for a large one.
	h.Channels.SetQuota(100, 0)
	d = refusedByQuota(t, alice, b.ID, "bytes")
	if d.Used == 0 || d.Requested == 0 {
		t.Fatalf("quota data %+v", d)
	}
	h.Channels.SetQuota(100, d.Used+d.Requested+10)
	alice.publish(b.ID, "fits")
	_, e := alice.rpc("channels/publish", map[string]any{"channelId": b.ID, "parts": []any{map[string]any{"kind": "text", "text": strings.Repeat("x", 1000)}}})
	if e == nil || e.Code != -32023 {
		t.Fatalf("large publish: %+v", e)
	}
	if got := alice.history(map[string]any{"channelId": b.ID}); len(got.Events) != 3 {
		t.Fatalf("%d events stored in b, want 3", len(got.Events))
	}
}
