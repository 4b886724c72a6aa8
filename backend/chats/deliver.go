package chats

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/filename"
	"github.com/agenthub/agenthub/backend/tasks"
)

// maxPollFailures is how many tasks/get calls in a row may fail before watching a task stops (the
// next start of the hub resumes it).
const maxPollFailures = 5

// deliver sends msg and records what comes back. A task that is not final when the answer ends (an
// agent that doesn't stream answered at once, or a stream was cut) is then watched with tasks/get.
func (s *Service) deliver(ctx context.Context, id string, remote Remote, msg *a2a.Message) {
	var last *a2a.Task // what we know of the task the answer is about
	for ev, err := range remote.Send(ctx, msg, remote.Streaming()) {
		if err != nil {
			if ctx.Err() != nil {
				return // the hub is stopping; Resume picks the task up again
			}
			s.fail(ctx, id, taskIDOr(last, msg.TaskID), err)
			break
		}
		s.recordIn(ctx, id, ev)
		last = fold(last, ev)
	}
	if last != nil && last.ID != "" && !tasks.IsFinalState(last.Status.State) && ctx.Err() == nil {
		s.watch(ctx, id, remote, last.ID, last)
	}
}

// watch follows a task until it is final (through push notifications when the agent sends them,
// else with tasks/get), recording what changed. known is the task as last seen (nil: nothing yet,
// the first answer is recorded whole).
func (s *Service) watch(ctx context.Context, id string, remote Remote, taskID a2a.TaskID, known *a2a.Task) {
	if s.watchPushed(ctx, id, remote, taskID, known) {
		return
	}
	err := Watch(ctx, remote, taskID, known, s.poll, func(ev a2a.Event) { s.recordIn(ctx, id, ev) })
	if err != nil && ctx.Err() == nil {
		s.lose(ctx, id, taskID, err)
	}
}

// lose gives up following a task: the agent no longer knows it, or did not answer maxPollFailures
// asks in a row. It records why, and the task as failed, saying the hub lost contact with the
// agent: left "working", the conversation would show it running forever, and every start of the
// hub would ask again.
func (s *Service) lose(ctx context.Context, id string, taskID a2a.TaskID, err error) {
	s.fail(ctx, id, taskID, err)
	why := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("lost contact with the agent: "+s.classify(err).Message))
	why.TaskID = taskID
	e := Entry{ConversationID: id, Direction: Local, TaskID: string(taskID), Kind: "status", Final: true,
		Event: &a2a.TaskStatusUpdateEvent{TaskID: taskID, Status: a2a.TaskStatus{State: a2a.TaskStateFailed, Message: why}}}
	s.store(ctx, &e)
}

// diff is what happened between two answers of tasks/get, as the events a stream would have carried:
// the whole task the first time; then each new or changed artifact (whole, not appended), and the
// status when the state or its message changed.
func diff(before, after *a2a.Task) []a2a.Event {
	if before == nil || before.Status.State == "" && len(before.Artifacts) == 0 {
		return []a2a.Event{after}
	}
	var out []a2a.Event
	seen := map[a2a.ArtifactID][]byte{}
	for _, a := range before.Artifacts {
		if a != nil {
			seen[a.ID], _ = json.Marshal(a)
		}
	}
	for _, a := range after.Artifacts {
		if a == nil {
			continue
		}
		now, _ := json.Marshal(a)
		if prev, ok := seen[a.ID]; ok && string(prev) == string(now) {
			continue
		}
		out = append(out, &a2a.TaskArtifactUpdateEvent{TaskID: after.ID, ContextID: after.ContextID, Artifact: a, LastChunk: true})
	}
	if before.Status.State != after.Status.State || messageID(before.Status.Message) != messageID(after.Status.Message) {
		out = append(out, &a2a.TaskStatusUpdateEvent{TaskID: after.ID, ContextID: after.ContextID, Status: after.Status})
	}
	return out
}

