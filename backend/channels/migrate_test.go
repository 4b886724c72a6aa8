package channels_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// A hub.db written by a build at the first channels schema (an id index, a by-time index and an
// AUTOINCREMENT audit) keeps its events, their order and its audit rows through the migration that
// slims them, and publishing goes on at the next sequence.
func TestUpgradeFromFirstSchemaKeepsEventsAndAudit(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("upgrades SQLite's first channels schema; PostgreSQL's schema starts at the current one (migrations/postgres)")
	}
	dir := t.TempDir()
	first, err := os.ReadFile(filepath.Join("migrations", "00001_channels.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(hubtest.Target(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := db.Migrate(ctx, "channels", fstest.MapFS{"00001_channels.sql": {Data: first}}); err != nil {
		t.Fatal(err)
	}
	// alice exists before she joins c1: at start the hub drops memberships of no principal.
	ps, err := auth.OpenPrincipals(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := ps.Add(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO channels(id, name, visibility, direct, created_at, created_by, metadata, version) VALUES ('c1', 'old', 'private', 0, 1, 'agent://alice', '{}', 1)`,
		fmt.Sprintf(`INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES ('c1', 'agent://alice', 'owner', %d)`, time.Now().UnixMilli()),
		`INSERT INTO channel_events(channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json) VALUES
			('c1', 1, 'e1', 10, 'agent://alice', NULL, x'00', '{"id":"e1","channelId":"c1","sequence":1,"timestamp":10,"author":"agent://alice","parts":[{"type":"text","text":"one"}],"kind":"messageEvent"}'),
			('c1', 2, 'e2', 11, 'agent://alice', 'k', x'01', '{"id":"e2","channelId":"c1","sequence":2,"timestamp":11,"author":"agent://alice","parts":[{"type":"text","text":"two"}],"idempotencyKey":"k","kind":"messageEvent"}')`,
		`INSERT INTO channel_audit(at, channel_id, event_id, actor, action) VALUES (1, 'c1', '', 'agent://alice', 'create'),
			(10, 'c1', 'e1', 'agent://alice', 'publish'), (11, 'c1', 'e2', 'agent://alice', 'publish')`,
	} {
		if _, err := db.Writer.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	h := startHub(t, dir)
	alice := &principal{t: t, url: h.URL, key: key, ID: "agent://alice"}
	p := alice.history(map[string]any{"channelId": "c1"})
	if len(p.Events) != 2 || p.Events[0].ID != "e1" || p.Events[1].ID != "e2" || p.Events[1].IdempotencyKey != "k" {
		t.Fatalf("history after the upgrade: %+v", p.Events)
	}
	if ev := alice.publish("c1", "three"); ev.Sequence != 3 {
		t.Fatalf("next sequence %d, want 3", ev.Sequence)
	}
	audit, err := h.Channels.Audit(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(audit) != 4 || audit[0].Action != "create" || audit[1].EventID != "e1" || audit[2].EventID != "e2" ||
		audit[3].Action != "publish" || audit[3].EventID == "" {
		t.Fatalf("audit after the upgrade: %+v", audit)
	}
}
