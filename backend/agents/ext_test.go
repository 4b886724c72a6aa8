package agents_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// memWire keeps what the client records.
type memWire struct {
	mu      sync.Mutex
	entries []wirelog.Entry
}

func (w *memWire) Record(e wirelog.Entry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.entries = append(w.entries, e)
}

func (w *memWire) all() []wirelog.Entry {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wirelog.Entry(nil), w.entries...)
}

const extKey = "ext-secret-key-0123456789"

// extAgent is an agent offering the extensions (v0.3 card, API key in X-Api-Key): each method
// answers as a real server does, and the key, when it echoes it, must never reach the caller.
func extAgent(t *testing.T, caps string, elsewhere string) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var calls []string
	var s *httptest.Server
	s = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/agent-card.json" {
			fmt.Fprintf(w, `{"name":"ext","protocolVersion":"0.3.0","url":%q,"preferredTransport":"JSONRPC",
				"capabilities":%s,"securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-Api-Key"}},
				"security":[{"key":[]}],"skills":[]}`, s.URL+"/a2a", caps)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		mu.Lock()
		calls = append(calls, req.Method)
		mu.Unlock()
		if r.Header.Get("X-Api-Key") != extKey {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32030,"message":"unknown API key"}}`, req.ID)
			return
		}
		result := func(v string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, v) }
		rpcErr := func(code int, msg, data string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, req.ID, code, msg, data)
		}
		switch req.Method {
		case "channels/list":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(`{"channels":[{"id":"c1","name":"general","metadata":{"note":"the key is `+extKey+`"}}],"params":`+string(req.Params)+`}`))
		case "channels/get":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, rpcErr(-32020, "channel not found: nope", `{"channelId":"nope"}`))
		case "channels/stream":
			var p struct{ ChannelID string }
			json.Unmarshal(req.Params, &p)
			w.Header().Set("Content-Type", "application/json")
			if p.ChannelID == "big" { // one event over the limit, as an older hub stored it, then the next
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "data: %s\n\ndata: %s\n\n",
					result(`{"kind":"messageEvent","event":{"id":"ev-big","channelId":"big","sequence":7,"timestamp":5,"author":"remote://x","parts":[{"type":"text","text":"`+
						strings.Repeat("x", jsonrpc.MaxSSEEvent)+`"}],"kind":"messageEvent"}}`),
					result(`{"kind":"messageEvent","event":{"sequence":8}}`))
				return
			}
			if p.ChannelID != "c1" { // refused before the stream opens, as JSON
				fmt.Fprint(w, rpcErr(-32020, "channel not found: "+p.ChannelID, "null"))
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, ": keep-alive\n\ndata: %s\n\ndata: %s\n\ndata: %s\n\n",
				result(`{"kind":"messageEvent","sequence":1}`), result(`{"kind":"messageEvent","sequence":2,"text":"`+extKey+`"}`),
				rpcErr(-32021, "removed from "+p.ChannelID, `{"channelId":"c1"}`))
		case "knowledge/query":
			http.Redirect(w, r, elsewhere, http.StatusTemporaryRedirect)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, rpcErr(-32601, "method not found", "null"))
		}
	}))
	t.Cleanup(s.Close)
	return s, &calls
}

func extClients(t *testing.T, wire wirelog.Recorder) (*agents.Registry, *agents.Clients) {
	t.Helper()
	dir := t.TempDir()
	reg, db := openRegistry(t, filepath.Join(dir, "hub.db"))
	t.Cleanup(func() { db.Close() })
	secrets, err := credentials.OpenSecrets(dir, "file")
	if err != nil {
		t.Fatal(err)
	}
	return reg, agents.NewClients(reg, secrets, wire)
}

