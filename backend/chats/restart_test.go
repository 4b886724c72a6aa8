package chats_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacysrv "github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/chats"
)

// jobAgent is an agent served by the official a2a-go v0.3 SDK's own server: "job" is a job that
// works until the test lets it finish (release), then answers "job done".
type jobAgent struct {
	release chan struct{}
}

func (j jobAgent) Execute(ctx context.Context, rc *legacysrv.RequestContext, q eventqueue.Queue) error {
	if rc.StoredTask == nil {
		if err := q.Write(ctx, legacy.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	if err := q.Write(ctx, legacy.NewStatusUpdateEvent(rc, legacy.TaskStateWorking, nil)); err != nil {
		return err
	}
	select {
	case <-j.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := q.Write(ctx, legacy.NewArtifactEvent(rc, legacy.TextPart{Text: "job done"})); err != nil {
		return err
	}
	done := legacy.NewStatusUpdateEvent(rc, legacy.TaskStateCompleted, nil)
	done.Final = true
	return q.Write(ctx, done)
}

func (jobAgent) Cancel(ctx context.Context, rc *legacysrv.RequestContext, q eventqueue.Queue) error {
	ev := legacy.NewStatusUpdateEvent(rc, legacy.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

func newJobAgent(t *testing.T) (url string, release chan struct{}) {
	srv, release := newJobAgentAt(t, "127.0.0.1:0")
	return srv.URL, release
}

// newJobAgentAt serves a job agent, with its own new task store, at addr.
func newJobAgentAt(t *testing.T, addr string) (srv *httptest.Server, release chan struct{}) {
	release = make(chan struct{})
	h := legacysrv.NewJSONRPCHandler(legacysrv.NewHandler(jobAgent{release: release}, legacysrv.WithLogger(slog.New(slog.DiscardHandler))))
	mux := http.NewServeMux()
	srv = httptest.NewUnstartedServer(mux)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
		srv.CloseClientConnections()
		srv.Close()
	})
	mux.Handle("/a2a", h)
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"name":"job agent","description":"a2a-go v0.3","version":"1","url":"%s/a2a","protocolVersion":"0.3.0",
			"preferredTransport":"JSONRPC","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, srv.URL)
	})
	return srv, release
}

// A task in flight when the hub restarts is followed again after it, to its final answer: the
// agent is the a2a-go v0.3 SDK's own server, running a job that ends after the restart.
func TestTaskInFlightAcrossAHubRestartShowsItsAnswer(t *testing.T) {
	w := newWorld(t)
	url, release := newJobAgent(t)
	c := w.conversation(url)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "job"})
	w.waitFor(c.ID, "the job to work", reached(a2a.TaskStateWorking))
	w.restart()
	close(release)
	entries := w.waitFor(c.ID, "the job's answer after the restart", answered(a2a.TaskStateCompleted))
	if got := artifactText(entries); got != "job done" {
		t.Fatalf("the answer reads %q:\n%s", got, dump(entries))
	}
	conv, err := w.h.Chats.Conversation(t.Context(), c.ID)
	if err != nil || slices.Contains([]a2a.TaskState{a2a.TaskStateWorking, a2a.TaskStateSubmitted}, conv.State) {
		t.Fatalf("the conversation %+v (%v) still shows the task running", conv, err)
	}
}

// The same when the job ends while the hub is down: the restarted hub finds it ended.
func TestTaskEndedWhileTheHubWasDownShowsItsAnswer(t *testing.T) {
	w := newWorld(t)
	url, release := newJobAgent(t)
	c := w.conversation(url)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "job"})
	entries := w.waitFor(c.ID, "the job to work", reached(a2a.TaskStateWorking))
	taskID := entries[len(entries)-1].TaskID
	if err := w.h.Stop(); err != nil {
		t.Fatal(err)
	}
	w.h = nil
	close(release)
	waitAgentState(t, url, taskID, "completed")
	w.start()
	entries = w.waitFor(c.ID, "the job's answer after the restart", answered(a2a.TaskStateCompleted))
	if got := artifactText(entries); got != "job done" {
		t.Fatalf("the answer reads %q:\n%s", got, dump(entries))
	}
}

// waitAgentState polls the agent's tasks/get until the task is in state.
func waitAgentState(t *testing.T, url, taskID, state string) {
	t.Helper()
	for i := 0; ; i++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":%q}}`, taskID)
		resp, err := http.Post(url+"/a2a", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Result struct {
				Status struct{ State string } `json:"status"`
			} `json:"result"`
		}
		json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if r.Result.Status.State == state {
			return
		}
		if i > 1000 {
			t.Fatalf("the agent's task is %q, want %s", r.Result.Status.State, state)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A task the agent no longer knows after the hub restarts (the agent restarted too, and lost it) is
// marked failed, saying the hub lost contact with the agent, instead of showing as running forever.
func TestTaskTheAgentForgotIsMarkedLostAfterAHubRestart(t *testing.T) {
	w := newWorld(t)
	first, _ := newJobAgentAt(t, "127.0.0.1:0")
	addr := first.Listener.Addr().String()
	c := w.conversation(first.URL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "job"})
	w.waitFor(c.ID, "the job to work", reached(a2a.TaskStateWorking))
	if err := w.h.Stop(); err != nil {
		t.Fatal(err)
	}
	w.h = nil
	first.CloseClientConnections()
	first.Close()
	newJobAgentAt(t, addr) // the agent again, with none of its tasks
	w.start()
	entries := w.waitFor(c.ID, "the task to be marked lost", reached(a2a.TaskStateFailed))
	lost := slices.ContainsFunc(entries, func(e chats.Entry) bool {
		st, ok := e.Event.(*a2a.TaskStatusUpdateEvent)
		return ok && st.Status.State == a2a.TaskStateFailed && st.Status.Message != nil && strings.Contains(st.Status.Message.Parts[0].Text(), "lost contact with the agent")
	})
	if !lost {
		t.Fatalf("no failed status saying the hub lost contact with the agent:\n%s", dump(entries))
	}
	conv, err := w.h.Chats.Conversation(t.Context(), c.ID)
	if err != nil || conv.State != a2a.TaskStateFailed {
		t.Fatalf("the conversation %+v (%v), want its task failed", conv, err)
	}
}

// answered: the task reached state and its answer is recorded to its end. A whole task seen after a
// restart is recorded first, then an entry per artifact it carries, the last one final: reading at
// the task's entry alone could miss the artifacts.
func answered(state a2a.TaskState) func([]chats.Entry) bool {
	reachedState := reached(state)
	return func(entries []chats.Entry) bool {
		return reachedState(entries) && slices.ContainsFunc(entries, func(e chats.Entry) bool { return e.Final })
	}
}
