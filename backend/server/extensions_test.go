package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/server"
)

// echoExtension is an extension as channels and knowledge are: a unary method, one that fails with
// its own code, and a stream, plus card fields.
type echoExtension struct{}

type codedError struct {
	code int
	msg  string
}

func (e codedError) Error() string { return e.msg }
func (e codedError) RPCCode() int  { return e.code }

func (echoExtension) Methods() map[string]server.ExtensionMethod {
	return map[string]server.ExtensionMethod{
		"echo/say": {Call: func(ctx context.Context, params json.RawMessage) (any, error) {
			var p struct{ Text string }
			if err := json.Unmarshal(params, &p); err != nil || p.Text == "" {
				return nil, codedError{-32602, "invalid params: text is required"}
			}
			return map[string]string{"said": p.Text}, nil
		}},
		"echo/fail": {Call: func(context.Context, json.RawMessage) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", codedError{-32020, "channel not found"})
		}},
		"echo/count": {Stream: func(ctx context.Context, params json.RawMessage) (func(context.Context, func(any) error) error, error) {
			var p struct{ To int }
			if err := json.Unmarshal(params, &p); err != nil || p.To < 1 {
				return nil, codedError{-32602, "invalid params: to must be positive"}
			}
			return func(ctx context.Context, send func(any) error) error {
				for i := 1; i <= p.To; i++ {
					if err := send(map[string]int{"n": i}); err != nil {
						return err
					}
				}
				return codedError{-32024, "rate limited"}
			}, nil
		}},
	}
}

func (echoExtension) Card() server.ExtensionCard {
	return server.ExtensionCard{
		Extension:    a2a.AgentExtension{URI: "https://example.org/ext/echo/v1", Description: "echo"},
		Capabilities: map[string]any{"echo": true},
	}
}

func TestExtensionMethodsCardAndErrors(t *testing.T) {
	a := startDemo(t, func(c *server.Config) { c.Extensions = []server.Extension{echoExtension{}} })

	var said map[string]string
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"echo/say","params":{"text":"hi"}}`), &said)
	if said["said"] != "hi" {
		t.Fatalf("echo/say answered %v", said)
	}
	if r := call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"echo/say","params":{}}`); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("echo/say without text: %+v", r.Error)
	}
	if r := call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"echo/fail"}`); r.Error == nil || r.Error.Code != -32020 || r.Error.Message != "wrapped: channel not found" {
		t.Fatalf("echo/fail: %+v", r.Error)
	}
	// A stream whose params are wrong is a plain error, not a stream.
	if r := call(t, a.URL, `{"jsonrpc":"2.0","id":4,"method":"echo/count","params":{"to":0}}`); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("echo/count to 0: %+v", r.Error)
	}
	events := stream(t, a.URL, `{"jsonrpc":"2.0","id":5,"method":"echo/count","params":{"to":3}}`)
	if len(events) != 4 || events[3].Error == nil || events[3].Error.Code != -32024 {
		t.Fatalf("echo/count to 3: %+v", events)
	}
	for i, e := range events[:3] {
		if string(e.Result) != fmt.Sprintf(`{"n":%d}`, i+1) || string(e.ID) != "5" {
			t.Fatalf("event %d: %s", i, e.Result)
		}
	}
	// An extension's stream is a stream: not in a batch.
	_, batch := post(t, a.URL, `[{"jsonrpc":"2.0","id":6,"method":"echo/count","params":{"to":1}}]`)
	if !strings.Contains(string(batch), "-32600") {
		t.Fatalf("a stream in a batch: %s", batch)
	}

	res, err := http.Get(a.Base + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var card struct {
		Capabilities struct {
			Echo       bool `json:"echo"`
			Extensions []struct {
				URI string `json:"uri"`
			} `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &card); err != nil || !card.Capabilities.Echo || len(card.Capabilities.Extensions) != 1 ||
		!strings.Contains(card.Capabilities.Extensions[0].URI, "echo") {
		t.Fatalf("card: %s", body)
	}
}

// An extension may not take a method the agent already serves.
func TestExtensionCannotTakeAnAgentMethod(t *testing.T) {
	cfg, _ := demoConfig(t)
	cfg.Extensions = []server.Extension{takeover{}}
	if _, err := server.New(cfg); err == nil || !strings.Contains(err.Error(), "already served") {
		t.Fatalf("New with an extension taking SendMessage: %v", err)
	}
}

type takeover struct{ echoExtension }

func (takeover) Methods() map[string]server.ExtensionMethod {
	return map[string]server.ExtensionMethod{"SendMessage": {Call: func(context.Context, json.RawMessage) (any, error) { return nil, nil }}}
}

// idleExtension's stream sends a pre-encoded result, then stays idle until released, then panics:
// an extension stream runs on the request's goroutine, yet keep-alive comments still come while it
// is idle, a RawResult is framed as it is with the stream's id, and a panic ends the stream with
// an internal error instead of the process.
type idleExtension struct{ release chan struct{} }

func (e idleExtension) Methods() map[string]server.ExtensionMethod {
	return map[string]server.ExtensionMethod{
		"idle/wait": {Stream: func(context.Context, json.RawMessage) (func(context.Context, func(any) error) error, error) {
			return func(ctx context.Context, send func(any) error) error {
				if err := send(server.RawResult(`{"raw":"\u003c"}`)); err != nil {
					return err
				}
				select {
				case <-e.release:
				case <-ctx.Done():
					return ctx.Err()
				}
				panic("extension bug")
			}, nil
		}},
	}
}

func (idleExtension) Card() server.ExtensionCard { return server.ExtensionCard{} }

func TestExtensionStreamKeepAliveRawResultAndPanic(t *testing.T) {
	ext := idleExtension{release: make(chan struct{})}
	a := startDemo(t, func(c *server.Config) {
		c.Extensions = []server.Extension{ext}
		c.KeepAlive = 20 * time.Millisecond
	})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, a.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"w<1>","method":"idle/wait"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	var lines []string
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		lines = append(lines, sc.Text())
		if sc.Text() == ": keep-alive" {
			select {
			case <-ext.release:
			default:
				close(ext.release) // a comment came while the stream was idle: let it go on
			}
		}
	}
	want0 := `data: {"jsonrpc":"2.0","id":"w\u003c1\u003e","result":{"raw":"\u003c"}}`
	last := lines[len(lines)-1]
	if lines[0] != want0 || !slices.Contains(lines, ": keep-alive") || !strings.Contains(last, `"code":-32603`) || !strings.Contains(last, `"id":"w\u003c1\u003e"`) {
		t.Fatalf("stream:\n%s", strings.Join(lines, "\n"))
	}
}
