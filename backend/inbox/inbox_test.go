package inbox_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/inbox"
)

func startHub(t *testing.T, dir string) *hub.Hub {
	t.Helper()
	return startHubWaiting(t, dir, 0)
}

// startHubWaiting starts the hub with blocking sends to the inbox bounded by wait (0: the default).
func startHubWaiting(t *testing.T, dir string, wait time.Duration) *hub.Hub {
	t.Helper()
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: dir, Addr: "127.0.0.1:0", NoDemo: true, Version: "test", Secrets: "file",
		Logger: slog.New(slog.DiscardHandler), InboxBlockingWait: wait}))
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
	// The sender's blocking reply below waits for the owner's answer: give it all the time it needs.
	h := startHubWaiting(t, t.TempDir(), time.Hour)
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
	// The subscription opens with the task as it is now: waiting for the owner.
	if first, ok := (<-events).(*a2a.Task); !ok || first.ID != id || first.Status.State != a2a.TaskStateWorking {
		t.Fatalf("the subscription opens with %#v, want the task, working", first)
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

// A blocking send to the inbox returns once the message is in the inbox, the task working with a
// status message that says it waits for the owner, in every dialect: the person may take hours and
// the sender's HTTP client would time out long before. The owner's later answer reaches the sender
// through a resubscribe stream and a later GetTask / tasks/get.
func TestBlockingSendsToTheInboxReturnWhileTheOwnerThinks(t *testing.T) {
	// A short bound keeps the test quick; the owner acts only after each send has returned, so the
	// outcome does not depend on it.
	h := startHubWaiting(t, t.TempDir(), 100*time.Millisecond)
	defer h.Stop()
	rpc := h.Agent.BaseURL + "/a2a"

	t.Run("v1.0 SendMessage", func(t *testing.T) {
		c := clientFor(t, h.Agent.BaseURL)
		res, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("v1 question"))})
		if err != nil {
			t.Fatal(err)
		}
		task, ok := res.(*a2a.Task)
		if !ok || task.Status.State != a2a.TaskStateWorking || task.Status.Message == nil || task.Status.Message.Parts[0].Text() != inbox.WaitingMessage {
			t.Fatalf("blocking SendMessage answered %#v", res)
		}
		events := make(chan a2a.Event, 16)
		go func() {
			defer close(events)
			for ev, err := range c.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: task.ID}) {
				if err != nil {
					t.Error(err)
					return
				}
				events <- ev
			}
		}()
		untilWorking(t, events)
		if err := h.Inbox.Act(t.Context(), task.ID, inbox.Complete, "v1 answer"); err != nil {
			t.Fatal(err)
		}
		var last a2a.Event
		for ev := range events {
			last = ev
		}
		if st, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCompleted || st.Status.Message.Parts[0].Text() != "v1 answer" {
			t.Fatalf("stream ended with %#v", last)
		}
		got, err := c.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
		if err != nil || got.Status.State != a2a.TaskStateCompleted || got.Status.Message.Parts[0].Text() != "v1 answer" {
			t.Fatalf("GetTask %+v %v", got, err)
		}
	})

	t.Run("v0.3 message/send", func(t *testing.T) {
		card, err := legacycard.DefaultResolver.Resolve(t.Context(), h.Agent.BaseURL)
		if err != nil {
			t.Fatal(err)
		}
		c, err := legacyclient.NewFromCard(t.Context(), card)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.SendMessage(t.Context(), &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "v0.3 question"})})
		if err != nil {
			t.Fatal(err)
		}
		task, ok := res.(*legacy.Task)
		if !ok || task.Status.State != legacy.TaskStateWorking || task.Status.Message == nil || task.Status.Message.Parts[0].(legacy.TextPart).Text != inbox.WaitingMessage {
			t.Fatalf("blocking message/send answered %#v", res)
		}
		events := make(chan legacy.Event, 16)
		go func() {
			defer close(events)
			for ev, err := range c.ResubscribeToTask(t.Context(), &legacy.TaskIDParams{ID: task.ID}) {
				if err != nil {
					t.Error(err)
					return
				}
				events <- ev
			}
		}()
		// The subscription opens with the task as it is now: waiting for the owner.
		if first, ok := (<-events).(*legacy.Task); !ok || first.Status.State != legacy.TaskStateWorking {
			t.Fatalf("the resubscription opens with %#v, want the task, working", first)
		}
		if err := h.Inbox.Act(t.Context(), a2a.TaskID(task.ID), inbox.Complete, "v0.3 answer"); err != nil {
			t.Fatal(err)
		}
		var last legacy.Event
		for ev := range events {
			last = ev
		}
		if st, ok := last.(*legacy.TaskStatusUpdateEvent); !ok || st.Status.State != legacy.TaskStateCompleted || st.Status.Message.Parts[0].(legacy.TextPart).Text != "v0.3 answer" {
			t.Fatalf("stream ended with %#v", last)
		}
		got, err := c.GetTask(t.Context(), &legacy.TaskQueryParams{ID: task.ID})
		if err != nil || got.Status.State != legacy.TaskStateCompleted || got.Status.Message.Parts[0].(legacy.TextPart).Text != "v0.3 answer" {
			t.Fatalf("tasks/get %+v %v", got, err)
		}
	})

	t.Run("v0.1 tasks/send", func(t *testing.T) {
		id := "draft-inbox-task"
		var task draftTask
		draftCall(t, rpc, "tasks/send", fmt.Sprintf(`{"id":%q,"message":{"role":"user","parts":[{"type":"text","text":"v0.1 question"}]}}`, id), &task)
		if task.Status.State != "working" || len(task.Status.Message.Parts) != 1 || task.Status.Message.Parts[0].Text != inbox.WaitingMessage {
			t.Fatalf("blocking tasks/send answered %+v", task)
		}
		events := draftStream(t, rpc, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/resubscribe","params":{"id":%q}}`, id))
		for ev := range events {
			if ev.Status.State == "working" {
				break
			}
		}
		if err := h.Inbox.Act(t.Context(), a2a.TaskID(id), inbox.Complete, "v0.1 answer"); err != nil {
			t.Fatal(err)
		}
		var last draftTask
		for ev := range events {
			last = ev
		}
		if last.Status.State != "completed" || !last.Final || last.Status.Message.Parts[0].Text != "v0.1 answer" {
			t.Fatalf("stream ended with %+v", last)
		}
		draftCall(t, rpc, "tasks/get", fmt.Sprintf(`{"id":%q}`, id), &task)
		if task.Status.State != "completed" || task.Status.Message.Parts[0].Text != "v0.1 answer" {
			t.Fatalf("tasks/get %+v", task)
		}
	})
}

