package auth

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agenthub/agenthub/backend/store"
)

// Where the lead mounts the handlers.
const (
	TokenPath = "/oauth/token"
	JWKSPath  = "/.well-known/jwks.json"
)

// Header size caps for Resolve, well above real credentials (an API key is 47 bytes, a token about
// 600) and far below what would make parsing one expensive.
const (
	MaxAPIKeyHeader        = 256
	MaxAuthorizationHeader = MaxTokenBytes + len("Bearer ")
)

// maxTokenRequest bounds the token endpoint's form body.
const maxTokenRequest = 8 << 10

// Resolve is who r acts for: the holder of its X-Api-Key, or of its Authorization: Bearer token, or
// Anonymous when it carries neither. A credential that is present but wrong, oversized, repeated, or
// in another scheme is an ErrUnauthenticated: a bad credential never falls back to anonymous. Whether
// anonymous may call at all (loopback callers only) is the caller's decision. A successful API key or
// token marks the principal used.
func (s *Service) Resolve(r *http.Request) (Principal, error) {
	p, _, err := s.resolve(r)
	return p, err
}

// ResolveContext is Resolve, and r's context acting for the principal (WithPrincipal) and carrying
// the credential it was resolved from, so that a stream can end when that credential is revoked
// (UntilRevoked).
func (s *Service) ResolveContext(r *http.Request) (Principal, context.Context, error) {
	p, gen, err := s.resolve(r)
	if err != nil {
		return Principal{}, nil, err
	}
	ctx := WithPrincipal(r.Context(), p)
	if p.Kind == KindAgent {
		ctx = context.WithValue(ctx, credentialKey{}, credential{revocations: s.Principals.revocations, name: p.Name, generation: gen})
	}
	return p, ctx, nil
}

// resolve is Resolve that also returns, for an agent, the key generation its credential is of.
func (s *Service) resolve(r *http.Request) (Principal, int64, error) {
	keys, auths := r.Header.Values("X-Api-Key"), r.Header.Values("Authorization")
	var p Principal
	var gen int64
	var err error
	switch {
	case len(keys) == 0 && len(auths) == 0:
		return Anonymous, 0, nil
	case len(keys)+len(auths) > 1:
		return Principal{}, 0, unauthenticated("more than one credential; send either X-Api-Key or Authorization, once")
	case len(keys) == 1:
		if len(keys[0]) > MaxAPIKeyHeader {
			return Principal{}, 0, unauthenticated("X-Api-Key header too large")
		}
		if subtle.ConstantTimeCompare([]byte(keys[0]), []byte(s.ownerKey)) == 1 {
			return Owner, 0, nil // the hub's own client, for the owner
		}
		var name string
		name, gen, err = s.Principals.authenticate(r.Context(), keys[0])
		p = Agent(name)
	default:
		if len(auths[0]) > MaxAuthorizationHeader {
			return Principal{}, 0, unauthenticated("Authorization header too large")
		}
		scheme, token, _ := strings.Cut(auths[0], " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return Principal{}, 0, unauthenticated("unsupported Authorization scheme; use Bearer with a token from " + TokenPath)
		}
		p, gen, err = s.verify(r.Context(), strings.TrimSpace(token))
	}
	if err != nil {
		return Principal{}, 0, err
	}
	if err := s.Principals.MarkUsed(r.Context(), p.Name); err != nil {
		s.cfg.Logger.Warn("recording that a principal was used", "principal", p.ID, "err", err)
	}
	return p, gen, nil
}

// TokenHandler is the OAuth2 token endpoint for the client credentials grant (RFC 6749 §4.4):
// client_id is the principal's NAME and client_secret its API key, sent as HTTP Basic (§2.3.1) or in
// the form body. It answers {access_token, token_type, expires_in}, or a §5.2 error.
func (s *Service) TokenHandler() http.Handler {
	return http.HandlerFunc(s.serveToken)
}

