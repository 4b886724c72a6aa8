package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

// What the store's connections return when PostgreSQL is down, as a feature package wraps it, and
// as a2a-go's handlers turn it into a JSON-RPC error's text.
var (
	storeDown     = fmt.Errorf("tasks: load task t1: %w", fmt.Errorf("%w: failed to connect to `user=agenthub database=hub`: dial tcp 10.0.0.7:5432: connect: connection refused", store.ErrUnavailable))
	serverGone    = fmt.Errorf("push: list configs: %w", &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"})
	a2aGoText     = &rpcError{Code: codeInternal, Message: "failed to load task: " + storeDown.Error()}
	notStorage    = errors.New("tasks: decode: unexpected end of JSON input")
	internalsSeen = []string{"10.0.0.7", "5432", "user=agenthub", "dial tcp", "SQLSTATE", "administrator"}
)

func TestStorageErrorsAnswerStorageUnavailable(t *testing.T) {
	for name, err := range map[string]error{"wrapped": storeDown, "pgx server error": serverGone, "a2a-go's text": a2aGoText} {
		re := toRPCError(err)
		if re.Code != codeInternal || re.Message != storageMessage {
			t.Errorf("%s: %d %q, want -32603 %q", name, re.Code, re.Message, storageMessage)
		}
		for d, want := range map[tasks.Dialect]string{tasks.DialectV1: "[", tasks.DialectV03: "{", tasks.DialectV01: "null"} {
			out := inDialect(d, toRPCError(err))
			b, _ := json.Marshal(out)
			noInternals(t, name, string(b))
			data, _ := json.Marshal(out.Data)
			if !strings.HasPrefix(string(data), want) || (want != "null" && !strings.Contains(string(data), "STORAGE_UNAVAILABLE")) {
				t.Errorf("%s in dialect %v: data %s, want the ErrorInfo's shape of the dialect (%s…)", name, d, data, want)
			}
		}
	}
	if re := toRPCError(notStorage); re.Message == storageMessage {
		t.Errorf("an error that is not the database's answered as storage: %v", re)
	}
	if StorageUnavailable(errors.New("dial tcp: connection refused")) {
		t.Error("a network error from elsewhere (a push delivery) counted as the database's")
	}
}

// A stream's error event that a2a-go wrote with the store's text is rewritten into the answer.
func TestStorageErrorInStreamEvent(t *testing.T) {
	event, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "error": a2aGoText})
	for _, d := range []tasks.Dialect{tasks.DialectV1, tasks.DialectV03, tasks.DialectV01} {
		out, ok := rewriteErrorResponse(d, append(append([]byte("data: "), event...), '\n', '\n'))
		if !ok || !bytes.Contains(out, []byte(storageMessage)) || !bytes.HasSuffix(out, []byte("}\n\n")) {
			t.Fatalf("dialect %v: %q", d, out)
		}
		noInternals(t, "stream event", string(out))
	}
}

// Through the router: a unary call, a batch and an extension's stream that fail on the store answer
// the storage error (HTTP 200, as every JSON-RPC error: a2a-go's clients read no body of a non-200),
// and the log keeps the cause.
func TestRouterAnswersStorageUnavailable(t *testing.T) {
	var logged bytes.Buffer
	rt := &router{methods: map[string]method{}, shared: map[string]map[tasks.Dialect]method{}, maxBody: 1 << 20,
		log: slog.New(slog.NewTextHandler(&logged, nil)), bodyTimeout: time.Second, writeTimeout: time.Second,
		streams: newStreamLimits(4, 4)}
	rt.methods["v03/call"] = method{dialect: tasks.DialectV03, call: callInDialect(tasks.DialectV03,
		func(context.Context, *request) (json.RawMessage, error) { return nil, a2aGoText })}
	rt.methods["draft/call"] = method{dialect: tasks.DialectV01, call: callInDialect(tasks.DialectV01,
		func(context.Context, *request) (json.RawMessage, error) { return nil, storeDown })}
	rt.methods["checked"] = method{dialect: tasks.DialectV1, call: func(context.Context, *request) (json.RawMessage, error) { return nil, nil },
		precheck: func(context.Context, *request) error { return serverGone }}
	if err := rt.addExtension(testExtension{
		"ext/call": {Call: func(context.Context, json.RawMessage) (any, error) { return nil, storeDown }},
		"ext/stream": {Stream: func(context.Context, json.RawMessage) (func(ctx context.Context, send func(any) error) error, error) {
			return func(ctx context.Context, send func(any) error) error {
				if err := send(map[string]int{"n": 1}); err != nil {
					return err
				}
				return storeDown // the database went away mid-stream
			}, nil
		}},
	}, time.Second); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rt)
	defer srv.Close()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"v03/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"draft/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"checked","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ext/call","params":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"v03/call","params":{}}]`,
	} {
		status, got := post(t, srv.URL, body)
		if status != http.StatusOK || !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, storageMessage) {
			t.Errorf("%s: HTTP %d %s", body, status, got)
		}
		noInternals(t, body, got)
	}
	status, got := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"ext/stream","params":{}}`)
	events := strings.Split(strings.TrimSpace(got), "\n\n")
	if status != http.StatusOK || len(events) != 2 || !strings.Contains(events[0], `"n":1`) || !strings.Contains(events[1], storageMessage) {
		t.Errorf("stream: HTTP %d, events %q: want the result, then the storage error as its last event", status, events)
	}
	noInternals(t, "stream", got)
	if !strings.Contains(logged.String(), "10.0.0.7") {
		t.Errorf("the log lost the cause:\n%s", logged.String())
	}
}

// The credentials of a request live in the database: with it down, the request is refused before its
// body with HTTP 503, Retry-After and the storage error, not 500.
func TestAuthenticateStorageUnavailable(t *testing.T) {
	h := authenticate(downAuth{}, "http://127.0.0.1/oauth/token", slog.New(slog.NewTextHandler(io.Discard, nil)), jsonRPCFail,
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("admitted") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/a2a", strings.NewReader(`{}`)))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), storageMessage) {
		t.Errorf("HTTP %d, Retry-After %q, %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
	}
	noInternals(t, "authenticate", rec.Body.String())
	rec = httptest.NewRecorder()
	WriteUnavailable(rec)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "5" {
		t.Errorf("WriteUnavailable: HTTP %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
}

type testExtension map[string]ExtensionMethod

func (e testExtension) Methods() map[string]ExtensionMethod { return e }
func (e testExtension) Card() ExtensionCard                 { return ExtensionCard{} }

type downAuth struct{}

func (downAuth) ResolveContext(r *http.Request) (auth.Principal, context.Context, error) {
	return auth.Principal{}, r.Context(), fmt.Errorf("auth: look up key: %w", serverGone)
}
func (downAuth) AnonymousPolicy() auth.AnonymousPolicy { return auth.AnonymousSend }

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func noInternals(t *testing.T, what, answer string) {
	t.Helper()
	for _, s := range internalsSeen {
		if strings.Contains(answer, s) {
			t.Errorf("%s: the answer shows the cause's %q: %s", what, s, answer)
		}
	}
}
