package uiapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/uiapi"
)

// A task whose webhook always answers 500 shows, live and in its detail, that delivery failed once
// the bounded retry time has passed.
func TestPushFailureIsOnTheTask(t *testing.T) {
	var posts atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	t.Cleanup(hook.Close)
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", DemoAddr: "127.0.0.1:0",
		Version: "test", Logger: slog.New(slog.DiscardHandler), Secrets: "file",
		Push: hub.PushOptions{RetryMax: 100 * time.Millisecond, GiveUpAfter: time.Second}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	c := dial(t, h)

	res, err := client(t, h.Demo.BaseURL).SendMessage(t.Context(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello")),
		Config:  &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: hook.URL + "/hook", Token: "t"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("the demo agent answered %T", res)
	}

	var up uiapi.PushUpdate
	c.await("push", func(data json.RawMessage) bool {
		return json.Unmarshal(data, &up) == nil && up.TaskID == string(task.ID) && up.Push.Failed > 0
	})
	if up.Agent != "demo" || up.Push.LastStatus != http.StatusInternalServerError {
		t.Errorf("pushed %+v, want the demo agent's task with the webhook's 500", up)
	}

	var d uiapi.TaskDetail
	c.result("tasks.get", map[string]string{"agent": "demo", "id": string(task.ID)}, &d)
	p := d.Push
	if p == nil {
		t.Fatal("tasks.get has no push summary")
	}
	if p.Configs != 1 || p.Failed == 0 || p.Delivered != 0 || p.LastStatus != 500 || p.LastError != "webhook answered 500 Internal Server Error" ||
		p.GiveUpAfterSeconds != 1 || p.LastFailureAt == "" {
		t.Errorf("push summary %+v, want one config, failures, the last 500, given up after 1 s", *p)
	}
	if posts.Load() < 2 {
		t.Errorf("the webhook got %d posts, want retries before giving up", posts.Load())
	}

	// A task without push configs has no summary.
	res, err = client(t, h.Demo.BaseURL).SendMessage(t.Context(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	if err != nil {
		t.Fatal(err)
	}
	var plain map[string]any
	c.result("tasks.get", map[string]string{"agent": "demo", "id": string(res.(*a2a.Task).ID)}, &plain)
	if _, ok := plain["push"]; ok {
		t.Errorf("a task without push configs has a push summary: %v", plain["push"])
	}
}
