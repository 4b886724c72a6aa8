package uiapi_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/agenthub/agenthub/backend/cardsig"
	"github.com/agenthub/agenthub/backend/hub"
)

// signingAgent is a remote agent whose card the test signs (or mis-signs) as it likes: it serves the
// card and its JWKS over real HTTP on loopback; the card's interfaces are the hub's demo agent's, so
// chats with it are real A2A.
type signingAgent struct {
	t        *testing.T
	srv      *httptest.Server
	unsigned []byte
	jwksHits atomic.Int32

	mu   sync.Mutex
	card []byte
	jwks []byte
}

type signingKey struct {
	kid  string
	priv *ecdsa.PrivateKey
}

func newSigningKey(t *testing.T, kid string) signingKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signingKey{kid, priv}
}

// thumbprint is k's RFC 7638 thumbprint, as go-jose computes it.
func (k signingKey) thumbprint(t *testing.T) string {
	tp, err := (&jose.JSONWebKey{Key: &k.priv.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(tp)
}

func jwksOf(t *testing.T, keys ...signingKey) []byte {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.priv.PublicKey, KeyID: k.kid, Algorithm: "ES256", Use: "sig"})
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newSigningAgent(t *testing.T, h *hub.Hub, name string) *signingAgent {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(h.Demo.Server.CardJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "signatures")
	doc["name"] = name
	unsigned, _ := json.Marshal(doc)
	a := &signingAgent{t: t, unsigned: unsigned, card: unsigned, jwks: []byte(`{"keys":[]}`)}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			w.Write(a.card)
		case cardsig.JWKSPath:
			a.jwksHits.Add(1)
			w.Write(a.jwks)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

// serve makes the agent serve card and publish keys.
func (a *signingAgent) serve(card []byte, keys ...signingKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.card, a.jwks = card, jwksOf(a.t, keys...)
}

// signed is the agent's card signed by k, with jku if not empty.
func (a *signingAgent) signed(k signingKey, jku string) []byte {
	a.t.Helper()
	b, err := cardsig.Sign(a.unsigned, k.kid, k.priv, jku)
	if err != nil {
		a.t.Fatal(err)
	}
	return b
}

type signature struct {
	State, Detail, PinnedKey, PendingKey string
	Blocked, Confirmed                   bool
}

type trustedAgent struct {
	ID        string
	Signature signature
}

// sig calls an agents.* method on id and returns the agent's signature state, decoded afresh (the
// result omits empty members).
func (c *ui) sig(method, id string) signature {
	c.t.Helper()
	var got trustedAgent
	c.result(method, map[string]any{"id": id}, &got)
	return got.Signature
}

// chatRefused asserts that the hub will not talk to the agent: a new conversation and a message in
// conv are refused with conflict, saying why and what to do.
func (c *ui) chatRefused(agentID, convID, why string) {
	c.t.Helper()
	for _, call := range []struct {
		method string
		params any
	}{{"chats.start", map[string]any{"agentId": agentID}}, {"chats.send", map[string]any{"id": convID, "text": "hi"}}} {
		if call.params.(map[string]any)["id"] == "" {
			continue
		}
		f := c.call(call.method, call.params)
		if f.Error == nil || f.Error.Code != "conflict" || !strings.Contains(f.Error.Message, why) || !strings.Contains(f.Error.Message, "confirm") {
			c.t.Errorf("%s to an untrusted agent: %+v, want conflict saying %q and how to confirm", call.method, f.Error, why)
		}
	}
}

// chatWorks asserts the hub talks to the agent: a message in a new conversation is sent.
func (c *ui) chatWorks(agentID string) string {
	c.t.Helper()
	var conv struct{ ID string }
	c.result("chats.start", map[string]any{"agentId": agentID}, &conv)
	c.result("chats.send", map[string]any{"id": conv.ID, "text": "hello"}, nil)
	return conv.ID
}

// The first key a card verifies with is pinned; a card signed with another key is held back as
// "key_changed" (no chats, no calls) until the owner trusts it, which pins the new key.
func TestSignedCardIsPinnedAndAChangedKeyWaitsForTheOwner(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	a := newSigningAgent(t, h, "Signing agent")
	k1, k2 := newSigningKey(t, "k1"), newSigningKey(t, "k2")
	a.serve(a.signed(k1, a.srv.URL+cardsig.JWKSPath), k1)

	var added trustedAgent
	c.result("agents.add", map[string]any{"url": a.srv.URL}, &added)
	if s := added.Signature; s.State != "signed" || s.PinnedKey != k1.thumbprint(t) || s.Blocked {
		t.Fatalf("a signed card as added: %+v, want signed with k1 pinned", s)
	}
	conv := c.chatWorks(added.ID)

	// Same card, same key: still signed. Then the agent's card is signed by a key it now publishes.
	var got trustedAgent
	got.Signature = c.sig("agents.refresh", added.ID)
	if got.Signature.State != "signed" {
		t.Fatalf("refreshed with the same key: %+v", got.Signature)
	}
	a.serve(a.signed(k2, ""), k2)
	got.Signature = c.sig("agents.refresh", added.ID)
	if s := got.Signature; s.State != "key_changed" || !s.Blocked || s.PinnedKey != k1.thumbprint(t) || s.PendingKey != k2.thumbprint(t) ||
		!strings.Contains(s.Detail, k2.thumbprint(t)) {
		t.Fatalf("a card signed with another key: %+v, want key_changed, k1 still pinned, k2 pending", s)
	}
	c.chatRefused(added.ID, conv, "signing key changed")
	// The state is kept: a new connection (a reload of the UI) sees it the same.
	got.Signature = c.sig("agents.get", added.ID)
	if got.Signature.State != "key_changed" || !got.Signature.Blocked {
		t.Fatalf("agents.get after the change: %+v", got.Signature)
	}

	got.Signature = c.sig("agents.trustCard", added.ID)
	if s := got.Signature; s.State != "signed" || s.Blocked || s.PinnedKey != k2.thumbprint(t) || s.PendingKey != "" {
		t.Fatalf("after trusting the new key: %+v, want signed with k2 pinned", s)
	}
	c.result("chats.send", map[string]any{"id": conv, "text": "hello again"}, nil)
	got.Signature = c.sig("agents.refresh", added.ID)
	if got.Signature.State != "signed" || got.Signature.PinnedKey != k2.thumbprint(t) {
		t.Fatalf("refreshed after trusting k2: %+v", got.Signature)
	}

	// Back to an unsigned card, with a key pinned: a downgrade, held back like a bad signature.
	a.serve(a.unsigned)
	got.Signature = c.sig("agents.refresh", added.ID)
	if s := got.Signature; s.State != "invalid" || !s.Blocked || !strings.Contains(s.Detail, "not signed") {
		t.Fatalf("an unsigned card after a signed one: %+v", s)
	}
	c.chatRefused(added.ID, conv, "signature is invalid")
}

// Cards whose signature is tampered with, "alg":"none", by an unknown kid, or with keys from a
// foreign jku are "invalid": shown, and held back until the owner confirms that very card. An
// unsigned card is shown as unsigned and used.
func TestBadCardSignaturesAreFlaggedUntilConfirmed(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	k, evilKey := newSigningKey(t, "k1"), newSigningKey(t, "evil")
	// evil publishes the key the foreign-jku card is signed with.
	var evilHits atomic.Int32
	evilJWKS := jwksOf(t, evilKey)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { evilHits.Add(1); w.Write(evilJWKS) }))
	defer evil.Close()

	withProtected := func(card []byte, hdr map[string]any) []byte {
		var doc map[string]json.RawMessage
		json.Unmarshal(card, &doc)
		hb, _ := json.Marshal(hdr)
		doc["signatures"], _ = json.Marshal([]cardsig.Signature{{Protected: base64.RawURLEncoding.EncodeToString(hb), Signature: ""}})
		b, _ := json.Marshal(doc)
		return b
	}
	for _, tc := range []struct {
		name string
		card func(a *signingAgent) []byte
		why  string
	}{
		{"tampered", func(a *signingAgent) []byte {
			return []byte(strings.Replace(string(a.signed(k, "")), `"name":"tampered"`, `"name":"tampered!"`, 1))
		}, "does not verify"},
		{"alg none", func(a *signingAgent) []byte {
			return withProtected(a.signed(k, ""), map[string]any{"alg": "none", "kid": "k1"})
		}, "not accepted"},
		{"unknown kid", func(a *signingAgent) []byte { return a.signed(newSigningKey(t, "who"), "") }, `no key "who"`},
		{"foreign jku", func(a *signingAgent) []byte { return a.signed(evilKey, evil.URL+"/jwks.json") }, "not on the agent's origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSigningAgent(t, h, tc.name)
			a.serve(tc.card(a), k)
			var got trustedAgent
			c.result("agents.add", map[string]any{"url": a.srv.URL}, &got)
			if s := got.Signature; s.State != "invalid" || !s.Blocked || s.Confirmed || s.PinnedKey != "" || !strings.Contains(s.Detail, tc.why) {
				t.Fatalf("signature: %+v, want invalid, blocked, saying %q, nothing pinned", s, tc.why)
			}
			c.chatRefused(got.ID, "", "signature is invalid")
			got.Signature = c.sig("agents.trustCard", got.ID)
			if s := got.Signature; s.State != "invalid" || s.Blocked || !s.Confirmed {
				t.Fatalf("after the owner confirmed the card: %+v, want invalid, confirmed, not blocked", s)
			}
			c.chatWorks(got.ID)
			// The confirmation is of that card: the same card again stays confirmed, another is checked afresh.
			got.Signature = c.sig("agents.refresh", got.ID)
			if !got.Signature.Confirmed || got.Signature.Blocked {
				t.Fatalf("the confirmed card refreshed: %+v", got.Signature)
			}
			a.serve(withProtected(a.unsigned, map[string]any{"alg": "none"}), k)
			got.Signature = c.sig("agents.refresh", got.ID)
			if s := got.Signature; s.State != "invalid" || !s.Blocked || s.Confirmed {
				t.Fatalf("another bad card after a confirmed one: %+v, want blocked again", s)
			}
		})
	}
	if n := evilHits.Load(); n != 0 {
		t.Errorf("the foreign jku was fetched %d times; keys must come from the agent's origin only", n)
	}

	a := newSigningAgent(t, h, "unsigned")
	var got trustedAgent
	c.result("agents.add", map[string]any{"url": a.srv.URL}, &got)
	if s := got.Signature; s.State != "unsigned" || s.Blocked {
		t.Fatalf("an unsigned card: %+v, want unsigned and usable", s)
	}
	c.chatWorks(got.ID)

	// The hub's own agents are signed by the hub itself, and need no confirming.
	var local trustedAgent
	c.result("agents.get", map[string]any{"id": hub.DemoID}, &local)
	if local.Signature.State != "signed" || local.Signature.Blocked {
		t.Errorf("the demo agent on the hub: %+v", local.Signature)
	}
	if f := c.call("agents.trustCard", map[string]any{"id": hub.DemoID}); f.Error == nil || f.Error.Code != "conflict" {
		t.Errorf("trustCard on a local agent: %+v, want conflict", f.Error)
	}
}

