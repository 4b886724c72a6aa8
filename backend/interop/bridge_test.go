package interop

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// chanEvent is a channel event as channels/history returns it, with the bridge's metadata.
type chanEvent struct {
	ID       string `json:"id"`
	Sequence int64  `json:"sequence"`
	Author   string `json:"author"`
	Parts    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"parts"`
	Metadata struct {
		Agenthub struct {
			Bridge *bridge.Meta `json:"bridge"`
		} `json:"agenthub"`
	} `json:"metadata"`
}

func (e chanEvent) text() string {
	var b strings.Builder
	for _, p := range e.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// bridgeHub is a hub with the demo agent (no pause between its chunks) and anonymous callers
// refused, and the owner's key as headers.
func bridgeHub(t *testing.T, dataDir string) (*hub.Hub, map[string]string) {
	t.Helper()
	tick := time.Duration(0)
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: dataDir, Addr: "127.0.0.1:0", DemoAddr: "127.0.0.1:0", DemoTick: &tick,
		Version: "test", Secrets: "file", Logger: slog.New(slog.NewTextHandler(&serverLogBuffer{}, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Auth.SetAnonymousPolicy(t.Context(), auth.AnonymousOff); err != nil {
		t.Fatal(err)
	}
	return h, map[string]string{"X-Api-Key": h.Agent.Auth.OwnerKey()}
}

// publish posts text to the channel over channels/publish as the caller of headers.
func publish(t *testing.T, h *hub.Hub, headers map[string]string, channelID, text string) chanEvent {
	t.Helper()
	var res struct{ Event chanEvent }
	kgCall(t, h, headers, "channels/publish", map[string]any{"channelId": channelID, "parts": []any{map[string]any{"type": "text", "text": text}}}, &res)
	return res.Event
}

// waitFor reads the channel's history (as the owner) until done accepts the events after the
// sequence after, and returns those events.
func waitFor(t *testing.T, h *hub.Hub, owner map[string]string, channelID string, after int64, what string, done func([]chanEvent) bool) []chanEvent {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var page struct{ Events []chanEvent }
		kgCall(t, h, owner, "channels/history", map[string]any{"channelId": channelID, "sinceSequence": after, "pageSize": 200}, &page)
		if done(page.Events) {
			return page.Events
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(page.Events, "", " ")
			t.Fatalf("%s: not there after 60s; events:\n%s", what, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answersBy are the bridge's events authored by member, leaving out notices.
func answersBy(events []chanEvent, member string) []chanEvent {
	var out []chanEvent
	for _, e := range events {
		if m := e.Metadata.Agenthub.Bridge; e.Author == member && m != nil && m.State != bridge.NoticeHopLimit && m.State != bridge.NoticeFailed {
			out = append(out, e)
		}
	}
	return out
}

// answered waits for member's answer to the message published at sequence after, in the given
// task state, and returns it.
func answered(t *testing.T, h *hub.Hub, owner map[string]string, channelID string, after int64, member, state string) chanEvent {
	t.Helper()
	var got chanEvent
	waitFor(t, h, owner, channelID, after, member+" answering ("+state+")", func(es []chanEvent) bool {
		for _, e := range answersBy(es, member) {
			if e.Metadata.Agenthub.Bridge.State == state {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// contextOf is the A2A context of a task of an added agent, as the agent itself reports it.
func contextOf(t *testing.T, h *hub.Hub, agentID, taskID string) string {
	t.Helper()
	conn, err := h.Clients.Conn(t.Context(), agentID)
	if err != nil {
		t.Fatal(err)
	}
	task, err := conn.GetTask(t.Context(), a2a.TaskID(taskID))
	if err != nil {
		t.Fatalf("tasks/get %s at %s: %v", taskID, agentID, err)
	}
	return task.ContextID
}

// The bridge with two agents on different SDKs: the demo agent (a2a-go) and an @a2a-js/sdk server,
// in one channel of the owner's with an agent principal as a member, everything published over
// channels/publish. Mentions reach only the agents mentioned (@all both), answers come back as
// remote://… in one event per answer (the demo agent streams its echo in chunks), each agent keeps
// one context per channel, input-required questions are answered by the owner in the channel, a
// member's message is forwarded too, and two agents echoing each other's mentions stop at the hop
// limit with one notice per chain.
func TestBridgeDemoAndJSAgentsInAChannel(t *testing.T) {
	base := startJSServer(t)
	h, owner := bridgeHub(t, t.TempDir())
	t.Cleanup(func() { h.Stop() })
	alice := map[string]string{"X-Api-Key": addPrincipal(t, h, "alice")}
	js, err := h.Agents.Add(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	demoMember, jsMember := "remote://demo", "remote://"+js.ID

	var created struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/create", map[string]any{"name": "bridge", "members": []string{"agent://alice"}}, &created)
	ch := created.Channel.ID
	for _, m := range []string{demoMember, jsMember} {
		kgCall(t, h, owner, "channels/addMember", map[string]any{"channelId": ch, "principalId": m, "role": "member"}, &struct{}{})
	}

	// Mentions: each agent alone, then @all.
	ev := publish(t, h, owner, ch, "@demo hello demo")
	demo1 := answered(t, h, owner, ch, ev.Sequence, demoMember, "completed")
	if demo1.text() != "hello demo" || demo1.Metadata.Agenthub.Bridge.Hop != 0 || demo1.Metadata.Agenthub.Bridge.TaskID == "" {
		t.Errorf("demo's answer: %+v %q", demo1.Metadata.Agenthub.Bridge, demo1.text())
	}
	ev2 := publish(t, h, owner, ch, "@"+strings.ToUpper(js.ID)+", hello js")
	js1 := answered(t, h, owner, ch, ev2.Sequence, jsMember, "completed")
	if js1.text() != "hello js" {
		t.Errorf("the JS agent's answer: %q", js1.text())
	}
	// The demo agent was not mentioned: between the two messages only its own answer came.
	between := waitFor(t, h, owner, ch, ev.Sequence, "events", func([]chanEvent) bool { return true })
	for _, e := range between {
		if e.Sequence < ev2.Sequence && e.Author == jsMember || e.Sequence > ev2.Sequence && e.Author == demoMember {
			t.Errorf("an agent that was not mentioned answered: %+v", e)
		}
	}
	if n := len(answersBy(between, demoMember)); n != 1 {
		t.Errorf("the demo agent's one streamed answer came as %d events", n)
	}
	ev3 := publish(t, h, owner, ch, "@all both of you")
	demo2 := answered(t, h, owner, ch, ev3.Sequence, demoMember, "completed")
	js2 := answered(t, h, owner, ch, ev3.Sequence, jsMember, "completed")
	if demo2.text() != "both of you" || js2.text() != "both of you" {
		t.Errorf("@all answers: %q, %q", demo2.text(), js2.text())
	}

	// One context per channel and agent: the agents themselves put both tasks in it.
	demoCtx := contextOf(t, h, "demo", demo1.Metadata.Agenthub.Bridge.TaskID)
	if got := contextOf(t, h, "demo", demo2.Metadata.Agenthub.Bridge.TaskID); got != demoCtx || demoCtx == "" {
		t.Errorf("the demo agent's second task is in context %q, the first in %q", got, demoCtx)
	}
	jsCtx := contextOf(t, h, js.ID, js1.Metadata.Agenthub.Bridge.TaskID)
	if got := contextOf(t, h, js.ID, js2.Metadata.Agenthub.Bridge.TaskID); got != jsCtx || jsCtx == "" {
		t.Errorf("the JS agent's second task is in context %q, the first in %q", got, jsCtx)
	}

	// Input-required: the question shows in the channel; the owner's next mention answers that task.
	// The JS agent goes by the slug of its name here: nobody types its id, a UUID.
	jsSlug := bridge.Slug(js.Name)
	if jsSlug == "" || jsSlug == strings.ToLower(js.ID) {
		t.Fatalf("the JS agent's name %q makes no slug of its own", js.Name)
	}
	for _, a := range []struct{ member, handle, question, reply string }{
		{demoMember, "demo", "What should I tell you back?", "blue"},
		{jsMember, jsSlug, "What should I tell you back?", "green"},
	} {
		asked := publish(t, h, owner, ch, "@"+a.handle+" ask")
		q := answered(t, h, owner, ch, asked.Sequence, a.member, "input-required")
		if !strings.HasPrefix(q.text(), a.question) {
			t.Errorf("%s's question: %q", a.member, q.text())
		}
		reply := publish(t, h, owner, ch, "@"+a.handle+" "+a.reply)
		done := answered(t, h, owner, ch, reply.Sequence, a.member, "completed")
		if done.text() != "You answered: "+a.reply || done.Metadata.Agenthub.Bridge.TaskID != q.Metadata.Agenthub.Bridge.TaskID {
			t.Errorf("%s's answer: %q in task %s, the question was task %s", a.member, done.text(), done.Metadata.Agenthub.Bridge.TaskID, q.Metadata.Agenthub.Bridge.TaskID)
		}
	}

	// A member's message is forwarded like the owner's.
	fromAlice := publish(t, h, alice, ch, "@demo hi from alice")
	if got := answered(t, h, owner, ch, fromAlice.Sequence, demoMember, "completed"); got.text() != "hi from alice" {
		t.Errorf("the answer to alice: %q", got.text())
	}

	// Agents answering agents: both echo "ping @demo @JS", so each answer mentions the other agent.
	// From each agent's first answer a chain runs demo → js → demo → js (hops 1, 2, 3); the hop-4
	// forward is refused with one notice: both branches began with the same message, one chain.
	chain := publish(t, h, owner, ch, "@demo @"+js.ID+" ping @demo @"+js.ID)
	events := waitFor(t, h, owner, ch, chain.Sequence, "the chain's end", func(es []chanEvent) bool {
		settled, err := h.Bridge.Settled(t.Context(), ch)
		if err != nil {
			t.Fatal(err)
		}
		return settled && len(es) > 0
	})
	notices := 0
	hops := map[string][]int{}
	for _, e := range events {
		m := e.Metadata.Agenthub.Bridge
		switch {
		case m == nil:
			t.Errorf("an event without the bridge's metadata: %+v", e)
		case m.State == bridge.NoticeHopLimit:
			notices++
			if m.Hop != bridge.DefaultHops+1 || m.Origin != chain.ID || !strings.Contains(e.text(), "Not forwarded") {
				t.Errorf("hop-limit notice: %+v %q", m, e.text())
			}
		case m.State == "completed":
			if e.text() != "ping @demo @"+js.ID {
				t.Errorf("a chain answer: %q", e.text())
			}
			hops[e.Author] = append(hops[e.Author], m.Hop)
		default:
			t.Errorf("unexpected event in the chain: %+v %q", m, e.text())
		}
	}
	if notices != 1 {
		t.Errorf("%d hop-limit notices, want one for the chain", notices)
	}
	for _, member := range []string{demoMember, jsMember} {
		if got := hops[member]; len(got) != 4 || sum(got) != 0+1+2+3 {
			t.Errorf("%s answered at hops %v, want one answer at each of 0, 1, 2, 3", member, got)
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// Only the owner adds an added agent to a channel, and only one the hub has.
func TestBridgeOnlyTheOwnerAddsAgents(t *testing.T) {
	h, owner := bridgeHub(t, t.TempDir())
	t.Cleanup(func() { h.Stop() })
	alice := map[string]string{"X-Api-Key": addPrincipal(t, h, "alice")}

	// alice owns her channel, and still may not bring the owner's agents into it.
	var hers struct{ Channel channels.Channel }
	kgCall(t, h, alice, "channels/create", map[string]any{"name": "alice's"}, &hers)
	kgError(t, h, alice, "channels/addMember", map[string]any{"channelId": hers.Channel.ID, "principalId": "remote://demo"}, channels.CodePermissionDenied)
	kgError(t, h, alice, "channels/addMember", map[string]any{"channelId": hers.Channel.ID, "principalId": "remote://no-such-agent"}, channels.CodePermissionDenied)
	kgError(t, h, alice, "channels/create", map[string]any{"name": "x", "members": []string{"remote://demo"}}, channels.CodePermissionDenied)

	var mine struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/create", map[string]any{"name": "mine"}, &mine)
	for _, bad := range []string{"remote://no-such-agent", "remote://hub", "remote://"} {
		kgError(t, h, owner, "channels/addMember", map[string]any{"channelId": mine.Channel.ID, "principalId": bad}, channels.CodeInvalidParams)
	}
	kgError(t, h, owner, "channels/addMember", map[string]any{"channelId": mine.Channel.ID, "principalId": "remote://demo", "role": "owner"}, channels.CodeInvalidParams)
	kgError(t, h, owner, "channels/publish", map[string]any{"recipientId": "remote://demo", "parts": []any{map[string]any{"type": "text", "text": "hi"}}}, channels.CodeInvalidParams)
	var added struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/addMember", map[string]any{"channelId": mine.Channel.ID, "principalId": "remote://demo"}, &added)
	if n := len(added.Channel.Members); n != 2 || added.Channel.Members[1].PrincipalID != "remote://demo" {
		t.Errorf("members: %+v", added.Channel.Members)
	}
}

// An agent that fails (here its endpoint answers HTTP 500) shows as a short notice in the channel
// with state "failed", and its state is failed.
func TestBridgeAgentFailureIsANotice(t *testing.T) {
	h, owner := bridgeHub(t, t.TempDir())
	t.Cleanup(func() { h.Stop() })
	var card []byte
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			w.Write(card)
			return
		}
		io.Copy(io.Discard, r.Body)
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)
	// The demo's card, pointing at broken; its signature, which no longer verifies, is dropped.
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(h.Demo.Server.CardJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "signatures")
	unsigned, _ := json.Marshal(doc)
	card = []byte(strings.ReplaceAll(string(unsigned), h.Demo.BaseURL, broken.URL))
	rem, err := h.Agents.Add(t.Context(), broken.URL)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/create", map[string]any{"name": "failing", "members": []string{"remote://" + rem.ID}}, &created)
	ev := publish(t, h, owner, created.Channel.ID, "@"+rem.ID+" hello?")
	var notice chanEvent
	waitFor(t, h, owner, created.Channel.ID, ev.Sequence, "the failure notice", func(es []chanEvent) bool {
		for _, e := range es {
			if m := e.Metadata.Agenthub.Bridge; m != nil && m.State == bridge.NoticeFailed && e.Author == "remote://"+rem.ID {
				notice = e
				return true
			}
		}
		return false
	})
	if !strings.HasPrefix(notice.text(), "Failed: ") {
		t.Errorf("notice: %q", notice.text())
	}
	states, err := h.Bridge.States(t.Context(), created.Channel.ID)
	if err != nil || len(states) != 1 || states[0].State != bridge.StateFailed {
		t.Errorf("states: %+v %v", states, err)
	}
}

// After a restart the channel's thread with an agent goes on in the same A2A context.
func TestBridgeContextSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	h, owner := bridgeHub(t, dir)
	var created struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/create", map[string]any{"name": "kept", "members": []string{"remote://demo"}}, &created)
	ch := created.Channel.ID
	ev := publish(t, h, owner, ch, "@demo before")
	first := answered(t, h, owner, ch, ev.Sequence, "remote://demo", "completed")
	before := contextOf(t, h, "demo", first.Metadata.Agenthub.Bridge.TaskID)
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}

	h, owner = bridgeHub(t, dir)
	t.Cleanup(func() { h.Stop() })
	ev = publish(t, h, owner, ch, "@demo after")
	second := answered(t, h, owner, ch, ev.Sequence, "remote://demo", "completed")
	if got := contextOf(t, h, "demo", second.Metadata.Agenthub.Bridge.TaskID); got != before {
		t.Errorf("after the restart the task is in context %q, before it was %q", got, before)
	}
	// Nothing before the restart was sent again: one answer to each message.
	all := waitFor(t, h, owner, ch, 0, "history", func([]chanEvent) bool { return true })
	if n := len(answersBy(all, "remote://demo")); n != 2 {
		t.Errorf("%d answers from the demo agent, want 2", n)
	}
}

// A message in flight when the hub stops is not sent again at the next start: the bridge watches
// the task it started instead (the @a2a-js/sdk agent's "slow" works until canceled), and the next
// message goes out as usual. The channel had an earlier exchange, so the restart catches up on
// events from there.
func TestBridgeInFlightSendIsNotResentAfterRestart(t *testing.T) {
	base := startJSServer(t)
	dir := t.TempDir()
	h, owner := bridgeHub(t, dir)
	js, err := h.Agents.Add(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	member := "remote://" + js.ID
	var created struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/create", map[string]any{"name": "slow", "members": []string{member}}, &created)
	ch := created.Channel.ID
	ev := publish(t, h, owner, ch, "@"+js.ID+" warm up")
	answered(t, h, owner, ch, ev.Sequence, member, "completed")

	publish(t, h, owner, ch, "@"+js.ID+" slow")
	working := waitState(t, h, ch, func(s bridge.State) bool { return s.State == bridge.StateWorking && s.TaskID != "" })
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}

	h, owner = bridgeHub(t, dir)
	t.Cleanup(func() { h.Stop() })
	if got := waitState(t, h, ch, func(bridge.State) bool { return true }); got.State != bridge.StateWorking || got.TaskID != working.TaskID {
		t.Fatalf("after the restart: %+v, before it: %+v", got, working)
	}
	conn, err := h.Clients.Conn(t.Context(), js.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Cancel(t.Context(), a2a.TaskID(working.TaskID)); err != nil {
		t.Fatal(err)
	}
	// The watched task ends. Had "slow" been sent again, that second task would come next in the
	// agent's queue (and work for a minute); the next task must be the next message's.
	waitState(t, h, ch, func(s bridge.State) bool { return s.State == bridge.StateIdle })
	sub := h.Bus.Subscribe(func(e bus.Event) bool { return e.Topic == bridge.Topic && e.Key == ch }, 64)
	defer sub.Close()
	next := publish(t, h, owner, ch, "@"+js.ID+" next")
	var started string
	for started == "" {
		select {
		case e := <-sub.C:
			if st := e.Data.(*bridge.State); st.TaskID != "" && st.TaskID != working.TaskID {
				started = st.TaskID
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no task started after the next message")
		}
	}
	if got := answered(t, h, owner, ch, next.Sequence, member, "completed"); got.text() != "next" || got.Metadata.Agenthub.Bridge.TaskID != started {
		t.Errorf("the first task after the restart's is %s; the next message was answered %q in task %s", started, got.text(), got.Metadata.Agenthub.Bridge.TaskID)
	}
}

// waitState waits until the only added agent of the channel is in a state ok accepts.
func waitState(t *testing.T, h *hub.Hub, channelID string, ok func(bridge.State) bool) bridge.State {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		states, err := h.Bridge.States(t.Context(), channelID)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) == 1 && ok(states[0]) {
			return states[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("states: %+v", states)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Four agents in a channel, each echoing what it is sent: a person's message that names them all
// makes every answer name the three others again. From one message the bridge sends at most
// bridge.DefaultForwards messages to agents in all, and the chain it stops ends with exactly one
// notice. (Before the budget: 4 + 12 + 36 + 108 = 160 sends and 108 notices.) An agent's "@all" is
// not expanded: the same message with only @all reaches the four agents once, and nothing more.
func TestBridgeFanOutStaysWithinTheForwardBudget(t *testing.T) {
	h, owner := bridgeHub(t, t.TempDir())
	t.Cleanup(func() { h.Stop() })
	handles := []string{"demo"}
	members := []string{"remote://demo"}
	for range 3 {
		tick := time.Duration(0)
		demo, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", DemoTick: &tick,
			Version: "test", Logger: slog.New(slog.NewTextHandler(&serverLogBuffer{}, nil))}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { demo.Stop() })
		rem, err := h.Agents.Add(t.Context(), demo.BaseURL)
		if err != nil {
			t.Fatal(err)
		}
		handles, members = append(handles, rem.ID), append(members, "remote://"+rem.ID)
	}
	var created struct{ Channel channels.Channel }
	kgCall(t, h, owner, "channels/create", map[string]any{"name": "crowd", "members": members}, &created)
	ch := created.Channel.ID

	// count waits until the bridge is done with the channel, failing as soon as the agents were
	// sent more than the budget, and returns the answers (one per message an agent was sent) and
	// the notices after the sequence after.
	count := func(after int64) (answers, notices []chanEvent) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			settled, err := h.Bridge.Settled(t.Context(), ch)
			if err != nil {
				t.Fatal(err)
			}
			all := historyAfter(t, h, owner, ch, after)
			answers, notices = nil, nil
			for _, e := range all {
				switch m := e.Metadata.Agenthub.Bridge; {
				case m == nil:
				case m.State == bridge.NoticeHopLimit || m.State == bridge.NoticeFailed || m.State == bridge.NoticeForwardLimit:
					notices = append(notices, e)
				default:
					answers = append(answers, e)
				}
			}
			if len(answers) > bridge.DefaultForwards {
				t.Fatalf("one message made %d sends to agents (and %d notices so far), want at most %d", len(answers), len(notices), bridge.DefaultForwards)
			}
			if settled {
				return answers, notices
			}
			if time.Now().After(deadline) {
				t.Fatalf("the bridge is still busy after 60s: %d answers, %d notices", len(answers), len(notices))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	names := "@" + strings.Join(handles, " @")
	ev := publish(t, h, owner, ch, "@all ping "+names)
	answers, notices := count(ev.Sequence)
	if len(answers) != bridge.DefaultForwards || len(notices) != 1 {
		t.Errorf("one message named the four agents: %d answers and %d notices, want %d and 1", len(answers), len(notices), bridge.DefaultForwards)
	}
	for _, n := range notices {
		if m := n.Metadata.Agenthub.Bridge; m.State != bridge.NoticeForwardLimit || m.Origin != ev.ID || !strings.Contains(n.text(), "Not forwarded") {
			t.Errorf("the notice: %+v %q", m, n.text())
		}
	}
	for _, a := range answers {
		if m := a.Metadata.Agenthub.Bridge; m.Origin != ev.ID {
			t.Errorf("an answer in the chain of %s names origin %q", ev.ID, m.Origin)
		}
	}

	ev = publish(t, h, owner, ch, "@all hello @all")
	answers, notices = count(ev.Sequence)
	if len(answers) != 4 || len(notices) != 0 {
		t.Errorf("an agent's @all was expanded: %d answers and %d notices, want 4 and none", len(answers), len(notices))
	}
}

// historyAfter is every event of the channel after the sequence after, read page by page as the
// owner.
func historyAfter(t *testing.T, h *hub.Hub, owner map[string]string, channelID string, after int64) []chanEvent {
	t.Helper()
	var all []chanEvent
	params := map[string]any{"channelId": channelID, "sinceSequence": after, "pageSize": 200}
	for {
		var page struct {
			Events        []chanEvent
			NextPageToken string
		}
		kgCall(t, h, owner, "channels/history", params, &page)
		all = append(all, page.Events...)
		if page.NextPageToken == "" {
			return all
		}
		params = map[string]any{"channelId": channelID, "pageToken": page.NextPageToken, "pageSize": 200}
	}
}
