package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

const (
	// DefaultTokenTTL is how long an access token from the token endpoint lives.
	DefaultTokenTTL = time.Hour
	// MaxTokenTTL bounds every token's life, and so how long a retired signing key's public half is
	// kept: no token it signed can outlive its retirement by more.
	MaxTokenTTL = 24 * time.Hour
	// MaxTokenBytes bounds a token presented to Verify; the hub's own are about 600 bytes.
	MaxTokenBytes = 4096
)

// Config configures Open.
type Config struct {
	DB *store.DB
	// Issuer is the hub's base URL, the tokens' iss. Required.
	Issuer string
	// Audience is the tokens' aud: who they are good for. Default: Issuer (the hub takes its own tokens).
	Audience string
	// TokenTTL is the life of tokens from the token endpoint (default DefaultTokenTTL, at most MaxTokenTTL).
	TokenTTL time.Duration
	Logger   *slog.Logger
	// Bus, if set, hears of every change to the principals and the anonymous policy (Topic), so the
	// UI's open windows stay in step.
	Bus *bus.Bus
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
}

// Service is the hub's auth: its principals, its signing keys, and the HTTP side of both.
type Service struct {
	Principals *Principals

	cfg    Config
	parser *jwt.Parser

	mu        sync.RWMutex
	current   signingKey            // signs new tokens
	public    map[string]signingKey // kid → key, current and retired, that tokens may verify with
	anonymous AnonymousPolicy

	policyMu sync.Mutex // serialises SetAnonymousPolicy

	// ownerKey is this run's API key of the owner, held in memory only: the hub's own client uses
	// it when the owner chats with the hub (a note to their inbox), so those tasks are the owner's,
	// not an anonymous caller's. A new one each run; never stored in hub.db.
	ownerKey string
}

// OwnerKey is this run's API key of the owner (see Service.ownerKey). It is a secret: the hub hands
// it only to its own client.
func (s *Service) OwnerKey() string { return s.ownerKey }

type signingKey struct {
	kid         string
	private     *ecdsa.PrivateKey // nil once retired
	public      *ecdsa.PublicKey
	verifyUntil time.Time // zero for the current key
}

// Open migrates the auth tables and loads the hub's signing key, making one on first use.
func Open(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Issuer == "" {
		return nil, errors.New("auth: Config.Issuer is required")
	}
	if cfg.Audience == "" {
		cfg.Audience = cfg.Issuer
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	cfg.TokenTTL = min(cfg.TokenTTL, MaxTokenTTL)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	ps, err := OpenPrincipals(ctx, cfg.DB)
	if err != nil {
		return nil, err
	}
	ps.now, ps.bus = cfg.Now, cfg.Bus
	ownerKey, _, _ := newKey()
	s := &Service{Principals: ps, cfg: cfg, ownerKey: ownerKey}
	if s.anonymous, err = loadPolicy(ctx, cfg.DB.Writer); err != nil {
		return nil, err
	}
	// Only ES256 is accepted: this refuses "alg":"none" and HS256 signed with the public key as the
	// HMAC secret before any key is looked up. No leeway: the hub verifies tokens from its own clock.
	s.parser = jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodES256.Alg()}),
		jwt.WithIssuer(cfg.Issuer), jwt.WithAudience(cfg.Audience), jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(), jwt.WithTimeFunc(cfg.Now), jwt.WithStrictDecoding())
	if err := s.loadKeys(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// loadKeys reads the signing keys still of use, dropping retired ones whose tokens have all expired,
// and makes a current key if there is none.
func (s *Service) loadKeys(ctx context.Context) error {
	db := s.cfg.DB
	now := s.cfg.Now()
	if _, err := db.Writer.ExecContext(ctx, `DELETE FROM signing_keys WHERE retired_at != 0 AND verify_until <= ?`, now.UnixNano()); err != nil {
		return err
	}
	rows, err := db.Writer.QueryContext(ctx, `SELECT kid, private_der, public_der, verify_until FROM signing_keys`)
	if err != nil {
		return err
	}
	defer rows.Close()
	s.public = map[string]signingKey{}
	for rows.Next() {
		var k signingKey
		var priv, pub []byte
		var until int64
		if err := rows.Scan(&k.kid, &priv, &pub, &until); err != nil {
			return err
		}
		if k.public, err = parsePublic(pub); err != nil {
			return fmt.Errorf("signing key %s: %w", k.kid, err)
		}
		if priv != nil {
			if k.private, err = parsePrivate(priv); err != nil {
				return fmt.Errorf("signing key %s: %w", k.kid, err)
			}
			s.current = k
		} else {
			k.verifyUntil = time.Unix(0, until)
		}
		s.public[k.kid] = k
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	if s.current.private == nil {
		return s.RotateSigningKey(ctx)
	}
	return nil
}

// RotateSigningKey makes a new signing key for new tokens. The old key's public half stays in the
// JWKS, and verifies tokens, until the last token it may have signed expires (MaxTokenTTL from now).
func (s *Service) RotateSigningKey(ctx context.Context) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return err
	}
	next := signingKey{kid: thumbprint(&priv.PublicKey), private: priv, public: &priv.PublicKey}
	now := s.cfg.Now()
	until := now.Add(MaxTokenTTL)
	s.mu.Lock() // held across the write, so no token is signed with a key being retired
	defer s.mu.Unlock()
	err = s.cfg.DB.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE signing_keys SET private_der = NULL, retired_at = ?, verify_until = ?
			WHERE retired_at = 0`, now.UnixNano(), until.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO signing_keys (kid, private_der, public_der, created_at) VALUES (?, ?, ?, ?)`,
			next.kid, privDER, pubDER, now.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("rotate signing key: %w", err)
	}
	if old := s.current; old.private != nil {
		old.private, old.verifyUntil = nil, until
		s.public[old.kid] = old
	}
	s.current = next
	s.public[next.kid] = next
	return nil
}