// untilWorking reads a subscription until it shows the task working: the task it opens with, as it
// is now, or a later status.
func untilWorking(t *testing.T, events <-chan a2a.Event) {
	t.Helper()
	for ev := range events {
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateWorking {
			return
		}
		if task, ok := ev.(*a2a.Task); ok && task.Status.State == a2a.TaskStateWorking {
			return
		}
	}
	t.Fatal("the stream ended before the task was working")
}

// draftTask is the part of a v0.1 task or status event the tests read.
type draftTask struct {
	Status struct {
		State   string `json:"state"`
		Message struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"status"`
	Final bool `json:"final"`
}

func draftCall(t *testing.T, url, method, params string, into any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != nil {
		t.Fatalf("%s: %s %v", method, r.Error, err)
	}
	if err := json.Unmarshal(r.Result, into); err != nil {
		t.Fatal(err)
	}
}

// draftStream posts a v0.1 streaming request and yields each event's result until the server closes.
func draftStream(t *testing.T, url, body string) <-chan draftTask {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan draftTask, 16)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
			if !ok {
				continue
			}
			var r struct{ Result draftTask }
			if err := json.Unmarshal(line, &r); err != nil {
				t.Error(err)
				return
			}
			out <- r.Result
		}
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return out
}

// The TCK's test_message_send_continue_task (0.3.x and main) sends a second message to the task its
// first message created, and expects it taken. A task in the inbox waits for a person who reads the
// whole conversation, so a follow-up joins the waiting task (a2a-go alone answers -32603 "task
// execution is already in progress"), in every dialect, and the owner sees it.
func TestFollowUpsJoinAWaitingInboxTask(t *testing.T) {
	h := startHubWaiting(t, t.TempDir(), 100*time.Millisecond)
	defer h.Stop()
	rpc := h.Agent.BaseURL + "/a2a"
	c := clientFor(t, h.Agent.BaseURL)

	historyHas := func(t *testing.T, id a2a.TaskID, texts ...string) {
		t.Helper()
		stored, err := h.Agent.Tasks.Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, m := range stored.Task.History {
			for _, p := range m.Parts {
				all = append(all, p.Text())
			}
		}
		for _, want := range texts {
			found := false
			for _, got := range all {
				found = found || got == want
			}
			if !found {
				t.Errorf("history %q lacks %q", all, want)
			}
		}
	}

	t.Run("v1.0 SendMessage", func(t *testing.T) {
		res, err := c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("first"))})
		if err != nil {
			t.Fatal(err)
		}
		task := res.(*a2a.Task)
		res, err = c.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("follow-up"))})
		if err != nil {
			t.Fatalf("follow-up to a waiting inbox task: %v", err)
		}
		if got := res.(*a2a.Task); got.ID != task.ID || got.Status.State != a2a.TaskStateWorking {
			t.Fatalf("follow-up answered %+v", got.Status)
		}
		if err := h.Inbox.Act(t.Context(), task.ID, inbox.Complete, "both read"); err != nil {
			t.Fatal(err)
		}
		historyHas(t, task.ID, "first", "follow-up")
	})

	t.Run("v0.3 message/send", func(t *testing.T) {
		send := func(body string) string {
			var task struct {
				ID     string `json:"id"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			}
			draftCall(t, rpc, "message/send", body, &task)
			if task.Status.State != "working" {
				t.Fatalf("message/send answered %+v", task)
			}
			return task.ID
		}
		id := send(`{"message":{"kind":"message","messageId":"v03-first","role":"user","parts":[{"kind":"text","text":"v0.3 first"}]}}`)
		if again := send(`{"message":{"kind":"message","messageId":"v03-second","taskId":"` + id + `","role":"user","parts":[{"kind":"text","text":"v0.3 follow-up"}]}}`); again != id {
			t.Fatalf("follow-up went to %s, not %s", again, id)
		}
		historyHas(t, a2a.TaskID(id), "v0.3 first", "v0.3 follow-up")
	})

	t.Run("v0.1 tasks/send", func(t *testing.T) {
		var task draftTask
		draftCall(t, rpc, "tasks/send", `{"id":"draft-follow","message":{"role":"user","parts":[{"type":"text","text":"v0.1 first"}]}}`, &task)
		draftCall(t, rpc, "tasks/send", `{"id":"draft-follow","message":{"role":"user","parts":[{"type":"text","text":"v0.1 follow-up"}]}}`, &task)
		if task.Status.State != "working" {
			t.Fatalf("follow-up answered %+v", task)
		}
		historyHas(t, "draft-follow", "v0.1 first", "v0.1 follow-up")
	})
}
