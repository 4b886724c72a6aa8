package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// scripted is an executor whose Execute is the test's function.
type scripted func(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool)

func (s scripted) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) { s(ctx, ec, yield) }
}

func (scripted) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// storedState is the task's state in the agent's store, once it is one of want (or the test fails
// after a few seconds).
func storedState(t *testing.T, a *testAgent, id a2a.TaskID, want ...a2a.TaskState) a2a.TaskState {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stored, err := a.Store.Get(t.Context(), id)
		if err == nil {
			for _, w := range want {
				if stored.Task.Status.State == w {
					return w
				}
			}
		}
		if time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("task %s: %v", id, err)
			}
			t.Fatalf("task %s is %s, want one of %v", id, stored.Task.Status.State, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The hub applies an agent's events without copying the task (a2a-go deep-copied it through gob on
// every event): a task, once stored, is never changed in place, so an event the agent yielded, and
// the task or artifact it carried, read the same after later events as when they were yielded. The
// slices are given room to grow, so appending the next status message or chunk in place would show.
func TestYieldedEventsStayAsTheyWereYielded(t *testing.T) {
	type yielded struct {
		ev   a2a.Event
		json string
	}
	var mu sync.Mutex
	var seen []yielded
	a := startDemo(t, func(c *server.Config) {
		c.Executor = scripted(func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
			give := func(ev a2a.Event) bool {
				b, err := json.Marshal(ev)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				seen = append(seen, yielded{ev, string(b)})
				mu.Unlock()
				return yield(ev, nil)
			}
			task := a2a.NewSubmittedTask(ec, ec.Message)
			task.History = append(make([]*a2a.Message, 0, 8), task.History...)
			task.Metadata = map[string]any{"first": "yes"}
			working := a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("on it")))
			working.Metadata = map[string]any{"second": "yes"}
			chunk := func(text string, more bool) *a2a.TaskArtifactUpdateEvent {
				parts := append(make(a2a.ContentParts, 0, 8), a2a.NewTextPart(text))
				return &a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Append: more,
					Artifact: &a2a.Artifact{ID: "art", Parts: parts, Metadata: map[string]any{text: true}}}
			}
			_ = give(task) && give(working) && give(chunk("one", false)) && give(chunk("two", true)) &&
				give(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("still")))) &&
				give(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil))
		})
	})
	var res struct{ Task a2a.Task }
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"y1","role":"ROLE_USER","parts":[{"text":"go"}]}}}`), &res)
	task := res.Task
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state %s", task.Status.State)
	}
	if len(task.History) != 3 || len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 2 {
		t.Fatalf("the stored task is not every event applied: %d messages, artifacts %+v", len(task.History), task.Artifacts)
	}
	if task.Metadata["first"] != "yes" || task.Metadata["second"] != "yes" || task.Artifacts[0].Metadata["one"] != true || task.Artifacts[0].Metadata["two"] != true {
		t.Fatalf("metadata not merged: task %v, artifact %v", task.Metadata, task.Artifacts[0].Metadata)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 6 {
		t.Fatalf("%d events yielded", len(seen))
	}
	for i, y := range seen {
		b, _ := json.Marshal(y.ev)
		if string(b) != y.json {
			t.Errorf("event %d changed after it was yielded:\n was %s\n now %s", i, y.json, b)
		}
	}
}

// An agent that stops before its task reaches a final state does not leave the caller waiting for
// ever (a2a-go's manager did) nor the task working: the caller gets an internal error (why is in the
// server's log) and the task is failed.
func TestAgentStoppingWithoutAFinalStateFailsTheTask(t *testing.T) {
	var id a2a.TaskID
	a := startDemo(t, func(c *server.Config) {
		c.Executor = scripted(func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
			id = ec.TaskID
			_ = yield(a2a.NewSubmittedTask(ec, ec.Message), nil) && yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil)
		})
	})
	r := call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"w1","role":"ROLE_USER","parts":[{"text":"go"}]}}}`)
	if r.Error == nil || r.Error.Code != -32603 {
		t.Fatalf("got %+v %s, want -32603", r.Error, r.Result)
	}
	storedState(t, a, id, a2a.TaskStateFailed)

	events := stream(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{"message":{"messageId":"w2","role":"ROLE_USER","parts":[{"text":"go"}]}}}`)
	if n := len(events); n != 3 || events[0].Error != nil || events[1].Error != nil || events[2].Error == nil || events[2].Error.Code != -32603 {
		raw, _ := json.Marshal(events)
		t.Fatalf("stream %s, want the task, working, then -32603", raw)
	}
	storedState(t, a, id, a2a.TaskStateFailed)
}

// A panic once the task exists is a bare internal error to the caller, as before, and the task is
// failed instead of left submitted.
func TestAgentPanicFailsItsTask(t *testing.T) {
	a := startDemo(t, func(c *server.Config) { c.Executor = panicky{} })
	r := call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"panic-1","message":{"role":"user","parts":[{"type":"text","text":"x"}]}}}`)
	if r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "internal error" {
		t.Fatalf("got %+v %s, want a bare -32603", r.Error, r.Result)
	}
	storedState(t, a, "panic-1", a2a.TaskStateFailed)
}

