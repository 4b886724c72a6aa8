package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/store"
)

// echoAgent answers every message with its text, as an agent message in one context.
type echoAgent struct {
	mu   sync.Mutex
	got  []string
	more chan struct{}
}

func (e *echoAgent) Streaming() bool { return true }

func (e *echoAgent) Send(_ context.Context, msg *a2a.Message, _ bool) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := msg.Parts[0].Text()
		e.mu.Lock()
		e.got = append(e.got, text)
		e.mu.Unlock()
		e.more <- struct{}{}
		reply := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))
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

// Events the bus drops while the bridge is busy (its subscription full) are read back from the
// channel: every mention is sent once, in order.
func TestBridgeCatchesUpOnDroppedEvents(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"))
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
	agent := &echoAgent{more: make(chan struct{}, 100)}
	br, err := Open(ctx, Config{DB: db, Bus: b, Channels: chans,
		Dial: func(context.Context, string) (chats.Remote, error) { return agent, nil }})
	if err != nil {
		t.Fatal(err)
	}
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
		if _, err := chans.Publish(ctx, channels.PublishParams{ChannelID: c.ID,
			Parts: []json.RawMessage{json.RawMessage(fmt.Sprintf(`{"type":"text","text":"@echo m%d"}`, i))}}); err != nil {
			t.Fatal(err)
		}
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