// A card read from one host whose interfaces are on another is held back, like a bad signature,
// until the owner agrees to those hosts (agents.trustCard); the agreement is for that card only.
func TestACardListingOtherHostsWaitsForTheOwner(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	// The card is served on loopback; its JSON-RPC interface is the demo agent's (loopback too), its
	// REST one on a host of its own.
	var served atomic.Value
	cardFor := func(restHost string) []byte {
		var doc map[string]any
		if err := json.Unmarshal(h.Demo.Server.CardJSON(), &doc); err != nil {
			t.Fatal(err)
		}
		delete(doc, "signatures")
		doc["name"] = "Agent with another host"
		doc["supportedInterfaces"] = []any{
			map[string]any{"url": h.Demo.BaseURL + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
			map[string]any{"url": "http://" + restHost + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
		}
		b, _ := json.Marshal(doc)
		return b
	}
	served.Store(cardFor("api.other.example"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(served.Load().([]byte))
	}))
	t.Cleanup(srv.Close)

	var added struct {
		ID        string
		Signature struct {
			State        string
			Blocked      bool
			ForeignHosts []string
		}
	}
	c.result("agents.add", map[string]any{"url": srv.URL}, &added)
	if s := added.Signature; !s.Blocked || !slices.Equal(s.ForeignHosts, []string{"api.other.example"}) {
		t.Fatalf("a card with an interface on another host: %+v, want blocked naming it", s)
	}
	c.chatRefused(added.ID, "", "api.other.example")
	if s := c.sig("agents.trustCard", added.ID); s.Blocked {
		t.Fatalf("after the owner agreed: %+v", s)
	}
	c.chatWorks(added.ID)
	// Another card with yet another host asks again.
	served.Store(cardFor("evil.example"))
	if s := c.sig("agents.refresh", added.ID); !s.Blocked {
		t.Fatalf("a new card with another host: %+v, want blocked again", s)
	}
	c.chatRefused(added.ID, "", "evil.example")
}