// A streaming sender who stops reading after the first event does not hold the agent up: the task
// runs to its end, every event stored.
func TestAStreamThatStopsReadingDoesNotHoldTheAgent(t *testing.T) {
	const updates = 500
	var id a2a.TaskID
	a := startDemo(t, func(c *server.Config) {
		c.Executor = scripted(func(_ context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
			id = ec.TaskID
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
			for i := range updates {
				if !yield(&a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, Artifact: &a2a.Artifact{ID: a2a.ArtifactID(fmt.Sprint(i % 4)), Parts: a2a.ContentParts{a2a.NewTextPart("x")}}}, nil) {
					return
				}
			}
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		})
	})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"s1","role":"ROLE_USER","parts":[{"text":"go"}]}}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "data: ") {
	}
	if !strings.HasPrefix(sc.Text(), "data: ") {
		t.Fatalf("no first event: %v", sc.Err())
	}
	cancel()
	resp.Body.Close()
	storedState(t, a, id, a2a.TaskStateCompleted)
	logged, err := a.Store.Log(t.Context(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(logged) != updates+2 {
		t.Fatalf("%d events logged, want %d", len(logged), updates+2)
	}
}

// Canceling a running task hands the agent's cancel event to the run: the streaming sender's last
// event is the cancel, and every concurrent CancelTask answers the canceled task.
func TestCancelWhileRunningEndsTheSendersStream(t *testing.T) {
	a := startDemo(t)
	streamed := make(chan []rpcResp, 1)
	go func() {
		streamed <- stream(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"c1","taskId":"","role":"ROLE_USER","parts":[{"text":"slow 30"}]}}}`)
	}()
	var id a2a.TaskID
	deadline := time.Now().Add(10 * time.Second)
	for id == "" {
		rows, err := a.Store.Unfinished(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Task != nil && r.Task.Status.State == a2a.TaskStateWorking {
				id = r.Task.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow task never started working")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var wg sync.WaitGroup
	answers := make([]rpcResp, 3)
	for i := range answers {
		wg.Go(func() {
			answers[i] = call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"CancelTask","params":{"id":"`+string(id)+`"}}`)
		})
	}
	wg.Wait()
	for _, r := range answers {
		var task a2a.Task
		mustResult(t, r, &task)
		if task.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("CancelTask answered %s", task.Status.State)
		}
	}
	events := <-streamed
	var last struct {
		StatusUpdate *struct {
			Status struct{ State string } `json:"status"`
		} `json:"statusUpdate"`
	}
	if len(events) == 0 || json.Unmarshal(events[len(events)-1].Result, &last) != nil || last.StatusUpdate == nil || last.StatusUpdate.Status.State != "TASK_STATE_CANCELED" {
		raw, _ := json.Marshal(events)
		t.Fatalf("the sender's stream did not end with the cancel: %s", raw)
	}
	storedState(t, a, id, a2a.TaskStateCanceled)
}

