package interop

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/push"
)

// jsTokenHeader asks the official @a2a-js/sdk (js/push-token.mjs: its own push sender) which header
// carries a push config's token.
func jsTokenHeader(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH; install it, then run: npm ci --prefix backend/interop/js")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "push-token.mjs")
	cmd.Dir = jsDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node push-token.mjs: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") { // the SDK logs to stdout as well
		var r struct {
			TokenHeader *string `json:"tokenHeader"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.TokenHeader != nil {
			if *r.TokenHeader == "" {
				t.Fatalf("the JS SDK's sender sent the token in no header:\n%s", out)
			}
			return *r.TokenHeader
		}
	}
	t.Fatalf("push-token.mjs printed no result:\n%s", out)
	return ""
}

// A v1.0 push config's token reaches a webhook in the header the @a2a-js/sdk (and the Python SDK)
// read, X-A2A-Notification-Token, as well as in a2a-go v2's A2A-Notification-Token. The JS SDK's own
// sender is the judge of the name; the config is set by a2a-go v2's client in the request that
// starts the task.
func TestV1PushTokenReachesAJSSDKWebhook(t *testing.T) {
	want := jsTokenHeader(t)
	var mu sync.Mutex
	var got []http.Header
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)

	a := startDemoAgent(t)
	ctx := t.Context()
	card, err := agentcard.DefaultResolver.Resolve(ctx, a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	client, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("ask")),
		Config: &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: hook.URL, Token: "js-webhook-token"}}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // guards against a hang only
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no notification reached the webhook")
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, h := range got {
		if h.Get(want) != "js-webhook-token" {
			t.Errorf("notification %d: %s (the JS SDK's token header) is %q; headers %v", i, want, h.Get(want), h)
		}
		if h.Get(push.TokenHeaderV1) != "js-webhook-token" {
			t.Errorf("notification %d: %s (a2a-go v2's) is %q", i, push.TokenHeaderV1, h.Get(push.TokenHeaderV1))
		}
	}
}
