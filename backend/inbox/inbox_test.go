package inbox_test

import (
	"log/slog"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/inbox"
)

func startHub(t *testing.T, dir string) *hub.Hub {
	t.Helper()
	h, err := hub.Start(t.Context(), hub.Config{DataDir: dir, Addr: "127.0.0.1:0", NoDemo: true, Version: "test", Secrets: "file", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func clientFor(t *testing.T, base string) *a2aclient.Client {
	t.Helper()
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitingTask streams a message to the hub's inbox until it is working (waiting for the owner) and
// returns the task id and the rest of the stream.
func waitingTask(t *testing.T, c *a2aclient.Client, text string) (a2a.TaskID, <-chan a2a.Event) {
	t.Helper()
	events := make(chan a2a.Event, 16)
	ids := make(chan a2a.TaskID, 1)
	go func() {
		defer close(events)
		sent := false
		for ev, err := range c.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}) {
			if err != nil {
				return // the stream ends when the hub stops; callers check what arrived
			}
			if !sent {
				if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.State == a2a.TaskStateWorking {
					ids <- s.TaskID
					sent = true
				}
				continue
			}
			events <- ev
		}
	}()
	return <-ids, events
}

func TestOwnerAnswersLiveToTheStreamingSender(t *testing.T) {
	h := startHub(t, t.TempDir())
	defer h.Stop()
	c := clientFor(t, h.Agent.BaseURL)

	id, events := waitingTask(t, c, "May I deploy?")
	pending, err := h.Inbox.Waiting(t.Context())
	if err != nil || len(pending) != 1 || pending[0].Task.ID != id {
		t.Fatalf("pending %v %v", pending, err)
	}
	if err := h.Inbox.Act(t.Context(), id, inbox.Answer, "Looking at it now."); err != nil {
		t.Fatal(err)
	}
	art := (<-events).(*a2a.TaskArtifactUpdateEvent)
	if art.Artifact.Parts[0].Text() != "Looking at it now." {
		t.Fatalf("answer artifact %+v", art.Artifact)
	}
	if err := h.Inbox.Act(t.Context(), id, inbox.AskBack, "Which environment?"); err != nil {
		t.Fatal(err)
	}
	st := (<-events).(*a2a.TaskStatusUpdateEvent)
	if st.Status.State != a2a.TaskStateInputRequired || st.Status.Message.Parts[0].Text() != "Which environment?" {
		t.Fatalf("ask back %+v", st.Status)
	}
	if _, open := <-events; open {
		t.Fatal("stream stayed open after input-required")
	}
	if err := h.Inbox.Act(t.Context(), id, inbox.Complete, "x"); err == nil {
		t.Fatal("owner acted on a task waiting for the sender")
	}

	// The sender replies; the task waits for the owner again, who completes it.
	stored, _ := h.Agent.Tasks.Get(t.Context(), id)
	done := make(chan a2a.SendMessageResult, 1)
	go func() {
		res, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, stored.Task, a2a.NewTextPart("staging"))})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	for {
		st, err := h.Agent.Tasks.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Task.Status.State == a2a.TaskStateWorking {
			break
		}
	}
	if err := h.Inbox.Act(t.Context(), id, inbox.Complete, "Deployed to staging."); err != nil {
		t.Fatal(err)
	}
	task := (<-done).(*a2a.Task)
	if task.Status.State != a2a.TaskStateCompleted || task.Status.Message.Parts[0].Text() != "Deployed to staging." {
		t.Fatalf("final %+v", task.Status)
	}
	if len(task.History) < 3 {
		t.Fatalf("history lost turns: %d messages", len(task.History))
	}
}

func TestInboxTaskWaitsAcrossRestartAndOwnerCanStillAnswer(t *testing.T) {
	dir := t.TempDir()
	h := startHub(t, dir)
	c := clientFor(t, h.Agent.BaseURL)
	id, _ := waitingTask(t, c, "Are you there?")
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}

	h = startHub(t, dir)
	defer h.Stop()
	stored, err := h.Agent.Tasks.Get(t.Context(), id)
	if err != nil || stored.Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("after restart: %+v %v", stored, err)
	}
	c = clientFor(t, h.Agent.BaseURL)
	// A sender resubscribing after the restart sees the replay, then the owner's answer live.
	events := make(chan a2a.Event, 32)
	go func() {
		defer close(events)
		for ev, err := range c.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				t.Error(err)
				return
			}
			events <- ev
		}
	}()
	if first := <-events; first.(*a2a.Task).ID != id {
		t.Fatalf("replay starts with %#v", first)
	}
	for ev := range events {
		if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.State == a2a.TaskStateWorking {
			break
		}
	}
	if err := h.Inbox.Act(t.Context(), id, inbox.Reject, "Not today."); err != nil {
		t.Fatal(err)
	}
	var last a2a.Event
	for ev := range events {
		last = ev
	}
	st, ok := last.(*a2a.TaskStatusUpdateEvent)
	if !ok || st.Status.State != a2a.TaskStateRejected || st.Status.Message.Parts[0].Text() != "Not today." {
		t.Fatalf("stream ended with %#v", last)
	}
}