func parsePublic(der []byte) (*ecdsa.PublicKey, error) {
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, err
	}
	pub, ok := k.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 public key")
	}
	return pub, nil
}

func parsePrivate(der []byte) (*ecdsa.PrivateKey, error) {
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, err
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errors.New("not a P-256 private key")
	}
	return priv, nil
}

// claims are a token's claims: the registered ones and gen, the principal's key generation when the
// token was minted (see the principals table), so that rotating or removing a key kills its tokens.
type claims struct {
	jwt.RegisteredClaims
	Generation int64 `json:"gen"`
}

// Issue mints an access token for an agent principal, living ttl (DefaultTokenTTL if ttl <= 0, at
// most MaxTokenTTL). The principal must be active.
func (s *Service) Issue(ctx context.Context, p Principal, ttl time.Duration) (token string, expires time.Time, err error) {
	if p.Kind != KindAgent {
		return "", time.Time{}, fmt.Errorf("tokens are issued to agent principals, not %s", p.ID)
	}
	gen, err := s.Principals.generation(ctx, p.Name)
	if err != nil {
		return "", time.Time{}, err
	}
	return s.issue(p, gen, ttl)
}

func (s *Service) issue(p Principal, generation int64, ttl time.Duration) (string, time.Time, error) {
	if ttl <= 0 {
		ttl = s.cfg.TokenTTL
	}
	ttl = min(ttl, MaxTokenTTL)
	jti := make([]byte, 16)
	rand.Read(jti)
	now := s.cfg.Now().Truncate(time.Second) // NumericDate is whole seconds
	exp := now.Add(ttl)
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: s.cfg.Issuer, Subject: p.ID, Audience: jwt.ClaimStrings{s.cfg.Audience},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(exp),
			ID: base64.RawURLEncoding.EncodeToString(jti),
		},
		Generation: generation,
	}
	s.mu.RLock()
	key := s.current
	s.mu.RUnlock()
	t := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	t.Header["kid"] = key.kid
	signed, err := t.SignedString(key.private)
	if err != nil {
		return "", time.Time{}, err
	}
	return signed, exp, nil
}

// Verify is the principal an access token from Issue speaks for. It refuses, as ErrUnauthenticated
// with a reason that never quotes the token: any algorithm but ES256 (alg none, HS256 keyed with the
// public key), an unknown or expired kid, a bad signature, a wrong iss or aud, an expired or
// not-yet-valid token, and a token whose principal was removed or whose key was rotated since.
func (s *Service) Verify(ctx context.Context, token string) (Principal, error) {
	p, _, err := s.verify(ctx, token)
	return p, err
}

