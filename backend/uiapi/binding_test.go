package uiapi_test

import (
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// bindingAgent is what the gateway says of an agent's bindings.
type bindingAgent struct {
	ID           string
	Bindings     []string
	Binding      string
	BindingInUse string
}

// The owner picks the binding the hub talks to an agent over among those its card offers; the choice
// is kept, the next chat goes over it (the wire log shows its calls), and "auto" gives the choice
// back to the hub (JSON-RPC first). A binding the card does not offer, or none, is refused.
func TestOwnerChoosesTheBindingOfAnAgent(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	// Another hub's demo agent, with its gRPC binding on: a card offering all three.
	other, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0",
		DemoGRPCAddr: "127.0.0.1:0", Version: "test", Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Stop() })

	var added bindingAgent
	c.result("agents.add", map[string]any{"url": other.BaseURL}, &added)
	if !slices.Equal(added.Bindings, []string{"JSONRPC", "HTTP+JSON", "GRPC"}) || added.Binding != "auto" || added.BindingInUse != "" {
		t.Fatalf("an agent as added: %+v", added)
	}
	for _, bad := range []string{"SOAP", "grpc-web"} {
		if f := c.call("agents.setBinding", map[string]any{"id": added.ID, "binding": bad}); f.Error == nil || f.Error.Code != "invalid_params" {
			t.Fatalf("binding %q: %+v", bad, f.Error)
		}
	}
	if f := c.call("agents.setBinding", map[string]any{"id": "hub", "binding": "GRPC"}); f.Error == nil {
		t.Fatal("a binding chosen for the hub's own agent")
	}

	// gRPC: the chat's calls are gRPC methods in the wire log.
	var chosen bindingAgent
	c.result("agents.setBinding", map[string]any{"id": added.ID, "binding": "GRPC"}, &chosen)
	if chosen.Binding != "GRPC" {
		t.Fatalf("after choosing gRPC: %+v", chosen)
	}
	c.chatWorks(added.ID)
	waitWire(t, c, added.ID, "/lf.a2a.v1.A2AService/")
	var got bindingAgent
	c.result("agents.get", map[string]any{"id": added.ID}, &got)
	if got.Binding != "GRPC" || got.BindingInUse != "GRPC" {
		t.Fatalf("after a chat over gRPC: %+v", got)
	}
	// REST, then back to automatic (JSON-RPC).
	c.result("agents.setBinding", map[string]any{"id": added.ID, "binding": "HTTP+JSON"}, &chosen)
	c.chatWorks(added.ID)
	waitWire(t, c, added.ID, "POST /rest/message:")
	c.result("agents.setBinding", map[string]any{"id": added.ID, "binding": "auto"}, &chosen)
	c.chatWorks(added.ID)
	c.result("agents.get", map[string]any{"id": added.ID}, &got)
	if got.Binding != "auto" || got.BindingInUse != "JSONRPC" {
		t.Fatalf("back to automatic: %+v", got)
	}
}

// waitWire waits for a request in the agent's wire log whose method starts with prefix.
func waitWire(t *testing.T, c *ui, agentID, prefix string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var res struct {
			Entries []struct{ Kind, Method string }
		}
		c.result("wire.list", map[string]any{"agentId": agentID}, &res)
		if slices.ContainsFunc(res.Entries, func(e struct{ Kind, Method string }) bool {
			return e.Kind == "request" && strings.HasPrefix(e.Method, prefix)
		}) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request %s… in the wire log: %+v", prefix, res.Entries)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
