package bridge

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// echoAgent answers every message with its text, as an agent message in one context.
type echoAgent struct {
	mu    sync.Mutex
	got   []string
	tasks []string // the task each message went in ("" for none)
	more  chan struct{}
}

func (e *echoAgent) Streaming() bool { return true }

func (e *echoAgent) Send(ctx context.Context, msg *a2a.Message, _ bool) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := msg.Parts[0].Text()
		e.mu.Lock()
		e.got = append(e.got, text)
		e.tasks = append(e.tasks, string(msg.TaskID))
		e.mu.Unlock()
		e.more <- struct{}{}
		if text == "hang" { // never answers, not even with a task
			<-ctx.Done()
			yield(nil, ctx.Err())
			return
		}
		reply := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))
		switch text {
		case "big": // 10 MiB of text, "é" (two bytes) among it so a cut may fall inside a character
			reply = a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(strings.Repeat("abcdefghé", 10<<20/10)))
		case "many": // 40 parts, text and data in turn so none are joined
			var parts []*a2a.Part
			for i := range 20 {
				parts = append(parts, a2a.NewTextPart(fmt.Sprintf("part %d", i)), a2a.NewDataPart(map[string]any{"i": i}))
			}
			reply = a2a.NewMessage(a2a.MessageRoleAgent, parts...)
		}
		reply.ContextID = "ctx-1"
		yield(reply, nil)
	}
}

func (e *echoAgent) GetTask(context.Context, a2a.TaskID) (*a2a.Task, error) {
	return nil, a2a.ErrTaskNotFound
}

func (e *echoAgent) Cancel(context.Context, a2a.TaskID) (*a2a.Task, error) {
	return nil, a2a.ErrTaskNotFound
}

