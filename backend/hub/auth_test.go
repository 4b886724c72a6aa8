package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

func startInProcess(t *testing.T, dataDir string) *hub.Hub {
	t.Helper()
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: dataDir, Addr: "127.0.0.1:0", NoDemo: true,
		Version: "test", Logger: slog.New(slog.DiscardHandler), Secrets: "file"}))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The hub serves its OAuth2 token endpoint and JWKS: a principal's key buys a token (through
// golang.org/x/oauth2's client-credentials client) whose iss and aud are the hub's base URL and which
// verifies with go-jose against the hub's JWKS; a rotated key is refused as invalid_client.
func TestHubServesTokenEndpointAndJWKS(t *testing.T) {
	h := startInProcess(t, t.TempDir())
	defer h.Stop()
	ctx := context.Background()
	_, key, err := h.Auth.Principals.Add(ctx, "bot")
	if err != nil {
		t.Fatal(err)
	}
	cc := clientcredentials.Config{ClientID: "bot", ClientSecret: key, TokenURL: h.Agent.BaseURL + auth.TokenPath,
		AuthStyle: oauth2.AuthStyleInHeader}
	tok, err := cc.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(h.Agent.BaseURL + auth.JWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	err = json.NewDecoder(resp.Body).Decode(&set)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("JWKS: %d %v", resp.StatusCode, err)
	}
	parsed, err := josejwt.ParseSigned(tok.AccessToken, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	keys := set.Key(parsed.Headers[0].KeyID)
	if len(keys) != 1 {
		t.Fatalf("the JWKS has %d keys for the token's kid", len(keys))
	}
	var c josejwt.Claims
	if err := parsed.Claims(keys[0].Key, &c); err != nil {
		t.Fatalf("signature: %v", err)
	}
	if err := c.Validate(josejwt.Expected{Issuer: h.Agent.BaseURL, Subject: "agent://bot",
		AnyAudience: josejwt.Audience{h.Agent.BaseURL}}); err != nil {
		t.Fatalf("claims: %v", err)
	}
	if p, err := h.Auth.Verify(ctx, tok.AccessToken); err != nil || p != auth.Agent("bot") {
		t.Fatalf("the hub's own Verify: %v %v", p, err)
	}

	if _, _, err := h.Auth.Principals.Rotate(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	_, err = cc.Token(ctx)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response.StatusCode != http.StatusUnauthorized || re.ErrorCode != "invalid_client" {
		t.Fatalf("the rotated key: %v, want 401 invalid_client", err)
	}
}

// The anonymous policy the owner set outlives a restart of the hub.
func TestHubKeepsTheAnonymousPolicyAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	h := startInProcess(t, dir)
	if got := h.Auth.AnonymousPolicy(); got != auth.DefaultAnonymousPolicy {
		t.Fatalf("a new hub's policy %q", got)
	}
	if err := h.Auth.SetAnonymousPolicy(context.Background(), auth.AnonymousOff); err != nil {
		t.Fatal(err)
	}
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}
	h = startInProcess(t, dir)
	defer h.Stop()
	if got := h.Auth.AnonymousPolicy(); got != auth.AnonymousOff {
		t.Fatalf("after a restart the policy is %q, want off", got)
	}
}
