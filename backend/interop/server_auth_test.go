package interop

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"golang.org/x/oauth2/clientcredentials"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// startAuthHub runs the whole hub on a temporary data dir with anonymous access off, and gives
// agent://name an API key.
func startAuthHub(t *testing.T, name string) (h *hub.Hub, key string, log *serverLogBuffer) {
	t.Helper()
	log = &serverLogBuffer{}
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", NoDemo: true, Version: "test", Secrets: "file",
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	if err := h.Auth.SetAnonymousPolicy(t.Context(), auth.AnonymousOff); err != nil {
		t.Fatal(err)
	}
	if _, key, err = h.Auth.Principals.Add(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	return h, key, log
}

// rpcErr is a JSON-RPC error object as it came over the wire.
type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rawRPC posts one JSON-RPC request to the hub with the given headers and returns the HTTP status,
// the decoded error (if any) and the body.
func rawRPC(t *testing.T, url string, headers map[string]string, method string, params any) (int, *rpcErr, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var env struct {
		Error *rpcErr `json:"error"`
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") { // a stream: its first event
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				raw = []byte(data)
				break
			}
		}
	}
	_ = json.Unmarshal(raw, &env)
	return res.StatusCode, env.Error, string(raw)
}

// TestHubCardDeclaresItsSchemes: both card shapes carry the schemes in a form each official parser
// reads, and the v0.1 card names them.
func TestHubCardDeclaresItsSchemes(t *testing.T) {
	h, _, _ := startAuthHub(t, "reader")
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), h.Agent.BaseURL)
	if err != nil {
		t.Fatalf("a2a-go v1.0 cannot read the card: %v", err)
	}
	key, ok := card.SecuritySchemes["apiKey"].(a2a.APIKeySecurityScheme)
	oauth, ok2 := card.SecuritySchemes["oauth2"].(a2a.OAuth2SecurityScheme)
	if !ok || key.Name != "X-Api-Key" || key.Location != a2a.APIKeySecuritySchemeLocationHeader || !ok2 || len(card.SecurityRequirements) != 2 {
		t.Fatalf("v1.0 schemes %#v requirements %#v", card.SecuritySchemes, card.SecurityRequirements)
	}
	if flow, ok := oauth.Flows.(a2a.ClientCredentialsOAuthFlow); !ok || flow.TokenURL != h.Agent.BaseURL+auth.TokenPath {
		t.Fatalf("oauth2 flows %#v", oauth.Flows)
	}
	old, err := legacycard.DefaultResolver.Resolve(t.Context(), h.Agent.BaseURL)
	if err != nil {
		t.Fatalf("a2a-go v0.3 cannot read the card: %v", err)
	}
	if k, ok := old.SecuritySchemes["apiKey"].(legacy.APIKeySecurityScheme); !ok || k.Name != "X-Api-Key" || len(old.Security) != 2 {
		t.Fatalf("v0.3 schemes %#v security %#v", old.SecuritySchemes, old.Security)
	}
	res, err := http.Get(h.Agent.BaseURL + "/.well-known/agent.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var draft struct {
		Authentication struct {
			Schemes []string `json:"schemes"`
		} `json:"authentication"`
	}
	if err := json.NewDecoder(res.Body).Decode(&draft); err != nil || strings.Join(draft.Authentication.Schemes, ",") != "apiKey,Bearer" {
		t.Fatalf("v0.1 authentication %+v %v", draft.Authentication, err)
	}
}

