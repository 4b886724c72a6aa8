package cardsig

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

const cardURL = "https://agent.example/.well-known/agent-card.json"

// card is a card with members in no particular order and characters JCS escapes its own way.
var card = []byte(`{"version":"1.0","name":"Ünïcode <agent> & co","skills":[{"id":"a","tags":["x"]}],"capabilities":{"streaming":true},"n":1.50}`)

type keyPair struct {
	kid  string
	priv *ecdsa.PrivateKey
}

func newKey(t *testing.T, kid string) keyPair {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return keyPair{kid, priv}
}

func jwks(t *testing.T, keys ...keyPair) []byte {
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

// site serves documents by URL; anything else is a 404.
func site(docs map[string][]byte) Fetcher {
	return func(_ context.Context, u string) ([]byte, error) {
		if b, ok := docs[u]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("%s: HTTP 404", u)
	}
}

func TestSignedCardVerifiesAndPayloadIsJCS(t *testing.T) {
	k := newKey(t, "k1")
	signed, err := Sign(card, k.kid, k.priv, "https://agent.example/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	res := Verify(t.Context(), signed, cardURL, site(map[string][]byte{"https://agent.example/.well-known/jwks.json": jwks(t, k)}))
	if !res.Signed() || res.Signatures[0].Kid != "k1" || res.Signatures[0].Alg != "ES256" {
		t.Fatalf("a freshly signed card: %+v, problems %v", res, res.Problems())
	}
	payload, err := Payload(signed)
	if err != nil {
		t.Fatal(err)
	}
	// RFC 8785: members sorted by UTF-16 code units, numbers in their shortest form, only the
	// characters JSON requires escaped (no \u003c for <).
	want := `{"capabilities":{"streaming":true},"n":1.5,"name":"Ünïcode <agent> & co","skills":[{"id":"a","tags":["x"]}],"version":"1.0"}`
	if string(payload) != want {
		t.Errorf("payload\n got %s\nwant %s", payload, want)
	}
	if Verify(t.Context(), card, cardURL, site(nil)).Unsigned() != true {
		t.Error("a card without signatures is not reported unsigned")
	}
}

// withHeader returns signed with its one signature replaced by one with protected header hdr and
// signature sig (forged: no key signed it).
func withHeader(t *testing.T, signed []byte, hdr map[string]any, sig string) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	json.Unmarshal(signed, &doc)
	h, _ := json.Marshal(hdr)
	doc["signatures"], _ = json.Marshal([]Signature{{Protected: base64.RawURLEncoding.EncodeToString(h), Signature: sig}})
	b, _ := json.Marshal(doc)
	return b
}

func TestBadSignaturesAreRefused(t *testing.T) {
	k, other := newKey(t, "k1"), newKey(t, "k2")
	keys := map[string][]byte{"https://agent.example/.well-known/jwks.json": jwks(t, k),
		"https://evil.example/jwks.json": jwks(t, other), "https://agent.example/other/jwks.json": jwks(t, other)}
	signed, err := Sign(card, k.kid, k.priv, "")
	if err != nil {
		t.Fatal(err)
	}
	byOther, _ := Sign(card, "k1", other.priv, "")                                    // claims kid k1, signed by another key
	foreign, _ := Sign(card, other.kid, other.priv, "https://evil.example/jwks.json") // keys from another origin
	sameOriginJKU, _ := Sign(card, other.kid, other.priv, "https://agent.example/other/jwks.json")
	unknownKid, _ := Sign(card, "nobody", k.priv, "")
	tampered := []byte(strings.Replace(string(signed), `"version":"1.0"`, `"version":"6.6"`, 1))
	none := withHeader(t, signed, map[string]any{"alg": "none", "kid": "k1"}, "")
	hs := withHeader(t, signed, map[string]any{"alg": "HS256", "kid": "k1"}, "AAAA")
	garbage := []byte(strings.Replace(string(signed), `"signatures":[`, `"signatures":[{"protected":"!!","signature":"x"},`, 1))
	notAList := []byte(`{"name":"x","signatures":{"protected":"x"}}`)

	for name, tc := range map[string]struct {
		doc  []byte
		want string // in the problem
	}{
		"tampered":       {tampered, "does not verify"},
		"other key":      {byOther, "does not verify"},
		"foreign jku":    {foreign, "not on the agent's origin"},
		"alg none":       {none, "not accepted"},
		"HS256":          {hs, "shared-secret"},
		"unknown kid":    {unknownKid, `no key "nobody"`},
		"garbage header": {garbage, "not base64url-encoded JSON"},
		"not a list":     {notAList, "not a list"},
	} {
		res := Verify(t.Context(), tc.doc, cardURL, site(keys))
		if res.Signed() || res.Unsigned() || !strings.Contains(strings.Join(res.Problems(), "; "), tc.want) {
			t.Errorf("%s: signed %v unsigned %v, problems %q, want one saying %q", name, res.Signed(), res.Unsigned(), res.Problems(), tc.want)
		}
	}
	// A jku on the agent's own origin is followed: its keys verify.
	if res := Verify(t.Context(), sameOriginJKU, cardURL, site(keys)); !res.Signed() {
		t.Errorf("same-origin jku: %v", res.Problems())
	}
}
