package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

type testAgent struct {
	URL   string // JSON-RPC endpoint
	Base  string
	Store *tasks.Store
}

// startDemo serves the demo agent (fast pace) on a real loopback listener over a real SQLite file;
// opts adjust its server's config.
func startDemo(t testing.TB, opts ...func(*server.Config)) *testAgent {
	t.Helper()
	return startDemoOn(t, storetest.Target(t, filepath.Join(t.TempDir(), "test.db")), opts...)
}

// startDemoOn is startDemo over the database at target (a SQLite path or a PostgreSQL URL).
func startDemoOn(t testing.TB, target string, opts ...func(*server.Config)) *testAgent {
	t.Helper()
	cfg, ln := demoConfigOn(t, target)
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv.HTTPHandler()}}
	hs.Start()
	t.Cleanup(hs.Close)
	return &testAgent{URL: cfg.BaseURL + server.RPCPath, Base: cfg.BaseURL, Store: cfg.Store}
}

// demoConfig is the demo agent's server config over a fresh database (a SQLite file, or PostgreSQL in
// such a test run), and the listener it will serve on.
func demoConfig(t testing.TB) (server.Config, net.Listener) {
	t.Helper()
	return demoConfigOn(t, storetest.Target(t, filepath.Join(t.TempDir(), "test.db")))
}

// demoConfigOn is demoConfig over the database at target.
func demoConfigOn(t testing.TB, target string) (server.Config, net.Listener) {
	t.Helper()
	db, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ts, err := tasks.Open(t.Context(), db, bus.New(), "test")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := server.Config{Name: "test", Version: "test", Skills: demoagent.Skills,
		Executor: &demoagent.Agent{Tick: 50 * time.Millisecond}, Store: ts, PushConfigs: tasks.NewPushConfigs(db),
		BaseURL: base, MaxBodyBytes: 64 << 10, Logger: slog.New(slog.DiscardHandler)}
	t.Cleanup(func() { ln.Close() })
	return cfg, ln
}

type rpcResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// call posts one request and decodes one response.
func call(t *testing.T, url, body string) rpcResp {
	t.Helper()
	_, b := post(t, url, body)
	var r rpcResp
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("response %q is not a JSON-RPC response: %v", b, err)
	}
	return r
}

func mustResult(t *testing.T, r rpcResp, into any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("unexpected error %d: %s", r.Error.Code, r.Error.Message)
	}
	if err := json.Unmarshal(r.Result, into); err != nil {
		t.Fatalf("result %s: %v", r.Result, err)
	}
}

// stream posts a streaming request and returns every SSE data payload until the server closes.
func stream(t *testing.T, url, body string) []rpcResp {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("content type %q, body %s", ct, b)
	}
	var out []rpcResp
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		var r rpcResp
		if err := json.Unmarshal(line[6:], &r); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}