// TestHubAuthWithGoV1Client: a2a-go/v2's client and its own AuthInterceptor against the hub: no
// credential and a wrong key are refused (401, -32030), the right key works, an OAuth2 token from the
// hub's token endpoint works; rotating the key kills the token, and a token fetched again works; a
// rotated signing key keeps the tokens it signed valid.
func TestHubAuthWithGoV1Client(t *testing.T) {
	h, key, log := startAuthHub(t, "alice")
	ctx := t.Context()
	card, err := agentcard.DefaultResolver.Resolve(ctx, h.Agent.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	creds := a2aclient.NewInMemoryCredentialsStore()
	client, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithCallInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
	if err != nil {
		t.Fatal(err)
	}
	send := func(session string) (*a2a.Task, error) {
		res, err := client.SendMessage(a2aclient.AttachSessionID(ctx, a2aclient.SessionID(session)), &a2a.SendMessageRequest{
			Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello from "+session)),
			Config:  &a2a.SendMessageConfig{ReturnImmediately: true},
		})
		if err != nil {
			return nil, err
		}
		task, _ := res.(*a2a.Task)
		return task, nil
	}

	if _, err := send("nobody"); err == nil {
		t.Fatal("a send without a credential was taken")
	}
	creds.Set("wrong", "apiKey", "ahk_not-a-key-this-hub-issued")
	if _, err := send("wrong"); err == nil {
		t.Fatal("a send with a wrong key was taken")
	}
	creds.Set("key", "apiKey", a2aclient.AuthCredential(key))
	task, err := send("key")
	if err != nil || task == nil {
		t.Fatalf("the right key: %v", err)
	}

	oauth := clientcredentials.Config{ClientID: "alice", ClientSecret: key, TokenURL: h.Agent.BaseURL + auth.TokenPath}
	tok, err := oauth.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	creds.Set("oauth2", "oauth2", a2aclient.AuthCredential(tok.AccessToken))
	if _, err := send("oauth2"); err != nil {
		t.Fatalf("a token from the hub's endpoint: %v", err)
	}

	// A rotated signing key: tokens it signed stay good until they expire.
	if err := h.Auth.RotateSigningKey(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := send("oauth2"); err != nil {
		t.Fatalf("a token signed before the hub's key rotated: %v", err)
	}

	// A rotated principal key: the old key and its tokens die; a token fetched with the new key works.
	staleToken := tok.AccessToken
	_, newKey, err := h.Auth.Principals.Rotate(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"key", "oauth2"} {
		if _, err := send(session); err == nil {
			t.Fatalf("%s still works after the key was rotated", session)
		}
	}
	oauth.ClientSecret = newKey
	if tok, err = oauth.Token(ctx); err != nil {
		t.Fatal(err)
	}
	creds.Set("oauth2", "oauth2", a2aclient.AuthCredential(tok.AccessToken))
	if _, err := send("oauth2"); err != nil {
		t.Fatalf("a token fetched again after rotation: %v", err)
	}

	// What the refusals look like on the wire: 401 with a JSON-RPC body, and no credential echoed.
	for name, headers := range map[string]map[string]string{
		"none":                  nil,
		"a key rotated away":    {"X-Api-Key": key},
		"a token of an old key": {"Authorization": "Bearer " + staleToken},
	} {
		status, rpcErr, body := rawRPC(t, h.Agent.BaseURL+"/a2a", headers, "GetTask", map[string]any{"id": string(task.ID)})
		if status != http.StatusUnauthorized || rpcErr == nil || rpcErr.Code != -32030 {
			t.Fatalf("%s: HTTP %d %s", name, status, body)
		}
		if strings.Contains(body, key) {
			t.Fatalf("%s: the refusal echoes the key: %s", name, body)
		}
	}
	if strings.Contains(log.String(), key) || strings.Contains(log.String(), newKey) || strings.Contains(log.String(), tok.AccessToken) {
		t.Fatal("a key or token reached the hub's log")
	}
}

// TestHubAuthWithGoV03Client: the a2a-go v0.3 client and its own AuthInterceptor, reading the
// schemes from the card's v0.3 shape.
func TestHubAuthWithGoV03Client(t *testing.T) {
	h, key, _ := startAuthHub(t, "bob")
	ctx := t.Context()
	card, err := legacycard.DefaultResolver.Resolve(ctx, h.Agent.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	creds := legacyclient.NewInMemoryCredentialsStore()
	client, err := legacyclient.NewFromCard(ctx, card, legacyclient.WithInterceptors(&legacyclient.AuthInterceptor{Service: creds}))
	if err != nil {
		t.Fatal(err)
	}
	send := func(session string) (legacy.SendMessageResult, error) {
		return client.SendMessage(legacyclient.WithSessionID(ctx, legacyclient.SessionID(session)), &legacy.MessageSendParams{
			Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "hello from v0.3, " + session}),
			Config:  &legacy.MessageSendConfig{Blocking: new(bool)},
		})
	}
	if _, err := send("nobody"); err == nil {
		t.Fatal("a send without a credential was taken")
	}
	creds.Set("wrong", "apiKey", "ahk_not-a-key-this-hub-issued")
	if _, err := send("wrong"); err == nil {
		t.Fatal("a send with a wrong key was taken")
	}
	creds.Set("key", "apiKey", legacyclient.AuthCredential(key))
	res, err := send("key")
	if err != nil {
		t.Fatalf("the right key: %v", err)
	}
	task, ok := res.(*legacy.Task)
	if !ok {
		t.Fatalf("result %#v", res)
	}
	if got, err := client.GetTask(legacyclient.WithSessionID(ctx, "key"), &legacy.TaskQueryParams{ID: task.ID}); err != nil || got.ID != task.ID {
		t.Fatalf("tasks/get with the key: %+v %v", got, err)
	}
}

// TestHubAuthWithJSClient: the official JavaScript SDK with its own authenticating fetch (js/auth.mjs).
func TestHubAuthWithJSClient(t *testing.T) {
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		t.Fatal("the @a2a-js/sdk is not installed; run: npm ci --prefix backend/interop/js")
	}
	h, key, _ := startAuthHub(t, "carol")
	cmd := exec.CommandContext(t.Context(), "node", "auth.mjs", h.Agent.BaseURL, "carol", key)
	cmd.Dir = jsDir
	out, err := cmd.Output()
	var results []jsResult
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r jsResult
		if json.Unmarshal([]byte(line), &r) == nil && r.Scenario != "" {
			results = append(results, r)
			if !r.OK {
				t.Errorf("%s: %s", r.Scenario, r.Detail)
			}
		}
	}
	if len(results) != 4 {
		t.Fatalf("%d scenario results (want 4), node: %v\n%s", len(results), err, out)
	}
	if err != nil && !t.Failed() {
		t.Fatalf("node: %v", err)
	}
}

