package chats

import (
	"context"
	"errors"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// DefaultPushFallback is how long a task watched through push notifications may go without news
// before the conversation asks the agent with one tasks/get: a lost notification never leaves a
// conversation stuck.
const DefaultPushFallback = 30 * time.Second

// Pusher is a Remote whose agent can push a task's updates (agents.Conn is one).
type Pusher interface {
	PushNotifications() bool
	JWKSURL() string
	SetPushConfig(ctx context.Context, taskID a2a.TaskID, webhook, token string) error
	ParsePush(body []byte) (a2a.Event, error)
}

// watchPushed watches a task through push notifications to the hub's webhook, when the agent's card
// says it sends them: it subscribes, sets a push config on the task, asks once with tasks/get for
// what happened before the config was set, and then records each verified notification as polling
// would have (what changed, artifacts whole). With no notification for pushFallback it asks once
// more, and goes on waiting. It reports false when push cannot be used, so the caller polls.
func (s *Service) watchPushed(ctx context.Context, id string, remote Remote, taskID a2a.TaskID, known *a2a.Task) bool {
	p, ok := remote.(Pusher)
	if !ok || s.pushIn == nil || !p.PushNotifications() {
		return false
	}
	sub := s.pushIn.Subscribe(string(taskID), p.JWKSURL())
	defer sub.Close()
	if err := p.SetPushConfig(ctx, taskID, sub.URL, sub.Token); err != nil {
		if ctx.Err() == nil {
			s.log.Info("the agent took no push config; polling the task instead", "conversation", id, "task", taskID, "err", err)
		}
		return ctx.Err() != nil
	}
	if known == nil {
		known = &a2a.Task{ID: taskID}
	}
	ask := time.NewTimer(0) // what happened before the config was set was pushed to nobody
	defer ask.Stop()
	failures := 0
	for {
		var next *a2a.Task
		select {
		case <-ctx.Done():
			return true
		case body := <-sub.C:
			ev, err := p.ParsePush(body)
			if err != nil || ev.TaskInfo().TaskID != taskID {
				s.log.Warn("unreadable push notification", "conversation", id, "task", taskID, "err", err)
				continue
			}
			next = apply(known, ev)
		case <-ask.C:
			task, err := remote.GetTask(ctx, taskID)
			if ctx.Err() != nil {
				return true
			}
			if err != nil {
				if failures++; failures >= maxPollFailures || errors.Is(err, a2a.ErrTaskNotFound) {
					s.lose(ctx, id, taskID, err)
					return true
				}
				ask.Reset(s.pushFallback)
				continue
			}
			failures, next = 0, task
		}
		for _, ev := range diff(known, next) {
			s.recordIn(ctx, id, ev)
		}
		known = next
		if tasks.IsFinalState(known.Status.State) {
			return true
		}
		ask.Reset(s.pushFallback)
	}
}

// apply is the task as known after a pushed event: a whole task replaces it, a status update sets
// its status, an artifact update adds, replaces or (appending) extends an artifact.
func apply(known *a2a.Task, ev a2a.Event) *a2a.Task {
	switch v := ev.(type) {
	case *a2a.Task:
		return v
	case *a2a.TaskStatusUpdateEvent:
		return fold(known, v)
	case *a2a.TaskArtifactUpdateEvent:
		if v.Artifact == nil {
			return known
		}
		t := &a2a.Task{ID: v.TaskID, ContextID: v.ContextID}
		if known != nil {
			cp := *known
			t = &cp
		}
		t.Artifacts = append([]*a2a.Artifact(nil), t.Artifacts...)
		for i, a := range t.Artifacts {
			if a == nil || a.ID != v.Artifact.ID {
				continue
			}
			if v.Append {
				grown := *a
				grown.Parts = append(append(a2a.ContentParts(nil), a.Parts...), v.Artifact.Parts...)
				t.Artifacts[i] = &grown
			} else {
				t.Artifacts[i] = v.Artifact
			}
			return t
		}
		t.Artifacts = append(t.Artifacts, v.Artifact)
		return t
	}
	return known
}
