package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestIssueVerify(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	tok, exp, err := f.svc.Issue(ctx, Agent("bot"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.clock.Now().Add(DefaultTokenTTL); !exp.Equal(want) {
		t.Errorf("expiry %v, want %v", exp, want)
	}
	p, err := f.svc.Verify(ctx, tok)
	if err != nil || p != Agent("bot") {
		t.Fatalf("Verify = %+v, %v; want agent://bot", p, err)
	}
	// The claims, read without verifying: what a resource server would check.
	var c claims
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, &c)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Header["alg"] != "ES256" || parsed.Header["kid"] != f.svc.current.kid || parsed.Header["kid"] == "" {
		t.Errorf("header %v, want ES256 with the current kid", parsed.Header)
	}
	if c.Issuer != testIssuer || c.Subject != "agent://bot" || len(c.Audience) != 1 || c.Audience[0] != testIssuer ||
		c.ID == "" || !c.IssuedAt.Equal(f.clock.Now()) || !c.ExpiresAt.Equal(exp) || c.Generation != 1 {
		t.Errorf("claims %+v", c)
	}
	// Each token has its own jti.
	tok2, _, _ := f.svc.Issue(ctx, Agent("bot"), 0)
	var c2 claims
	jwt.NewParser().ParseUnverified(tok2, &c2)
	if c2.ID == c.ID {
		t.Error("two tokens share a jti")
	}
}

func TestIssueBounds(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	if _, exp, err := f.svc.Issue(ctx, Agent("bot"), 1000*time.Hour); err != nil || !exp.Equal(f.clock.Now().Add(MaxTokenTTL)) {
		t.Errorf("a 1000 h token: expiry %v, %v; want capped at %v", exp, err, MaxTokenTTL)
	}
	if _, _, err := f.svc.Issue(ctx, Agent("nobody"), 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("a token for an unknown principal: %v, want ErrNotFound", err)
	}
	for _, p := range []Principal{Owner, Anonymous} {
		if _, _, err := f.svc.Issue(ctx, p, 0); err == nil {
			t.Errorf("a token for %s was issued", p)
		}
	}
}

// defaultClaims are the claims Issue would use for agent://name now.
func (f *fixture) defaultClaims(name string) claims {
	now := f.clock.Now()
	return claims{RegisteredClaims: jwt.RegisteredClaims{
		Issuer: testIssuer, Subject: "agent://" + name, Audience: jwt.ClaimStrings{testIssuer},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)), ID: "test",
	}, Generation: 1}
}

