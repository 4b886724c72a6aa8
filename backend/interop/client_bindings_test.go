package interop

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
	"github.com/agenthub/agenthub/backend/server"
)

// The hub's client (agents.Conn) on A2A's other bindings: against a2a-go/v2 agents that offer only
// HTTP+JSON and only gRPC, falling back from one binding to the next when an address cannot be
// reached, and on gRPC with a saved key and the wire log, against the hub's own gRPC binding.

// serveGRPCExecutor serves testExecutor through a2a-go/v2's gRPC handler on loopback; its host:port.
func serveGRPCExecutor(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	grpcv1.NewHandler(a2asrv.NewHandler(testExecutor{}, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))).RegisterWith(srv)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// cardWith is a v1.0 card offering ifaces, in that order.
func cardWith(name string, ifaces ...*a2a.AgentInterface) []byte {
	card, _ := json.Marshal(&a2a.AgentCard{Name: name, Description: "test", Version: "1", SupportedInterfaces: ifaces,
		Capabilities: a2a.AgentCapabilities{Streaming: true}, DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}})
	return card
}

func TestClientBindingsGoREST(t *testing.T) {
	url := serveExecutor(t, a2asrv.NewRESTHandler)
	card := cardWith("a2a-go REST-only test agent", &a2a.AgentInterface{URL: url, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version})
	target := executorTarget(card, agents.V10)
	target.binding = agents.HTTPJSON
	runConnScenarios(t, target)
}

func TestClientBindingsGoRESTV03(t *testing.T) {
	url := serveExecutor(t, a2av0.NewRESTHandler)
	card := fmt.Appendf(nil, `{"name":"a2a-go v0.3 REST-only test agent","description":"test","version":"1","url":%q,"protocolVersion":"0.3.0",
		"preferredTransport":"HTTP+JSON","capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`, url)
	target := executorTarget(card, agents.V03)
	target.binding = agents.HTTPJSON
	runConnScenarios(t, target)
}

func TestClientBindingsGoGRPC(t *testing.T) {
	addr := serveGRPCExecutor(t)
	card := cardWith("a2a-go gRPC-only test agent", &a2a.AgentInterface{URL: addr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version})
	target := executorTarget(card, agents.V10)
	target.binding = agents.GRPC
	runConnScenarios(t, target)
}

// closedAddress is a loopback host:port nothing listens on.
func closedAddress(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestClientFallsBackAcrossBindings: with the card's first interface down, the hub's client sends
// on the next one at another address (JSON-RPC → REST → gRPC) and stays there; with every one down,
// the call fails as unreachable.
func TestClientFallsBackAcrossBindings(t *testing.T) {
	down := "http://" + closedAddress(t)
	restURL := serveExecutor(t, a2asrv.NewRESTHandler)
	grpcAddr := serveGRPCExecutor(t)
	jsonrpc := &a2a.AgentInterface{URL: down + "/a2a", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}
	send := func(t *testing.T, card []byte) (*agents.Conn, error) {
		t.Helper()
		conn, err := agents.Dial(t.Context(), card, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		for _, err := range conn.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("over the fallback")), false) {
			return conn, err
		}
		return conn, nil
	}
	t.Run("JSON-RPC down, REST up", func(t *testing.T) {
		conn, err := send(t, cardWith("fallback", jsonrpc,
			&a2a.AgentInterface{URL: restURL, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version},
			&a2a.AgentInterface{URL: grpcAddr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version}))
		if err != nil || conn.Endpoint().Binding != agents.HTTPJSON {
			t.Fatalf("sent: %v, now on %+v; want REST", err, conn.Endpoint())
		}
	})
	t.Run("JSON-RPC and REST down, gRPC up", func(t *testing.T) {
		conn, err := send(t, cardWith("fallback", jsonrpc,
			&a2a.AgentInterface{URL: down + "/rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version},
			&a2a.AgentInterface{URL: grpcAddr, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version}))
		if err != nil || conn.Endpoint().Binding != agents.GRPC {
			t.Fatalf("sent: %v, now on %+v; want gRPC", err, conn.Endpoint())
		}
		// It stays there: the next call goes straight to gRPC.
		if _, err := conn.GetTask(t.Context(), "no-such-task"); !errors.Is(err, a2a.ErrTaskNotFound) || conn.Endpoint().Binding != agents.GRPC {
			t.Fatalf("the next call: %v on %+v", err, conn.Endpoint())
		}
	})
	t.Run("everything down", func(t *testing.T) {
		_, err := send(t, cardWith("fallback", jsonrpc,
			&a2a.AgentInterface{URL: closedAddress(t), ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version}))
		if err == nil {
			t.Fatal("a send with every interface down succeeded")
		}
	})
}

// memWire keeps what the hub's client records in its wire log.
type memWire struct {
	mu      sync.Mutex
	entries []wirelog.Entry
}

func (w *memWire) Record(e wirelog.Entry) {
	w.mu.Lock()
	w.entries = append(w.entries, e)
	w.mu.Unlock()
}

func (w *memWire) all() []wirelog.Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.entries)
}

