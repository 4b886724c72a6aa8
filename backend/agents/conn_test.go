package agents

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// draftOnlyServer speaks only the v0.1 draft: every v1.0 and v0.3 method name is -32601, and so
// is a v1.0 streaming call, answered with plain JSON as real servers do before a stream starts.
func draftOnlyServer(t *testing.T) *rpcServer {
	var mu sync.Mutex
	sessions := map[string]string{}
	task := func(id, state string) map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return map[string]any{"id": id, "sessionId": sessions[id], "status": map[string]any{"state": state},
			"artifacts": []any{map[string]any{"index": 0, "parts": []any{map[string]any{"type": "text", "text": "pong"}}}}}
	}
	return newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/send": func(w http.ResponseWriter, c *rpcCall) {
			p := decodeParams(t, c)
			mu.Lock()
			sessions[p["id"].(string)] = p["sessionId"].(string)
			mu.Unlock()
			writeRPCResult(w, c.ID, task(p["id"].(string), "completed"))
		},
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) {
			writeRPCResult(w, c.ID, task(decodeParams(t, c)["id"].(string), "completed"))
		},
		"tasks/sendSubscribe": func(w http.ResponseWriter, c *rpcCall) {
			id := decodeParams(t, c)["id"].(string)
			writeSSE(w, rpcData(c.ID, fmt.Sprintf(`{"id":%q,"artifact":{"index":0,"parts":[{"type":"text","text":"pong"}],"lastChunk":true}}`, id)),
				rpcData(c.ID, fmt.Sprintf(`{"id":%q,"status":{"state":"completed"},"final":true}`, id)))
		},
	})
}

func v1Card(url string) []byte {
	return []byte(`{"name":"x","capabilities":{"streaming":true},"supportedInterfaces":[{"url":"` + url + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`)
}

func TestConnFallsBackOnMethodNotFound(t *testing.T) {
	s := draftOnlyServer(t)
	ctx := t.Context()

	t.Run("unary", func(t *testing.T) {
		c, err := Dial(ctx, v1Card(s.URL), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if c.Dialect() != V10 || !c.Streaming() {
			t.Fatalf("dialect %s streaming %v", c.Dialect(), c.Streaming())
		}
		before := len(s.called())
		events, err := collect(c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping")), false))
		if err != nil {
			t.Fatal(err)
		}
		if task := events[0].(*a2a.Task); task.Status.State != a2a.TaskStateCompleted || task.Artifacts[0].Parts[0].Text() != "pong" {
			t.Fatalf("task %+v", task)
		}
		if got := s.called()[before:]; !slices.Equal(got, []string{"SendMessage", "message/send", "tasks/send"}) {
			t.Fatalf("calls %v", got)
		}
		if c.Dialect() != V01 {
			t.Fatalf("dialect %s after fallback, want %s", c.Dialect(), V01)
		}
		// The Conn stays on v0.1: the next call goes there directly.
		before = len(s.called())
		if _, err := c.GetTask(ctx, events[0].(*a2a.Task).ID); err != nil {
			t.Fatal(err)
		}
		if got := s.called()[before:]; !slices.Equal(got, []string{"tasks/get"}) {
			t.Fatalf("calls after fallback %v", got)
		}
	})

	t.Run("stream", func(t *testing.T) {
		c, err := Dial(ctx, v1Card(s.URL), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		before := len(s.called())
		events, err := collect(c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping")), true))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[0].(*a2a.TaskArtifactUpdateEvent).Artifact.Parts[0].Text() != "pong" {
			t.Fatalf("events %v", events)
		}
		if got := s.called()[before:]; !slices.Equal(got, []string{"SendStreamingMessage", "message/stream", "tasks/sendSubscribe"}) {
			t.Fatalf("calls %v", got)
		}
		if c.Dialect() != V01 {
			t.Fatalf("dialect %s", c.Dialect())
		}
	})

	t.Run("concurrent first calls move on once", func(t *testing.T) {
		c, err := Dial(ctx, v1Card(s.URL), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				_, err := collect(c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ping")), false))
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if c.Dialect() != V01 {
			t.Fatalf("dialect %s", c.Dialect())
		}
	})
}

func TestConnMethodNotFoundEverywhere(t *testing.T) {
	s := newRPCServer(t, nil)
	c, err := Dial(t.Context(), v1Card(s.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.GetTask(t.Context(), "x"); !errors.Is(err, a2a.ErrMethodNotFound) {
		t.Fatalf("GetTask: %v", err)
	}
	if got := s.called(); !slices.Equal(got, []string{"GetTask", "tasks/get", "tasks/get"}) {
		t.Fatalf("calls %v", got)
	}
	if c.Dialect() != V01 {
		t.Fatalf("dialect %s: the last endpoint stays in use", c.Dialect())
	}
}

// TestConnNoFallbackAfterEvents: a method-not-found error after the stream has yielded something is
// the stream's error, not a reason to start over elsewhere.
func TestConnNoFallbackAfterEvents(t *testing.T) {
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/sendSubscribe": func(w http.ResponseWriter, c *rpcCall) {
			writeSSE(w, rpcData(c.ID, `{"id":"t","status":{"state":"working"}}`),
				fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"tool not found"}}`, c.ID))
		},
	})
	c := dialDraft(t, s)
	events, err := collect(c.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("x")), true))
	if len(events) != 1 || !errors.Is(err, a2a.ErrMethodNotFound) {
		t.Fatalf("events %v err %v", events, err)
	}
	if got := s.called(); !slices.Equal(got, []string{"tasks/sendSubscribe"}) || c.Dialect() != V01 {
		t.Fatalf("calls %v dialect %s", got, c.Dialect())
	}
}

// TestConnWithoutStreaming: an agent whose card does not stream gets one non-streaming call, even
// when the caller asks for a stream.
func TestConnWithoutStreaming(t *testing.T) {
	s := draftOnlyServer(t)
	c, err := Dial(t.Context(), []byte(`{"url":"`+s.URL+`"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events, err := collect(c.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("x")), true))
	if err != nil || len(events) != 1 {
		t.Fatalf("events %v err %v", events, err)
	}
	if _, ok := events[0].(*a2a.Task); !ok || !slices.Equal(s.called(), []string{"tasks/send"}) {
		t.Fatalf("event %T calls %v", events[0], s.called())
	}
	if _, err := collect(c.Send(t.Context(), nil, false)); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Fatalf("nil message: %v", err)
	}
}

func TestDialRefusesBadCards(t *testing.T) {
	if _, err := Dial(t.Context(), []byte(`{"url":"relative/path"}`), nil); err == nil {
		t.Fatal("Dial accepted a relative url")
	}
	if _, err := Dial(t.Context(), []byte(`{}`), nil); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("Dial of an empty card: %v", err)
	}
}

// An agent that has no push config method answers -32601: that means no push, and the Conn stays in
// its dialect for every other call.
func TestSetPushConfigDoesNotMoveTheConn(t *testing.T) {
	s := draftOnlyServer(t)
	c, err := Dial(t.Context(), v1Card(s.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.SetPushConfig(t.Context(), "task-1", "http://127.0.0.1:1/push/in/x", "tok")
	if !errors.Is(err, a2a.ErrMethodNotFound) {
		t.Errorf("SetPushConfig: %v, want method not found", err)
	}
	if got := s.called(); c.Dialect() != V10 || !slices.Equal(got, []string{"CreateTaskPushNotificationConfig"}) {
		t.Errorf("dialect %s after calls %v, want still %s after one call", c.Dialect(), got, V10)
	}
}