// The moment a blocking send answers input-required, the task is free: a reply sent at once continues
// it, and a cancel sent at once cancels it. The run that answered used to unregister only after its
// caller had the answer, so either could find it still running ("task execution is already in
// progress", "non-cancelable state input-required"). The window is a moment wide: this loop did not
// hit it on an idle machine (interop tests did, under -race and load), so it guards the behaviour more
// than it reproduces the race.
func TestTheTaskIsFreeRightAfterInputRequired(t *testing.T) {
	a := startDemo(t)
	ask := func(i int) a2a.Task {
		t.Helper()
		var sent struct{ Task a2a.Task }
		mustResult(t, call(t, a.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"ask-%d","role":"ROLE_USER","parts":[{"text":"ask"}]}}}`, i)), &sent)
		if sent.Task.Status.State != a2a.TaskStateInputRequired {
			t.Fatalf("round %d: ask answered %s", i, sent.Task.Status.State)
		}
		return sent.Task
	}
	for i := range 40 {
		task := ask(i)
		var replied struct{ Task a2a.Task }
		mustResult(t, call(t, a.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"reply-%d","taskId":%q,"contextId":%q,"role":"ROLE_USER","parts":[{"text":"blue"}]}}}`,
			i, task.ID, task.ContextID)), &replied)
		if replied.Task.Status.State != a2a.TaskStateCompleted {
			t.Fatalf("round %d: the reply answered %s", i, replied.Task.Status.State)
		}
		task = ask(1000 + i)
		var canceled a2a.Task
		mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":"`+string(task.ID)+`"}}`), &canceled)
		if canceled.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("round %d: CancelTask answered %s", i, canceled.Status.State)
		}
	}
}

