package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/server"
)

// panicky is an executor with a bug.
type panicky struct{}

func (panicky) Execute(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {
		var parts []*a2a.Part
		_ = parts[3].Content // index out of range, as a nil part once did in the demo agent
	}
}

func (panicky) Cancel(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) { panic("cancel bug") }
}

// syncBuffer is a log sink tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A panic's text and stack are the server's business: every dialect, unary or streaming, answers a
// bare -32603 "internal error", and the stack goes to the server's log.
func TestPanicAnswersInternalErrorWithoutInternals(t *testing.T) {
	var logs syncBuffer
	a := startDemo(t, func(c *server.Config) {
		c.Executor = panicky{}
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	leaks := []string{"goroutine", "panic", "index out of range", ".go:"}
	checkError := func(t *testing.T, r rpcResp, raw string) {
		t.Helper()
		if r.Error == nil || r.Error.Code != -32603 || r.Error.Message != "internal error" {
			t.Fatalf("got %s, want a bare -32603", raw)
		}
		for _, l := range leaks {
			if strings.Contains(raw, l) {
				t.Fatalf("the answer tells %q: %s", l, raw)
			}
		}
	}
	unary := map[string]string{
		"v1.0 SendMessage":   `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"p1","role":"ROLE_USER","parts":[{"text":"x"}]}}}`,
		"v0.3 message/send":  `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"p2","role":"user","parts":[{"kind":"text","text":"x"}]}}}`,
		"v0.1 tasks/send":    `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"p3","message":{"role":"user","parts":[{"type":"text","text":"x"}]}}}`,
		"batch, v1.0 inside": `[{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"p4","role":"ROLE_USER","parts":[{"text":"x"}]}}}]`,
	}
	for name, body := range unary {
		t.Run(name, func(t *testing.T) {
			_, raw := post(t, a.URL, body)
			var r rpcResp
			if strings.HasPrefix(body, "[") {
				var rs []rpcResp
				if err := json.Unmarshal(raw, &rs); err != nil || len(rs) != 1 {
					t.Fatalf("batch answer %s", raw)
				}
				r = rs[0]
			} else if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("answer %s", raw)
			}
			checkError(t, r, string(raw))
		})
	}
	streaming := map[string]string{
		"v1.0 SendStreamingMessage": `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"s1","role":"ROLE_USER","parts":[{"text":"x"}]}}}`,
		"v0.3 message/stream":       `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"s2","role":"user","parts":[{"kind":"text","text":"x"}]}}}`,
		"v0.1 tasks/sendSubscribe":  `{"jsonrpc":"2.0","id":1,"method":"tasks/sendSubscribe","params":{"id":"s3","message":{"role":"user","parts":[{"type":"text","text":"x"}]}}}`,
	}
	for name, body := range streaming {
		t.Run(name, func(t *testing.T) {
			events := stream(t, a.URL, body)
			if len(events) == 0 {
				t.Fatal("no events")
			}
			last := events[len(events)-1]
			raw, _ := json.Marshal(events)
			checkError(t, last, string(raw))
		})
	}
	if log := logs.String(); !strings.Contains(log, "index out of range") || !strings.Contains(log, "goroutine") {
		t.Fatalf("the panic and its stack are not in the server's log:\n%s", log)
	}
}

// The demo agent once panicked on a null part and sent the stack back (issue 9). Whatever code a
// null part gets, the answer holds nothing of the server's internals.
func TestNullPartAnswerHoldsNoInternals(t *testing.T) {
	a := startDemo(t)
	var answers []string
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"n1","role":"ROLE_USER","parts":[null]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"n2","role":"user","parts":[null]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"n3","message":{"role":"user","parts":[null]}}}`,
	} {
		_, raw := post(t, a.URL, body)
		answers = append(answers, string(raw))
	}
	events := stream(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"n4","role":"ROLE_USER","parts":[null]}}}`)
	raw, _ := json.Marshal(events)
	answers = append(answers, string(raw))
	for _, ans := range answers {
		if !strings.Contains(ans, `"error"`) {
			t.Fatalf("a null part was accepted: %s", ans)
		}
		for _, l := range []string{"goroutine", "panic", ".go:", "nil pointer"} {
			if strings.Contains(ans, l) {
				t.Fatalf("the answer tells %q: %s", l, ans)
			}
		}
	}
}
