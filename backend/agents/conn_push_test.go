package agents_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// A v0.1 draft agent (the demo agent's draft endpoint) takes the hub's push config with
// tasks/pushNotification/set, challenges the webhook, and pushes the whole task in the draft's shape,
// which the Conn reads back as the task.
func TestDraftPushConfigAndPayload(t *testing.T) {
	demo, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", Version: "test",
		Logger: slog.New(slog.DiscardHandler), Push: hub.PushOptions{RetryMax: 50 * time.Millisecond}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { demo.Stop() })

	var mu sync.Mutex
	var bodies [][]byte
	challenged := false
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodGet {
			challenged = true
			io.WriteString(w, r.URL.Query().Get("validationToken"))
			return
		}
		if r.Header.Get("X-A2A-Notification-Token") != "tok" {
			http.Error(w, "wrong token", http.StatusForbidden)
			return
		}
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, b)
	}))
	t.Cleanup(hook.Close)

	card, _ := json.Marshal(map[string]any{"name": "demo", "url": demo.BaseURL + "/a2a",
		"capabilities": map[string]any{"streaming": false, "pushNotifications": true}})
	conn, err := agents.Dial(t.Context(), card, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if conn.Dialect() != agents.V01 || !conn.PushNotifications() || conn.JWKSURL() != demo.BaseURL+agents.JWKSPath {
		t.Fatalf("dialect %s, pushes %v, JWKS at %s", conn.Dialect(), conn.PushNotifications(), conn.JWKSURL())
	}

	var task *a2a.Task
	for ev, err := range conn.Send(t.Context(), a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask")), false) {
		if err != nil {
			t.Fatal(err)
		}
		task, _ = ev.(*a2a.Task)
	}
	if task == nil || task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("the demo agent answered %+v, want a question", task)
	}
	if err := conn.SetPushConfig(t.Context(), task.ID, hook.URL+"/hook", "tok"); err != nil {
		t.Fatal(err)
	}
	reply := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("thanks"))
	reply.TaskID, reply.ContextID = task.ID, task.ContextID
	for _, err := range conn.Send(t.Context(), reply, false) {
		if err != nil {
			t.Fatal(err)
		}
	}

	// Each write of the task is pushed whole; wait for the one that ends it.
	completed := func() *a2a.Task {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bodies {
			ev, err := conn.ParsePush(b)
			if err != nil {
				t.Fatalf("notification %s: %v", b, err)
			}
			if got, ok := ev.(*a2a.Task); ok && got.ID == task.ID && got.Status.State == a2a.TaskStateCompleted {
				return got
			}
		}
		return nil
	}
	deadline := time.Now().Add(30 * time.Second) // a guard against hanging only
	for completed() == nil {
		if time.Now().After(deadline) {
			mu.Lock()
			n := len(bodies)
			mu.Unlock()
			t.Fatalf("no notification of the completed task among %d", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if !challenged {
		t.Error("the webhook was never challenged")
	}
}
