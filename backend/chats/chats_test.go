package chats_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// The hub talks to a demo agent running on its own (so the hub can stop and start while the agent
// keeps its tasks), added by URL as a person would.

type world struct {
	t       *testing.T
	dataDir string
	addr    string
	demo    *hub.Agent
	h       *hub.Hub
	// fallback is the hub's PushFallback (0: the default); publicURL its PublicURL.
	fallback  time.Duration
	publicURL string
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func newWorld(t *testing.T) *world { return newWorldWith(t, nil) }

// newWorldWith is newWorld with setup changing the world before the hub starts.
func newWorldWith(t *testing.T, setup func(*world)) *world {
	demo, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", Version: "test", Logger: quiet()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demo.Stop() })
	w := &world{t: t, dataDir: t.TempDir(), addr: freeAddr(t), demo: demo}
	if setup != nil {
		setup(w)
	}
	w.start()
	t.Cleanup(func() {
		if w.h != nil {
			w.h.Stop()
		}
	})
	return w
}

func (w *world) start() {
	h, err := hub.Start(w.t.Context(), hubtest.Storage(w.t, hub.Config{DataDir: w.dataDir, Addr: w.addr, NoDemo: true, Version: "test", Secrets: "file", Logger: quiet(),
		PushFallback: w.fallback, PublicURL: w.publicURL}))
	if err != nil {
		w.t.Fatal(err)
	}
	w.h = h
}

func (w *world) restart() {
	if err := w.h.Stop(); err != nil {
		w.t.Fatal(err)
	}
	w.h = nil
	w.start()
}

// conversation adds the agent at url and opens a conversation with it.
func (w *world) conversation(url string) chats.Conversation {
	rem, err := w.h.Agents.Add(w.t.Context(), url)
	if err != nil {
		w.t.Fatal(err)
	}
	c, err := w.h.Chats.Start(w.t.Context(), rem.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// waitFor polls the conversation until done says its entries are what the test waits for.
func (w *world) waitFor(id, what string, done func([]chats.Entry) bool) []chats.Entry {
	ctx, cancel := context.WithTimeout(w.t.Context(), 20*time.Second)
	defer cancel()
	for {
		_, entries, err := w.h.Chats.Get(ctx, id)
		if err != nil {
			w.t.Fatal(err)
		}
		if done(entries) {
			return entries
		}
		select {
		case <-ctx.Done():
			w.t.Fatalf("waiting for %s; entries so far:\n%s", what, dump(entries))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func dump(entries []chats.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		state, _ := stateOf(e)
		fmt.Fprintf(&b, "  %d %s %s task=%s state=%s final=%v err=%v\n", e.Seq, e.Direction, e.Kind, e.TaskID, state, e.Final, e.Error)
	}
	return b.String()
}

func stateOf(e chats.Entry) (a2a.TaskState, bool) {
	switch v := e.Event.(type) {
	case *a2a.Task:
		return v.Status.State, true
	case *a2a.TaskStatusUpdateEvent:
		return v.Status.State, true
	}
	return "", false
}

func reached(state a2a.TaskState) func([]chats.Entry) bool {
	return func(entries []chats.Entry) bool {
		for _, e := range entries {
			if s, ok := stateOf(e); ok && s == state {
				return true
			}
		}
		return false
	}
}

func send(t *testing.T, s *chats.Service, id string, out chats.Outgoing) chats.Entry {
	e, err := s.Send(t.Context(), id, out)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func artifactText(entries []chats.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		if a, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok {
			if !a.Append {
				b.Reset()
			}
			for _, p := range a.Artifact.Parts {
				if txt, ok := p.Content.(a2a.Text); ok {
					b.WriteString(string(txt))
				}
			}
		}
	}
	return b.String()
}

func TestStreamedConversationIsRecordedAndSurvivesRestart(t *testing.T) {
	w := newWorld(t)
	c := w.conversation(w.demo.BaseURL)
	out := send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "hello there, demo agent"})
	if out.Direction != chats.Out || out.Seq != 1 {
		t.Fatalf("the message sent is entry %d %s, want 1 out", out.Seq, out.Direction)
	}
	entries := w.waitFor(c.ID, "the echo to complete", reached(a2a.TaskStateCompleted))
	chunks := 0
	for _, e := range entries {
		if a, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok && a.Append {
			chunks++
		}
	}
	if chunks < 2 {
		t.Errorf("the echo streamed %d appended chunks, want several:\n%s", chunks, dump(entries))
	}
	if got := artifactText(entries); !strings.Contains(got, "hello there, demo agent") {
		t.Errorf("the chunks merge into %q", got)
	}
	conv, err := w.h.Chats.Conversation(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.ContextID == "" || conv.Title != "hello there, demo agent" || conv.State != a2a.TaskStateCompleted {
		t.Errorf("conversation after the reply: %+v", conv)
	}

	before, _ := json.Marshal(entries)
	w.restart()
	_, after, err := w.h.Chats.Get(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(after); string(got) != string(before) {
		t.Errorf("after a restart the conversation differs:\nbefore %s\nafter  %s", before, got)
	}
}

func TestInputRequiredIsAnsweredInPlace(t *testing.T) {
	w := newWorld(t)
	c := w.conversation(w.demo.BaseURL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "ask"})
	entries := w.waitFor(c.ID, "the question", reached(a2a.TaskStateInputRequired))
	var taskID a2a.TaskID
	for _, e := range entries {
		if e.TaskID != "" {
			taskID = a2a.TaskID(e.TaskID)
		}
	}
	conv, _ := w.h.Chats.Conversation(t.Context(), c.ID)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "blue", Task: taskID})
	entries = w.waitFor(c.ID, "the answered task to complete", reached(a2a.TaskStateCompleted))
	for _, e := range entries {
		if e.Direction == chats.In && e.TaskID != string(taskID) {
			t.Errorf("entry %d is about task %s, want the asking task %s", e.Seq, e.TaskID, taskID)
		}
	}
	answer := entries[len(entries)-1]
	for _, e := range entries {
		if e.Direction == chats.Out && e.Seq > 1 {
			answer = e
		}
	}
	if m := answer.Event.(*a2a.Message); m.TaskID != taskID || m.ContextID != conv.ContextID {
		t.Errorf("the answer went to task %q context %q, want %q %q", m.TaskID, m.ContextID, taskID, conv.ContextID)
	}
}

func TestCancelARunningTask(t *testing.T) {
	w := newWorld(t)
	c := w.conversation(w.demo.BaseURL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "slow 60"})
	entries := w.waitFor(c.ID, "the slow job to work", reached(a2a.TaskStateWorking))
	taskID := a2a.TaskID(entries[len(entries)-1].TaskID)
	if err := w.h.Chats.Cancel(t.Context(), c.ID, taskID); err != nil {
		t.Fatal(err)
	}
	w.waitFor(c.ID, "the job to be canceled", reached(a2a.TaskStateCanceled))
	// A task the agent does not know: it says so, the owner reads why.
	err := w.h.Chats.Cancel(t.Context(), c.ID, "no-such-task")
	var callErr *chats.CallError
	if !errors.As(err, &callErr) || callErr.Kind != "remote" || !strings.Contains(callErr.Message, "not found") {
		t.Errorf("canceling an unknown task: %v, want a remote error saying it is not found", err)
	}
}

// An agent whose card says it does not stream is asked with message/send and then polled with
// tasks/get until the task is final.
func TestAgentThatDoesNotStreamIsPolled(t *testing.T) {
	w := newWorld(t)
	card := fetchCard(t, w.demo.BaseURL)
	card["capabilities"].(map[string]any)["streaming"] = false
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		json.NewEncoder(rw).Encode(card)
	}))
	t.Cleanup(srv.Close)
	c := w.conversation(srv.URL + "/card.json")
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "slow 2"})
	entries := w.waitFor(c.ID, "the polled job to complete", reached(a2a.TaskStateCompleted))
	// The agent answered at once with the task still running; the end came from tasks/get.
	if first, ok := entries[1].Event.(*a2a.Task); !ok || first.Status.State.Terminal() {
		t.Errorf("the first answer is %T %v, want the running task:\n%s", entries[1].Event, entries[1].Kind, dump(entries))
	}
	for _, e := range entries {
		if a, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok && a.Append {
			t.Errorf("entry %d is an appended chunk; a polled agent's artifacts come whole", e.Seq)
		}
	}

	// Artifacts come as entries of their own, whole, however the agent's answer carried them.
	sent := send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "data"})
	w.waitFor(c.ID, "the data artifact and the end", func(es []chats.Entry) bool {
		data, done := false, false
		for _, e := range es[sent.Seq:] {
			if a, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok && len(a.Artifact.Parts) > 0 && a.Artifact.Parts[0].Data() != nil {
				data = true
			}
			done = done || e.Final
		}
		return data && done
	})
}

