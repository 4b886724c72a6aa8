package bridge

import (
	"errors"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/channels"
)

// A mention of an agent that is not in the channel reaches no one; once the owner adds the agent,
// Deliver sends it that message (its opening mentions removed, as a mention's send) and its answer is
// published as the agent. Deliver refuses what a mention could not have sent: a message that does not
// mention the agent, an agent that is not a member, an agent's own answer.
func TestBridgeDeliversAMentionOnceTheAgentJoins(t *testing.T) {
	ctx := t.Context()
	agent := &echoAgent{more: make(chan struct{}, 10)}
	_, _, chans, _, br := openBridge(t, agent)
	if err := br.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	c, err := chans.Create(ctx, channels.CreateParams{Name: "new"})
	if err != nil {
		t.Fatal(err)
	}
	say(t, chans, c.ID, "@echo hello there")
	say(t, chans, c.ID, "no mention here")
	settle := func() {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if ok, err := br.Settled(ctx, c.ID); err != nil || ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the bridge did not settle")
			}
		}
	}
	settle()
	if err := br.Deliver(ctx, c.ID, 1, "remote://echo"); !errors.Is(err, ErrNotDeliverable) {
		t.Errorf("Deliver to a non-member: %v", err)
	}
	agent.mu.Lock()
	if len(agent.got) != 0 {
		t.Fatalf("a mention of a non-member reached it: %v", agent.got)
	}
	agent.mu.Unlock()

	if _, err := chans.AddMember(ctx, c.ID, "remote://echo", ""); err != nil {
		t.Fatal(err)
	}
	if err := br.Deliver(ctx, c.ID, 2, "remote://echo"); !errors.Is(err, ErrNotDeliverable) {
		t.Errorf("Deliver of a message without the mention: %v", err)
	}
	if err := br.Deliver(ctx, c.ID, 1, "remote://echo"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-agent.more:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent got nothing")
	}
	settle()
	events, err := chans.EventsAfter(ctx, c.ID, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Author != "remote://echo" || eventText(events[0]) != "hello there" {
		t.Fatalf("after Deliver the channel holds %d more events: %+v", len(events), events)
	}
	if err := br.Deliver(ctx, c.ID, 3, "remote://echo"); !errors.Is(err, ErrNotDeliverable) {
		t.Errorf("Deliver of the agent's own answer: %v", err)
	}
	if err := br.Deliver(ctx, c.ID, 99, "remote://echo"); err == nil {
		t.Error("Deliver of a sequence the channel does not hold: no error")
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 1 || agent.got[0] != "hello there" {
		t.Errorf("the agent got %v, want [hello there]", agent.got)
	}
}