// TestHubRefusesBadCredentials: tampered, expired, unsigned (alg none) and unknown-key tokens, an
// unknown client at the token endpoint, and oversized credential headers are each a 401 that neither
// echoes the credential nor writes it to the log; a good token works beside them.
func TestHubRefusesBadCredentials(t *testing.T) {
	h, key, log := startAuthHub(t, "dave")
	ctx := t.Context()
	good, _, err := h.Auth.Issue(ctx, auth.Agent("dave"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// The same key and principals, with a clock two hours back: its one-hour token has expired.
	past, err := auth.Open(ctx, auth.Config{DB: h.Agent.DB, Issuer: h.Agent.BaseURL, Now: func() time.Time { return time.Now().Add(-2 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	expired, _, err := past.Issue(ctx, auth.Agent("dave"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, ".")
	b64 := base64.RawURLEncoding
	payload, _ := b64.DecodeString(parts[1])
	header, _ := b64.DecodeString(parts[0])
	tampered := parts[0] + "." + b64.EncodeToString(bytes.Replace(payload, []byte(`"agent://dave"`), []byte(`"agent://eve0"`), 1)) + "." + parts[2]
	unsigned := b64.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	otherKid := b64.EncodeToString(bytes.Replace(header, []byte(`"kid":"`), []byte(`"kid":"x`), 1)) + "." + parts[1] + "." + parts[2]

	url := h.Agent.BaseURL + "/a2a"
	cases := map[string]map[string]string{
		"tampered token":        {"Authorization": "Bearer " + tampered},
		"expired token":         {"Authorization": "Bearer " + expired},
		"alg none":              {"Authorization": "Bearer " + unsigned},
		"unknown kid":           {"Authorization": "Bearer " + otherKid},
		"huge bearer":           {"Authorization": "Bearer " + strings.Repeat("A", 8<<10)},
		"huge api key":          {"X-Api-Key": strings.Repeat("k", 8<<10)},
		"basic instead":         {"Authorization": "Basic " + b64.EncodeToString([]byte("dave:"+key))},
		"key and token at once": {"X-Api-Key": key, "Authorization": "Bearer " + good},
	}
	for name, headers := range cases {
		status, e, body := rawRPC(t, url, headers, "ListTasks", map[string]any{})
		if status != http.StatusUnauthorized || e == nil || e.Code != -32030 {
			t.Errorf("%s: HTTP %d %s", name, status, body)
		}
		for _, v := range headers {
			if secret := strings.TrimPrefix(strings.TrimPrefix(v, "Bearer "), "Basic "); strings.Contains(body, secret) {
				t.Errorf("%s: the refusal echoes the credential", name)
			}
		}
	}
	if status, e, body := rawRPC(t, url, map[string]string{"Authorization": "Bearer " + good}, "ListTasks", map[string]any{}); status != http.StatusOK || e != nil {
		t.Fatalf("the good token beside them: HTTP %d %s", status, body)
	}

	// The token endpoint: an unknown client is invalid_client.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.Agent.BaseURL+auth.TokenPath, strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("mallory", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(raw), "invalid_client") || strings.Contains(string(raw), key) {
		t.Fatalf("unknown client: HTTP %d %s", res.StatusCode, raw)
	}

	logged := log.String()
	for _, secret := range []string{key, good, expired, tampered, unsigned} {
		if strings.Contains(logged, secret) {
			t.Fatal("a credential reached the hub's log")
		}
	}
}

// TestOwnerNotesToTheHubAreTheOwners: with anonymous access off, the owner still chats with the hub
// itself (a note to their own inbox): the hub's client calls it with this run's owner key. The task is
// the owner's, so no other caller, anonymous or holding a key, can read it.
func TestOwnerNotesToTheHubAreTheOwners(t *testing.T) {
	h, key, _ := startAuthHub(t, "erin")
	ctx := t.Context()
	conv, err := h.Chats.Start(ctx, hub.HubID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Chats.Send(ctx, conv.ID, chats.Outgoing{Text: "a note to myself"}); err != nil {
		t.Fatal(err)
	}
	var id string
	for deadline := time.Now().Add(20 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rows, err := h.Agent.Tasks.Page(ctx, tasks.PageQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if tasks.Title(r.Task) == "a note to myself" {
				id = string(r.Task.ID)
				if r.Owner != auth.Owner.ID {
					t.Fatalf("the note's task belongs to %q, want the owner", r.Owner)
				}
			}
		}
	}
	if id == "" {
		t.Fatal("the note never reached the inbox (refused as anonymous?)")
	}
	status, e, body := rawRPC(t, h.Agent.BaseURL+"/a2a", map[string]string{"X-Api-Key": key}, "GetTask", map[string]any{"id": id})
	if status != http.StatusOK || e == nil || e.Code != -32001 {
		t.Fatalf("another principal reads the owner's note: HTTP %d %s", status, body)
	}
}