// sign signs c with method and key, with the kid header.
func sign(t *testing.T, c claims, method jwt.SigningMethod, key any, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerifyRefusesBadTokens(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	f.add(t, "other")
	good := f.issue(t, "bot", 0)
	key, kid := f.svc.current.private, f.svc.current.kid
	parts := strings.Split(good, ".")

	// The payload changed to another principal, the signature kept.
	var payload map[string]any
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(raw, &payload)
	payload["sub"] = "agent://other"
	raw, _ = json.Marshal(payload)
	tamperedPayload := parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]

	tamperedSig := tamperSignature(good)

	none := sign(t, f.defaultClaims("bot"), jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid)

	// HS256 keyed with the hub's public key, which anyone can read from the JWKS.
	pubDER, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	hsPEM := sign(t, f.defaultClaims("bot"), jwt.SigningMethodHS256, pubPEM, kid)
	hsDER := sign(t, f.defaultClaims("bot"), jwt.SigningMethodHS256, pubDER, kid)

	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	strangerWithOurKid := sign(t, f.defaultClaims("bot"), jwt.SigningMethodES256, stranger, kid)
	es384Key, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	es384 := sign(t, f.defaultClaims("bot"), jwt.SigningMethodES384, es384Key, kid)

	withClaims := func(edit func(*claims)) string {
		c := f.defaultClaims("bot")
		edit(&c)
		return sign(t, c, jwt.SigningMethodES256, key, kid)
	}
	now := f.clock.Now()

	cases := []struct {
		name, token, reason string
	}{
		{"empty", "", "malformed"},
		{"garbage", "not-a-token", "malformed"},
		{"three garbage parts", "a.b.c", "malformed"},
		{"huge", strings.Repeat("a", MaxTokenBytes+1), "too large"},
		{"tampered payload", tamperedPayload, "signature invalid"},
		{"tampered signature", tamperedSig, "signature invalid"},
		{"signature stripped", parts[0] + "." + parts[1] + ".", "signature invalid"},
		{"alg none", none, "signature invalid"},
		{"HS256 keyed with the public key (PEM)", hsPEM, "signature invalid"},
		{"HS256 keyed with the public key (DER)", hsDER, "signature invalid"},
		{"ES384", es384, "signature invalid"},
		{"another key under our kid", strangerWithOurKid, "signature invalid"},
		{"unknown kid", sign(t, f.defaultClaims("bot"), jwt.SigningMethodES256, key, "not-a-kid"), "unknown key"},
		{"no kid", sign(t, f.defaultClaims("bot"), jwt.SigningMethodES256, key, ""), "unknown key"},
		{"wrong issuer", withClaims(func(c *claims) { c.Issuer = "http://evil.example" }), "not for this hub"},
		{"wrong audience", withClaims(func(c *claims) { c.Audience = jwt.ClaimStrings{"http://other.example"} }), "not for this hub"},
		{"no expiry", withClaims(func(c *claims) { c.ExpiresAt = nil }), "required claim"},
		{"expired", withClaims(func(c *claims) { c.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Second)) }), "expired"},
		{"not yet valid", withClaims(func(c *claims) { c.NotBefore = jwt.NewNumericDate(now.Add(time.Minute)) }), "not valid yet"},
		{"issued in the future", withClaims(func(c *claims) { c.IssuedAt = jwt.NewNumericDate(now.Add(time.Minute)) }), "not valid yet"},
		{"owner subject", withClaims(func(c *claims) { c.Subject = Owner.ID }), "not an agent"},
		// An added agent is a channel member the bridge speaks for; nobody authenticates as it.
		{"remote subject", withClaims(func(c *claims) { c.Subject = "remote://demo" }), "not an agent"},
		{"unknown principal", withClaims(func(c *claims) { c.Subject = "agent://nobody" }), "revoked"},
		{"older key generation", withClaims(func(c *claims) { c.Generation = 0 }), "revoked"},
	}
	for _, tc := range cases {
		p, err := f.svc.Verify(ctx, tc.token)
		if err == nil {
			t.Errorf("%s: Verify = %+v, want refused", tc.name, p)
			continue
		}
		wantUnauthenticated(t, tc.name, err, tc.reason, tc.token)
	}
	// The untouched token still passes: the refusals above are about what was changed.
	if _, err := f.svc.Verify(ctx, good); err != nil {
		t.Fatalf("the good token: %v", err)
	}
	if log := f.log.String(); strings.Contains(log, parts[2]) {
		t.Errorf("the log holds a token signature:\n%s", log)
	}
}

func TestTokenExpires(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	tok := f.issue(t, "bot", time.Minute)
	f.clock.Advance(59 * time.Second)
	if _, err := f.svc.Verify(ctx, tok); err != nil {
		t.Fatalf("a token 1 s before expiry: %v", err)
	}
	f.clock.Advance(time.Second)
	_, err := f.svc.Verify(ctx, tok)
	wantUnauthenticated(t, "at expiry", err, "expired", tok)
}

// A token minted while the clock was ahead (not yet valid for a verifier behind it).
func TestTokenNotYetValid(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	f.clock.Advance(time.Hour)
	tok := f.issue(t, "bot", 0)
	f.clock.Advance(-time.Hour)
	_, err := f.svc.Verify(ctx, tok)
	wantUnauthenticated(t, "from the future", err, "not valid yet", tok)
}

