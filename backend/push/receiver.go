package push

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/store"
)

// The receiving side: the hub as a client of remote agents that push. A conversation subscribes for
// one task, gets a webhook URL of the hub's own server and a fresh token, and gives both to the agent
// in a push config. A notification is accepted only if it carries that token and a JWT signed by a
// key of the agent's JWKS, for this URL, issued within ReceiveWindow, with an id never seen before,
// and (when the claim is there) the hash of the exact body.

// InPath is the route of the hub's webhooks: InPath + subscription id.
const InPath = "/push/in/"

// Receiver limits.
const (
	// ReceiveWindow is how old a notification's iat may be (the seed's replay advice), and how far
	// in the future it may be, for clock skew.
	ReceiveWindow = 5 * time.Minute
	// MaxInBody bounds a notification's body (a file may travel inline, as in a JSON-RPC answer).
	MaxInBody = 32 << 20
	// jwksRefetchEvery rate-limits fetching an agent's JWKS again for an unknown kid, so forged kids
	// cannot make the hub hammer the agent.
	jwksRefetchEvery = 10 * time.Second
	// logEvery rate-limits the log of refused notifications.
	logEvery = 10 * time.Second
	// subBuffer is how many accepted notifications wait for their conversation; more are dropped
	// (the conversation's fallback tasks/get catches up).
	subBuffer = 64
)

// ReceiverConfig configures OpenReceiver.
type ReceiverConfig struct {
	DB *store.DB
	// BaseURL is the hub's base URL as agents reach it: webhooks are BaseURL + InPath + id.
	BaseURL string
	// Client fetches JWKS documents (default: a plain client with a 10 s timeout).
	Client *http.Client
	Logger *slog.Logger
	Now    func() time.Time
}

// Receiver is the hub's webhook for push notifications from remote agents. It is an http.Handler for
// InPath.
type Receiver struct {
	cfg ReceiverConfig

	mu   sync.Mutex
	subs map[string]*Subscription
	keys map[string]*keySet // by JWKS URL

	logMu      sync.Mutex
	lastLog    time.Time
	suppressed int
}

// OpenReceiver migrates the table of seen notification ids (shared with the outbox's migrations) and
// returns the receiver.
func OpenReceiver(ctx context.Context, cfg ReceiverConfig) (*Receiver, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := cfg.DB.Migrate(ctx, "push", sub); err != nil {
		return nil, err
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Receiver{cfg: cfg, subs: map[string]*Subscription{}, keys: map[string]*keySet{}}, nil
}

// Subscription is one task's webhook. C carries the body of each accepted notification.
type Subscription struct {
	ID, URL, Token string
	TaskID         string
	JWKSURL        string
	C              <-chan []byte

	c chan []byte
	r *Receiver
}

// Subscribe opens a webhook for the task, whose notifications must be signed by a key of the JWKS at
// jwksURL.
func (r *Receiver) Subscribe(taskID, jwksURL string) *Subscription {
	id, token := randomString(), randomString()
	c := make(chan []byte, subBuffer)
	s := &Subscription{ID: id, URL: r.cfg.BaseURL + InPath + id, Token: token, TaskID: taskID, JWKSURL: jwksURL, C: c, c: c, r: r}
	r.mu.Lock()
	r.subs[id] = s
	r.mu.Unlock()
	return s
}

// Close ends the subscription: later notifications to its URL are answered 410 Gone, which tells a
// sender to stop.
func (s *Subscription) Close() {
	s.r.mu.Lock()
	delete(s.r.subs, s.ID)
	s.r.mu.Unlock()
}

func randomString() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// refusal is why a notification was refused, with the HTTP status it is answered with.
type refusal struct {
	status int
	reason string
}

func (e *refusal) Error() string { return e.reason }

func unauthorized(format string, args ...any) *refusal {
	return &refusal{http.StatusUnauthorized, fmt.Sprintf(format, args...)}
}

func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	id := strings.TrimPrefix(req.URL.Path, InPath)
	r.mu.Lock()
	sub := r.subs[id]
	r.mu.Unlock()
	if sub == nil {
		http.Error(w, "no such push subscription (the task is no longer watched)", http.StatusGone)
		return
	}
	switch req.Method {
	case http.MethodGet:
		// The v0.1 draft's challenge: echo the validationToken, proving this URL wants notifications.
		token := req.URL.Query().Get("validationToken")
		if token == "" {
			http.Error(w, "a GET is the validation challenge: validationToken is missing", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		io.WriteString(w, token)
	case http.MethodPost:
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, MaxInBody))
		if err != nil {
			http.Error(w, "notification body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		if err := r.verify(req.Context(), sub, req.Header, body); err != nil {
			var ref *refusal
			if !errors.As(err, &ref) {
				r.cfg.Logger.Error("push receiver", "err", err)
				http.Error(w, "cannot check the notification now", http.StatusServiceUnavailable)
				return
			}
			r.logRefusal(sub, ref)
			http.Error(w, ref.reason, ref.status)
			return
		}
		select {
		case sub.c <- body:
		default: // the conversation is behind; its fallback tasks/get catches up
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "POST a notification, or GET the validation challenge", http.StatusMethodNotAllowed)
	}
}

// logRefusal logs a refused notification, at most once per logEvery (a flood is not a log flood).
func (r *Receiver) logRefusal(sub *Subscription, ref *refusal) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	now := r.cfg.Now()
	if now.Sub(r.lastLog) < logEvery {
		r.suppressed++
		return
	}
	r.cfg.Logger.Warn("push notification refused", "task", sub.TaskID, "status", ref.status, "reason", ref.reason,
		"refused_since_last_log", r.suppressed)
	r.lastLog, r.suppressed = now, 0
}

