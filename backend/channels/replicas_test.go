package channels_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// replica is one hub process over a shared database, as far as channels go: its own DB handle (its
// own writer, readers and notes listener) and its own channels service and bus.
type replica struct {
	*channels.Service
	db *store.DB
}

// openReplicas opens n replicas on the PostgreSQL database at target and waits until each listens
// for the others' notes.
func openReplicas(t *testing.T, target string, n int) []replica {
	t.Helper()
	var out []replica
	for range n {
		s, db := openService(t, target)
		t.Cleanup(func() { db.Close() })
		out = append(out, replica{s, db})
	}
	for _, r := range out {
		select {
		case <-r.db.Listening():
		case <-time.After(30 * time.Second): // a hang guard only
			t.Fatal("a replica's listener never connected")
		}
	}
	return out
}

// needPostgres skips a PostgreSQL run's case (what) on SQLite.
func needPostgres(t *testing.T, what string) {
	if !storetest.Postgres() {
		t.Skip(what + ": a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
}

// publishTo publishes text to channel id on s as the caller of ctx, under key if not "".
func publishTo(ctx context.Context, s *channels.Service, id, text, key string) (*channels.MessageEvent, error) {
	p := channels.PublishParams{ChannelID: id, IdempotencyKey: key,
		Parts: []json.RawMessage{json.RawMessage(`{"kind":"text","text":"` + text + `"}`)}}
	return s.Publish(ctx, p)
}

// replicaStream is a channels/stream run on one replica, its items decoded as a client reads them.
type replicaStream struct {
	t      *testing.T
	events chan event
	ended  chan error
	cancel context.CancelFunc
}

func openReplicaStream(t *testing.T, s *channels.Service, ctx context.Context, params map[string]any) *replicaStream {
	t.Helper()
	raw, _ := json.Marshal(params)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	run, err := s.Methods()["channels/stream"].Stream(ctx, raw)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	rs := &replicaStream{t: t, events: make(chan event, 4096), ended: make(chan error, 1), cancel: cancel}
	go func() {
		rs.ended <- run(ctx, func(item any) error {
			raw, err := json.Marshal(item)
			if err != nil {
				return err
			}
			var it streamItem
			if err := json.Unmarshal(raw, &it); err != nil {
				return err
			}
			if it.Kind == "messageEvent" {
				rs.events <- *it.Event
			}
			return nil
		})
	}()
	return rs
}

func (rs *replicaStream) next() event {
	rs.t.Helper()
	select {
	case ev := <-rs.events:
		return ev
	case err := <-rs.ended:
		rs.t.Fatalf("the stream ended (%v) while an event was expected", err)
	case <-time.After(30 * time.Second): // a hang guard only
		rs.t.Fatal("no event within 30 s")
	}
	return event{}
}

// end waits for the stream to end and returns its closing error, after any events still sent.
func (rs *replicaStream) end() error {
	rs.t.Helper()
	select {
	case err := <-rs.ended:
		return err
	case <-time.After(30 * time.Second): // a hang guard only
		rs.t.Fatal("the stream did not end within 30 s")
	}
	return nil
}

func code(err error) int {
	var e *channels.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// Publishers on two replicas, into two channels at once: each channel's sequences are 1..n with
// none lost or given twice, every acknowledged event is stored with the sequence it was answered
// with, and an idempotency key used on both replicas at once stores one event, the one both get.
func TestReplicasShareSequencesAndIdempotency(t *testing.T) {
	needPostgres(t, "several replicas share a PostgreSQL database")
	rs := openReplicas(t, storetest.Target(t, ""), 2)
	alice, bob := as("alice"), as("bob")
	var ids []string
	for range 2 {
		c, err := rs[0].Create(alice, channels.CreateParams{Members: []string{"agent://bob"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	const writers, each = 8, 25 // per replica
	type acked struct {
		channel string
		seq     int64
		id      string
	}
	var mu sync.Mutex
	var got []acked
	var wg sync.WaitGroup
	for r := range rs {
		for w := range writers {
			who := alice
			if w%2 == 1 {
				who = bob
			}
			wg.Go(func() {
				for i := range each {
					// Both channels in turn: the batches of the two replicas lock rows in
					// different orders, so deadlocks are PostgreSQL's to break and the store's writer's to retry.
					id := ids[(w+i)%2]
					ev, err := publishTo(who, rs[r].Service, id, fmt.Sprint(r, w, i), "")
					if err != nil {
						t.Errorf("replica %d publish: %v", r, err)
						return
					}
					mu.Lock()
					got = append(got, acked{id, ev.Sequence, ev.ID})
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	byChannel := map[string]map[int64]string{}
	for _, a := range got {
		if byChannel[a.channel] == nil {
			byChannel[a.channel] = map[int64]string{}
		}
		if prev, dup := byChannel[a.channel][a.seq]; dup {
			t.Fatalf("sequence %d of %s answered twice: %s and %s", a.seq, a.channel, prev, a.id)
		}
		byChannel[a.channel][a.seq] = a.id
	}
	total := 0
	for _, id := range ids {
		seqs := byChannel[id]
		total += len(seqs)
		for n := int64(1); n <= int64(len(seqs)); n++ {
			if _, ok := seqs[n]; !ok {
				t.Fatalf("channel %s: %d events acknowledged, but none with sequence %d", id, len(seqs), n)
			}
		}
		// What is stored, read on the other replica, is what was answered, in order, and nothing more.
		stored, err := rs[1].EventsAfter(context.Background(), id, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != len(seqs) {
			t.Fatalf("channel %s: %d events stored, %d acknowledged", id, len(stored), len(seqs))
		}
		for i, ev := range stored {
			if ev.Sequence != int64(i+1) || seqs[ev.Sequence] != ev.ID {
				t.Fatalf("channel %s: stored event %d is %d %s, answered as %s", id, i, ev.Sequence, ev.ID, seqs[ev.Sequence])
			}
		}
		if c, err := rs[1].Get(alice, id); err != nil || c.LastSequence != int64(len(seqs)) {
			t.Fatalf("channel %s: last sequence %+v, %v", id, c, err)
		}
	}
	if total != 2*writers*each {
		t.Fatalf("%d events acknowledged, want %d", total, 2*writers*each)
	}

	// The same idempotency key on both replicas at the same time, several times over.
	const keys = 20
	before := len(byChannel[ids[0]])
	for k := range keys {
		key := fmt.Sprint("key-", k)
		var evs [2]*channels.MessageEvent
		var errs [2]error
		var kw sync.WaitGroup
		for r := range rs {
			kw.Go(func() { evs[r], errs[r] = publishTo(bob, rs[r].Service, ids[0], "once "+key, key) })
		}
		kw.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("key %s: %v, %v", key, errs[0], errs[1])
		}
		if evs[0].ID != evs[1].ID || evs[0].Sequence != evs[1].Sequence {
			t.Fatalf("key %s: replica a stored %s (%d), replica b %s (%d)", key, evs[0].ID, evs[0].Sequence, evs[1].ID, evs[1].Sequence)
		}
	}
	stored, err := rs[0].EventsAfter(context.Background(), ids[0], int64(before), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != keys {
		t.Fatalf("%d events stored under %d keys", len(stored), keys)
	}
	for i, ev := range stored {
		// A retry gave its sequence back: the numbering goes on without a gap.
		if ev.Sequence != int64(before+i+1) {
			t.Fatalf("keyed event %d has sequence %d, want %d", i, ev.Sequence, before+i+1)
		}
	}
	// Another message under a key, on the other replica, is still a conflict.
	if _, err := publishTo(bob, rs[1].Service, ids[0], "something else", "key-0"); code(err) != channels.CodeConflict {
		t.Fatalf("another message under a used key: %v", err)
	}
}

// A stream on replica b delivers every event published on a and on b, in sequence order, each once,
// across the seam between its backlog and live events; a member removed on a has their stream on b
// ended while the others' go on; a channel deleted on a ends its streams on b.
func TestStreamOnAReplicaHearsTheOthers(t *testing.T) {
	needPostgres(t, "several replicas share a PostgreSQL database")
	rs := openReplicas(t, storetest.Target(t, ""), 2)
	alice, bob := as("alice"), as("bob")
	c, err := rs[0].Create(alice, channels.CreateParams{Members: []string{"agent://bob"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := publishTo(alice, rs[i%2].Service, c.ID, fmt.Sprint("before ", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	// Publishers on both replicas run while the streams open: events land before, during and after
	// their backlog reads.
	const live = 120
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range live / 4 {
				if _, err := publishTo(alice, rs[w%2].Service, c.ID, fmt.Sprint("live ", w, i), ""); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	since := map[string]any{"channelId": c.ID, "sinceSequence": 5, "heartbeatIntervalMs": 100}
	bobs := openReplicaStream(t, rs[1].Service, bob, since)
	alices := openReplicaStream(t, rs[1].Service, alice, since)
	wg.Wait()
	for want := int64(6); want <= 10+live; want++ {
		if ev := bobs.next(); ev.Sequence != want {
			t.Fatalf("bob's stream on b sent sequence %d, want %d", ev.Sequence, want)
		}
		if ev := alices.next(); ev.Sequence != want {
			t.Fatalf("alice's stream on b sent sequence %d, want %d", ev.Sequence, want)
		}
	}

	if _, err := rs[0].RemoveMember(alice, c.ID, "agent://bob"); err != nil {
		t.Fatal(err)
	}
	if err := bobs.end(); code(err) != channels.CodePermissionDenied {
		t.Fatalf("bob's stream on b, once a removed him: %v", err)
	}
	select {
	case ev := <-bobs.events:
		t.Fatalf("bob's stream sent %d after the live run", ev.Sequence)
	default:
	}
	ev, err := publishTo(alice, rs[0].Service, c.ID, "after bob", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := alices.next(); got.Sequence != ev.Sequence || got.ID != ev.ID {
		t.Fatalf("alice's stream on b after bob's removal: %+v, want %+v", got, ev)
	}
	// An event too large for a note to carry is read back from the table by the other replica.
	big := strings.Repeat("b", 3*store.MaxNote)
	ev, err = publishTo(alice, rs[0].Service, c.ID, big, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := alices.next(); got.Sequence != ev.Sequence || got.ID != ev.ID || len(got.Parts) != 1 || !strings.Contains(string(got.Parts[0]), big) {
		t.Fatalf("alice's stream on b, for a large event: %+v, want %+v", got.ID, ev.ID)
	}

	if err := rs[0].Delete(alice, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := alices.end(); code(err) != channels.CodeChannelNotFound {
		t.Fatalf("alice's stream on b, once a deleted the channel: %v", err)
	}
}

// When the database restarts, notes sent while a replica's listener was away are lost: once it is
// back, that replica's streams catch up from the table and check their callers' access again. Here
// the changes made meanwhile carry no note at all (written straight to the tables), so only that
// catch-up can deliver them: an event reaches the stream, and a member removed meanwhile has their
// stream ended.
func TestReplicaStreamsCatchUpAfterTheListenerReconnects(t *testing.T) {
	needPostgres(t, "several replicas share a PostgreSQL database")
	cluster, err := storetest.StartCluster() // its own, to stop and start
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Remove)
	target, err := cluster.CreateDatabase("replicas")
	if err != nil {
		t.Fatal(err)
	}
	rs := openReplicas(t, target, 2)
	alice, bob := as("alice"), as("bob")
	c, err := rs[0].Create(alice, channels.CreateParams{Members: []string{"agent://bob"}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := publishTo(alice, rs[0].Service, c.ID, "first", "")
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]any{"channelId": c.ID, "sinceSequence": 0, "heartbeatIntervalMs": 100}
	alices := openReplicaStream(t, rs[1].Service, alice, params)
	bobs := openReplicaStream(t, rs[1].Service, bob, params)
	for _, s := range []*replicaStream{alices, bobs} {
		if ev := s.next(); ev.ID != first.ID {
			t.Fatalf("first event %+v", ev)
		}
	}

	// An event and bob's removal with no note, as if announced while b's listener was away.
	var silent int64
	if err := rs[0].db.Write(context.Background(), func(tx *sql.Tx) error {
		if err := tx.QueryRow(`UPDATE channels SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq`, c.ID).Scan(&silent); err != nil {
			return err
		}
		raw := fmt.Sprintf(`{"id":"silent","channelId":%q,"sequence":%d,"timestamp":1,"author":"agent://alice","parts":[{"kind":"text","text":"unannounced"}],"kind":"messageEvent"}`, c.ID, silent)
		if _, err := tx.Exec(`INSERT INTO channel_events(channel_id, sequence, id, timestamp, author, request_hash, event_json)
			VALUES (?, ?, 'silent', 1, 'agent://alice', ?, ?)`, c.ID, silent, []byte{}, []byte(raw)); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM channel_members WHERE channel_id = ? AND principal_id = 'agent://bob'`, c.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}

	cluster.Stop()
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	if ev := alices.next(); ev.ID != "silent" || ev.Sequence != silent {
		t.Fatalf("alice's stream after the restart sent %+v, want the unannounced event %d", ev, silent)
	}
	if err := bobs.end(); code(err) != channels.CodePermissionDenied {
		t.Fatalf("bob's stream after the restart: %v", err)
	}
	// Notes flow again: an event published on a after the restart (its writer's connection died
	// with the server, so the first tries may fail) comes next, once.
	var after *channels.MessageEvent
	for try := 0; ; try++ {
		if after, err = publishTo(alice, rs[0].Service, c.ID, "after", ""); err == nil {
			break
		}
		if try == 50 {
			t.Fatalf("publish after the restart: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ev := alices.next(); ev.ID != after.ID || ev.Sequence != silent+1 {
		t.Fatalf("alice's stream sent %+v, want %+v", ev, after)
	}
}

// A PostgreSQL database written before last_seq was kept (it stood at 0 while events were numbered by
// MAX(sequence)+1) is brought up to its events by migration 00002: the next publish goes on from the
// last stored event.
func TestPostgresLastSeqCatchesUpOnUpgrade(t *testing.T) {
	needPostgres(t, "PostgreSQL's own migration")
	target := storetest.Target(t, "")
	s, db := openService(t, target)
	c, err := s.Create(as("alice"), channels.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := publishTo(as("alice"), s, c.ID, fmt.Sprint(i), ""); err != nil {
			t.Fatal(err)
		}
	}
	// As the first PostgreSQL schema left it: last_seq never moved, migration 00002 not applied.
	for _, q := range []string{`UPDATE channels SET last_seq = 0`, `DELETE FROM schema_channels WHERE version_id = 2`} {
		if _, err := db.Writer.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, db = openService(t, target)
	t.Cleanup(func() { db.Close() })
	if ev, err := publishTo(as("alice"), s, c.ID, "after the upgrade", ""); err != nil || ev.Sequence != 4 {
		t.Fatalf("publish after the upgrade: %+v, %v", ev, err)
	}
}

// The replicas of a fresh database, opened together, sign page tokens with one key: a token one
// hands out is good on every other.
func TestReplicasStartingTogetherShareThePageTokenKey(t *testing.T) {
	needPostgres(t, "several replicas share a PostgreSQL database")
	target := storetest.Target(t, "")
	// Migrate first (migrations run one replica at a time anyway), then open the services at once.
	s0, db0 := openService(t, target)
	t.Cleanup(func() { db0.Close() })
	if _, err := db0.Writer.Exec(`DELETE FROM channel_settings`); err != nil {
		t.Fatal(err)
	}
	const n = 6
	svcs := make([]*channels.Service, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			db, err := store.Open(target)
			if err != nil {
				errs[i] = err
				return
			}
			t.Cleanup(func() { db.Close() })
			svcs[i], errs[i] = channels.Open(context.Background(), db, bus.New(), "test", nil)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d did not open: %v", i, err)
		}
	}
	c, err := s0.Create(as("alice"), channels.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := publishTo(as("alice"), s0, c.ID, fmt.Sprint(i), ""); err != nil {
			t.Fatal(err)
		}
	}
	var tokens []string
	for i, s := range svcs {
		page, err := s.History(as("alice"), channels.HistoryParams{ChannelID: c.ID, PageSize: 1})
		if err != nil || page.NextPageToken == "" {
			t.Fatalf("replica %d: %+v, %v", i, page, err)
		}
		tokens = append(tokens, page.NextPageToken)
	}
	sort.Strings(tokens)
	if tokens[0] != tokens[n-1] {
		t.Fatalf("replicas signed the same page with different keys: %q", tokens)
	}
	for i, s := range svcs {
		if _, err := s.History(as("alice"), channels.HistoryParams{ChannelID: c.ID, PageToken: tokens[0]}); err != nil {
			t.Fatalf("replica %d refused another's token: %v", i, err)
		}
	}
}

// On PostgreSQL a publish takes its sequence from a count its transaction keeps once it holds the
// channel's row, and stores the row's new last_seq with its event. Publishes refused in the middle
// of a batch (a non-member, a quota, an idempotency key's retry and its conflict) take no sequence:
// the accepted ones of both replicas are 1..n with no gap, each with its audit row, and the other
// replica goes on from the last one. A member removed on one replica cannot publish on the other.
func TestRefusedPublishesInABatchLeaveNoGapAcrossReplicas(t *testing.T) {
	needPostgres(t, "several replicas share a PostgreSQL database")
	rs := openReplicas(t, storetest.Target(t, ""), 2)
	alice, bob, carol, erin := as("alice"), as("bob"), as("carol"), as("erin")
	c, err := rs[0].Create(alice, channels.CreateParams{Members: []string{"agent://bob", "agent://erin"}})
	if err != nil {
		t.Fatal(err)
	}
	var accepted []int64
	for i := range 2 { // bob's two events: his quota on replica 0 below
		ev, err := publishTo(bob, rs[1].Service, c.ID, fmt.Sprint("bob ", i), "")
		if err != nil {
			t.Fatal(err)
		}
		accepted = append(accepted, ev.Sequence)
	}
	rs[0].SetQuota(2, 1<<30) // each author stores at most two events, through replica 0

	type answer struct {
		ev  *channels.MessageEvent
		err error
	}
	got := make([]answer, 7)
	call := func(i int, who context.Context, text, key string) func() {
		return func() { got[i].ev, got[i].err = publishTo(who, rs[0].Service, c.ID, text, key) }
	}
	inOneBatchOn(t, rs[0].db,
		call(0, alice, "first", ""),
		call(1, carol, "not a member", ""),
		call(2, bob, "over his quota", ""),
		call(3, alice, "keyed", "k"),
		call(4, erin, "between", ""),
		call(5, alice, "keyed", "k"),          // the retry: alice is at her quota now, and is answered
		call(6, alice, "something else", "k"), // the key again, another message: a conflict
	)
	for i, want := range map[int]int{1: channels.CodeChannelNotFound, 6: channels.CodeConflict} {
		if code(got[i].err) != want {
			t.Fatalf("call %d: want error %d, got %+v, %v", i, want, got[i].ev, got[i].err)
		}
	}
	var q *channels.QuotaError
	if !errors.As(got[2].err, &q) || q.Principal != "agent://bob" || q.Quota != "events" || q.Used != 2 {
		t.Fatalf("bob over his quota: %+v, %v", got[2].ev, got[2].err)
	}
	for _, i := range []int{0, 3, 4, 5} {
		if got[i].err != nil {
			t.Fatalf("call %d: %v", i, got[i].err)
		}
	}
	if got[5].ev.ID != got[3].ev.ID || got[5].ev.Sequence != got[3].ev.Sequence {
		t.Fatalf("the retry answered %+v, the original was %+v", got[5].ev, got[3].ev)
	}
	accepted = append(accepted, got[0].ev.Sequence, got[3].ev.Sequence, got[4].ev.Sequence)
	// The other replica goes on from there.
	next, err := publishTo(erin, rs[1].Service, c.ID, "after", "")
	if err != nil {
		t.Fatal(err)
	}
	accepted = append(accepted, next.Sequence)
	for i, seq := range accepted {
		if seq != int64(i+1) {
			t.Fatalf("sequences %v: want 1..%d in the order they were published", accepted, len(accepted))
		}
	}
	page, err := rs[1].History(alice, channels.HistoryParams{ChannelID: c.ID})
	if err != nil || len(page.Events) != len(accepted) {
		t.Fatalf("history: %d events, %v; want %d", len(page.Events), err, len(accepted))
	}
	audit, err := rs[1].Audit(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	published := 0
	for _, a := range audit {
		if a.Action == "publish" {
			published++
		}
	}
	if published != len(accepted) {
		t.Fatalf("%d publish audit rows for %d events: %+v", published, len(accepted), audit)
	}

	// Erin removed through replica 1 cannot publish through replica 0, whose last transaction
	// published as her.
	if _, err := rs[1].RemoveMember(alice, c.ID, "agent://erin"); err != nil {
		t.Fatal(err)
	}
	if _, err := publishTo(erin, rs[0].Service, c.ID, "after her removal", ""); code(err) != channels.CodeChannelNotFound {
		t.Fatalf("erin published after her removal on another replica: %v", err)
	}
}

// On PostgreSQL a batch's publishes are decided together before it commits (publish_batch.go): each
// caller still gets its own publish's answer in a batch of accepted and refused publishes to two
// channels, and a removal queued between two publishes of the removed member keeps the first (decided
// on the membership before it) and refuses the second.
func TestBatchedPublishesAnswerTheirOwnCallers(t *testing.T) {
	needPostgres(t, "the batched publish path is PostgreSQL's")
	r := openReplicas(t, storetest.Target(t, ""), 1)[0]
	alice, bob, erin := as("alice"), as("bob"), as("erin")
	c1, err := r.Create(alice, channels.CreateParams{Members: []string{"agent://bob", "agent://erin"}})
	if err != nil {
		t.Fatal(err)
	}
	c2, err := r.Create(alice, channels.CreateParams{Members: []string{"agent://bob"}})
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		ev  *channels.MessageEvent
		err error
	}
	got := make([]answer, 7)
	call := func(i int, who context.Context, id, text string) func() {
		return func() { got[i].ev, got[i].err = publishTo(who, r.Service, id, text, "") }
	}
	var removed error
	inOneBatchOn(t, r.db,
		call(0, bob, c1.ID, "bob before"),
		call(1, erin, c2.ID, "erin not in c2"),
		call(2, alice, c2.ID, "alice one"),
		func() { _, removed = r.RemoveMember(alice, c1.ID, "agent://bob") },
		call(4, bob, c1.ID, "bob after"),
		call(5, erin, c1.ID, "erin"),
		call(6, alice, c2.ID, "alice two"),
	)
	if removed != nil {
		t.Fatal(removed)
	}
	for _, i := range []int{1, 4} {
		if code(got[i].err) != channels.CodeChannelNotFound || got[i].ev != nil {
			t.Fatalf("call %d: want ChannelNotFound, got %+v, %v", i, got[i].ev, got[i].err)
		}
	}
	want := map[int]struct {
		author, channel, text string
		seq                   int64
	}{
		0: {"agent://bob", c1.ID, "bob before", 1},
		2: {"agent://alice", c2.ID, "alice one", 1},
		5: {"agent://erin", c1.ID, "erin", 2},
		6: {"agent://alice", c2.ID, "alice two", 2},
	}
	for i, w := range want {
		ev := got[i].ev
		if got[i].err != nil || ev == nil {
			t.Fatalf("call %d: %+v, %v", i, ev, got[i].err)
		}
		if ev.Author != w.author || ev.ChannelID != w.channel || ev.Sequence != w.seq ||
			len(ev.Parts) != 1 || !strings.Contains(string(ev.Parts[0]), `"`+w.text+`"`) {
			t.Fatalf("call %d answered %+v (%s); want %+v", i, ev, ev.Parts, w)
		}
	}
	for id, calls := range map[string][]int{c1.ID: {0, 5}, c2.ID: {2, 6}} {
		page, err := r.History(alice, channels.HistoryParams{ChannelID: id})
		if err != nil || len(page.Events) != len(calls) {
			t.Fatalf("history of %s: %+v, %v; want the events of calls %v", id, page, err, calls)
		}
		for j, i := range calls {
			var e channels.MessageEvent
			if err := json.Unmarshal(page.Events[j], &e); err != nil || e.ID != got[i].ev.ID || e.Sequence != got[i].ev.Sequence {
				t.Fatalf("history of %s, event %d: %s (%v); call %d was answered %+v", id, j, page.Events[j], err, i, got[i].ev)
			}
		}
	}
}