// A task still running when the hub stops is watched again when it starts.
func TestRunningTaskIsResumedAfterRestart(t *testing.T) {
	w := newWorld(t)
	c := w.conversation(w.demo.BaseURL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "slow 3"})
	w.waitFor(c.ID, "the slow job to work", reached(a2a.TaskStateWorking))
	w.restart()
	w.waitFor(c.ID, "the resumed job to complete", reached(a2a.TaskStateCompleted))
}

func TestFailuresAreRecordedForTheOwner(t *testing.T) {
	w := newWorld(t)
	// An agent that went away: its card was read, then it stopped listening.
	gone := httptest.NewServer(nil)
	card := fetchCard(t, w.demo.BaseURL)
	card["url"], card["supportedInterfaces"] = gone.URL+"/", []any{map[string]any{"url": gone.URL + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}}
	delete(card, "additionalInterfaces")
	cardSrv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { json.NewEncoder(rw).Encode(card) }))
	t.Cleanup(cardSrv.Close)
	c := w.conversation(cardSrv.URL + "/card.json")
	gone.Close()
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "anyone there?"})
	entries := w.waitFor(c.ID, "the failure", func(es []chats.Entry) bool { return es[len(es)-1].Kind == "error" })
	if e := entries[len(entries)-1]; e.Error.Kind != "network" || e.Direction != chats.Local {
		t.Errorf("failure recorded as %s %+v, want a local network error", e.Direction, e.Error)
	}

	if _, err := w.h.Chats.Send(t.Context(), c.ID, chats.Outgoing{Text: "  "}); !errors.Is(err, chats.ErrEmpty) {
		t.Errorf("an empty message: %v", err)
	}
	big := chats.File{Name: "big.bin", Bytes: make([]byte, chats.MaxAttachmentBytes+1)}
	if _, err := w.h.Chats.Send(t.Context(), c.ID, chats.Outgoing{Files: []chats.File{big}}); !errors.Is(err, chats.ErrTooLarge) {
		t.Errorf("too large an attachment: %v", err)
	}
	if _, err := w.h.Chats.Send(t.Context(), "no-such-conversation", chats.Outgoing{Text: "hi"}); !errors.Is(err, chats.ErrNotFound) {
		t.Errorf("an unknown conversation: %v", err)
	}
	_, entries, _ = w.h.Chats.Get(t.Context(), c.ID)
	if n := len(entries); n != 2 {
		t.Errorf("refused messages were recorded: %d entries, want 2", n)
	}
}

// fetchCard reads the agent's card for a test to change and serve from another origin. Its signature
// would no longer verify there (the hub would hold the agent back), so it is dropped: an unsigned card.
func fetchCard(t *testing.T, base string) map[string]any {
	resp, err := http.Get(base + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var card map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&card); err != nil {
		t.Fatal(err)
	}
	delete(card, "signatures")
	return card
}