// inClaims are the claims read from a notification's JWT; task_id and request_body_sha256 are
// checked when present.
type inClaims struct {
	jwt.RegisteredClaims
	TaskID     string `json:"task_id"`
	BodySHA256 string `json:"request_body_sha256"`
}

func (r *Receiver) verify(ctx context.Context, sub *Subscription, h http.Header, body []byte) error {
	token := h.Get(TokenHeaderV1)
	if token == "" {
		token = h.Get(TokenHeaderV03)
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(sub.Token)) != 1 {
		return &refusal{http.StatusForbidden, "wrong or missing notification token"}
	}
	raw := h.Get(SignatureHeader)
	if raw == "" {
		if a := h.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			raw = strings.TrimSpace(a[7:])
		}
	}
	if raw == "" {
		return unauthorized("no signature: a JWT in %s or Authorization: Bearer", SignatureHeader)
	}
	var claims inClaims
	var fetchErr error
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		key, err := r.key(ctx, sub.JWKSURL, kid)
		fetchErr = err
		return key, err
	}, jwt.WithValidMethods([]string{"ES256", "RS256"}), jwt.WithAudience(sub.URL), jwt.WithTimeFunc(r.cfg.Now),
		jwt.WithIssuedAt(), jwt.WithLeeway(30*time.Second))
	if err != nil {
		var ref *refusal
		if errors.As(fetchErr, &ref) || fetchErr == nil {
			return unauthorized("invalid signature JWT: %v", err)
		}
		return fetchErr // the key set could not be read: not the sender's fault, maybe
	}
	now := r.cfg.Now()
	if claims.IssuedAt == nil || now.Sub(claims.IssuedAt.Time) > ReceiveWindow || claims.IssuedAt.Time.Sub(now) > ReceiveWindow {
		return unauthorized("the JWT's iat is missing or outside the %v window", ReceiveWindow)
	}
	if claims.TaskID != "" && claims.TaskID != sub.TaskID {
		return unauthorized("the JWT is for another task")
	}
	if claims.BodySHA256 != "" {
		sum := sha256.Sum256(body)
		if !strings.EqualFold(claims.BodySHA256, hex.EncodeToString(sum[:])) {
			return unauthorized("the body does not match the JWT's request_body_sha256")
		}
	}
	if claims.ID == "" {
		return unauthorized("the JWT has no jti, so a replay could not be told apart")
	}
	// Last, once everything else holds: a forged token cannot burn a genuine id.
	return r.remember(ctx, sub.JWKSURL, claims.ID, claims.IssuedAt.Time.Add(ReceiveWindow+time.Minute))
}

// remember records a notification id; one already recorded is a replay.
func (r *Receiver) remember(ctx context.Context, jwksURL, jti string, until time.Time) error {
	now := r.cfg.Now().UnixNano()
	if _, err := r.cfg.DB.Writer.ExecContext(ctx, `DELETE FROM push_in_seen WHERE expires_at < ?`, now); err != nil {
		return err
	}
	res, err := r.cfg.DB.Writer.ExecContext(ctx, `INSERT INTO push_in_seen (jwks_url, jti, expires_at) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, jwksURL, jti, until.UnixNano())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return unauthorized("replayed notification: its jti was seen already")
	}
	return nil
}

// keySet is an agent's JWKS as last fetched.
type keySet struct {
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetched time.Time
}

// key finds the public key kid names in the JWKS at url, fetching the set the first time and again
// (at most once per jwksRefetchEvery) when kid is not in it: the agent may have rotated its key.
func (r *Receiver) key(ctx context.Context, url, kid string) (any, error) {
	if url == "" {
		return nil, unauthorized("the agent publishes no key set")
	}
	r.mu.Lock()
	ks := r.keys[url]
	if ks == nil {
		ks = &keySet{}
		r.keys[url] = ks
	}
	r.mu.Unlock()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if k := find(ks.keys, kid); k != nil {
		return k, nil
	}
	if !ks.fetched.IsZero() && r.cfg.Now().Sub(ks.fetched) < jwksRefetchEvery {
		return nil, unauthorized("no key %q in the agent's key set", kid)
	}
	keys, err := r.fetchJWKS(ctx, url)
	ks.fetched = r.cfg.Now()
	if err != nil {
		return nil, fmt.Errorf("fetching the agent's key set %s: %w", url, err)
	}
	ks.keys = keys
	if k := find(keys, kid); k != nil {
		return k, nil
	}
	return nil, unauthorized("no key %q in the agent's key set", kid)
}

// find is the public signing key named kid, or the only key when the token names none.
func find(keys []jose.JSONWebKey, kid string) any {
	if kid == "" && len(keys) == 1 && keys[0].Valid() && keys[0].IsPublic() {
		return keys[0].Key
	}
	for _, k := range keys {
		if kid != "" && k.KeyID == kid && k.IsPublic() && (k.Use == "" || k.Use == "sig") {
			return k.Key
		}
	}
	return nil
}

func (r *Receiver) fetchJWKS(ctx context.Context, url string) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("answered %s", resp.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("not a JWKS: %w", err)
	}
	return set.Keys, nil
}
