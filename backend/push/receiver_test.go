package push_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// agentKeys is a remote agent's signing keys and the JWKS endpoint that publishes them.
type agentKeys struct {
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey
	fetches atomic.Int32
	url     string
}

func newAgentKeys(t *testing.T) *agentKeys {
	a := &agentKeys{keys: map[string]*ecdsa.PrivateKey{}}
	a.add("k1")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.fetches.Add(1)
		a.mu.Lock()
		var set jose.JSONWebKeySet
		for kid, k := range a.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		a.mu.Unlock()
		json.NewEncoder(w).Encode(set)
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL + "/.well-known/jwks.json"
	return a
}

func (a *agentKeys) add(kid string) *ecdsa.PrivateKey {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	a.mu.Lock()
	a.keys[kid] = k
	a.mu.Unlock()
	return k
}

func (a *agentKeys) key(kid string) *ecdsa.PrivateKey {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.keys[kid]
}

// clock is a settable time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// receiverWorld is a Receiver on a real SQLite file, served over loopback.
type receiverWorld struct {
	t     *testing.T
	path  string
	clock *clock
	srv   *httptest.Server
	r     *push.Receiver
	db    *store.DB
	// serving is the receiver the server hands requests to: the latest opened.
	serving atomic.Pointer[push.Receiver]
}

