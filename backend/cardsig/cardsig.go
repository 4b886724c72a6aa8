// Package cardsig signs and verifies agent cards as A2A v1.0 §8.4 says: each entry of the card's
// "signatures" is a JWS (RFC 7515) with a detached payload, the payload being the card without its
// "signatures" member in its RFC 8785 (JCS) canonical form. Signing input is therefore
// BASE64URL(protected) "." BASE64URL(JCS(card − signatures)), as in any JWS; the card carries only
// "protected", "signature" and an optional unprotected "header".
//
// Canonicalisation is gowebpki/jcs and the JWS is go-jose: nothing here re-implements either.
package cardsig

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"
)

// JWKSPath is where an agent's public keys are, at its origin (the hub serves its token keys there).
const JWKSPath = "/.well-known/jwks.json"

// Signature is one entry of a card's "signatures" (a2a.AgentCardSignature's JSON shape).
type Signature struct {
	Protected string         `json:"protected"`
	Signature string         `json:"signature"`
	Header    map[string]any `json:"header,omitempty"`
}

// Payload is what a card's signatures sign: the card without "signatures", JCS-canonical.
func Payload(card []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(card, &doc); err != nil {
		return nil, fmt.Errorf("the card is not a JSON object: %w", err)
	}
	delete(doc, "signatures")
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(b)
}

