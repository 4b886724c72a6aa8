package interop

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// The whole hub, as a person uses it, with an agent written on another SDK: the @a2a-js/sdk server
// is added by its base URL (the hub reads the card the SDK serves), and a conversation with it streams,
// asks back and is answered in place, all recorded.
func TestHubAddsAndChatsWithAJSSDKAgent(t *testing.T) {
	base := startJSServer(t)
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", NoDemo: true, Version: "test",
		Secrets: "file", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	rem, err := h.Agents.Add(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := h.Chats.Start(t.Context(), rem.ID)
	if err != nil {
		t.Fatal(err)
	}

	talk(t, h, conv.ID, "stream", "")
	_, entries, _ := h.Chats.Get(t.Context(), conv.ID)
	var text string
	chunks := 0
	for _, e := range entries {
		if a, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok {
			chunks++
			if !a.Append {
				text = ""
			}
			for _, p := range a.Artifact.Parts {
				text += p.Text()
			}
		}
	}
	if chunks < 2 || text != "one two three" {
		t.Errorf("the streamed answer: %d chunks making %q", chunks, text)
	}

	sent, err := h.Chats.Send(t.Context(), conv.ID, chats.Outgoing{Text: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	var asking a2a.TaskID
	waitEntries(t, h, conv.ID, "the question", func(es []chats.Entry) bool {
		for _, e := range es[sent.Seq:] {
			if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateInputRequired {
				asking = st.TaskID
				return true
			}
		}
		return false
	})
	answer, err := h.Chats.Send(t.Context(), conv.ID, chats.Outgoing{Text: "blue", Task: asking})
	if err != nil {
		t.Fatal(err)
	}
	waitEntries(t, h, conv.ID, "the answered task to complete", func(es []chats.Entry) bool {
		for _, e := range es[answer.Seq:] {
			if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateCompleted {
				if st.TaskID != asking {
					t.Fatalf("the answer completed task %s, want the asking task %s", st.TaskID, asking)
				}
				return true
			}
		}
		return false
	})
}

// TestHubAddsAndChatsWithAGRPCOnlyAgent: an a2a-go/v2 agent whose card offers only gRPC is added by
// its base URL and chatted with as any other; its answer streams in over gRPC.
func TestHubAddsAndChatsWithAGRPCOnlyAgent(t *testing.T) {
	addr := serveGRPCExecutor(t)
	card := cardWith("a2a-go gRPC-only agent", &a2a.AgentInterface{URL: addr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version})
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/agent-card.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(card)
	}))
	t.Cleanup(cards.Close)
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", NoDemo: true, Version: "test",
		Secrets: "file", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	rem, err := h.Agents.Add(t.Context(), cards.URL)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := h.Chats.Start(t.Context(), rem.ID)
	if err != nil {
		t.Fatal(err)
	}
	talk(t, h, conv.ID, "stream", "")
	_, entries, _ := h.Chats.Get(t.Context(), conv.ID)
	var text string
	for _, e := range entries {
		if a, ok := e.Event.(*a2a.TaskArtifactUpdateEvent); ok {
			if !a.Append {
				text = ""
			}
			for _, p := range a.Artifact.Parts {
				text += p.Text()
			}
		}
	}
	if text != "one two three" {
		t.Errorf("the streamed answer over gRPC: %q", text)
	}
	conn, err := h.Clients.Conn(t.Context(), rem.ID)
	if err != nil || conn.Endpoint().Binding != agents.GRPC {
		t.Fatalf("the hub talks to the agent over %+v (%v), want gRPC", conn.Endpoint(), err)
	}
}
