package channels_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/store"
)

// inOneBatch holds the hub's group-commit writer, starts each call in turn (each waits in the
// writer's queue before the next starts, so they queue in this order), then releases the writer:
// the calls' writes run in one transaction, in order. It fails the test if they did not. The
// principals who call must have called the hub within the minute (see warm).
func inOneBatch(t *testing.T, h *testHub, calls ...func()) {
	t.Helper()
	inOneBatchOn(t, h.Agent.DB, calls...)
}

// inOneBatchOn is inOneBatch on the writer of db.
func inOneBatchOn(t *testing.T, db *store.DB, calls ...func()) {
	t.Helper()
	inside, gate, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- db.Write(context.Background(), func(*sql.Tx) error {
			close(inside)
			<-gate
			return nil
		})
	}()
	<-inside
	before := db.Stats() // the held write's batch is counted already
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Go(call)
		for db.Queued() < i+1 { // no deadline: the call is on its way to the queue
			time.Sleep(time.Millisecond)
		}
	}
	close(gate)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if got := db.Stats(); got.Batches-before.Batches != 1 || got.Writes-before.Writes != int64(len(calls)) {
		t.Fatalf("writer stats %+v then %+v: want the %d calls in one batch", before, got, len(calls))
	}
}

// warm makes a call as each principal, so that the hub has recorded its use (on the writer's
// connection, at most once a minute) before a batch holds the writer.
func warm(ps ...*principal) {
	for _, p := range ps {
		p.ok("channels/list", map[string]any{}, nil)
	}
}

// Publishes of one transaction share the access they checked; a membership change between them in
// the same transaction must still be seen by the publishes after it.
func TestPublishInABatchSeesAMembershipChangeBeforeIt(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"members": []string{bob.ID}})
	warm(alice, bob)
	var first, removed, afterRemoval, third *rpcError
	var firstRes, thirdRes json.RawMessage
	inOneBatch(t, h,
		func() { firstRes, first = bob.rpc("channels/publish", textParams(c.ID)) },
		func() {
			_, removed = alice.rpc("channels/removeMember", map[string]any{"channelId": c.ID, "principalId": bob.ID})
		},
		func() { _, afterRemoval = bob.rpc("channels/publish", textParams(c.ID)) },
		func() { thirdRes, third = alice.rpc("channels/publish", textParams(c.ID)) },
	)
	if first != nil || removed != nil || third != nil {
		t.Fatalf("errors: publish %v, removeMember %v, alice's publish %v", first, removed, third)
	}
	if afterRemoval == nil || afterRemoval.Code != codeNotFound {
		t.Fatalf("bob published after his removal in the same transaction: %+v", afterRemoval)
	}
	var r1, r3 struct{ Event event }
	json.Unmarshal(firstRes, &r1)
	json.Unmarshal(thirdRes, &r3)
	if r1.Event.Sequence != 1 || r3.Event.Sequence != 2 {
		t.Fatalf("sequences %d, %d; want 1, 2", r1.Event.Sequence, r3.Event.Sequence)
	}
}

// Publishes that fail in a batch (no access, an idempotency conflict) fail alone: their neighbours
// are stored with contiguous sequences, and a retry in the same batch is the original event.
func TestFailingPublishesInABatchFailAlone(t *testing.T) {
	h := startHub(t, "")
	alice, bob, carol := h.principal(t, "alice"), h.principal(t, "bob"), h.principal(t, "carol")
	c := alice.create(map[string]any{"members": []string{bob.ID}})
	warm(alice, bob, carol)
	keyed := func(text string) map[string]any {
		return map[string]any{"channelId": c.ID, "idempotencyKey": "k-1", "parts": []any{map[string]any{"type": "text", "text": text}}}
	}
	type answer struct {
		res json.RawMessage
		err *rpcError
	}
	got := make([]answer, 6)
	call := func(i int, p *principal, method string, params any) func() {
		return func() { got[i].res, got[i].err = p.rpc(method, params) }
	}
	inOneBatch(t, h,
		call(0, bob, "channels/publish", keyed("once")),
		call(1, carol, "channels/publish", textParams(c.ID)),      // not a member of a private channel
		call(2, bob, "channels/publish", keyed("something else")), // the key again, another payload
		call(3, bob, "channels/publish", keyed("once")),           // the retry
		call(4, carol, "channels/publish", map[string]any{"recipientId": bob.ID, "parts": []any{map[string]any{"type": "text", "text": "hi"}}}),
		call(5, alice, "channels/publish", textParams(c.ID)),
	)
	for i, code := range map[int]int{1: codeNotFound, 2: codeConflict} {
		if got[i].err == nil || got[i].err.Code != code {
			t.Fatalf("call %d: want error %d, got %+v %s", i, code, got[i].err, got[i].res)
		}
	}
	seq := func(i int) event {
		if got[i].err != nil {
			t.Fatalf("call %d: %+v", i, got[i].err)
		}
		var r struct{ Event event }
		json.Unmarshal(got[i].res, &r)
		return r.Event
	}
	if a, retry, direct, last := seq(0), seq(3), seq(4), seq(5); a.Sequence != 1 || retry.ID != a.ID || retry.Sequence != 1 ||
		direct.Sequence != 1 || last.Sequence != 2 {
		t.Fatalf("events %+v, retry %+v, direct %+v, alice's %+v", a, retry, direct, last)
	}
	if p := alice.history(map[string]any{"channelId": c.ID}); len(p.Events) != 2 || p.Events[0].Sequence != 1 || p.Events[1].Sequence != 2 {
		t.Fatalf("history %+v", p.Events)
	}
}

// Subscribers hear a channel's events in sequence order, each once, even from many concurrent
// publishers whose calls return in any order: the writer announces a transaction's events once it
// commits, in the order it stored them.
func TestBusHearsEventsInSequenceOrder(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{})
	const publishers, each = 32, 20
	sub := h.Bus.Subscribe(func(e bus.Event) bool {
		ch, _ := e.Data.(*channels.Change)
		return e.Topic == channels.Topic && e.Key == c.ID && ch != nil && ch.Event != nil
	}, publishers*each)
	defer sub.Close()
	ctx := auth.WithPrincipal(context.Background(), auth.Agent("alice"))
	var p channels.PublishParams
	raw, _ := json.Marshal(textParams(c.ID))
	json.Unmarshal(raw, &p)
	var wg sync.WaitGroup
	for range publishers {
		wg.Go(func() {
			for range each {
				if _, err := h.Channels.Publish(ctx, p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for want := int64(1); want <= publishers*each; want++ {
		select {
		case e := <-sub.C:
			if got := e.Data.(*channels.Change).Event.Sequence; got != want {
				t.Fatalf("heard sequence %d, want %d", got, want)
			}
		case <-sub.Lagged:
			t.Fatal("the subscription lagged")
		}
	}
}
