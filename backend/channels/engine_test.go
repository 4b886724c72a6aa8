package channels_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// openService opens the channels service alone over target (no hub around it: no principals
// directory, so any agent://NAME is taken).
func openService(t *testing.T, target string) (*channels.Service, *store.DB) {
	t.Helper()
	db, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	s, err := channels.Open(context.Background(), db, bus.New(), "test", nil)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	return s, db
}

func as(name string) context.Context {
	return auth.WithPrincipal(context.Background(), auth.Agent(name))
}

func text(s string) channels.PublishParams {
	return channels.PublishParams{Parts: []json.RawMessage{json.RawMessage(`{"kind":"text","text":"` + s + `"}`)}}
}

// The service's own SQL on the engine of the test run, without the rest of the hub: every statement
// that differs between SQLite and PostgreSQL (a member named twice, a direct channel's first and
// later publishes, the page query, the quota's triggers on insert and on a cascading delete, the
// agent:// prefix of ForgetFormer) and what must survive reopening the same database (the next
// sequence, the page-token key, the audit's order).
func TestServiceSQLOnThisEngine(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "hub.db"))
	s, db := openService(t, target)
	alice, bob := as("alice"), as("bob")

	// A member named twice is one member (ON CONFLICT DO NOTHING).
	c, err := s.Create(alice, channels.CreateParams{Name: "c", Visibility: "private", Metadata: map[string]any{"k": "v"},
		Members: []string{"agent://bob", "agent://bob"}})
	if err != nil {
		t.Fatal(err)
	}
	members, err := s.Members(alice, c.ID)
	if err != nil || len(members) != 2 {
		t.Fatalf("members %+v, %v", members, err)
	}
	if got, err := s.Get(bob, c.ID); err != nil || got.Metadata["k"] != "v" || got.Name != "c" {
		t.Fatalf("get: %+v, %v", got, err)
	}

	for i, who := range []context.Context{alice, bob, alice, bob, alice} {
		p := text("m")
		if i == 0 {
			p.IdempotencyKey = "once"
		}
		p.ChannelID = c.ID
		ev, err := s.Publish(who, p)
		if err != nil || ev.Sequence != int64(i+1) {
			t.Fatalf("publish %d: %+v, %v", i, ev, err)
		}
	}
	// An idempotent retry returns the first event; another message under its key is refused.
	retry := text("m")
	retry.ChannelID, retry.IdempotencyKey = c.ID, "once"
	if ev, err := s.Publish(alice, retry); err != nil || ev.Sequence != 1 {
		t.Fatalf("retry: %+v, %v", ev, err)
	}
	other := text("other")
	other.ChannelID, other.IdempotencyKey = c.ID, "once"
	var chErr *channels.Error
	if _, err := s.Publish(alice, other); !errors.As(err, &chErr) || chErr.Code != channels.CodeConflict {
		t.Fatalf("another message under the key: %v", err)
	}

	// History: pages with their tokens, the author filter, and no rows for a non-member.
	var seqs []int64
	page := channels.HistoryParams{ChannelID: c.ID, PageSize: 2}
	for {
		got, err := s.History(bob, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range got.Events {
			var ev channels.MessageEvent
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			seqs = append(seqs, ev.Sequence)
		}
		if got.NextPageToken == "" {
			break
		}
		page = channels.HistoryParams{ChannelID: c.ID, PageSize: 2, PageToken: got.NextPageToken}
	}
	if len(seqs) != 5 || seqs[0] != 1 || seqs[4] != 5 {
		t.Fatalf("paged sequences %v", seqs)
	}
	since := int64(1)
	byBob, err := s.History(alice, channels.HistoryParams{ChannelID: c.ID, SinceSequence: &since, AuthorIDs: []string{"agent://bob"}})
	if err != nil || len(byBob.Events) != 2 {
		t.Fatalf("bob's events: %d, %v", len(byBob.Events), err)
	}
	if _, err := s.History(as("mallory"), channels.HistoryParams{ChannelID: c.ID}); !errors.As(err, &chErr) || chErr.Code != channels.CodeChannelNotFound {
		t.Fatalf("a non-member's history: %v", err)
	}

	// The quota counts what the triggers keep: bob stored 2 events.
	s.SetQuota(2, 1<<30)
	p := text("third")
	p.ChannelID = c.ID
	if _, err := s.Publish(bob, p); !errors.As(err, new(*channels.QuotaError)) {
		t.Fatalf("bob's third event past a quota of 2: %v", err)
	}
	s.SetQuota(channels.DefaultQuotaEvents, channels.DefaultQuotaBytes)

	// A direct channel: created by its first publish only (ON CONFLICT DO NOTHING on the next).
	for i := 1; i <= 2; i++ {
		d := text("hi")
		d.RecipientID = "agent://carol"
		ev, err := s.Publish(alice, d)
		if err != nil || ev.Sequence != int64(i) || ev.ChannelID != channels.DirectID("agent://alice", "agent://carol") {
			t.Fatalf("direct publish %d: %+v, %v", i, ev, err)
		}
	}

	// Deleting the channel deletes its events by cascade, and the triggers give bob his quota back.
	if err := s.Delete(alice, c.ID); err != nil {
		t.Fatal(err)
	}
	s.SetQuota(1, 1<<30) // bob had 2 events, in the deleted channel
	p = text("elsewhere")
	p.RecipientID = "agent://alice"
	if _, err := s.Publish(bob, p); err != nil {
		t.Fatalf("bob after the deletion of his events: %v", err)
	}
	s.SetQuota(channels.DefaultQuotaEvents, channels.DefaultQuotaBytes)

	// ForgetFormer drops agent:// members not in the directory, and only those.
	c2, err := s.Create(alice, channels.CreateParams{Name: "c2", Visibility: "public", Members: []string{"agent://dave", "user://owner"}})
	if err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-time.Hour)
	n, err := s.ForgetFormer(context.Background(), map[string]time.Time{"agent://alice": long, "agent://bob": long, "agent://carol": long})
	if err != nil || n != 1 {
		t.Fatalf("ForgetFormer removed %d, %v; want dave's one membership", n, err)
	}
	if members, err := s.Members(alice, c2.ID); err != nil || len(members) != 2 {
		t.Fatalf("c2's members after ForgetFormer: %+v, %v", members, err)
	}

	// A page token and the direct channel's sequence outlive a reopening of the same database.
	dm := channels.DirectID("agent://alice", "agent://carol")
	first, err := s.History(alice, channels.HistoryParams{ChannelID: dm, PageSize: 1})
	if err != nil || first.NextPageToken == "" {
		t.Fatalf("first page: %+v, %v", first, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, db = openService(t, target)
	t.Cleanup(func() { db.Close() })
	if next, err := s.History(alice, channels.HistoryParams{ChannelID: dm, PageToken: first.NextPageToken}); err != nil || len(next.Events) != 1 {
		t.Fatalf("the page token after reopening: %+v, %v", next, err)
	}
	d := text("again")
	d.ChannelID = dm
	if ev, err := s.Publish(as("carol"), d); err != nil || ev.Sequence != 3 {
		t.Fatalf("publish after reopening: %+v, %v", ev, err)
	}
	audit, err := s.Audit(context.Background(), c.ID)
	if err != nil || len(audit) != 7 || audit[0].Action != "create" || audit[6].Action != "delete" {
		t.Fatalf("audit of the deleted channel: %+v, %v", audit, err)
	}
}
