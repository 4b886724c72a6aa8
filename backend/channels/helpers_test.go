package channels_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// testHub is the whole hub on a temporary data dir, anonymous access off, with principals that
// call it over its JSON-RPC endpoint with their API keys.
type testHub struct {
	*hub.Hub
	URL string // the JSON-RPC endpoint
}

func startHub(t testing.TB, dataDir string) *testHub {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	h, err := hub.Start(context.Background(), hubtest.Storage(t, hub.Config{DataDir: dataDir, Addr: "127.0.0.1:0",
		NoDemo: true, Version: "test", Secrets: "file", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	if err := h.Auth.SetAnonymousPolicy(context.Background(), auth.AnonymousOff); err != nil {
		t.Fatal(err)
	}
	return &testHub{Hub: h, URL: h.Agent.LocalURL + "/a2a"}
}

// principal is an agent://NAME calling the hub with its key.
type principal struct {
	t   testing.TB
	url string
	key string
	ID  string
	// bearer, when set, is sent as Authorization: Bearer instead of the key.
	bearer string
}

func (h *testHub) principal(t testing.TB, name string) *principal {
	t.Helper()
	if _, key, err := h.Auth.Principals.Add(context.Background(), name); err != nil {
		t.Fatal(err)
	} else {
		return &principal{t: t, url: h.URL, key: key, ID: "agent://" + name}
	}
	return nil
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

var ids atomic.Int64

func (p *principal) request(ctx context.Context, method string, params any) *http.Request {
	// Without HTML escaping, as JSON.stringify and most clients send JSON ('<' as one byte).
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": ids.Add(1), "method": method, "params": params}); err != nil {
		p.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, &body)
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	switch {
	case p.bearer != "":
		req.Header.Set("Authorization", "Bearer "+p.bearer)
	case p.key != "":
		req.Header.Set("X-Api-Key", p.key)
	}
	return req
}

// rpc makes one call and returns its result or its error.
func (p *principal) rpc(method string, params any) (json.RawMessage, *rpcError) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := http.DefaultClient.Do(p.request(ctx, method, params))
	if err != nil {
		p.t.Fatalf("%s: %v", method, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var r rpcResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		p.t.Fatalf("%s: HTTP %d, not JSON-RPC: %s", method, res.StatusCode, raw)
	}
	if r.Error == nil && r.Result == nil {
		p.t.Fatalf("%s: neither result nor error: %s", method, raw)
	}
	return r.Result, r.Error
}

// ok makes a call that must succeed and decodes its result into out (if not nil).
func (p *principal) ok(method string, params any, out any) json.RawMessage {
	p.t.Helper()
	res, e := p.rpc(method, params)
	if e != nil {
		p.t.Fatalf("%s as %s: error %d %s", method, p.ID, e.Code, e.Message)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero() // a reused result must not keep the last one's map keys
		if err := json.Unmarshal(res, out); err != nil {
			p.t.Fatalf("%s: result %s: %v", method, res, err)
		}
	}
	return res
}

// fails makes a call that must fail with code, and returns the error's message.
func (p *principal) fails(code int, method string, params any) string {
	p.t.Helper()
	res, e := p.rpc(method, params)
	if e == nil {
		p.t.Fatalf("%s as %s: want error %d, got result %s", method, p.ID, code, res)
	}
	if e.Code != code {
		p.t.Fatalf("%s as %s: want error %d, got %d %s", method, p.ID, code, e.Code, e.Message)
	}
	return e.Message
}

// wire types as a client reads them
type channel struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Visibility string         `json:"visibility"`
	CreatedBy  string         `json:"createdBy"`
	Version    int64          `json:"version"`
	Kind       string         `json:"kind"`
	Metadata   map[string]any `json:"metadata"`
	Members    []struct {
		PrincipalID string `json:"principalId"`
		Role        string `json:"role"`
	} `json:"members"`
}

type event struct {
	ID             string            `json:"id"`
	ChannelID      string            `json:"channelId"`
	Sequence       int64             `json:"sequence"`
	Timestamp      int64             `json:"timestamp"`
	Author         string            `json:"author"`
	Parts          []json.RawMessage `json:"parts"`
	Metadata       map[string]any    `json:"metadata"`
	IdempotencyKey string            `json:"idempotencyKey"`
	Kind           string            `json:"kind"`
}

type page struct {
	Events        []event `json:"events"`
	NextPageToken string  `json:"nextPageToken"`
}

func (p *principal) create(params map[string]any) channel {
	p.t.Helper()
	var r struct{ Channel channel }
	p.ok("channels/create", params, &r)
	return r.Channel
}

func (p *principal) publish(channelID, text string) event {
	p.t.Helper()
	var r struct{ Event event }
	p.ok("channels/publish", map[string]any{"channelId": channelID, "parts": []any{map[string]any{"type": "text", "text": text}}}, &r)
	return r.Event
}

func (p *principal) history(params map[string]any) page {
	p.t.Helper()
	var r page
	p.ok("channels/history", params, &r)
	return r
}

// sse is an open channels/stream: each data line is one JSON-RPC response.
type sse struct {
	t      testing.TB
	items  chan rpcResponse
	cancel context.CancelFunc
}

// stream opens channels/stream; a refusal before the stream opens is returned as its error.
func (p *principal) stream(params any) (*sse, *rpcError) {
	p.t.Helper()
	return p.streamMethod("channels/stream", params)
}

// streamMethod opens any streaming method; a refusal before the stream opens is returned as its error.
func (p *principal) streamMethod(method string, params any) (*sse, *rpcError) {
	p.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := p.request(ctx, method, params)
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		p.t.Fatal(err)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		defer cancel()
		defer res.Body.Close()
		var r rpcResponse
		raw, _ := io.ReadAll(res.Body)
		if err := json.Unmarshal(raw, &r); err != nil || r.Error == nil {
			p.t.Fatalf("%s: neither a stream nor an error: %s", method, raw)
		}
		return nil, r.Error
	}
	s := &sse{t: p.t, items: make(chan rpcResponse, 1024), cancel: cancel}
	go func() {
		defer close(s.items)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				var r rpcResponse
				if json.Unmarshal([]byte(strings.TrimSpace(data)), &r) == nil {
					s.items <- r
				}
			}
		}
	}()
	p.t.Cleanup(cancel)
	return s, nil
}

type streamItem struct {
	Kind  string `json:"kind"`
	Event *event `json:"event"`
}

// next is the stream's next item (ok=false once it ended), or its closing error.
func (s *sse) next() (item streamItem, e *rpcError, ok bool) {
	s.t.Helper()
	select {
	case r, ok := <-s.items:
		if !ok {
			return item, nil, false
		}
		if r.Error != nil {
			return item, r.Error, true
		}
		if err := json.Unmarshal(r.Result, &item); err != nil {
			s.t.Fatalf("stream item %s: %v", r.Result, err)
		}
		return item, nil, true
	case <-time.After(30 * time.Second):
		s.t.Fatal("no stream item within 30s")
	}
	return item, nil, false
}

// nextEvent skips heartbeats to the next message event.
func (s *sse) nextEvent() event {
	s.t.Helper()
	for {
		it, e, ok := s.next()
		if !ok || e != nil {
			s.t.Fatalf("stream ended (%v) while an event was expected", e)
		}
		if it.Kind == "messageEvent" {
			return *it.Event
		}
	}
}