func newReceiverWorld(t *testing.T) *receiverWorld {
	// path is the database's target on the engine of the run: reopening it reopens the same database.
	w := &receiverWorld{t: t, path: storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")), clock: &clock{now: time.Now()}}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { w.serving.Load().ServeHTTP(rw, r) }))
	t.Cleanup(w.srv.Close)
	w.open()
	t.Cleanup(func() { w.db.Close() })
	return w
}

func (w *receiverWorld) open() {
	db, err := store.Open(w.path)
	if err != nil {
		w.t.Fatal(err)
	}
	r, err := push.OpenReceiver(w.t.Context(), push.ReceiverConfig{DB: db, BaseURL: w.srv.URL, Logger: slog.New(slog.DiscardHandler), Now: w.clock.Now})
	if err != nil {
		w.t.Fatal(err)
	}
	w.db, w.r = db, r
	w.serving.Store(r)
}

// claims are a valid notification's claims for sub and body, signed at the clock's now.
func (w *receiverWorld) claims(sub *push.Subscription, body []byte) jwt.MapClaims {
	sum := sha256.Sum256(body)
	now := w.clock.Now()
	return jwt.MapClaims{"iss": "http://agent", "aud": sub.URL, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"jti": "n-" + hex.EncodeToString(sum[:4]) + "-" + time.Now().Format("150405.000000000"), "task_id": sub.TaskID,
		"request_body_sha256": hex.EncodeToString(sum[:])}
}

func sign(t *testing.T, key *ecdsa.PrivateKey, kid string, c jwt.MapClaims) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// post sends a notification and returns the hub's status.
func (w *receiverWorld) post(url string, body []byte, headers map[string]string) int {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func signed(token, jwt string) map[string]string {
	return map[string]string{push.TokenHeaderV1: token, push.SignatureHeader: jwt}
}

func TestReceiverAcceptsOnlyGenuineFreshNotifications(t *testing.T) {
	w := newReceiverWorld(t)
	agent := newAgentKeys(t)
	k1 := agent.key("k1")
	sub := w.r.Subscribe("task-1", agent.url)
	body := []byte(`{"task":{"id":"task-1"}}`)
	valid := w.claims(sub, body)
	good := sign(t, k1, "k1", valid)

	if got := w.post(sub.URL, body, signed(sub.Token, good)); got != http.StatusNoContent {
		t.Fatalf("a genuine notification was answered %d", got)
	}
	if got := <-sub.C; !bytes.Equal(got, body) {
		t.Errorf("the conversation got %q", got)
	}

	with := func(change func(c jwt.MapClaims)) jwt.MapClaims {
		c := w.claims(sub, body)
		change(c)
		return c
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, tc := range []struct {
		name    string
		body    []byte
		headers map[string]string
		want    int
	}{
		{"the same again (replay)", body, signed(sub.Token, good), http.StatusUnauthorized},
		{"wrong token", body, signed("not-it", sign(t, k1, "k1", w.claims(sub, body))), http.StatusForbidden},
		{"no token", body, map[string]string{push.SignatureHeader: sign(t, k1, "k1", w.claims(sub, body))}, http.StatusForbidden},
		{"no JWT", body, map[string]string{push.TokenHeaderV1: sub.Token}, http.StatusUnauthorized},
		{"another key under the agent's kid", body, signed(sub.Token, sign(t, other, "k1", w.claims(sub, body))), http.StatusUnauthorized},
		{"another webhook's audience", body, signed(sub.Token, sign(t, k1, "k1", with(func(c jwt.MapClaims) { c["aud"] = w.srv.URL + push.InPath + "x" }))), http.StatusUnauthorized},
		{"issued ten minutes ago", body, signed(sub.Token, sign(t, k1, "k1", with(func(c jwt.MapClaims) {
			c["iat"] = w.clock.Now().Add(-10 * time.Minute).Unix()
		}))), http.StatusUnauthorized},
		{"no iat", body, signed(sub.Token, sign(t, k1, "k1", with(func(c jwt.MapClaims) { delete(c, "iat") }))), http.StatusUnauthorized},
		{"no jti", body, signed(sub.Token, sign(t, k1, "k1", with(func(c jwt.MapClaims) { delete(c, "jti") }))), http.StatusUnauthorized},
		{"another task", body, signed(sub.Token, sign(t, k1, "k1", with(func(c jwt.MapClaims) { c["task_id"] = "task-2" }))), http.StatusUnauthorized},
		{"a changed body", []byte(`{"task":{"id":"task-1","evil":true}}`), signed(sub.Token, sign(t, k1, "k1", w.claims(sub, body))), http.StatusUnauthorized},
		{"alg none", body, signed(sub.Token, func() string {
			s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, w.claims(sub, body)).SignedString(jwt.UnsafeAllowNoneSignatureType)
			return s
		}()), http.StatusUnauthorized},
		{"HS256 keyed with the public key", body, signed(sub.Token, func() string {
			pub, _ := json.Marshal(k1.PublicKey.X.Bytes())
			tok := jwt.NewWithClaims(jwt.SigningMethodHS256, w.claims(sub, body))
			tok.Header["kid"] = "k1"
			s, _ := tok.SignedString(pub)
			return s
		}()), http.StatusUnauthorized},
		{"in Authorization: Bearer", body, map[string]string{push.TokenHeaderV03: sub.Token, "Authorization": "Bearer " + sign(t, k1, "k1", w.claims(sub, body))}, http.StatusNoContent},
	} {
		if got := w.post(sub.URL, tc.body, tc.headers); got != tc.want {
			t.Errorf("%s: answered %d, want %d", tc.name, got, tc.want)
		}
	}

	// The draft's challenge is echoed; a closed subscription says it wants no more.
	resp, err := http.Get(sub.URL + "?validationToken=t0k3n")
	if err != nil {
		t.Fatal(err)
	}
	echoed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(echoed) != "t0k3n" {
		t.Errorf("the challenge was answered %d %q", resp.StatusCode, echoed)
	}
	sub.Close()
	if got := w.post(sub.URL, body, signed(sub.Token, sign(t, k1, "k1", w.claims(sub, body)))); got != http.StatusGone {
		t.Errorf("a closed subscription answered %d, want 410", got)
	}
}

// Seen notification ids are kept in hub.db: after a restart, a notification with an id seen before
// is still a replay.
func TestReplayIsRefusedAcrossARestart(t *testing.T) {
	w := newReceiverWorld(t)
	agent := newAgentKeys(t)
	body := []byte(`{}`)
	sub := w.r.Subscribe("task-1", agent.url)
	c := w.claims(sub, body)
	if got := w.post(sub.URL, body, signed(sub.Token, sign(t, agent.key("k1"), "k1", c))); got != http.StatusNoContent {
		t.Fatalf("answered %d", got)
	}
	w.db.Close()
	w.open() // the receiver the server now uses is the one on the reopened file
	sub2 := w.r.Subscribe("task-1", agent.url)
	again := w.claims(sub2, body)
	again["jti"] = c["jti"]
	if got := w.post(sub2.URL, body, signed(sub2.Token, sign(t, agent.key("k1"), "k1", again))); got != http.StatusUnauthorized {
		t.Errorf("a seen jti after a restart was answered %d, want 401", got)
	}
}

// A new key is fetched when a notification names a kid not seen yet (rotation), but unknown kids do
// not make the hub fetch the key set more than once per interval.
func TestKeyRotationRefetchesTheKeySet(t *testing.T) {
	w := newReceiverWorld(t)
	agent := newAgentKeys(t)
	body := []byte(`{}`)
	sub := w.r.Subscribe("task-1", agent.url)
	if got := w.post(sub.URL, body, signed(sub.Token, sign(t, agent.key("k1"), "k1", w.claims(sub, body)))); got != http.StatusNoContent {
		t.Fatalf("answered %d", got)
	}
	forged, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	unknownKids := func() {
		for range 3 {
			if got := w.post(sub.URL, body, signed(sub.Token, sign(t, forged, "made-up", w.claims(sub, body)))); got != http.StatusUnauthorized {
				t.Errorf("an unknown kid was answered %d", got)
			}
		}
	}
	unknownKids()
	if n := agent.fetches.Load(); n != 1 {
		t.Errorf("the key set was fetched %d times, want once: unknown kids right after a fetch fetch nothing", n)
	}
	k2 := agent.add("k2")
	w.clock.add(11 * time.Second)
	if got := w.post(sub.URL, body, signed(sub.Token, sign(t, k2, "k2", w.claims(sub, body)))); got != http.StatusNoContent {
		t.Errorf("a notification signed with the agent's new key was answered %d", got)
	}
	unknownKids()
	if n := agent.fetches.Load(); n != 2 {
		t.Errorf("the key set was fetched %d times, want twice (first use, the new kid)", n)
	}
}

// Two replicas behind one proxy (one PostgreSQL database): a conversation on replica A subscribed,
// and the agent's notification reaches replica B. B checks it against the webhook A recorded and
// passes it on: A's conversation gets it. The draft's challenge is answered on B too, a replay is
// refused on either, and once A's conversation closes the webhook B answers 410 Gone.
func TestNotificationReachesASubscriberOnAnotherReplica(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several replicas share a PostgreSQL database only: a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
	url := storetest.Target(t, "")
	const proxy = "http://hub.example" // agents reach the hub here; each replica serves the same paths
	type replica struct {
		db  *store.DB
		r   *push.Receiver
		srv *httptest.Server
	}
	open := func() *replica {
		db, err := store.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		r, err := push.OpenReceiver(t.Context(), push.ReceiverConfig{DB: db, BaseURL: proxy, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(r)
		t.Cleanup(srv.Close)
		return &replica{db: db, r: r, srv: srv}
	}
	a, b := open(), open()
	<-a.db.Listening()
	w := &receiverWorld{t: t, clock: &clock{now: time.Now()}}
	agent := newAgentKeys(t)
	sub := a.r.Subscribe("task-1", agent.url)
	at := func(rep *replica) string { return rep.srv.URL + push.InPath + sub.ID } // the proxy's choice

	for i, body := range [][]byte{[]byte(`{"n":1}`), []byte(`{"n":2}`)} {
		if got := w.post(at(b), body, signed(sub.Token, sign(t, agent.key("k1"), "k1", w.claims(sub, body)))); got != http.StatusNoContent {
			t.Fatalf("notification %d on the other replica: answered %d", i, got)
		}
		select {
		case got := <-sub.C:
			if !bytes.Equal(got, body) {
				t.Errorf("the conversation got %s, want %s", got, body)
			}
		case <-time.After(30 * time.Second): // a hang guard
			t.Fatalf("notification %d never reached the conversation on the first replica", i)
		}
	}
	body := []byte(`{"n":3}`)
	c := w.claims(sub, body)
	if got := w.post(at(b), body, signed(sub.Token, sign(t, agent.key("k1"), "k1", c))); got != http.StatusNoContent {
		t.Fatalf("answered %d", got)
	}
	<-sub.C
	if got := w.post(at(a), body, signed(sub.Token, sign(t, agent.key("k1"), "k1", c))); got != http.StatusUnauthorized {
		t.Errorf("the same notification again, on the replica holding the webhook: answered %d, want 401", got)
	}
	if got := w.post(at(b), body, signed("not-it", sign(t, agent.key("k1"), "k1", w.claims(sub, body)))); got != http.StatusForbidden {
		t.Errorf("a wrong token on the other replica: answered %d, want 403", got)
	}
	resp, err := http.Get(at(b) + "?validationToken=t0k3n")
	if err != nil {
		t.Fatal(err)
	}
	echoed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(echoed) != "t0k3n" {
		t.Errorf("the challenge on the other replica was answered %d %q", resp.StatusCode, echoed)
	}

	sub.Close()
	body = []byte(`{"n":4}`)
	if got := w.post(at(b), body, signed(sub.Token, sign(t, agent.key("k1"), "k1", w.claims(sub, body)))); got != http.StatusGone {
		t.Errorf("a closed webhook on the other replica answered %d, want 410", got)
	}
}
