// Package inbox is the hub's inbox skill: a message from a remote agent for the person at the desktop.
// The task waits, durably, until the owner acts on it through this package's API: answer (the task
// stays open, the remote side sees the answer live), ask back (input-required), complete, or reject.
// A task waiting when the hub stops is still waiting after it starts again.
package inbox

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/tasks"
)

// Skill is the inbox's entry on the hub's card.
var Skill = a2a.AgentSkill{
	ID:          "inbox",
	Name:        "Message the person at this desktop",
	Description: "Delivers your message to the AgentHub owner, who can answer, ask you back (input-required), complete or reject the task. Stream the task or resubscribe to see the answer the moment it is given.",
	Tags:        []string{"human", "inbox"},
	Examples:    []string{"Can you approve the deployment of v2.3 to staging?"},
}

// Action is what the owner does with a waiting task.
type Action string

const (
	Answer   Action = "answer"   // send text back; the task stays open for more
	AskBack  Action = "ask"      // ask the sender a question: input-required
	Complete Action = "complete" // done, with optional closing text
	Reject   Action = "reject"   // refuse, with optional reason
)

// ErrNotWaiting means the task is not waiting for the owner (the sender has to reply first, or it ended).
var ErrNotWaiting = errors.New("task is not waiting for the owner")

// Inbox is the executor of the inbox skill and the owner's API to it.
type Inbox struct {
	store *tasks.Store

	mu      sync.Mutex
	waiters map[a2a.TaskID]*waiter // executions running in this process, waiting for the owner
}

type waiter struct {
	acts chan act
	done chan struct{}
}

type act struct {
	events []a2a.Event
	result chan error
}

// New returns the inbox over the hub's task store.
func New(store *tasks.Store) *Inbox {
	return &Inbox{store: store, waiters: map[a2a.TaskID]*waiter{}}
}

var _ a2asrv.AgentExecutor = (*Inbox)(nil)
var _ tasks.Resumer = (*Inbox)(nil)

// Execute records the message and waits for the owner. Each owner action is yielded into a2a-go's
// pipeline (so it is stored, then streamed to the sender); the execution ends with the first action
// that ends the turn.
func (in *Inbox) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		w := &waiter{acts: make(chan act), done: make(chan struct{})}
		in.mu.Lock()
		in.waiters[ec.TaskID] = w
		in.mu.Unlock()
		defer func() {
			in.mu.Lock()
			delete(in.waiters, ec.TaskID)
			in.mu.Unlock()
			close(w.done)
		}()
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		for {
			select {
			case <-ctx.Done():
				return
			case a := <-w.acts:
				final := false
				for _, ev := range a.events {
					final = final || tasks.IsFinal(ev)
					if !yield(ev, nil) {
						a.result <- ctx.Err()
						return
					}
				}
				a.result <- nil
				if final {
					return
				}
			}
		}
	}
}

// Cancel ends a waiting task at the sender's request.
func (in *Inbox) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// Resume keeps an inbox task that was waiting when the hub stopped: the owner can still act on it.
func (in *Inbox) Resume(ctx context.Context, t *a2a.Task) bool { return true }

// Pending lists the tasks waiting for the owner, oldest first.
func (in *Inbox) Pending(ctx context.Context) ([]*a2a.Task, error) { return in.store.Unfinished(ctx) }

// Act applies the owner's action to a waiting task. If the execution that received the task is
// running here, the action goes through it; otherwise (the hub restarted since) it is written to the
// store directly. Either way it is durable, and streams of the task see it, when Act returns nil.
func (in *Inbox) Act(ctx context.Context, id a2a.TaskID, action Action, text string) error {
	stored, err := in.store.Get(ctx, id)
	if err != nil {
		return err
	}
	task := stored.Task
	if st := task.Status.State; st != a2a.TaskStateSubmitted && st != a2a.TaskStateWorking {
		return fmt.Errorf("%w: %s is %s", ErrNotWaiting, id, st)
	}
	events, err := eventsFor(task, action, text)
	if err != nil {
		return err
	}
	in.mu.Lock()
	w := in.waiters[id]
	in.mu.Unlock()
	if w != nil {
		a := act{events: events, result: make(chan error, 1)}
		select {
		case w.acts <- a:
			select {
			case err := <-a.result:
				if err != nil {
					return err
				}
				return in.awaitStored(ctx, id, int64(stored.Version)+int64(len(events)))
			case <-ctx.Done():
				return ctx.Err()
			}
		case <-w.done: // the execution ended meanwhile (canceled): fall through to the store
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, ev := range events {
		if _, err := in.store.Apply(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// awaitStored waits until the task's version reaches want: a2a-go stores yielded events on its own
// goroutine, and the owner's action is not done until it is stored.
func (in *Inbox) awaitStored(ctx context.Context, id a2a.TaskID, want int64) error {
	for l, err := range in.store.Stream(ctx, id) {
		if err != nil {
			return err
		}
		if int64(l.Version) >= want {
			return nil
		}
	}
	return ctx.Err()
}

func eventsFor(task *a2a.Task, action Action, text string) ([]a2a.Event, error) {
	var msg *a2a.Message
	if text != "" {
		msg = a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart(text))
	}
	switch action {
	case Answer:
		if text == "" {
			return nil, fmt.Errorf("an answer needs text: %w", a2a.ErrInvalidParams)
		}
		return []a2a.Event{
			&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID,
				Artifact: &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "answer", Parts: a2a.ContentParts{a2a.NewTextPart(text)}}},
		}, nil
	case AskBack:
		if text == "" {
			return nil, fmt.Errorf("asking back needs a question: %w", a2a.ErrInvalidParams)
		}
		return []a2a.Event{a2a.NewStatusUpdateEvent(task, a2a.TaskStateInputRequired, msg)}, nil
	case Complete:
		return []a2a.Event{a2a.NewStatusUpdateEvent(task, a2a.TaskStateCompleted, msg)}, nil
	case Reject:
		return []a2a.Event{a2a.NewStatusUpdateEvent(task, a2a.TaskStateRejected, msg)}, nil
	}
	return nil, fmt.Errorf("unknown inbox action %q: %w", action, a2a.ErrInvalidParams)
}