// openBridge is a bridge over a fresh hub.db with one channel whose only added agent is agent.
func openBridge(t *testing.T, agent chats.Remote) (*store.DB, *bus.Bus, *channels.Service, *channels.Channel, *Bridge) {
	t.Helper()
	ctx := t.Context()
	db, err := store.Open(storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := bus.New()
	chans, err := channels.Open(ctx, db, b, "hub", nil)
	if err != nil {
		t.Fatal(err)
	}
	chans.SetRemoteAgents(func(context.Context, string) error { return nil })
	c, err := chans.Create(ctx, channels.CreateParams{Name: "busy", Members: []string{"remote://echo"}})
	if err != nil {
		t.Fatal(err)
	}
	br, err := Open(ctx, Config{DB: db, Bus: b, Channels: chans,
		Dial: func(context.Context, string) (chats.Remote, error) { return agent, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return db, b, chans, c, br
}

func say(t *testing.T, chans *channels.Service, channelID, text string) {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	if _, err := chans.Publish(t.Context(), channels.PublishParams{ChannelID: channelID, Parts: []json.RawMessage{raw}}); err != nil {
		t.Fatal(err)
	}
}

// A message in flight when the bridge stops, before the agent named a task, is not sent again at
// the next start (it might do twice what it asks): the channel says it was interrupted, and the
// agent's state is failed.
func TestBridgeInterruptedSendIsReported(t *testing.T) {
	agent := &echoAgent{more: make(chan struct{}, 10)}
	db, b, chans, c, br := openBridge(t, agent)
	if err := br.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	say(t, chans, c.ID, "@echo hang")
	<-agent.more
	br.Close()

	br, err := Open(t.Context(), Config{DB: db, Bus: b, Channels: chans,
		Dial: func(context.Context, string) (chats.Remote, error) { return agent, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := br.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		states, err := br.States(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) == 1 && states[0].State == StateFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states: %+v", states)
		}
		time.Sleep(20 * time.Millisecond)
	}
	events, err := chans.EventsAfter(t.Context(), c.ID, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Author != "remote://echo" || metaOf(events[0]) == nil || metaOf(events[0]).State != NoticeFailed {
		t.Errorf("after the restart: %+v", events)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 1 {
		t.Errorf("the agent got %v: sent again", agent.got)
	}
}

// Events the bus drops while the bridge is busy (its subscription full) are read back from the
// channel: every mention is sent once, in order.
func TestBridgeCatchesUpOnDroppedEvents(t *testing.T) {
	ctx := t.Context()
	agent := &echoAgent{more: make(chan struct{}, 100)}
	_, _, chans, c, br := openBridge(t, agent)
	// One event fits in the subscription; the bridge holds the first until all are published.
	release := make(chan struct{})
	var once sync.Once
	subBuffer, beforeLive = 1, func() { once.Do(func() { <-release }) }
	t.Cleanup(func() { subBuffer, beforeLive = 1024, nil })
	if err := br.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })

	const n = 20
	for i := range n {
		say(t, chans, c.ID, fmt.Sprintf("@echo m%d", i))
	}
	close(release)
	for range n {
		select {
		case <-agent.more:
		case <-time.After(30 * time.Second):
			agent.mu.Lock()
			t.Fatalf("the agent got %v", agent.got)
		}
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	for i, text := range agent.got {
		if text != fmt.Sprintf("m%d", i) {
			t.Fatalf("the agent got %v, want m0…m%d once each in order", agent.got, n-1)
		}
	}
}

// An agent's answer is held to what a member may publish in one event: 10 MiB of text is cut to
// channels.MaxEventJSON with a note saying so and naming the task; 40 parts are cut to
// channels.MaxParts (the last one the note) instead of being refused and lost.
func TestBridgeHoldsAnswersToAnEventsLimits(t *testing.T) {
	agent := &echoAgent{more: make(chan struct{}, 10)}
	_, _, chans, c, br := openBridge(t, agent)
	if err := br.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	for _, ask := range []string{"big", "many"} {
		say(t, chans, c.ID, "@echo "+ask)
		<-agent.more
	}
	var answers []*channels.MessageEvent
	deadline := time.Now().Add(30 * time.Second)
	for len(answers) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("answers: %d", len(answers))
		}
		time.Sleep(20 * time.Millisecond)
		events, err := chans.EventsAfter(t.Context(), c.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		answers = answers[:0]
		for _, ev := range events {
			if ev.Author == "remote://echo" {
				answers = append(answers, ev)
			}
		}
	}
	big, many := answers[0], answers[1]
	stored, _ := json.Marshal(big)
	text := eventText(big)
	if len(stored) > channels.MaxEventJSON || !strings.HasPrefix(text, "abcdefghé") || !strings.Contains(text, "[The agent's answer is shortened here") ||
		!utf8.ValidString(text) {
		t.Errorf("the 10 MiB answer was stored as %d bytes (limit %d), its text ending %q", len(stored), channels.MaxEventJSON, text[max(len(text)-300, 0):])
	}
	if len(stored) < channels.MaxEventJSON-64<<10 {
		t.Errorf("the 10 MiB answer was cut to %d bytes, far below the %d an event may hold", len(stored), channels.MaxEventJSON)
	}
	if n := len(many.Parts); n != channels.MaxParts || !strings.Contains(string(many.Parts[n-1]), "Some parts of the agent's answer are left out") {
		t.Errorf("the 40-part answer was stored with %d parts, the last %s", n, many.Parts[len(many.Parts)-1])
	}
}

// The forward budget of a chain is kept in hub.db: a bridge started again (here over a chain whose
// budget a previous run used up) forwards nothing more of it, and posts the chain's one notice
// once, however many of its answers still mention agents.
func TestBridgeForwardBudgetSurvivesRestart(t *testing.T) {
	ctx := t.Context()
	agent := &echoAgent{more: make(chan struct{}, 10)}
	db, b, chans, _, br := openBridge(t, agent)
	br.Close()
	c, err := chans.Create(ctx, channels.CreateParams{Name: "pair", Members: []string{"remote://echo", "remote://peer"}})
	if err != nil {
		t.Fatal(err)
	}
	// What the previous run left: the chain of message origin-1 made its DefaultForwards sends.
	if err := db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO bridge_chains(origin_id, forwards) VALUES ('origin-1', ?)`, DefaultForwards)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	br, err = Open(ctx, Config{DB: db, Bus: b, Channels: chans, Dial: func(context.Context, string) (chats.Remote, error) { return agent, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := br.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	// Two answers of peer's in that chain, as the bridge published them, each mentioning echo.
	text, _ := json.Marshal(map[string]string{"type": "text", "text": "@echo over to you"})
	asPeer := auth.WithPrincipal(ctx, auth.Remote("peer"))
	for i := range 2 {
		meta := map[string]any{"agenthub": map[string]any{"bridge": Meta{TaskID: fmt.Sprint("t", i), State: "completed", Hop: 1, Origin: "origin-1"}}}
		if _, err := chans.Publish(asPeer, channels.PublishParams{ChannelID: c.ID, Parts: []json.RawMessage{text}, Metadata: meta}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		settled, err := br.Settled(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if settled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bridge is still busy")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The notice may land between the two answers (the bridge takes the first one at once), so
	// look at every event: the two answers and one notice, in any order.
	events, err := chans.EventsAfter(ctx, c.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	for _, ev := range events {
		if st := metaOf(ev).State; st != "completed" {
			notices = append(notices, st+" by "+ev.Author)
		}
	}
	if len(events) != 3 || len(notices) != 1 || notices[0] != NoticeForwardLimit+" by remote://peer" {
		t.Errorf("after the two answers: %d events, notices %q; want the two answers and the chain's one notice", len(events), notices)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 0 {
		t.Errorf("the agent was sent %v past the chain's budget", agent.got)
	}
}

// bridgeReplica is one hub replica over a shared PostgreSQL database: its own handle, bus, channels
// service and bridge.
type bridgeReplica struct {
	db     *store.DB
	bus    *bus.Bus
	chans  *channels.Service
	bridge *Bridge
}

func multiReplica(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several replicas share a PostgreSQL database only: a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
}

// openReplica opens a replica on url whose bridge dials agent, with the lease given (0: the default),
// and starts its bridge.
func openReplica(t *testing.T, url string, agent chats.Remote, lease time.Duration) *bridgeReplica {
	t.Helper()
	ctx := t.Context()
	db, err := store.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &bridgeReplica{db: db, bus: bus.New()}
	if r.chans, err = channels.Open(ctx, db, r.bus, "hub", nil); err != nil {
		t.Fatal(err)
	}
	r.chans.SetRemoteAgents(func(context.Context, string) error { return nil })
	if r.bridge, err = Open(ctx, Config{DB: db, Bus: r.bus, Channels: r.chans,
		Dial: func(context.Context, string) (chats.Remote, error) { return agent, nil }}); err != nil {
		t.Fatal(err)
	}
	if lease > 0 {
		r.bridge.lease = lease
	}
	if err := r.bridge.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.bridge.Close() })
	return r
}

// carry makes each replica's channel events reach the other's bus, as the channels service does
// between replicas.
func carry(t *testing.T, a, b *bridgeReplica) {
	for _, p := range [][2]*bus.Bus{{a.bus, b.bus}, {b.bus, a.bus}} {
		from, to := p[0], p[1]
		sub := from.Subscribe(func(e bus.Event) bool { return e.Topic == channels.Topic }, 100)
		t.Cleanup(sub.Close)
		go func() {
			for e := range sub.C {
				to.Publish(e)
			}
		}()
	}
}

// settledWith waits until the channel holds at least n events and both replicas' bridges have
// handled all of them with no work left, and returns its events (up to 10).
func settledWith(t *testing.T, a, b *bridgeReplica, channelID string, n int) []*channels.MessageEvent {
	t.Helper()
	ctx := t.Context()
	deadline := time.Now().Add(30 * time.Second)
	for {
		events, err := a.chans.EventsAfter(ctx, channelID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		sa, err := a.bridge.Settled(ctx, channelID)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.bridge.Settled(ctx, channelID)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) >= n && sa && sb {
			return events
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %d, settled %v %v", len(events), sa, sb)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two hub replicas on one PostgreSQL database, each with its bridge, and every replica's bridge
// hears every channel event (the channels service turns other replicas' events into local ones;
// here the test carries them from one replica's bus to the other's). A message that mentions an
// added agent reaches it once, and its answer is published once.
func TestReplicasForwardAMessageOnce(t *testing.T) {
	multiReplica(t)
	ctx := t.Context()
	url := storetest.Target(t, "")
	agent := &echoAgent{more: make(chan struct{}, 10)}
	a, b := openReplica(t, url, agent, 0), openReplica(t, url, agent, 0)
	carry(t, a, b)

	c, err := a.chans.Create(ctx, channels.CreateParams{Name: "shared", Members: []string{"remote://echo"}})
	if err != nil {
		t.Fatal(err)
	}
	say(t, a.chans, c.ID, "@echo hello")
	<-agent.more
	// Done once both bridges have handled the message and the answer, and neither has work left.
	events := settledWith(t, a, b, c.ID, 2)
	var answers int
	for _, ev := range events {
		if ev.Author == "remote://echo" {
			answers++
		}
	}
	if answers != 1 || len(events) != 2 {
		t.Errorf("%d events, %d answers of the agent; want the message and one answer", len(events), answers)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 1 {
		t.Errorf("the agent got %q, want the message once", agent.got)
	}
}

// A person's action on one replica, about a surface the agent drew through the other, reaches the
// agent once, in the task that drew it, and neither replica's bridge forwards the channel's line of
// the action by the mention its values hold ("@echo" here): the agent gets the action, then the
// next message, and nothing else.
func TestReplicasSendAnActionOnce(t *testing.T) {
	multiReplica(t)
	ctx := t.Context()
	url := storetest.Target(t, "")
	agent := &echoAgent{more: make(chan struct{}, 10)}
	a, b := openReplica(t, url, agent, 0), openReplica(t, url, agent, 0)
	carry(t, a, b)
	c, err := a.chans.Create(ctx, channels.CreateParams{Name: "shared", Members: []string{"remote://echo"}})
	if err != nil {
		t.Fatal(err)
	}
	form := channelParts([]*a2a.Part{a2ui.NewPart([]any{map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "s", "catalogId": "c"}}})})
	a.bridge.publishRaw("echo", c.ID, form, Meta{TaskID: "t1", State: "input-required"}, "form")

	action := []any{map[string]any{"version": "v0.9", "action": map[string]any{"name": "go", "surfaceId": "s", "sourceComponentId": "b",
		"timestamp": "2026-11-29T12:00:00Z", "context": map[string]any{"note": "@echo look"}}}}
	if _, err := b.bridge.Act(auth.WithPrincipal(ctx, auth.Owner), Action{ChannelID: c.ID, Member: "remote://echo", TaskID: "t1", Messages: action}); err != nil {
		t.Fatal(err)
	}
	<-agent.more
	say(t, a.chans, c.ID, "@echo after")
	<-agent.more
	// Done once both bridges have handled every event (the form, the action's line, its answer, the
	// message, its answer) and neither has work left.
	if events := settledWith(t, a, b, c.ID, 5); len(events) != 5 {
		t.Errorf("%d events in the channel, want 5", len(events))
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 2 || agent.got[0] != "" || agent.tasks[0] != "t1" || agent.got[1] != "after" {
		t.Errorf("the agent got %q in tasks %q; want the action (no text) in t1, then \"after\"", agent.got, agent.tasks)
	}
}

// The work a replica's bridge has in hand is leased to it: another replica starting meanwhile leaves
// it alone (no "interrupted" notice while the first still waits for the agent), and takes it over
// only once the first stopped without giving it up (it died) and its lease ran out.
func TestReplicaTakesOverTheWorkOfAStoppedReplica(t *testing.T) {
	multiReplica(t)
	ctx := t.Context()
	url := storetest.Target(t, "")
	agent := &echoAgent{more: make(chan struct{}, 10)}
	a := openReplica(t, url, agent, 3*time.Second)
	c, err := a.chans.Create(ctx, channels.CreateParams{Name: "shared", Members: []string{"remote://echo"}})
	if err != nil {
		t.Fatal(err)
	}
	say(t, a.chans, c.ID, "@echo hang") // the agent never answers
	<-agent.more

	b := openReplica(t, url, agent, 600*time.Millisecond)
	if open, err := b.bridge.working(ctx); err != nil || len(open) != 0 {
		t.Fatalf("the second replica took over %+v (err %v) while the first still has it in hand", open, err)
	}
	if events, err := b.chans.EventsAfter(ctx, c.ID, 1, 10); err != nil || len(events) != 0 {
		t.Fatalf("after the second replica started: events %+v (err %v), want none", events, err)
	}

	// The first replica dies: its bridge stops without giving up its lease.
	a.bridge.cancel()
	a.bridge.wg.Wait()
	var leaseUntil int64
	if err := b.db.Reader.QueryRowContext(ctx, `SELECT lease_until FROM bridge_contexts WHERE channel_id = ? AND agent_id = 'echo'`,
		c.ID).Scan(&leaseUntil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		states, err := b.bridge.States(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) == 1 && states[0].State == StateFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states: %+v", states)
		}
		time.Sleep(20 * time.Millisecond)
	}
	events, err := b.chans.EventsAfter(ctx, c.ID, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Author != "remote://echo" || metaOf(events[0]) == nil || metaOf(events[0]).State != NoticeFailed {
		t.Fatalf("after the takeover: %+v, want the one interrupted notice", events)
	}
	if events[0].Timestamp < leaseUntil {
		t.Errorf("the notice was posted at %d, before the first replica's lease ran out at %d", events[0].Timestamp, leaseUntil)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 1 {
		t.Errorf("the agent got %v: sent again", agent.got)
	}
}