// verify is Verify that also returns the key generation the token was minted under.
func (s *Service) verify(ctx context.Context, token string) (Principal, int64, error) {
	if len(token) > MaxTokenBytes {
		return Principal{}, 0, unauthenticated("token too large")
	}
	var c claims
	_, err := s.parser.ParseWithClaims(token, &c, s.keyFor)
	if err != nil {
		return Principal{}, 0, tokenError(err)
	}
	p, ok := ParseID(c.Subject)
	if !ok || p.Kind != KindAgent {
		return Principal{}, 0, unauthenticated("token subject is not an agent principal")
	}
	gen, err := s.Principals.generation(ctx, p.Name)
	if errors.Is(err, ErrNotFound) || (err == nil && gen != c.Generation) {
		return Principal{}, 0, unauthenticated("token revoked: its principal was removed or its key rotated")
	}
	if err != nil {
		return Principal{}, 0, err
	}
	return p, gen, nil
}

var errUnknownKid = errors.New("token signed with an unknown key (kid)")

// keyFor is the public key a token names in its kid header, if the hub still verifies with it.
func (s *Service) keyFor(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	s.mu.RLock()
	k, ok := s.public[kid]
	s.mu.RUnlock()
	if !ok || (!k.verifyUntil.IsZero() && !s.cfg.Now().Before(k.verifyUntil)) {
		return nil, errUnknownKid
	}
	return k.public, nil
}

// tokenError turns a JWT library error into a reason fit for the caller.
func tokenError(err error) error {
	switch {
	case errors.Is(err, errUnknownKid):
		return unauthenticated(errUnknownKid.Error())
	case errors.Is(err, jwt.ErrTokenMalformed):
		return unauthenticated("malformed token")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return unauthenticated("token signature invalid (only ES256 tokens from this hub are accepted)")
	case errors.Is(err, jwt.ErrTokenExpired):
		return unauthenticated("token expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return unauthenticated("token not valid yet")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer), errors.Is(err, jwt.ErrTokenInvalidAudience):
		return unauthenticated("token is not for this hub (iss or aud)")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return unauthenticated("token lacks a required claim")
	}
	return unauthenticated("invalid token")
}

// jwk is an EC P-256 public key as a JSON Web Key (RFC 7517, RFC 7518 §6.2.1).
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid,omitempty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
}

func toJWK(pub *ecdsa.PublicKey) jwk {
	e, err := pub.ECDH()
	if err != nil {
		panic(err) // P-256 keys always convert; loaded keys were checked to be P-256
	}
	raw := e.Bytes() // 0x04 || X || Y, each 32 bytes: the fixed-width coordinates JWK wants
	enc := base64.RawURLEncoding.EncodeToString
	return jwk{Kty: "EC", Crv: "P-256", X: enc(raw[1:33]), Y: enc(raw[33:65])}
}

// thumbprint is the RFC 7638 JWK thumbprint of pub, used as its kid: a name derived from the key, so a
// kid can never point at a different key.
func thumbprint(pub *ecdsa.PublicKey) string {
	k := toJWK(pub)
	// The required members in lexicographic order, no whitespace (RFC 7638 §3.2).
	canon := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":"%s","y":"%s"}`, k.X, k.Y)
	sum := sha256.Sum256([]byte(canon))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// JWKS is the JSON Web Key Set of the public keys that verify the hub's tokens: the current key and
// retired ones whose tokens may still be live.
func (s *Service) JWKS() []byte {
	now := s.cfg.Now()
	s.mu.RLock()
	keys := make([]jwk, 0, len(s.public))
	for _, k := range s.public {
		if !k.verifyUntil.IsZero() && !now.Before(k.verifyUntil) {
			continue
		}
		j := toJWK(k.public)
		j.Kid, j.Use, j.Alg = k.kid, "sig", "ES256"
		keys = append(keys, j)
	}
	s.mu.RUnlock()
	slices.SortFunc(keys, func(a, b jwk) int { return strings.Compare(a.Kid, b.Kid) }) // a stable document
	b, err := json.Marshal(map[string][]jwk{"keys": keys})
	if err != nil {
		panic(err) // strings only
	}
	return b
}

// SignClaims signs c as a JWT with the hub's current signing key (ES256, its kid in the header), so
// anyone holding the JWKS can verify it. It is for tokens the hub sends rather than issues, such as
// the signature of a push notification: the caller sets every claim, and Verify does not accept them.
func (s *Service) SignClaims(c jwt.Claims) (string, error) {
	s.mu.RLock()
	key := s.current
	s.mu.RUnlock()
	t := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	t.Header["kid"] = key.kid
	return t.SignedString(key.private)
}

// CardKey is the key the agent's card is signed with (A2A §8.4): the current token signing key, so
// the card's kid is in the same JWKS, and the card follows the key when it rotates.
func (s *Service) CardKey() (kid string, key *ecdsa.PrivateKey) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current.kid, s.current.private
}
