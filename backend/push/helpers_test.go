package push_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/tasks"
)

// Deadlines guard against hangs only; no test asserts on how long anything takes.
const waitDeadline = 30 * time.Second

// startAgent runs the demo agent as the hub runs it (hub.StartAgent: real database, loopback
// listener, outbox, signing key, JWKS), with short retry waits.
func startAgent(t *testing.T, opts hub.PushOptions) *hub.Agent {
	t.Helper()
	if opts.RetryMax == 0 {
		opts.RetryMax = 20 * time.Millisecond
	}
	spec := hub.DemoSpec(hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", Version: "test", Logger: slog.New(slog.DiscardHandler)}))
	spec.Push = opts
	a, err := hub.StartAgent(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a
}

// remoteFront serves a's routes as if every caller came from a public address (203.0.113.7): the
// hub itself listens on loopback only, so this is how a remote caller reaches its handlers in a test.
func remoteFront(t *testing.T, a *hub.Agent) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = "203.0.113.7:40000"
		a.Server.Mux().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + server.RPCPath
}

// received is one request a webhook got.
type received struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	Status int // what the webhook answered
}

// webhook is a notification receiver on loopback; answer decides each reply (n counts requests
// from 1), by default 204 to POSTs and the validationToken to GETs.
type webhook struct {
	*httptest.Server
	answer func(r *http.Request, n int) (int, string)

	mu  sync.Mutex
	got []received
}

func newWebhook(t *testing.T, answer func(r *http.Request, n int) (int, string)) *webhook {
	t.Helper()
	h := &webhook{answer: answer}
	if h.answer == nil {
		h.answer = echoChallenge
	}
	h.Server = httptest.NewServer(h)
	t.Cleanup(h.Close)
	return h
}

// echoChallenge answers the v0.1 challenge correctly and takes every notification.
func echoChallenge(r *http.Request, _ int) (int, string) {
	if r.Method == http.MethodGet {
		return http.StatusOK, r.URL.Query().Get("validationToken")
	}
	return http.StatusNoContent, ""
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	n := len(h.got) + 1
	status, reply := h.answer(r, n)
	h.got = append(h.got, received{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body, Status: status})
	h.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, reply)
}

// requests is a copy of what the webhook received so far.
func (h *webhook) requests() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

// accepted are the POSTs the webhook answered with 2xx, in arrival order.
func (h *webhook) accepted() []received {
	var out []received
	for _, r := range h.requests() {
		if r.Method == http.MethodPost && r.Status < 300 {
			out = append(out, r)
		}
	}
	return out
}

// waitFor polls cond until it holds; the deadline only guards against a hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settled waits until the outbox has nothing pending for the task and returns its status.
func settled(t *testing.T, a *hub.Agent, taskID a2a.TaskID) []pushStatus {
	t.Helper()
	var st []pushStatus
	waitFor(t, "the outbox to settle for task "+string(taskID), func() bool {
		s, err := a.Push.Status(context.Background(), taskID)
		if err != nil {
			t.Fatal(err)
		}
		st = s
		for _, c := range s {
			if c.Pending > 0 {
				return false
			}
		}
		return len(s) > 0
	})
	return st
}

// loggedEvents are the task's logged stream events (what v1.0 notifications carry), in order.
func loggedEvents(t *testing.T, a *hub.Agent, id a2a.TaskID) []*tasks.Logged {
	t.Helper()
	all, err := a.Tasks.Log(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []*tasks.Logged
	for _, l := range all {
		if l.Kind != "message" {
			out = append(out, l)
		}
	}
	return out
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpc makes one JSON-RPC call to url and returns its result or error.
func rpc(t *testing.T, url, method string, params any) (json.RawMessage, *rpcError) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: not JSON-RPC: %s", method, raw)
	}
	return r.Result, r.Error
}

// mustRPC is rpc that fails the test on a JSON-RPC error.
func mustRPC(t *testing.T, url, method string, params any) json.RawMessage {
	t.Helper()
	res, e := rpc(t, url, method, params)
	if e != nil {
		t.Fatalf("%s: error %d %s", method, e.Code, e.Message)
	}
	return res
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
