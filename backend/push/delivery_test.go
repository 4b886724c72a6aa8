package push_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/push"
)

type pushStatus = push.Status

// fetchJWKS reads the agent's public keys over HTTP, as a receiver would.
func fetchJWKS(t *testing.T, base string) jose.JSONWebKeySet {
	t.Helper()
	resp, err := http.Get(base + auth.JWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	return set
}

// verifiedClaims checks a notification's JWT with go-jose (not the library that signed it) against
// the JWKS, and that it is for this body, webhook and agent; it returns the claims.
func verifiedClaims(t *testing.T, set jose.JSONWebKeySet, r received, iss, aud string) map[string]any {
	t.Helper()
	token := r.Header.Get(push.SignatureHeader)
	if token == "" || r.Header.Get("Authorization") != "Bearer "+token {
		t.Fatalf("the JWT is not in both %s and Authorization: %v", push.SignatureHeader, r.Header)
	}
	parsed, err := josejwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	keys := set.Key(parsed.Headers[0].KeyID)
	if len(keys) != 1 {
		t.Fatalf("the JWKS has %d keys of kid %q", len(keys), parsed.Headers[0].KeyID)
	}
	var std josejwt.Claims
	var all map[string]any
	if err := parsed.Claims(keys[0].Key, &std, &all); err != nil {
		t.Fatalf("the JWT does not verify with the published key: %v", err)
	}
	if err := std.ValidateWithLeeway(josejwt.Expected{Issuer: iss, AnyAudience: josejwt.Audience{aud}, Time: time.Now()}, time.Minute); err != nil {
		t.Errorf("claims %v: %v", all, err)
	}
	if std.IssuedAt == nil || std.Expiry == nil || std.ID == "" {
		t.Errorf("claims %v lack iat, exp or jti", all)
	}
	sum := sha256.Sum256(r.Body)
	if all["request_body_sha256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("request_body_sha256 %v is not the body's hash", all["request_body_sha256"])
	}
	return all
}

// A v1.0 client (a2a-go/v2's own) sets a push config with its message; every stream event of the
// task reaches the webhook in order, as a StreamResponse, signed, with the config's token.
func TestV1NotificationsSignedAndInOrder(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, nil)
	ctx := t.Context()
	card, err := agentcard.DefaultResolver.Resolve(ctx, a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	client, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	url := hook.URL + "/v1"
	res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("notify me of every chunk")),
		Config:  &a2a.SendMessageConfig{PushConfig: &a2a.PushConfig{URL: url, Token: "tok-v1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*a2a.Task)
	st := settled(t, a, task.ID)
	want := loggedEvents(t, a, task.ID)
	got := hook.accepted()
	if len(st) != 1 || st[0].Delivered != len(want) || st[0].Failed != 0 || len(got) != len(want) {
		t.Fatalf("status %+v, webhook got %d, want %d delivered", st, len(got), len(want))
	}
	set := fetchJWKS(t, a.BaseURL)
	jtis := map[any]bool{}
	for i, r := range got {
		if r.Path != "/v1" || r.Header.Get(push.TokenHeaderV1) != "tok-v1" || r.Header.Get(push.TokenHeaderV03) != "tok-v1" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("notification %d: path %s, headers %v", i, r.Path, r.Header)
		}
		c := verifiedClaims(t, set, r, a.BaseURL, url)
		if c["task_id"] != string(task.ID) || jtis[c["jti"]] {
			t.Errorf("notification %d: task_id %v, jti %v (seen before: %v)", i, c["task_id"], c["jti"], jtis[c["jti"]])
		}
		jtis[c["jti"]] = true
		var sr a2a.StreamResponse
		if err := json.Unmarshal(r.Body, &sr); err != nil {
			t.Fatalf("notification %d is not a v1.0 StreamResponse: %v\n%s", i, err, r.Body)
		}
		wantJSON, _ := json.Marshal(a2a.StreamResponse{Event: want[i].Event})
		var gotV, wantV any
		json.Unmarshal(r.Body, &gotV)
		json.Unmarshal(wantJSON, &wantV)
		if !reflect.DeepEqual(gotV, wantV) {
			t.Errorf("notification %d:\n got %s\nwant %s", i, r.Body, wantJSON)
		}
	}
	last := got[len(got)-1]
	var sr a2a.StreamResponse
	json.Unmarshal(last.Body, &sr)
	if ev, ok := sr.Event.(*a2a.TaskStatusUpdateEvent); !ok || ev.Status.State != a2a.TaskStateCompleted {
		t.Errorf("the last notification is %T, want the completed status", sr.Event)
	}
}

// A webhook that fails gets the same notifications again, still in order, until it takes them; the
// JWT's jti stays the notification's across retries.
func TestRetriesKeepOrder(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, func(r *http.Request, n int) (int, string) {
		if n%2 == 1 { // every other request fails, so each notification needs a retry
			return http.StatusServiceUnavailable, ""
		}
		return http.StatusOK, ""
	})
	res := mustRPC(t, a.BaseURL+"/a2a", "SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "retried in order"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hook.URL, "token": "t"}},
	})
	var out struct {
		Task a2a.Task `json:"task"`
	}
	json.Unmarshal(res, &out)
	st := settled(t, a, out.Task.ID)
	want := loggedEvents(t, a, out.Task.ID)
	got := hook.accepted()
	if st[0].Delivered != len(want) || len(got) != len(want) {
		t.Fatalf("status %+v, accepted %d, want %d", st, len(got), len(want))
	}
	all := hook.requests()
	if len(all) != 2*len(want) {
		t.Errorf("%d requests for %d notifications, want each failed once then delivered", len(all), len(want))
	}
	for i := 0; i+1 < len(all); i += 2 {
		if string(all[i].Body) != string(all[i+1].Body) || jti(t, all[i]) != jti(t, all[i+1]) {
			t.Errorf("request %d was not retried as request %d (same body and jti)", i+1, i+2)
		}
	}
	for i, r := range got {
		wantJSON, _ := json.Marshal(a2a.StreamResponse{Event: want[i].Event})
		var gotV, wantV any
		json.Unmarshal(r.Body, &gotV)
		json.Unmarshal(wantJSON, &wantV)
		if !reflect.DeepEqual(gotV, wantV) {
			t.Errorf("delivered notification %d out of order:\n got %s\nwant %s", i, r.Body, wantJSON)
		}
	}
}

