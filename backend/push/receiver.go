package push

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
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
	// subLease is how long a webhook held by a replica stays valid on the others without a renewal
	// (PostgreSQL); its holder renews it every third of that while it has webhooks.
	subLease = 2 * time.Minute
)

// relayTopic is the note telling the replica that holds a webhook that another replica accepted a
// notification for it; the payload is the webhook's id.
const relayTopic = "push.in"

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
	cfg    ReceiverConfig
	holder string // this receiver's id in push_in_subs (PostgreSQL)

	mu       sync.Mutex
	subs     map[string]*Subscription // the webhooks whose conversations run in this process
	keys     map[string]*keySet       // by JWKS URL
	renewing bool                     // the loop renewing this receiver's webhooks runs

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
	r := &Receiver{cfg: cfg, holder: randomString(), subs: map[string]*Subscription{}, keys: map[string]*keySet{}}
	// On PostgreSQL the proxy may hand a webhook's notification to any replica: the one that accepts
	// it for a webhook held elsewhere relays it (relay), and the holder takes it from the table.
	cfg.DB.Follow(relayTopic, r.relayed, r.resync)
	return r, nil
}

// Subscription is one task's webhook. C carries the body of each accepted notification.
type Subscription struct {
	ID, URL, Token string
	TaskID         string
	JWKSURL        string
	C              <-chan []byte

	c        chan []byte // nil: a webhook another replica holds
	r        *Receiver
	tokenSum [sha256.Size]byte
	drainMu  sync.Mutex // one take of relayed notifications at a time, so they keep their order
}

// Subscribe opens a webhook for the task, whose notifications must be signed by a key of the JWKS at
// jwksURL.
func (r *Receiver) Subscribe(taskID, jwksURL string) *Subscription {
	id, token := randomString(), randomString()
	c := make(chan []byte, subBuffer)
	s := &Subscription{ID: id, URL: r.cfg.BaseURL + InPath + id, Token: token, TaskID: taskID, JWKSURL: jwksURL, C: c, c: c, r: r,
		tokenSum: sha256.Sum256([]byte(token))}
	r.mu.Lock()
	r.subs[id] = s
	renew := r.cfg.DB.Postgres() && !r.renewing
	r.renewing = r.renewing || renew
	r.mu.Unlock()
	if r.cfg.DB.Postgres() {
		// Known to the other replicas, so a notification the proxy hands to one of them is taken.
		// If it cannot be recorded, the webhook still works on this replica.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := r.cfg.DB.Writer.ExecContext(ctx, `INSERT INTO push_in_subs(id, token_sha256, task_id, jwks_url, holder, alive_until)
			VALUES (?, ?, ?, ?, ?, ?)`, id, hex.EncodeToString(s.tokenSum[:]), taskID, jwksURL, r.holder, r.cfg.Now().Add(subLease).UnixNano()); err != nil {
			r.cfg.Logger.Warn("push receiver: the webhook is known to this replica only", "task", taskID, "err", err)
		}
		if renew {
			go r.renew()
		}
	}
	return s
}

// Close ends the subscription: later notifications to its URL are answered 410 Gone, which tells a
// sender to stop.
func (s *Subscription) Close() {
	s.r.mu.Lock()
	delete(s.r.subs, s.ID)
	s.r.mu.Unlock()
	if s.r.cfg.DB.Postgres() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := s.r.cfg.DB.Writer.ExecContext(ctx, `DELETE FROM push_in_subs WHERE id = ?`, s.ID); err != nil {
			s.r.cfg.Logger.Warn("push receiver: forgetting a webhook (it lapses on its own)", "err", err)
		}
		s.r.cfg.DB.Writer.ExecContext(ctx, `DELETE FROM push_in_relay WHERE sub_id = ?`, s.ID)
	}
}

// renew keeps this receiver's webhooks valid for the other replicas while it has any, and drops
// the webhooks (and relayed notifications) of replicas that stopped renewing theirs.
func (r *Receiver) renew() {
	t := time.NewTicker(subLease / 3)
	defer t.Stop()
	for range t.C {
		r.mu.Lock()
		if len(r.subs) == 0 {
			r.renewing = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), subLease/3)
		now := r.cfg.Now()
		_, err := r.cfg.DB.Writer.ExecContext(ctx, `UPDATE push_in_subs SET alive_until = ? WHERE holder = ?`, now.Add(subLease).UnixNano(), r.holder)
		if err == nil {
			_, err = r.cfg.DB.Writer.ExecContext(ctx, `DELETE FROM push_in_subs WHERE alive_until < ?`, now.UnixNano())
		}
		if err == nil {
			_, err = r.cfg.DB.Writer.ExecContext(ctx, `DELETE FROM push_in_relay r WHERE NOT EXISTS (SELECT 1 FROM push_in_subs s WHERE s.id = r.sub_id)`)
		}
		cancel()
		if err != nil {
			r.cfg.Logger.Warn("push receiver: renewing this replica's webhooks", "err", err)
		}
	}
}

// held is the webhook another replica holds under id, or nil when none is alive.
func (r *Receiver) held(ctx context.Context, id string) (*Subscription, error) {
	s := &Subscription{ID: id, URL: r.cfg.BaseURL + InPath + id, r: r}
	var sum string
	err := r.cfg.DB.Reader.QueryRowContext(ctx, `SELECT token_sha256, task_id, jwks_url FROM push_in_subs WHERE id = ? AND alive_until > ?`,
		id, r.cfg.Now().UnixNano()).Scan(&sum, &s.TaskID, &s.JWKSURL)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b, err := hex.DecodeString(sum); err == nil && len(b) == sha256.Size {
		copy(s.tokenSum[:], b)
	}
	return s, nil
}

// relayed is told (a note) that another replica accepted a notification for a webhook: if this
// receiver holds it, it takes what waits for it.
func (r *Receiver) relayed(id string) {
	r.mu.Lock()
	s := r.subs[id]
	r.mu.Unlock()
	if s != nil {
		go s.drain()
	}
}

// resync takes what was relayed to this receiver's webhooks while notes could not reach it.
func (r *Receiver) resync() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.subs {
		go s.drain()
	}
}

// drain passes the notifications relayed to s on to its conversation, in the order they were
// accepted.
func (s *Subscription) drain() {
	s.drainMu.Lock()
	defer s.drainMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := s.r.cfg.DB.Writer.QueryContext(ctx, `DELETE FROM push_in_relay WHERE sub_id = ? RETURNING id, body`, s.ID)
	if err != nil {
		s.r.cfg.Logger.Warn("push receiver: taking relayed notifications", "err", err)
		return
	}
	type relayedBody struct {
		id   int64
		body []byte
	}
	var got []relayedBody
	for rows.Next() {
		var b relayedBody
		if err := rows.Scan(&b.id, &b.body); err != nil {
			break
		}
		got = append(got, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		s.r.cfg.Logger.Warn("push receiver: taking relayed notifications", "err", err)
	}
	slices.SortFunc(got, func(a, b relayedBody) int { return cmp.Compare(a.id, b.id) })
	for _, b := range got {
		s.deliver(b.body)
	}
}

// deliver hands an accepted notification to the conversation.
func (s *Subscription) deliver(body []byte) {
	select {
	case s.c <- body:
	default: // the conversation is behind; its fallback tasks/get catches up
	}
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
	if sub == nil && r.cfg.DB.Postgres() {
		var err error
		if sub, err = r.held(req.Context(), id); err != nil {
			r.cfg.Logger.Error("push receiver", "err", err)
			http.Error(w, "cannot check the notification now", http.StatusServiceUnavailable)
			return
		}
	}
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
		if err := r.accept(req.Context(), sub, req.Header, body); err != nil {
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

// accept checks a notification and, when it holds, records its id and hands its body to the
// conversation: here, or through the table and a note when another replica holds the webhook.
func (r *Receiver) accept(ctx context.Context, sub *Subscription, h http.Header, body []byte) error {
	jti, until, err := r.verify(ctx, sub, h, body)
	if err != nil {
		return err
	}
	if sub.c != nil {
		if err := r.remember(ctx, r.cfg.DB.Writer, jti, sub.JWKSURL, until); err != nil {
			return err
		}
		sub.deliver(body)
		return nil
	}
	// Another replica holds it: the id is recorded with the relayed body, so a failure to relay
	// leaves the sender free to retry.
	return r.cfg.DB.Write(ctx, func(tx *sql.Tx) error {
		ctx := context.WithoutCancel(ctx)
		if err := r.remember(ctx, tx, jti, sub.JWKSURL, until); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO push_in_relay(sub_id, body, created_at) VALUES (?, ?, ?)`,
			sub.ID, body, r.cfg.Now().UnixNano()); err != nil {
			return err
		}
		return r.cfg.DB.Announce(tx, relayTopic, sub.ID)
	})
}