func messageID(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}

// fold updates what is known of the answer's task with one event.
func fold(known *a2a.Task, ev a2a.Event) *a2a.Task {
	switch v := ev.(type) {
	case *a2a.Task:
		return v
	case *a2a.TaskStatusUpdateEvent:
		t := &a2a.Task{ID: v.TaskID, ContextID: v.ContextID}
		if known != nil && known.ID == v.TaskID {
			cp := *known
			t = &cp
		}
		t.Status = v.Status
		return t
	case *a2a.Message:
		if known == nil && v.TaskID != "" {
			return &a2a.Task{ID: v.TaskID, ContextID: v.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
		}
	}
	return known
}

func taskIDOr(t *a2a.Task, fallback a2a.TaskID) a2a.TaskID {
	if t != nil && t.ID != "" {
		return t.ID
	}
	return fallback
}

// recordIn records one event from the agent and publishes it. A whole task (the answer of an agent
// that doesn't stream, or a task seen again after a restart) is followed by an entry per artifact it
// carries, so a conversation shows artifacts one way, however they came.
func (s *Service) recordIn(ctx context.Context, id string, ev a2a.Event) {
	cleanFileNames(ev)
	e := Entry{ConversationID: id, Direction: In, TaskID: string(ev.TaskInfo().TaskID), Kind: tasks.KindOf(ev), Event: ev}
	task, whole := ev.(*a2a.Task)
	e.Final = tasks.IsFinal(ev) && (!whole || len(task.Artifacts) == 0)
	if !s.store(ctx, &e) || !whole {
		return
	}
	for i, a := range task.Artifacts {
		if a == nil {
			continue
		}
		ae := Entry{ConversationID: id, Direction: In, TaskID: string(task.ID), Kind: "artifact", Final: tasks.IsFinal(ev) && i == len(task.Artifacts)-1,
			Event: &a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: a, LastChunk: true}}
		s.store(ctx, &ae)
	}
}

// cleanFileNames applies filename.Clean, in place, to the names of ev's files and artifacts: they
// are recorded and shown without the invisible characters that can make a name read as another.
func cleanFileNames(ev a2a.Event) {
	parts := func(ps a2a.ContentParts) {
		for _, p := range ps {
			if p != nil {
				p.Filename = filename.Clean(p.Filename)
			}
		}
	}
	message := func(m *a2a.Message) {
		if m != nil {
			parts(m.Parts)
		}
	}
	artifact := func(a *a2a.Artifact) {
		if a != nil {
			a.Name = filename.Clean(a.Name)
			parts(a.Parts)
		}
	}
	switch v := ev.(type) {
	case *a2a.Message:
		message(v)
	case *a2a.Task:
		message(v.Status.Message)
		for _, m := range v.History {
			message(m)
		}
		for _, a := range v.Artifacts {
			artifact(a)
		}
	case *a2a.TaskStatusUpdateEvent:
		message(v.Status.Message)
	case *a2a.TaskArtifactUpdateEvent:
		artifact(v.Artifact)
	}
}

// fail records why a call failed.
func (s *Service) fail(ctx context.Context, id string, taskID a2a.TaskID, err error) {
	e := Entry{ConversationID: id, Direction: Local, TaskID: string(taskID), Kind: "error", Final: true, Error: s.classify(err)}
	s.store(ctx, &e)
}

// store records e and publishes it; false when it was not recorded.
func (s *Service) store(ctx context.Context, e *Entry) bool {
	// Record under the service's life, not the call's: what arrived is kept even as the hub stops.
	err := s.record(context.WithoutCancel(ctx), e)
	if errors.Is(err, errEnded) {
		return false
	}
	if err != nil {
		s.log.Error("cannot record a conversation entry", "conversation", e.ConversationID, "kind", e.Kind, "err", err)
		return false
	}
	s.publish(e.ConversationID, e)
	return true
}
