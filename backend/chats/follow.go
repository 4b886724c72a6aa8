package chats

import (
	"context"
	"errors"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// Follow sends msg to remote and hands each event the agent sends back to on, the way a
// conversation delivers the owner's message: streamed when the agent streams; then, while the task
// is not final (an agent that doesn't stream answered at once, or a stream was cut), followed with
// tasks/get every poll, doubling up to 5 s while nothing changes, each change handed on as the
// events a stream would have carried. It returns nil once the answer is final (input-required
// included), ctx's error when ctx ends first, and otherwise the error that ended the call. It is
// for callers that keep what arrives elsewhere than in a conversation (the channel bridge).
func Follow(ctx context.Context, remote Remote, msg *a2a.Message, poll time.Duration, on func(a2a.Event)) error {
	var last *a2a.Task
	for ev, err := range remote.Send(ctx, msg, remote.Streaming()) {
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		on(ev)
		last = fold(last, ev)
	}
	if last == nil || last.ID == "" || tasks.IsFinalState(last.Status.State) {
		return ctx.Err()
	}
	return Watch(ctx, remote, last.ID, last, poll, on)
}

// Watch follows a task with tasks/get until it is final, handing on what changed between two
// answers (known is the task as last seen; nil: the first answer is handed on whole).
func Watch(ctx context.Context, remote Remote, taskID a2a.TaskID, known *a2a.Task, poll time.Duration, on func(a2a.Event)) error {
	if poll <= 0 {
		poll = time.Second
	}
	wait, failures := poll, 0
	for {
		if known != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
		task, err := remote.GetTask(ctx, taskID)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// An agent that no longer knows the task (it restarted and lost it) will not know it
			// on the next ask either.
			if failures++; failures >= maxPollFailures || errors.Is(err, a2a.ErrTaskNotFound) {
				return err
			}
			wait = min(wait*2, 5*time.Second)
			if known == nil {
				known = &a2a.Task{ID: taskID}
			}
			continue
		}
		failures = 0
		changes := diff(known, task)
		for _, ev := range changes {
			on(ev)
		}
		if tasks.IsFinalState(task.Status.State) {
			return nil
		}
		if len(changes) > 0 {
			wait = poll
		} else {
			wait = min(wait*2, 5*time.Second)
		}
		known = task
	}
}