// verify checks a notification and returns its id and until when the id must be remembered.
func (r *Receiver) verify(ctx context.Context, sub *Subscription, h http.Header, body []byte) (string, time.Time, error) {
	token := h.Get(TokenHeaderV1)
	if token == "" {
		token = h.Get(TokenHeaderV03)
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], sub.tokenSum[:]) != 1 {
		return "", time.Time{}, &refusal{http.StatusForbidden, "wrong or missing notification token"}
	}
	raw := h.Get(SignatureHeader)
	if raw == "" {
		if a := h.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
			raw = strings.TrimSpace(a[7:])
		}
	}
	if raw == "" {
		return "", time.Time{}, unauthorized("no signature: a JWT in %s or Authorization: Bearer", SignatureHeader)
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
			return "", time.Time{}, unauthorized("invalid signature JWT: %v", err)
		}
		return "", time.Time{}, fetchErr // the key set could not be read: not the sender's fault, maybe
	}
	now := r.cfg.Now()
	if claims.IssuedAt == nil || now.Sub(claims.IssuedAt.Time) > ReceiveWindow || claims.IssuedAt.Time.Sub(now) > ReceiveWindow {
		return "", time.Time{}, unauthorized("the JWT's iat is missing or outside the %v window", ReceiveWindow)
	}
	if claims.TaskID != "" && claims.TaskID != sub.TaskID {
		return "", time.Time{}, unauthorized("the JWT is for another task")
	}
	if claims.BodySHA256 != "" {
		sum := sha256.Sum256(body)
		if !strings.EqualFold(claims.BodySHA256, hex.EncodeToString(sum[:])) {
			return "", time.Time{}, unauthorized("the body does not match the JWT's request_body_sha256")
		}
	}
	if claims.ID == "" {
		return "", time.Time{}, unauthorized("the JWT has no jti, so a replay could not be told apart")
	}
	// Remembered (by accept) only once everything else holds: a forged token cannot burn a genuine id.
	return claims.ID, claims.IssuedAt.Time.Add(ReceiveWindow + time.Minute), nil
}

// execer is the writer connection, or a write's transaction.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// remember records a notification id through w; one already recorded is a replay.
func (r *Receiver) remember(ctx context.Context, w execer, jti, jwksURL string, until time.Time) error {
	now := r.cfg.Now().UnixNano()
	if _, err := w.ExecContext(ctx, `DELETE FROM push_in_seen WHERE expires_at < ?`, now); err != nil {
		return err
	}
	res, err := w.ExecContext(ctx, `INSERT INTO push_in_seen (jwks_url, jti, expires_at) VALUES (?, ?, ?)
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