// TestClientGRPCCredentialsAndWireLog: against the hub's own gRPC binding with anonymous access off,
// the hub's client sends no key until one is saved (and gets the same *AuthError a 401 gives), then
// sends the saved key as metadata; the wire log shows each call's method, status and messages as
// JSON, the key masked.
func TestClientGRPCCredentialsAndWireLog(t *testing.T) {
	h, key, _ := startAuthHub(t, "alice")
	var card map[string]any
	if err := json.Unmarshal(h.Agent.Server.CardJSON(), &card); err != nil {
		t.Fatal(err)
	}
	// The card offers gRPC only (the hub's securitySchemes kept), so the client must speak it.
	card["supportedInterfaces"] = []any{map[string]any{"url": h.Agent.GRPCAddr, "protocolBinding": "GRPC", "protocolVersion": "1.0"}}
	delete(card, "url")
	delete(card, "additionalInterfaces")
	raw, _ := json.Marshal(card)
	secrets, err := credentials.OpenSecrets(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	wire := &memWire{}
	conn, err := agents.Dial(t.Context(), raw, credentials.NewHTTPClient("hub-grpc", raw, secrets, wire))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Endpoint().Binding != agents.GRPC {
		t.Fatalf("the client speaks %+v", conn.Endpoint())
	}
	msg := func() *a2a.Message { return a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello over grpc")) }
	conn.ReturnImmediately = true // the hub's inbox keeps the task for its owner
	var authErr *credentials.AuthError
	for _, err := range conn.Send(t.Context(), msg(), false) {
		if !errors.As(err, &authErr) || authErr.Status != 401 {
			t.Fatalf("a send without a key: %v, want the AuthError of a 401", err)
		}
	}
	if err := secrets.Put("hub-grpc", "apiKey", credentials.Secret{APIKey: key}); err != nil {
		t.Fatal(err)
	}
	var task *a2a.Task
	for ev, err := range conn.Send(t.Context(), msg(), false) {
		if err != nil {
			t.Fatalf("a send with the key: %v", err)
		}
		task, _ = ev.(*a2a.Task)
	}
	if task == nil {
		t.Fatal("no task")
	}
	for ev, err := range conn.Subscribe(t.Context(), task.ID) {
		if err != nil || ev == nil {
			t.Fatalf("subscribe with the key: %v", err)
		}
		break // one event shows the stream was admitted
	}
	var sawRequest, sawOK, sawEvent bool
	for _, e := range wire.all() {
		if strings.Contains(e.Body, key) || slices.ContainsFunc(mapsValues(e.Header), func(v string) bool { return strings.Contains(v, key) }) {
			t.Fatalf("the wire log shows the key: %+v", e)
		}
		switch {
		case e.Kind == "request" && e.Method == "/lf.a2a.v1.A2AService/SendMessage" && e.Header["X-Api-Key"] != "" && strings.Contains(e.Body, "hello over grpc"):
			sawRequest = true
		case e.Kind == "response" && e.Method == "/lf.a2a.v1.A2AService/SendMessage" && e.Header["grpc-status"] == "OK" && strings.Contains(e.Body, string(task.ID)):
			sawOK = true
		case e.Kind == "event" && e.Method == "/lf.a2a.v1.A2AService/SubscribeToTask" && strings.Contains(e.Body, string(task.ID)):
			sawEvent = true
		}
	}
	if !sawRequest || !sawOK || !sawEvent {
		t.Fatalf("the wire log (request with a masked key %v, OK response %v, stream event %v): %+v", sawRequest, sawOK, sawEvent, wire.all())
	}
}

func mapsValues(m map[string]string) []string { return slices.Collect(maps.Values(m)) }

// The hub's client sets a push config over REST and over gRPC as over JSON-RPC: against the demo
// agent's card reduced to that one binding, the config reaches the agent's store.
func TestClientPushConfigOnEachBinding(t *testing.T) {
	a := startDemoAgent(t)
	for _, b := range []struct {
		name  string
		iface map[string]any
	}{
		{"REST", map[string]any{"url": a.BaseURL + server.RESTPath, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}},
		{"gRPC", map[string]any{"url": a.GRPCAddr, "protocolBinding": "GRPC", "protocolVersion": "1.0"}},
	} {
		t.Run(b.name, func(t *testing.T) {
			var card map[string]any
			if err := json.Unmarshal(a.Server.CardJSON(), &card); err != nil {
				t.Fatal(err)
			}
			card["supportedInterfaces"] = []any{b.iface}
			delete(card, "url")
			delete(card, "additionalInterfaces")
			delete(card, "preferredTransport")
			raw, _ := json.Marshal(card)
			conn, err := agents.Dial(t.Context(), raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.ReturnImmediately = true
			var task *a2a.Task
			for ev, err := range conn.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 30")), false) {
				if err != nil {
					t.Fatal(err)
				}
				task, _ = ev.(*a2a.Task)
			}
			if task == nil || conn.Endpoint().Binding.Name() != map[string]string{"REST": "HTTP+JSON", "gRPC": "GRPC"}[b.name] {
				t.Fatalf("sent over %+v: %+v", conn.Endpoint(), task)
			}
			if err := conn.SetPushConfig(t.Context(), task.ID, "http://127.0.0.1:9/hook", "tok-"+b.name); err != nil {
				t.Fatalf("set push config: %v", err)
			}
			listed, err := a.Server.Handler.ListTaskPushConfigs(t.Context(), &a2a.ListTaskPushConfigRequest{TaskID: task.ID})
			if err != nil || len(listed.Configs) != 1 || listed.Configs[0].URL != "http://127.0.0.1:9/hook" || listed.Configs[0].Token != "tok-"+b.name {
				t.Fatalf("the agent's push configs: %+v %v", listed, err)
			}
			if _, err := conn.Cancel(t.Context(), task.ID); err != nil {
				t.Fatalf("cancel: %v", err)
			}
		})
	}
}