func (s *Service) serveToken(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store") // tokens and errors alike (§5.1)
	h.Set("Pragma", "no-cache")
	if r.Method != http.MethodPost {
		h.Set("Allow", http.MethodPost)
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "the token endpoint takes POST")
		return
	}
	if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); !strings.EqualFold(strings.TrimSpace(ct), "application/x-www-form-urlencoded") {
		oauthError(w, http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenRequest)
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "unreadable form body")
		return
	}
	form := r.PostForm
	for k, v := range form {
		if len(v) > 1 { // §3.2: parameters must not be repeated
			oauthError(w, http.StatusBadRequest, "invalid_request", "parameter "+strconv.Quote(k)+" repeated")
			return
		}
	}
	if r.URL.Query().Has("client_secret") {
		oauthError(w, http.StatusBadRequest, "invalid_request", "client_secret belongs in the body or in HTTP Basic, never in the URL")
		return
	}
	switch gt := form.Get("grant_type"); gt {
	case "client_credentials":
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "grant_type is missing")
		return
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "only client_credentials is supported")
		return
	}
	id, secret, err := clientCredentials(r)
	if err != nil {
		if errors.Is(err, errNoClientAuth) || errors.Is(err, errBadBasic) {
			h.Set("WWW-Authenticate", `Basic realm="agenthub"`)
			oauthError(w, http.StatusUnauthorized, "invalid_client", err.Error())
			return
		}
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	name, gen, err := s.Principals.authenticate(r.Context(), secret)
	if err == nil && name != id {
		err = errUnknownKey // a real key, but not this client's
	}
	if err != nil {
		if store.Unavailable(err) {
			// OAuth2's own word for it (RFC 6749 §4.1.2.1), with HTTP's: try again shortly.
			s.cfg.Logger.Warn("token endpoint: storage unavailable", "err", err)
			h.Set("Retry-After", "5")
			oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the hub's database cannot be reached; retry shortly")
			return
		}
		if !errors.Is(err, ErrUnauthenticated) {
			s.cfg.Logger.Error("token endpoint", "err", err)
			oauthError(w, http.StatusInternalServerError, "server_error", "the hub could not check the credentials")
			return
		}
		if ValidName(id) == nil { // a junk client_id is not worth logging (it may even be a pasted secret)
			s.cfg.Logger.Info("token refused", "client_id", id)
		}
		h.Set("WWW-Authenticate", `Basic realm="agenthub"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client", "unknown client or wrong client_secret")
		return
	}
	p := Agent(name)
	token, exp, err := s.issue(p, gen, 0)
	if err != nil {
		s.cfg.Logger.Error("token endpoint", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the hub could not sign a token")
		return
	}
	if err := s.Principals.MarkUsed(r.Context(), name); err != nil {
		s.cfg.Logger.Warn("recording that a principal was used", "principal", p.ID, "err", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": token,
		"token_type":   "Bearer",
		"expires_in":   int64(exp.Sub(s.cfg.Now()).Seconds()),
	})
}

var (
	errNoClientAuth = errors.New("no client credentials: send client_id and client_secret as HTTP Basic or in the body")
	errBadBasic     = errors.New("malformed HTTP Basic credentials")
)

// clientCredentials reads the client's id and secret from HTTP Basic or the form body, refusing both
// at once (§2.3: one method per request).
func clientCredentials(r *http.Request) (id, secret string, err error) {
	formID, formSecret := r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	if r.Header.Get("Authorization") == "" {
		if formID == "" || formSecret == "" {
			return "", "", errNoClientAuth
		}
		return formID, formSecret, nil
	}
	if formSecret != "" {
		return "", "", errors.New("client credentials sent twice (HTTP Basic and body); use one")
	}
	u, p, ok := r.BasicAuth()
	if !ok {
		return "", "", errBadBasic
	}
	// §2.3.1: Basic's user and password are form-encoded first.
	if id, err = url.QueryUnescape(u); err != nil {
		return "", "", errBadBasic
	}
	if secret, err = url.QueryUnescape(p); err != nil {
		return "", "", errBadBasic
	}
	if formID != "" && formID != id {
		return "", "", errors.New("client_id in the body differs from HTTP Basic")
	}
	return id, secret, nil
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// JWKSHandler serves the public keys that verify the hub's tokens (JWKSPath).
func (s *Service) JWKSHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		// Short, so verifiers see a rotated key soon; they refetch on an unknown kid anyway.
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Write(s.JWKS())
	})
}