// Sign returns card with one signature by key (ES256), replacing any signatures it had. kid names the
// key in the signer's JWKS; jku, if not empty, is that JWKS's URL (a hint for verifiers).
func Sign(card []byte, kid string, key *ecdsa.PrivateKey, jku string) ([]byte, error) {
	payload, err := Payload(card)
	if err != nil {
		return nil, err
	}
	opts := (&jose.SignerOptions{}).WithType("JOSE").WithHeader(jose.HeaderKey("kid"), kid)
	if jku != "" {
		opts = opts.WithHeader(jose.HeaderKey("jku"), jku)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		return nil, err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return nil, err
	}
	compact, err := jws.DetachedCompactSerialize() // protected..signature
	if err != nil {
		return nil, err
	}
	parts := strings.Split(compact, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("go-jose's detached serialisation has %d parts", len(parts))
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(card, &doc); err != nil {
		return nil, err
	}
	if doc["signatures"], err = json.Marshal([]Signature{{Protected: parts[0], Signature: parts[2]}}); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// Key is a public key a signature verified with.
type Key struct {
	Thumbprint string          // RFC 7638, SHA-256, base64url: what is pinned
	JWK        json.RawMessage // the public JWK as the agent published it (private members dropped)
}

// Checked is what became of one signature.
type Checked struct {
	Alg, Kid, JKU string
	Key           *Key   // the key it verified with; nil when it did not verify
	Problem       string // why it did not verify
}

// Result is the verification of every signature of a card.
type Result struct {
	Signatures []Checked // empty: the card is unsigned
	Problem    string    // the "signatures" member itself is malformed
}

// Signed says the card has signatures and every one of them verified.
func (r Result) Signed() bool {
	if r.Problem != "" || len(r.Signatures) == 0 {
		return false
	}
	for _, s := range r.Signatures {
		if s.Key == nil {
			return false
		}
	}
	return true
}

// Unsigned says the card carries no signature at all.
func (r Result) Unsigned() bool { return r.Problem == "" && len(r.Signatures) == 0 }

// Problems lists why the card is not Signed, one line per failing signature.
func (r Result) Problems() []string {
	var out []string
	if r.Problem != "" {
		out = append(out, r.Problem)
	}
	for i, s := range r.Signatures {
		if s.Problem != "" {
			out = append(out, fmt.Sprintf("signature %d: %s", i+1, s.Problem))
		}
	}
	return out
}

// Fetcher reads a document (a JWKS) from a URL.
type Fetcher func(ctx context.Context, url string) ([]byte, error)

// allowed are the asymmetric JWS algorithms a card may be signed with. "none" and the HMAC ones are
// not: with HS256 anyone who has the public key (everyone) could sign.
var allowed = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

// Verify checks every signature of card, fetched from cardURL. Keys come from the card's own origin
// only: its JWKS at JWKSPath, or at the signature's jku when that is on the same origin. A jku on any
// other origin fails the signature: whoever controls that origin could otherwise vouch for any card.
func Verify(ctx context.Context, card []byte, cardURL string, fetch Fetcher) Result {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(card, &doc); err != nil {
		return Result{Problem: "the card is not a JSON object"}
	}
	raw, ok := doc["signatures"]
	if !ok || string(raw) == "null" {
		return Result{}
	}
	var sigs []Signature
	if err := json.Unmarshal(raw, &sigs); err != nil {
		return Result{Problem: "signatures is not a list of {protected, signature, header}: " + err.Error()}
	}
	if len(sigs) == 0 {
		return Result{}
	}
	origin, err := originOf(cardURL)
	if err != nil {
		return Result{Problem: "the card's URL has no origin: " + err.Error()}
	}
	payload, err := Payload(card)
	if err != nil {
		return Result{Problem: err.Error()}
	}
	sets := map[string]*jose.JSONWebKeySet{} // by JWKS URL, fetched once per verification
	setErrs := map[string]error{}
	keysAt := func(u string) (*jose.JSONWebKeySet, error) {
		if s, ok := sets[u]; ok {
			return s, setErrs[u]
		}
		var set jose.JSONWebKeySet
		body, err := fetch(ctx, u)
		if err == nil {
			if err = json.Unmarshal(body, &set); err != nil {
				err = fmt.Errorf("%s is not a JWK set: %w", u, err)
			}
		}
		sets[u], setErrs[u] = &set, err
		return &set, err
	}
	out := Result{Signatures: make([]Checked, len(sigs))}
	for i, s := range sigs {
		out.Signatures[i] = check(s, payload, origin, keysAt)
	}
	return out
}

func check(s Signature, payload []byte, origin string, keysAt func(string) (*jose.JSONWebKeySet, error)) Checked {
	var c Checked
	hb, err := base64.RawURLEncoding.DecodeString(s.Protected)
	var protected map[string]any
	if err == nil {
		err = json.Unmarshal(hb, &protected)
	}
	if err != nil {
		c.Problem = "its protected header is not base64url-encoded JSON"
		return c
	}
	str := func(name string) string {
		if v, ok := protected[name].(string); ok {
			return v
		}
		v, _ := s.Header[name].(string)
		return v
	}
	c.Alg, c.Kid, c.JKU = str("alg"), str("kid"), str("jku")
	if _, inHeader := s.Header["alg"]; inHeader {
		c.Problem = "alg is in the unprotected header, where anyone could change it"
		return c
	}
	switch {
	case c.Alg == "" || strings.EqualFold(c.Alg, "none"):
		c.Problem = fmt.Sprintf("alg %q is not accepted: an unsigned card must not pass as signed", c.Alg)
		return c
	case strings.HasPrefix(strings.ToUpper(c.Alg), "HS"):
		c.Problem = fmt.Sprintf("alg %s is a shared-secret MAC, not a signature", c.Alg)
		return c
	}
	jwksURL := origin + JWKSPath
	if c.JKU != "" {
		o, err := originOf(c.JKU)
		if err != nil || o != origin {
			c.Problem = fmt.Sprintf("its jku %s is not on the agent's origin %s; keys are only taken from there", c.JKU, origin)
			return c
		}
		jwksURL = c.JKU
	}
	jws, err := jose.ParseDetached(s.Protected+".."+s.Signature, payload, allowed)
	if err != nil {
		c.Problem = "malformed JWS: " + err.Error()
		return c
	}
	set, err := keysAt(jwksURL)
	if err != nil {
		c.Problem = "its keys could not be read: " + err.Error()
		return c
	}
	candidates := set.Keys
	if c.Kid != "" {
		candidates = set.Key(c.Kid)
	}
	if len(candidates) == 0 {
		c.Problem = fmt.Sprintf("no key %q in %s", c.Kid, jwksURL)
		return c
	}
	for _, k := range candidates {
		pub := k.Public()
		if !pub.Valid() || !pub.IsPublic() {
			continue // a symmetric key in a JWKS verifies nothing here
		}
		if _, err := jws.Verify(pub.Key); err != nil {
			continue
		}
		tp, err := pub.Thumbprint(crypto.SHA256)
		if err != nil {
			continue
		}
		jwk, _ := pub.MarshalJSON()
		c.Key = &Key{Thumbprint: base64.RawURLEncoding.EncodeToString(tp), JWK: jwk}
		return c
	}
	c.Problem = fmt.Sprintf("it does not verify with key %q from %s: the card was changed after it was signed, or signed by someone else", c.Kid, jwksURL)
	return c
}

// originOf is scheme://host[:port] of an absolute http(s) URL, lower-cased.
func originOf(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("not an absolute http(s) URL")
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}
