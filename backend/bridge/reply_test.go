package bridge

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/channels"
)

// askAgent asks a question (input-required) when a message outside a task says "ask", and completes
// the task with a message that answers it; anything else it echoes. It keeps every message it got.
type askAgent struct {
	mu   sync.Mutex
	got  []*a2a.Message
	more chan struct{}
	n    int
}

func (e *askAgent) Streaming() bool { return true }

func (e *askAgent) Send(_ context.Context, msg *a2a.Message, _ bool) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		e.mu.Lock()
		e.got = append(e.got, msg)
		e.n++
		n := e.n
		e.mu.Unlock()
		defer func() { e.more <- struct{}{} }()
		text := msg.Parts[0].Text()
		say := func(s string) *a2a.Message { return a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(s)) }
		switch {
		case msg.TaskID != "":
			yield(&a2a.Task{ID: msg.TaskID, ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Message: say("thanks: " + text)}}, nil)
		case text == "ask":
			id := a2a.TaskID("t-" + string(rune('0'+n)))
			yield(&a2a.Task{ID: id, ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: say("which colour?")}}, nil)
		default:
			reply := say(text)
			reply.ContextID = "ctx-1"
			yield(reply, nil)
		}
	}
}

func (e *askAgent) GetTask(context.Context, a2a.TaskID) (*a2a.Task, error) {
	return nil, a2a.ErrTaskNotFound
}
func (e *askAgent) Cancel(context.Context, a2a.TaskID) (*a2a.Task, error) {
	return nil, a2a.ErrTaskNotFound
}

// sayReplying publishes text as the owner with metadata.agenthub.replyTo, as the UI's "Answer" does.
func sayReplying(t *testing.T, chans *channels.Service, channelID, text string, reply Reply) {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	if _, err := chans.Publish(t.Context(), channels.PublishParams{ChannelID: channelID, Parts: []json.RawMessage{raw},
		Metadata: map[string]any{"agenthub": map[string]any{"replyTo": map[string]any{"member": reply.Member, "taskId": reply.TaskID}}}}); err != nil {
		t.Fatal(err)
	}
}

func waitState(t *testing.T, br *Bridge, channelID, want string) State {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		states, err := br.States(t.Context(), channelID)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) == 1 && states[0].State == want {
			return states[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("states: %+v, want %s", states, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A person's answer bound to the agent's question (metadata.agenthub.replyTo, as the UI's Answer
// sends it) reaches the task that asks, in the agent's context, though its text mentions no one;
// a reply to a task that no longer asks goes to the agent as a new message, outside any task. Before,
// a message without an @mention never reached the agent: the answer went to the channel only.
func TestBridgeReplyAnswersTheQuestionWithoutAMention(t *testing.T) {
	agent := &askAgent{more: make(chan struct{}, 10)}
	_, _, chans, c, br := openBridge(t, agent)
	if err := br.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close() })
	next := func() {
		t.Helper()
		select {
		case <-agent.more:
		case <-time.After(30 * time.Second):
			t.Fatal("the agent got nothing")
		}
	}

	say(t, chans, c.ID, "@echo ask")
	next()
	asking := waitState(t, br, c.ID, StateInputRequired)
	if asking.TaskID == "" {
		t.Fatalf("the question's state names no task: %+v", asking)
	}
	sayReplying(t, chans, c.ID, "blue", Reply{Member: "remote://echo", TaskID: asking.TaskID})
	next()
	waitState(t, br, c.ID, StateIdle)

	// The same task again: answered already, so the reply is a new message in the same context.
	sayReplying(t, chans, c.ID, "and green", Reply{Member: "remote://echo", TaskID: asking.TaskID})
	next()
	// A reply naming an agent that is not a member reaches no one.
	sayReplying(t, chans, c.ID, "to no one", Reply{Member: "remote://other", TaskID: "t-9"})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ok, err := br.Settled(t.Context(), c.ID); err != nil || ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the bridge did not settle")
		}
	}

	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.got) != 3 {
		t.Fatalf("the agent got %d messages, want 3", len(agent.got))
	}
	answer := agent.got[1]
	if answer.Parts[0].Text() != "blue" || string(answer.TaskID) != asking.TaskID || answer.ContextID != "ctx-1" {
		t.Errorf("the answer reached the agent as %q in task %q, context %q; want \"blue\" in %s, ctx-1", answer.Parts[0].Text(), answer.TaskID, answer.ContextID, asking.TaskID)
	}
	late := agent.got[2]
	if late.Parts[0].Text() != "and green" || late.TaskID != "" || late.ContextID != "ctx-1" {
		t.Errorf("a reply to an answered question reached the agent as %q in task %q, context %q", late.Parts[0].Text(), late.TaskID, late.ContextID)
	}
	// The question's answer is in the channel, after the owner's reply.
	events, err := chans.EventsAfter(t.Context(), c.ID, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range events {
		found = found || ev.Author == "remote://echo" && eventText(ev) == "thanks: blue"
	}
	if !found {
		t.Errorf("the task's answer was not published: %d events", len(events))
	}
}