// An agent whose task was written by someone else meanwhile (another replica of the hub) ends with
// ErrWrittenElsewhere: nothing more is written (the task is not failed) and the caller is answered
// with the task as stored, what the other writer added included.
func TestAnExecutionWrittenElsewhereEndsWithTheStoredTask(t *testing.T) {
	a := startDemo(t, func(c *server.Config) {
		c.Executor = scripted(func(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) || !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
				return
			}
			// The other writer, through the same table, once it can see the task (the execution's
			// writes are queued, not waited for, so a yield returns before they are stored).
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				if row, err := c.Store.Row(ctx, ec.TaskID); err == nil && row.Version >= 2 {
					break
				}
				if time.Now().After(deadline) {
					t.Error("the execution's writes were never stored")
					return
				}
			}
			if _, err := c.Store.Apply(ctx, &a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID,
				Artifact: &a2a.Artifact{ID: "elsewhere", Parts: a2a.ContentParts{a2a.NewTextPart("written elsewhere")}}}); err != nil {
				t.Error(err)
			}
			yield(nil, fmt.Errorf("stale: %w", server.ErrWrittenElsewhere))
		})
	})
	var res struct{ Task a2a.Task }
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"w1","role":"ROLE_USER","parts":[{"text":"go"}]}}}`), &res)
	if res.Task.Status.State != a2a.TaskStateWorking || len(res.Task.Artifacts) != 1 || res.Task.Artifacts[0].Parts[0].Text() != "written elsewhere" {
		t.Fatalf("answered with %s, artifacts %+v", res.Task.Status.State, res.Task.Artifacts)
	}
	row, err := a.Store.Row(t.Context(), res.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if row.Task.Status.State != a2a.TaskStateWorking || row.Version != 3 {
		t.Fatalf("stored: %s at version %d, want working at 3 (created, working, the artifact)", row.Task.Status.State, row.Version)
	}
}

// An execution queues its writes without waiting for each (the agent goes on while they commit).
// When one of them is not stored, no event from it on reaches a caller, the writes queued after it
// are refused, and the task fails from what was stored: the store here refuses artifact entries, as a
// full disk or a lost database would refuse the write.
func TestAQueuedWriteThatFailsStopsTheEventsAfterIt(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "test.db"))
	a := startDemoOn(t, target, func(c *server.Config) {
		c.Executor = scripted(func(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) {
			art := &a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID,
				Artifact: &a2a.Artifact{ID: "a1", Parts: a2a.ContentParts{a2a.NewTextPart("never stored")}}}
			_ = yield(a2a.NewSubmittedTask(ec, ec.Message), nil) &&
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) &&
				yield(art, nil) &&
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		})
	})
	db, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	refuse := `CREATE TRIGGER refuse_artifacts BEFORE INSERT ON task_events FOR EACH ROW WHEN (NEW.kind = 'artifact')
		BEGIN SELECT RAISE(ABORT, 'the test refuses artifacts'); END`
	if db.Postgres() {
		refuse = `CREATE FUNCTION refuse_artifacts() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'the test refuses artifacts'; END $$;
			CREATE TRIGGER refuse_artifacts BEFORE INSERT ON task_events FOR EACH ROW WHEN (NEW.kind = 'artifact')
			EXECUTE FUNCTION refuse_artifacts()`
	}
	if _, err := db.Writer.Exec(refuse); err != nil {
		t.Fatal(err)
	}

	for _, streaming := range []bool{true, false} {
		var final a2a.Task
		if streaming {
			events := stream(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"q1","role":"ROLE_USER","parts":[{"text":"go"}]}}}`)
			var got []string
			for i, e := range events {
				var ev struct {
					Task           *a2a.Task
					StatusUpdate   *struct{ Status struct{ State string } }
					ArtifactUpdate json.RawMessage
				}
				if e.Error != nil || json.Unmarshal(e.Result, &ev) != nil {
					t.Fatalf("event %d: %s %v", i, e.Result, e.Error)
				}
				switch {
				case ev.Task != nil:
					got = append(got, "task "+string(ev.Task.Status.State))
					final = *ev.Task
				case ev.StatusUpdate != nil:
					got = append(got, "status "+ev.StatusUpdate.Status.State)
				default:
					got = append(got, "artifact")
				}
			}
			want := []string{"task TASK_STATE_SUBMITTED", "status TASK_STATE_WORKING", "task TASK_STATE_FAILED"}
			if !slices.Equal(got, want) {
				t.Fatalf("streamed %v, want %v (nothing from the write that failed on)", got, want)
			}
		} else {
			var res struct{ Task a2a.Task }
			mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"q2","role":"ROLE_USER","parts":[{"text":"go"}]}}}`), &res)
			final = res.Task
		}
		if final.Status.State != a2a.TaskStateFailed || len(final.Artifacts) != 0 {
			t.Fatalf("streaming %v: the run ended with %s and %d artifacts, want failed with none", streaming, final.Status.State, len(final.Artifacts))
		}
		row, err := a.Store.Row(t.Context(), final.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.Task.Status.State != a2a.TaskStateFailed || len(row.Task.Artifacts) != 0 {
			t.Fatalf("streaming %v: stored %s with %d artifacts", streaming, row.Task.Status.State, len(row.Task.Artifacts))
		}
		entries, err := a.Store.Log(t.Context(), final.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, l := range entries {
			kinds = append(kinds, l.Kind)
		}
		// created, working, then failed: neither the artifact nor the completion queued after it.
		if !slices.Equal(kinds, []string{"task", "status", "status"}) || entries[2].Version != 3 {
			t.Fatalf("streaming %v: the log holds %v (last at version %d)", streaming, kinds, entries[len(entries)-1].Version)
		}
	}
}
