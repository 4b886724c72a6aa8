package interop

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// The hub, as a client, talks to an a2a-go/v2 server that demands credentials: each scheme a card can
// declare, the right credential, a wrong one, and none. The agent behind it is the demo agent's
// executor on the official SDK's own JSON-RPC handler.

// guardedAgent is an a2a-go/v2 server whose card declares one security scheme and whose endpoint
// refuses requests without the credential it names.
type guardedAgent struct {
	srv          *httptest.Server
	scheme       a2a.SecurityScheme
	accept       func(r *http.Request) bool // does the request carry a valid credential?
	tokenURL     string
	tokens       sync.Map     // access tokens issued and not revoked
	tokenCalls   atomic.Int32 // token endpoint requests
	clientID     string
	clientSecret string
}

func newGuardedAgent(t *testing.T, schemeName string, scheme func(g *guardedAgent) a2a.SecurityScheme, accept func(g *guardedAgent, r *http.Request) bool) *guardedAgent {
	g := &guardedAgent{clientID: "agenthub", clientSecret: "s3cret-" + randomHex()}
	mux := http.NewServeMux()
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	g.tokenURL = g.srv.URL + "/oauth/token"
	g.scheme = scheme(g)
	g.accept = func(r *http.Request) bool { return accept(g, r) }

	card := &a2a.AgentCard{
		Name: "Guarded agent", Description: "demands " + schemeName, Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: g.srv.URL + "/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills:               demoagent.Skills,
		SecuritySchemes:      a2a.NamedSecuritySchemes{a2a.SecuritySchemeName(schemeName): g.scheme},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{a2a.SecuritySchemeName(schemeName): {}}},
	}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(&demoagent.Agent{Tick: 20 * time.Millisecond}))
	mux.Handle("/rpc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.accept(r) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		rpc.ServeHTTP(w, r)
	}))
	mux.HandleFunc("/oauth/token", func(w http.ResponseWriter, r *http.Request) {
		g.tokenCalls.Add(1)
		id, secret, ok := r.BasicAuth()
		if !ok {
			r.ParseForm()
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if r.PostFormValue("grant_type") != "client_credentials" || id != g.clientID || secret != g.clientSecret {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		token := "tok-" + randomHex()
		g.tokens.Store(token, true)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"`+token+`","token_type":"Bearer","expires_in":3600}`)
	})
	return g
}

// revokeTokens makes every issued token invalid, as a server restart or rotation would.
func (g *guardedAgent) revokeTokens() {
	g.tokens.Range(func(k, _ any) bool { g.tokens.Delete(k); return true })
}

func randomHex() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func bearerOf(r *http.Request) string {
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return token
}

const goodKey = "key-0123456789"

var authCases = []struct {
	name   string
	scheme func(g *guardedAgent) a2a.SecurityScheme
	accept func(g *guardedAgent, r *http.Request) bool
	good   func(g *guardedAgent) credentials.Secret
	wrong  credentials.Secret
}{
	{"apiKey-header",
		func(*guardedAgent) a2a.SecurityScheme {
			return a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Api-Key"}
		},
		func(_ *guardedAgent, r *http.Request) bool { return r.Header.Get("X-Api-Key") == goodKey },
		func(*guardedAgent) credentials.Secret { return credentials.Secret{APIKey: goodKey} }, credentials.Secret{APIKey: "nope"}},
	{"apiKey-query",
		func(*guardedAgent) a2a.SecurityScheme {
			return a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationQuery, Name: "api_key"}
		},
		func(_ *guardedAgent, r *http.Request) bool { return r.URL.Query().Get("api_key") == goodKey },
		func(*guardedAgent) credentials.Secret { return credentials.Secret{APIKey: goodKey} }, credentials.Secret{APIKey: "nope"}},
	{"apiKey-cookie",
		func(*guardedAgent) a2a.SecurityScheme {
			return a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationCookie, Name: "session"}
		},
		func(_ *guardedAgent, r *http.Request) bool {
			c, err := r.Cookie("session")
			return err == nil && c.Value == goodKey
		},
		func(*guardedAgent) credentials.Secret { return credentials.Secret{APIKey: goodKey} }, credentials.Secret{APIKey: "nope"}},
	{"bearer",
		func(*guardedAgent) a2a.SecurityScheme {
			return a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}
		},
		func(_ *guardedAgent, r *http.Request) bool { return bearerOf(r) == goodKey },
		func(*guardedAgent) credentials.Secret { return credentials.Secret{Token: goodKey} }, credentials.Secret{Token: "nope"}},
	{"oauth2",
		func(g *guardedAgent) a2a.SecurityScheme {
			return a2a.OAuth2SecurityScheme{Flows: a2a.ClientCredentialsOAuthFlow{TokenURL: g.tokenURL, Scopes: map[string]string{}}}
		},
		func(g *guardedAgent, r *http.Request) bool { _, ok := g.tokens.Load(bearerOf(r)); return ok },
		func(g *guardedAgent) credentials.Secret {
			return credentials.Secret{ClientID: g.clientID, ClientSecret: g.clientSecret}
		},
		credentials.Secret{ClientID: "agenthub", ClientSecret: "nope"}},
}

func TestHubClientAuthSchemes(t *testing.T) {
	for _, tc := range authCases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGuardedAgent(t, tc.name, tc.scheme, tc.accept)
			h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", NoDemo: true, Version: "test",
				Secrets: "file", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Stop() })
			rem, err := h.Agents.Add(t.Context(), g.srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			needs := credentials.CardAuth(rem.Card)
			if !needs.Required || len(needs.Schemes) != 1 || needs.Schemes[0].Name != tc.name {
				t.Fatalf("the card's needs read as %+v", needs)
			}
			conv, err := h.Chats.Start(t.Context(), rem.ID)
			if err != nil {
				t.Fatal(err)
			}
			secrets := h.Clients.Secrets()

			// No credential: a clear auth error, nothing sent that the agent accepted.
			talk(t, h, conv.ID, "hello", "auth")
			// A wrong one: refused, said so.
			if err := secrets.Put(rem.ID, tc.name, tc.wrong); err != nil {
				t.Fatal(err)
			}
			talk(t, h, conv.ID, "hello again", "auth")
			// The right one: the conversation goes on, streaming.
			if err := secrets.Put(rem.ID, tc.name, tc.good(g)); err != nil {
				t.Fatal(err)
			}
			talk(t, h, conv.ID, "third time lucky", "")

			if tc.name == "oauth2" {
				calls := g.tokenCalls.Load()
				talk(t, h, conv.ID, "the token is cached", "")
				if got := g.tokenCalls.Load(); got != calls {
					t.Errorf("the token endpoint was called %d more times; a valid token is reused", got-calls)
				}
				g.revokeTokens()
				talk(t, h, conv.ID, "after the token was revoked", "")
				if got := g.tokenCalls.Load(); got != calls+1 {
					t.Errorf("after a 401 the token was fetched %d times, want exactly once", got-calls)
				}
			}
		})
	}
}

// talk sends text and waits for the agent's turn to end: completed, or (failKind != "") a recorded
// failure of that kind.
func talk(t *testing.T, h *hub.Hub, convID, text, failKind string) {
	t.Helper()
	sent, err := h.Chats.Send(t.Context(), convID, chats.Outgoing{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	waitEntries(t, h, convID, "the end of the agent's turn to "+text, func(entries []chats.Entry) bool {
		for _, e := range entries[sent.Seq:] {
			if e.Kind == "error" {
				if failKind == "" || e.Error.Kind != failKind {
					t.Fatalf("%q: the call failed with %+v, want %q", text, e.Error, failKind)
				}
				if !strings.Contains(e.Error.Message, "credential") {
					t.Errorf("%q: the failure says %q; it should say the credentials are the problem", text, e.Error.Message)
				}
				return true
			}
			if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateCompleted {
				if failKind != "" {
					t.Fatalf("%q: completed, want a %s failure", text, failKind)
				}
				return true
			}
		}
		return false
	})
}

// waitEntries polls a conversation until done accepts its entries.
func waitEntries(t *testing.T, h *hub.Hub, convID, what string, done func([]chats.Entry) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		_, entries, err := h.Chats.Get(ctx, convID)
		if err != nil {
			t.Fatal(err)
		}
		if done(entries) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