func TestRotatingOrRemovingThePrincipalKillsItsTokens(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	before := f.issue(t, "bot", 0)
	if _, _, err := f.svc.Principals.Rotate(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Verify(ctx, before)
	wantUnauthenticated(t, "a token from before the rotation", err, "revoked", before)
	after := f.issue(t, "bot", 0)
	if _, err := f.svc.Verify(ctx, after); err != nil {
		t.Fatalf("a token from after the rotation: %v", err)
	}
	if err := f.svc.Principals.Remove(ctx, "bot"); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Verify(ctx, after)
	wantUnauthenticated(t, "a token of a removed principal", err, "revoked", after)
	// Adding the name again does not revive tokens of its earlier holder.
	f.add(t, "bot")
	_, err = f.svc.Verify(ctx, after)
	wantUnauthenticated(t, "a token of the name's earlier holder", err, "revoked", after)
}

func jwksKids(t *testing.T, s *Service) []string {
	t.Helper()
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(s.JWKS(), &set); err != nil {
		t.Fatal(err)
	}
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k.Kid)
	}
	return kids
}

func TestSigningKeyRotation(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.add(t, "bot")
	oldKid := f.svc.current.kid
	old := f.issue(t, "bot", MaxTokenTTL)
	f.clock.Advance(time.Hour)
	if err := f.svc.RotateSigningKey(ctx); err != nil {
		t.Fatal(err)
	}
	newKid := f.svc.current.kid
	if newKid == oldKid {
		t.Fatal("rotation kept the kid")
	}
	fresh := f.issue(t, "bot", 0)
	if kid := headerKid(t, fresh); kid != newKid {
		t.Errorf("a new token's kid is %s, want the new key's %s", kid, newKid)
	}
	for name, tok := range map[string]string{"old": old, "fresh": fresh} {
		if _, err := f.svc.Verify(ctx, tok); err != nil {
			t.Errorf("%s token after rotation: %v", name, err)
		}
	}
	if kids := jwksKids(t, f.svc); len(kids) != 2 {
		t.Errorf("JWKS kids %v, want the old and the new key", kids)
	}
	// The retired key's private half is gone from the database.
	var priv []byte
	if err := f.db.Reader.QueryRowContext(ctx, `SELECT private_der FROM signing_keys WHERE kid = ?`, oldKid).Scan(&priv); err != nil || priv != nil {
		t.Errorf("retired key's private half: %d bytes, %v; want NULL", len(priv), err)
	}
	// A restart keeps both: the current key signs, the retired one still verifies.
	reopened := f.open(t)
	if reopened.current.kid != newKid {
		t.Errorf("after reopening the current kid is %s, want %s", reopened.current.kid, newKid)
	}
	if _, err := reopened.Verify(ctx, old); err != nil {
		t.Errorf("old token after reopening: %v", err)
	}
	// Once the last token the old key can have signed has expired, the key leaves the JWKS, and the
	// database on the next start.
	f.clock.Advance(MaxTokenTTL)
	if kids := jwksKids(t, f.svc); len(kids) != 1 || kids[0] != newKid {
		t.Errorf("JWKS kids %v a day after rotation, want only %s", kids, newKid)
	}
	f.open(t)
	var n int
	f.db.Reader.QueryRowContext(ctx, `SELECT count(*) FROM signing_keys`).Scan(&n)
	if n != 1 {
		t.Errorf("%d signing keys in the database a day after rotation, want 1", n)
	}
}

func headerKid(t *testing.T, tok string) string {
	t.Helper()
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, &claims{})
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := parsed.Header["kid"].(string)
	return kid
}

// tamperSignature flips one bit of a compact JWS's signature. (Rewriting its last characters is not
// always a change: the last base64url character carries padding bits a decoder ignores.)
func tamperSignature(token string) string {
	parts := strings.Split(token, ".")
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sig[5] ^= 0x40
	return parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(sig)
}