func jti(t *testing.T, r received) string {
	t.Helper()
	parsed, err := josejwt.ParseSigned(r.Header.Get(push.SignatureHeader), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	var c josejwt.Claims
	parsed.UnsafeClaimsWithoutVerification(&c)
	return c.ID
}

// A webhook that never takes its notifications: after the give-up time they fail, the outbox stops,
// and the failure is on the bus and in the status query, with the reason.
func TestGiveUpIsVisible(t *testing.T) {
	a := startAgent(t, hub.PushOptions{GiveUpAfter: 300 * time.Millisecond})
	hook := newWebhook(t, func(*http.Request, int) (int, string) { return http.StatusInternalServerError, "" })
	sub := a.Bus.Subscribe(func(e bus.Event) bool { return e.Topic == push.Topic }, 256)
	defer sub.Close()
	res := mustRPC(t, a.BaseURL+"/a2a", "SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "file"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hook.URL, "id": "dead"}},
	})
	var out struct {
		Task a2a.Task `json:"task"`
	}
	json.Unmarshal(res, &out)
	st := settled(t, a, out.Task.ID)
	n := len(loggedEvents(t, a, out.Task.ID))
	if len(st) != 1 || st[0].ConfigID != "dead" || st[0].Failed != n || st[0].Delivered != 0 || st[0].LastStatus != 500 ||
		!contains(st[0].LastError, "500") || st[0].LastFailureAt.IsZero() {
		t.Fatalf("status %+v, want all %d failed with the webhook's 500", st, n)
	}
	var failed, retrying int
	deadline := time.After(waitDeadline)
	for failed == 0 {
		select {
		case e := <-sub.C:
			ev := e.Data.(*push.Event)
			if e.Key != string(out.Task.ID) || ev.TaskID != string(out.Task.ID) || ev.ConfigID != "dead" {
				t.Fatalf("event %+v", ev)
			}
			switch ev.State {
			case "failed":
				failed++
				if ev.HTTPStatus != 500 || ev.Error == "" {
					t.Errorf("failed event %+v lacks the reason", ev)
				}
			case "retrying":
				retrying++
			}
		case <-deadline:
			t.Fatal("no failed event on the bus")
		}
	}
	if retrying == 0 {
		t.Error("no retry before giving up")
	}
	// All notifications of the config failed together: no further attempt is pending.
	if got := hook.requests(); len(got) == 0 {
		t.Error("the webhook was never tried")
	}
	if s, _ := a.Push.Status(context.Background(), out.Task.ID); s[0].Pending != 0 {
		t.Errorf("after giving up, %d still pending", s[0].Pending)
	}
}

// 410 Gone means the receiver wants no more: everything queued for the config fails at once.
func TestGoneStopsTheConfig(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, func(*http.Request, int) (int, string) { return http.StatusGone, "" })
	res := mustRPC(t, a.BaseURL+"/a2a", "SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "file"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hook.URL}},
	})
	var out struct {
		Task a2a.Task `json:"task"`
	}
	json.Unmarshal(res, &out)
	st := settled(t, a, out.Task.ID)
	if n := len(loggedEvents(t, a, out.Task.ID)); st[0].Failed != n || st[0].Delivered != 0 || st[0].LastStatus != http.StatusGone {
		t.Fatalf("status %+v, want all %d failed with 410", st, n)
	}
}

// Deleting a config drops what it still had queued: the client asked for no more.
func TestDeletedConfigStopsDelivery(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, func(*http.Request, int) (int, string) { return http.StatusServiceUnavailable, "" })
	res := mustRPC(t, a.BaseURL+"/a2a", "SendMessage", map[string]any{
		"message":       map[string]any{"messageId": "m1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "file"}}},
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": hook.URL, "id": "gone-soon"}},
	})
	var out struct {
		Task a2a.Task `json:"task"`
	}
	json.Unmarshal(res, &out)
	waitFor(t, "a failed attempt", func() bool { return len(hook.requests()) > 0 })
	mustRPC(t, a.BaseURL+"/a2a", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": out.Task.ID, "id": "gone-soon"})
	st := settled(t, a, out.Task.ID)
	if n := len(loggedEvents(t, a, out.Task.ID)); st[0].Canceled != n || st[0].Delivered != 0 {
		t.Fatalf("status %+v, want all %d canceled", st, n)
	}
}
