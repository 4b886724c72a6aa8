package agents_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/demoagent"
)

// Only an agent whose card declares the A2UI extension gets the activation headers and the client's
// capabilities; the caller's message is not changed either way.
func TestA2UIHeadersAndCapabilitiesOnlyForAgentsThatDeclareIt(t *testing.T) {
	var mu sync.Mutex
	type seen struct {
		ext, xext string
		meta      map[string]any
	}
	var got []seen
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(&demoagent.Agent{}, a2asrv.WithLogger(slog.New(slog.DiscardHandler))))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Params struct {
				Message struct {
					Metadata map[string]any `json:"metadata"`
				} `json:"message"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		got = append(got, seen{r.Header.Get("A2A-Extensions"), r.Header.Get("X-A2A-Extensions"), req.Params.Message.Metadata})
		mu.Unlock()
		rpc.ServeHTTP(w, r)
	}))
	defer hs.Close()

	for _, declares := range []bool{false, true} {
		card := a2a.AgentCard{Name: "t", Description: "t", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: true},
			SupportedInterfaces: []*a2a.AgentInterface{{URL: hs.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
			DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
		if declares {
			card.Capabilities.Extensions = []a2a.AgentExtension{demoagent.A2UIExtensionCard()}
		}
		raw, _ := json.Marshal(card)
		if n := len(agents.A2UIExtensions(raw)); n != map[bool]int{false: 0, true: 1}[declares] {
			t.Fatalf("declares %v: A2UIExtensions found %d", declares, n)
		}
		conn, err := agents.Dial(t.Context(), raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))
		for _, err := range conn.Send(t.Context(), msg, true) {
			if err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
		if msg.Metadata != nil {
			t.Errorf("declares %v: the caller's message was changed: %v", declares, msg.Metadata)
		}
		mu.Lock()
		last := got[len(got)-1]
		mu.Unlock()
		_, hasCaps := last.meta["a2uiClientCapabilities"]
		if declares {
			if last.ext != demoagent.A2UIExtension || last.xext != demoagent.A2UIExtension || !hasCaps {
				t.Errorf("to an A2UI agent: A2A-Extensions %q, X-A2A-Extensions %q, metadata %v", last.ext, last.xext, last.meta)
			}
			caps, _ := json.Marshal(last.meta["a2uiClientCapabilities"])
			if string(caps) != `{"v0.9":{"supportedCatalogIds":["https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"]}}` {
				t.Errorf("capabilities %s", caps)
			}
		} else if last.ext != "" || last.xext != "" || hasCaps {
			t.Errorf("to an agent without A2UI: A2A-Extensions %q, X-A2A-Extensions %q, metadata %v", last.ext, last.xext, last.meta)
		}
	}
}

// The client activates the A2UI versions the UI renders that the card declares (v0.9.1, v0.9, v0.8),
// in both headers, and sends capabilities for each in that version's shape: keyed "v0.9" for v0.9,
// supportedCatalogIds at the top for v0.8. A version the UI does not render is not activated.
func TestA2UIActivatesEachVersionTheUIRenders(t *testing.T) {
	var mu sync.Mutex
	var ext, xext string
	var caps any
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(&demoagent.Agent{}, a2asrv.WithLogger(slog.New(slog.DiscardHandler))))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Params struct {
				Message struct {
					Metadata map[string]any `json:"metadata"`
				} `json:"message"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		ext, xext, caps = r.Header.Get("A2A-Extensions"), r.Header.Get("X-A2A-Extensions"), req.Params.Message.Metadata["a2uiClientCapabilities"]
		mu.Unlock()
		rpc.ServeHTTP(w, r)
	}))
	defer hs.Close()
	const v09 = `"v0.9":{"supportedCatalogIds":["https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"]}`
	const v08 = `"supportedCatalogIds":["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]`
	for _, tc := range []struct {
		declared     []string
		header, caps string
	}{
		{[]string{agents.A2UIExtensionV091, agents.A2UIExtensionV08}, agents.A2UIExtensionV091 + ", " + agents.A2UIExtensionV08, "{" + v08 + "," + v09 + "}"},
		{[]string{agents.A2UIExtensionV08}, agents.A2UIExtensionV08, "{" + v08 + "}"},
		{[]string{agents.A2UIExtensionV09}, agents.A2UIExtensionV09, "{" + v09 + "}"},
		{[]string{agents.A2UIExtensionPrefix + "v1.0", agents.A2UIExtensionV08}, agents.A2UIExtensionV08, "{" + v08 + "}"},
		{[]string{agents.A2UIExtensionPrefix + "v1.0"}, "", "null"},
	} {
		card := a2a.AgentCard{Name: "t", Description: "t", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: true},
			SupportedInterfaces: []*a2a.AgentInterface{{URL: hs.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
			DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
		for _, u := range tc.declared {
			card.Capabilities.Extensions = append(card.Capabilities.Extensions, a2a.AgentExtension{URI: u})
		}
		raw, _ := json.Marshal(card)
		conn, err := agents.Dial(t.Context(), raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range conn.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello")), true) {
			if err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
		mu.Lock()
		got, _ := json.Marshal(caps)
		if ext != tc.header || xext != tc.header || string(got) != tc.caps {
			t.Errorf("declared %v: A2A-Extensions %q, X-A2A-Extensions %q, capabilities %s; want %q and %s", tc.declared, ext, xext, got, tc.header, tc.caps)
		}
		mu.Unlock()
	}
}
