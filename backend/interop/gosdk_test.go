package interop

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// startDemoAgent runs the real demo agent (the binary's code path, real SQLite, real loopback HTTP).
func startDemoAgent(t *testing.T) *hub.Agent {
	t.Helper()
	a, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", DemoGRPCAddr: "127.0.0.1:0", Version: "test", Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a
}

func artifactText(task *a2a.Task) string {
	var b strings.Builder
	for _, art := range task.Artifacts {
		for _, p := range art.Parts {
			b.WriteString(p.Text())
		}
	}
	return b.String()
}

// TestGoV1ClientAgainstDemoAgent drives the demo agent with a2a-go/v2's own v1.0 client, from card
// resolution to resubscription.
func TestGoV1ClientAgainstDemoAgent(t *testing.T) {
	a := startDemoAgent(t)
	ctx := t.Context()
	card, err := agentcard.DefaultResolver.Resolve(ctx, a.BaseURL)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	if !card.Capabilities.Streaming || len(card.Skills) != 7 {
		t.Fatalf("card %+v", card)
	}
	client, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("echo", func(t *testing.T) {
		res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello from a2a-go v1"))})
		if err != nil {
			t.Fatal(err)
		}
		task, ok := res.(*a2a.Task)
		if !ok || task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello from a2a-go v1" {
			t.Fatalf("result %#v", res)
		}
		got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
		if err != nil || artifactText(got) != "hello from a2a-go v1" || len(got.History) == 0 {
			t.Fatalf("GetTask %+v %v", got, err)
		}
		// v1.0: a task that has ended takes no subscription.
		for _, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
			if !errors.Is(err, a2a.ErrUnsupportedOperation) {
				t.Fatalf("SubscribeToTask on a completed task: %v", err)
			}
		}
	})

	t.Run("subscribe mid-flight opens with the task as it is now, then follows live", func(t *testing.T) {
		var id a2a.TaskID
		for ev, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 3"))}) {
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.State == a2a.TaskStateWorking {
				id = s.TaskID
				break // the client goes away; the task keeps running
			}
		}
		var events []a2a.Event
		for ev, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
		}
		// v1.0 §3.1.6: the stream begins with the task's current state, not its creation.
		first, ok := events[0].(*a2a.Task)
		if !ok || first.ID != id || first.Status.State != a2a.TaskStateWorking {
			t.Fatalf("the subscription opens with %#v, want the task as it is now (working)", events[0])
		}
		for i, ev := range events[1:] {
			if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.State == a2a.TaskStateSubmitted {
				t.Fatalf("event %d goes back to submitted: %#v", i+1, s)
			}
			if _, ok := ev.(*a2a.Task); ok {
				t.Fatalf("event %d is a second whole task", i+1)
			}
		}
		last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent)
		if !ok || last.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("the subscription ends with %#v", events[len(events)-1])
		}
	})

	t.Run("stream slow with progress", func(t *testing.T) {
		var working int
		var final a2a.TaskState
		for ev, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 2"))}) {
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
				if s.Status.State == a2a.TaskStateWorking {
					working++
				}
				final = s.Status.State
			}
		}
		if working < 2 || final != a2a.TaskStateCompleted {
			t.Fatalf("%d working updates, final %s", working, final)
		}
	})

	t.Run("ask then answer", func(t *testing.T) {
		res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask"))})
		if err != nil {
			t.Fatal(err)
		}
		task := res.(*a2a.Task)
		if task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("state %s", task.Status.State)
		}
		res, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("green"))})
		if err != nil {
			t.Fatal(err)
		}
		if done := res.(*a2a.Task); done.Status.State != a2a.TaskStateCompleted || artifactText(done) != "You answered: green" {
			t.Fatalf("after answer %+v", done)
		}
	})

	t.Run("file and data", func(t *testing.T) {
		res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("file"))})
		if err != nil {
			t.Fatal(err)
		}
		p := res.(*a2a.Task).Artifacts[0].Parts[0]
		if p.Filename != "hello.txt" || !strings.Contains(string(p.Raw()), "demo agent") {
			t.Fatalf("file part %+v", p)
		}
		res, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("data"))})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := res.(*a2a.Task).Artifacts[0].Parts[0].Data().(map[string]any)
		if data["agent"] != "demo" {
			t.Fatalf("data part %+v", res.(*a2a.Task).Artifacts[0].Parts[0])
		}
	})

	t.Run("cancel a running task", func(t *testing.T) {
		var id a2a.TaskID
		var final a2a.TaskState
		for ev, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 100"))}) {
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
				final = s.Status.State
				if s.Status.State == a2a.TaskStateWorking && id == "" {
					id = s.TaskID
					if _, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if final != a2a.TaskStateCanceled {
			t.Fatalf("final state %s", final)
		}
	})

	t.Run("errors map back to a2a errors", func(t *testing.T) {
		_, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"})
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("GetTask unknown: %v", err)
		}
	})
}

// TestGoV03ClientAgainstDemoAgent drives the demo agent with the v0.3 a2a-go SDK, which sends no
// A2A-Version header and reads the v0.3 fields of the card.
func TestGoV03ClientAgainstDemoAgent(t *testing.T) {
	a := startDemoAgent(t)
	ctx := t.Context()
	card, err := legacycard.DefaultResolver.Resolve(ctx, a.BaseURL)
	if err != nil {
		t.Fatalf("v0.3 SDK cannot read the card: %v", err)
	}
	if card.URL != a.BaseURL+"/a2a" || card.ProtocolVersion != "0.3" {
		t.Fatalf("card url %q version %q", card.URL, card.ProtocolVersion)
	}
	client, err := legacyclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.SendMessage(ctx, &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "hello from v0.3"})})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*legacy.Task)
	if !ok || task.Status.State != legacy.TaskStateCompleted {
		t.Fatalf("result %#v", res)
	}
	var text strings.Builder
	for _, p := range task.Artifacts[0].Parts {
		text.WriteString(p.(legacy.TextPart).Text)
	}
	if text.String() != "hello from v0.3" {
		t.Fatalf("echo %q", text.String())
	}

	var working int
	var final legacy.TaskState
	var id legacy.TaskID
	for ev, err := range client.SendStreamingMessage(ctx, &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "slow 2"})}) {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ev.(*legacy.TaskStatusUpdateEvent); ok {
			id = s.TaskID
			final = s.Status.State
			if final == legacy.TaskStateWorking {
				working++
			}
		}
	}
	if working < 2 || final != legacy.TaskStateCompleted {
		t.Fatalf("%d working, final %s", working, final)
	}
	got, err := client.GetTask(ctx, &legacy.TaskQueryParams{ID: id})
	if err != nil || got.Status.State != legacy.TaskStateCompleted {
		t.Fatalf("GetTask %+v %v", got, err)
	}
	var replayed []legacy.Event
	for ev, err := range client.ResubscribeToTask(ctx, &legacy.TaskIDParams{ID: id}) {
		if err != nil {
			t.Fatal(err)
		}
		replayed = append(replayed, ev)
	}
	// The stream opens with the task as it is now (here: completed, its answer with it), not with its
	// creation.
	if now, ok := replayed[0].(*legacy.Task); !ok || now.Status.State != legacy.TaskStateCompleted || len(now.Artifacts) == 0 {
		t.Fatalf("resubscribe opens with %#v, want the completed task", replayed[0])
	}
	if _, err := client.GetTask(ctx, &legacy.TaskQueryParams{ID: "no-such-task"}); !errors.Is(err, legacy.ErrTaskNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
}