// TestExtCallsGoThroughTheAgentsClient: extension methods go to the card's endpoint with the saved
// key; the agent's JSON-RPC errors arrive with their own code, message and data (before a stream
// opens, and within it); the key the agent echoes is masked in results and in the wire log; a card
// without the extension is refused before any request; a redirect elsewhere is not followed.
func TestExtCallsGoThroughTheAgentsClient(t *testing.T) {
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a redirect to another origin was followed, with the agent's key")
	}))
	t.Cleanup(elsewhere.Close)
	srv, _ := extAgent(t, `{"messaging":{"channels":{"version":"0.1"}},"knowledgeGraph":true}`, elsewhere.URL+"/a2a")
	wire := &memWire{}
	reg, clients := extClients(t, wire)
	ctx := t.Context()
	rem, err := reg.Add(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}

	// Without the key: the agent's refusal is an auth error.
	_, err = clients.ExtCall(ctx, rem.ID, "channels/list", nil)
	var auth *credentials.AuthError
	if !errors.As(err, &auth) || auth.Status != http.StatusUnauthorized {
		t.Fatalf("without a key: %v, want an *AuthError 401", err)
	}
	if err := clients.SaveCredential(ctx, rem.ID, "key", credentials.Secret{APIKey: extKey}); err != nil {
		t.Fatal(err)
	}

	res, err := clients.ExtCall(ctx, rem.ID, "channels/list", json.RawMessage(`{"pageSize":5}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res), extKey) || !strings.Contains(string(res), `"params":{"pageSize":5}`) || !json.Valid(res) {
		t.Fatalf("channels/list result: %s", res)
	}

	_, err = clients.ExtCall(ctx, rem.ID, "channels/get", json.RawMessage(`{"channelId":"nope"}`))
	var rpc *agents.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32020 || rpc.Message != "channel not found: nope" || string(rpc.Data) != `{"channelId":"nope"}` {
		t.Fatalf("channels/get of an unknown channel: %#v", err)
	}

	// A stream refused before it opens is the call's error; no stream.
	if _, err := clients.ExtStream(ctx, rem.ID, "channels/stream", json.RawMessage(`{"channelId":"nope"}`)); !errors.As(err, &rpc) || rpc.Code != -32020 {
		t.Fatalf("a refused stream: %v", err)
	}
	st, err := clients.ExtStream(ctx, rem.ID, "channels/stream", json.RawMessage(`{"channelId":"c1"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var streamErr error
	for r, err := range st.Results() {
		if err != nil {
			streamErr = err
			break
		}
		got = append(got, string(r))
	}
	st.Close()
	if len(got) != 2 || !strings.Contains(got[0], `"sequence":1`) || strings.Contains(got[1], extKey) || !strings.Contains(got[1], "•••") {
		t.Fatalf("stream results: %v", got)
	}
	if !errors.As(streamErr, &rpc) || rpc.Code != -32021 || string(rpc.Data) != `{"channelId":"c1"}` {
		t.Fatalf("the stream's error: %v", streamErr)
	}

	// An event over the limit is passed as a placeholder naming it, and the stream goes on: ended
	// there, it would end there again on every resume.
	st, err = clients.ExtStream(ctx, rem.ID, "channels/stream", json.RawMessage(`{"channelId":"big"}`))
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		ID       string `json:"id"`
		Sequence int64  `json:"sequence"`
		Author   string `json:"author"`
		Parts    []struct {
			Text string `json:"text"`
		} `json:"parts"`
		Metadata struct {
			Agenthub struct {
				Omitted struct {
					Bytes int `json:"bytes"`
				} `json:"omitted"`
			} `json:"agenthub"`
		} `json:"metadata"`
	}
	var passed []event
	for r, err := range st.Results() {
		if err != nil {
			t.Fatalf("the stream ended at the event over %d bytes: %v", jsonrpc.MaxSSEEvent, err)
		}
		var item struct{ Event event }
		if err := json.Unmarshal(r, &item); err != nil {
			t.Fatalf("%.200s: %v", r, err)
		}
		passed = append(passed, item.Event)
	}
	st.Close()
	if len(passed) != 2 || passed[0].Sequence != 7 || passed[0].ID != "ev-big" || passed[0].Author != "remote://x" ||
		passed[0].Metadata.Agenthub.Omitted.Bytes <= jsonrpc.MaxSSEEvent || !strings.Contains(passed[0].Parts[0].Text, "too large") || passed[1].Sequence != 8 {
		t.Errorf("the stream past the large event: %+v", passed)
	}

	// A redirect to another origin is refused, not followed with the key.
	var redirect *credentials.RedirectError
	if _, err := clients.ExtCall(ctx, rem.ID, "knowledge/query", json.RawMessage(`{"query":"{ x }"}`)); !errors.As(err, &redirect) {
		t.Fatalf("a cross-origin redirect: %v", err)
	}

	// Everything is in the wire log, under the JSON-RPC method, with the key masked.
	methods := map[string]bool{}
	for _, e := range wire.all() {
		methods[e.Method] = true
		if strings.Contains(e.Body, extKey) || strings.Contains(fmt.Sprint(e.Header), extKey) {
			t.Fatalf("the wire log holds the key: %+v", e)
		}
	}
	for _, m := range []string{"channels/list", "channels/get", "channels/stream", "knowledge/query"} {
		if !methods[m] {
			t.Errorf("the wire log has no %s", m)
		}
	}

	// A card without the extensions: refused with no request sent.
	plain, plainCalls := extAgent(t, `{"streaming":true}`, elsewhere.URL)
	rem2, err := reg.Add(ctx, plain.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"channels/list", "knowledge/query"} {
		if _, err := clients.ExtCall(ctx, rem2.ID, m, nil); !errors.Is(err, agents.ErrExtensionNotOffered) {
			t.Fatalf("%s on an agent without the extension: %v", m, err)
		}
	}
	if _, err := clients.ExtStream(ctx, rem2.ID, "knowledge/subscribe", nil); !errors.Is(err, agents.ErrExtensionNotOffered) {
		t.Fatalf("a stream on an agent without the extension: %v", err)
	}
	if len(*plainCalls) != 0 {
		t.Fatalf("calls reached the agent without the extension: %v", *plainCalls)
	}
	if _, err := clients.ExtCall(ctx, rem.ID, "tasks/get", nil); !errors.Is(err, agents.ErrExtensionNotOffered) {
		t.Fatalf("a method of no extension: %v", err)
	}
}
