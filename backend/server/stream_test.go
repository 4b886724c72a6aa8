package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/tasks"
)

// seedLongTask stores a working task and then, through the store as a2a-go would, n artifact events
// (every tenth one big, so pages are also cut by size), a message event after every seventh (history,
// not a stream event). finish then stores input-required, which ends a stream.
func seedLongTask(t testing.TB, s *tasks.Store, id string, n, big int) (finish func()) {
	t.Helper()
	ctx := tasks.WithDialect(context.Background(), tasks.DialectV1)
	task := &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx-" + id, Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("a long task"))}}
	v, err := s.Create(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	update := func(ev a2a.Event) {
		if v, err = s.Update(ctx, &taskstore.UpdateRequest{Task: task, Event: ev, PrevVersion: v}); err != nil {
			t.Fatal(err)
		}
	}
	var arts []*a2a.Artifact
	for i := range n {
		text := fmt.Sprintf("chunk %03d", i)
		if i%10 == 0 {
			text += strings.Repeat(".", big)
		}
		art := &a2a.Artifact{ID: a2a.ArtifactID(fmt.Sprintf("art-%03d", i)), Parts: []*a2a.Part{a2a.NewTextPart(text)}}
		arts = append(arts, art)
		update(&a2a.TaskArtifactUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Artifact: art})
		if i%7 == 0 {
			update(a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart("note")))
		}
	}
	// The task as stored holds what its events did; written once, not with each event, which would
	// rewrite megabytes per event.
	task.Artifacts = arts
	update(a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart("all there")))
	return func() {
		task.Status = a2a.TaskStatus{State: a2a.TaskStateInputRequired}
		update(&a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status})
	}
}

// TestSubscribeReplaysEveryEventInOrderAcrossPages: the durable stream reads the event log a bounded
// page at a time. A subscriber to a task with a long log gets the task as it is now (every artifact,
// in order), then only what is logged after it (read past the log's pages by count and by size), and
// the stream ends at the final status.
func TestSubscribeReplaysEveryEventInOrderAcrossPages(t *testing.T) {
	a := startDemo(t)
	const n = 300 // about five pages of 64 events; every tenth event is 300 KB, so pages are also cut by size
	finish := seedLongTask(t, a.Store, "long", n, 300<<10)

	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface(a.URL, a2a.TransportProtocolJSONRPC)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range client.SubscribeToTask(t.Context(), &a2a.SubscribeToTaskRequest{ID: "long"}) {
		if err != nil {
			t.Fatalf("after %d events: %v", len(got), err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			got = append(got, "task")
			for _, art := range e.Artifacts {
				got = append(got, string(art.ID))
			}
			finish() // logged after the task the stream opened with
		case *a2a.TaskArtifactUpdateEvent:
			got = append(got, "update "+string(e.Artifact.ID))
		case *a2a.TaskStatusUpdateEvent:
			got = append(got, string(e.Status.State))
		default:
			t.Fatalf("unexpected %T in the stream", ev)
		}
	}
	want := []string{"task"}
	for i := range n {
		want = append(want, fmt.Sprintf("art-%03d", i))
	}
	want = append(want, string(a2a.TaskStateInputRequired))
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("stream gave %d events:\n%v\nwant %d:\n%v", len(got), got, len(want), want)
	}
}
