package chats_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/push"
)

// The remote agent is the demo agent, whose own outbox signs its push notifications (ES256, its JWKS
// at /.well-known/jwks.json). The hub reaches it through a counting proxy, under a card that says it
// does not stream, so the hub would poll it. The hub's public URL is a "tee" of the test's, as a
// reverse proxy in front of a hub would be: it passes each notification on to the hub (or drops it),
// and tries attacks with the first one.

// proxy forwards to the demo agent, counting JSON-RPC methods.
type proxy struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{calls: map[string]int{}}
	u, _ := url.Parse(target)
	// A tap on this computer, not a relay of other clients: it adds no X-Forwarded-For, which would
	// make the hub's calls look relayed to the agent (and their loopback push targets refused).
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(u) }}
	p.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				Method string `json:"method"`
			}
			json.Unmarshal(body, &req)
			p.mu.Lock()
			p.calls[req.Method]++
			p.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		rp.ServeHTTP(rw, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *proxy) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

// cardVia serves the demo agent's card with its endpoints at the proxy and the given capabilities.
func cardVia(t *testing.T, w *world, p *proxy, pushes bool) string {
	card := fetchCard(t, w.demo.BaseURL)
	card["capabilities"] = map[string]any{"streaming": false, "pushNotifications": pushes}
	raw, _ := json.Marshal(card)
	raw = bytes.ReplaceAll(raw, []byte(w.demo.BaseURL), []byte(p.srv.URL))
	return serveCard(t, raw)
}

// oldCardVia is a card of an older dialect ("0.3" or the "0.1" draft) for the demo agent at the
// proxy, which speaks those too, saying it pushes and does not stream.
func oldCardVia(t *testing.T, p *proxy, dialect string) string {
	card := map[string]any{"name": "demo in " + dialect, "description": "the demo agent", "version": "test", "url": p.srv.URL + "/a2a",
		"capabilities": map[string]any{"streaming": false, "pushNotifications": true}, "skills": []any{}}
	if dialect == "0.3" {
		card["protocolVersion"], card["preferredTransport"] = "0.3.0", "JSONRPC"
		card["defaultInputModes"], card["defaultOutputModes"] = []string{"text/plain"}, []string{"text/plain"}
	}
	raw, _ := json.Marshal(card)
	return serveCard(t, raw)
}

func serveCard(t *testing.T, raw []byte) string {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { rw.Write(raw) }))
	t.Cleanup(srv.Close)
	return srv.URL + "/card.json"
}

// tee receives the demo agent's notifications in the hub's place.
type tee struct {
	srv  *httptest.Server
	hub  string // the hub's own address, http://127.0.0.1:port
	drop bool   // answer 204 and pass nothing on: pushes are lost

	mu       sync.Mutex
	webhook  string // the hub's webhook the first notification was for (at hub)
	received int
	accepted int
	attacks  map[string]int    // attack → the hub's status
	echo     string            // the hub's answer to the challenge
	first    *http.Request     // the first notification, as received
	body     []byte            // its body
	claims   jwt.MapClaims     // its JWT's claims
	header   map[string]string // its JWT's header
}

// teeWorld is a world whose hub's public URL is a tee.
func teeWorld(t *testing.T, drop bool, fallback time.Duration) (*world, *tee) {
	te := &tee{drop: drop, attacks: map[string]int{}}
	te.srv = httptest.NewServer(http.HandlerFunc(te.serve))
	t.Cleanup(te.srv.Close)
	w := newWorldWith(t, func(w *world) {
		te.hub, w.publicURL, w.fallback = "http://"+w.addr, te.srv.URL, fallback
	})
	return w, te
}

func (te *tee) serve(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	te.mu.Lock()
	defer te.mu.Unlock()
	if !strings.HasPrefix(r.URL.Path, push.InPath) {
		http.Error(rw, "the tee passes on notifications only", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodGet { // the v0.1 validation challenge: the hub answers it
		resp, err := http.Get(te.hub + r.URL.RequestURI())
		if err != nil {
			rw.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		rw.WriteHeader(resp.StatusCode)
		io.Copy(rw, resp.Body)
		return
	}
	te.received++
	te.webhook = te.hub + r.URL.Path
	if te.drop {
		rw.WriteHeader(http.StatusNoContent)
		return
	}
	status := te.forward(r.Header, body)
	if status == http.StatusNoContent {
		te.accepted++
	}
	if te.first == nil && status == http.StatusNoContent {
		te.first, te.body = r, body
		te.attack(r.Header, body)
	}
	rw.WriteHeader(status)
}

// forward posts a notification to the hub's webhook with the given headers, returning the status.
func (te *tee) forward(h http.Header, body []byte) int {
	req, _ := http.NewRequest(http.MethodPost, te.webhook, bytes.NewReader(body))
	for _, k := range []string{"Content-Type", push.SignatureHeader, "Authorization", push.TokenHeaderV1, push.TokenHeaderV03} {
		if v := h.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// attack tries, with a notification the hub just accepted: the same again, a wrong token, a JWT
// with fresh claims signed by another key under the agent's kid, and the v0.1 challenge.
func (te *tee) attack(h http.Header, body []byte) {
	te.attacks["replay"] = te.forward(h, body)

	wrong := h.Clone()
	wrong.Set(push.TokenHeaderV1, "not-the-token")
	wrong.Set(push.TokenHeaderV03, "not-the-token")
	te.attacks["wrong token"] = te.forward(wrong, body)

	claims := jwt.MapClaims{}
	tok, _, err := jwt.NewParser().ParseUnverified(h.Get(push.SignatureHeader), claims)
	if err == nil {
		claims["jti"] = "forged-" + a2a.NewMessageID()
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		forged := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
		forged.Header["kid"] = tok.Header["kid"]
		signed, _ := forged.SignedString(key)
		other := h.Clone()
		other.Set(push.SignatureHeader, signed)
		other.Set("Authorization", "Bearer "+signed)
		te.attacks["other key"] = te.forward(other, body)
	}

	resp, err := http.Get(te.webhook + "?validationToken=abc123")
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		te.echo = string(b)
	}
}

func TestPushedTaskIsWatchedWithoutPolling(t *testing.T) {
	w, te := teeWorld(t, false, 0)
	pushing := newProxy(t, w.demo.BaseURL)
	polled := newProxy(t, w.demo.BaseURL)
	withPush := w.conversation(cardVia(t, w, pushing, true))
	withoutPush := w.conversation(cardVia(t, w, polled, false))

	send(t, w.h.Chats, withPush.ID, chats.Outgoing{Text: "slow 3"})
	send(t, w.h.Chats, withoutPush.ID, chats.Outgoing{Text: "slow 3"})
	entries := w.waitFor(withPush.ID, "the pushed job to complete", reached(a2a.TaskStateCompleted))
	w.waitFor(withoutPush.ID, "the polled job to complete", reached(a2a.TaskStateCompleted))

	te.mu.Lock()
	defer te.mu.Unlock()
	if te.accepted < 2 {
		t.Fatalf("the hub accepted %d of %d notifications, want the progress and the end:\n%s", te.accepted, te.received, dump(entries))
	}
	pushGets, pollGets := pushing.count("GetTask"), polled.count("GetTask")
	t.Logf("tasks/get calls: %d with push notifications, %d polling; %d notifications accepted", pushGets, pollGets, te.accepted)
	if pushGets >= pollGets {
		t.Errorf("with push notifications the hub made %d tasks/get calls, polling %d: want fewer", pushGets, pollGets)
	}
	if n := pushing.count("CreateTaskPushNotificationConfig"); n != 1 {
		t.Errorf("%d push configs set, want 1", n)
	}
	if got := artifactText(entries); got == "" {
		t.Errorf("no artifact recorded from the pushed task:\n%s", dump(entries))
	}
	for attack, want := range map[string]int{"replay": http.StatusUnauthorized, "wrong token": http.StatusForbidden, "other key": http.StatusUnauthorized} {
		if got := te.attacks[attack]; got != want {
			t.Errorf("%s: the hub answered %d, want %d", attack, got, want)
		}
	}
	if te.echo != "abc123" {
		t.Errorf("the validation challenge was answered %q, want the token", te.echo)
	}
}

func TestLostPushesFallBackToPolling(t *testing.T) {
	w, te := teeWorld(t, true, 300*time.Millisecond) // without news for 300 ms, the hub asks with tasks/get
	pushing := newProxy(t, w.demo.BaseURL)
	c := w.conversation(cardVia(t, w, pushing, true))
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "slow 2"})
	w.waitFor(c.ID, "the job to complete without a push arriving", reached(a2a.TaskStateCompleted))
	te.mu.Lock()
	defer te.mu.Unlock()
	if te.received == 0 || pushing.count("CreateTaskPushNotificationConfig") != 1 {
		t.Errorf("the agent pushed %d notifications to a config set %d times; the test wants pushes lost, not absent",
			te.received, pushing.count("CreateTaskPushNotificationConfig"))
	}
}

// In v0.3 the agent pushes the whole task. (A v0.1 draft agent answers tasks/send once the task
// stops, so there is nothing left to watch: see backend/agents for its push config and payload.)
func TestPushedTaskInOlderDialects(t *testing.T) {
	for _, d := range []struct{ dialect, set, get string }{
		{"0.3", "tasks/pushNotificationConfig/set", "tasks/get"},
	} {
		t.Run(d.dialect, func(t *testing.T) {
			w, te := teeWorld(t, false, 0)
			p := newProxy(t, w.demo.BaseURL)
			c := w.conversation(oldCardVia(t, p, d.dialect))
			send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "slow 2"})
			entries := w.waitFor(c.ID, "the pushed job to complete", reached(a2a.TaskStateCompleted))
			te.mu.Lock()
			defer te.mu.Unlock()
			if n := p.count(d.set); n != 1 {
				t.Errorf("%s called %d times, want 1; calls: %v", d.set, n, p.calls)
			}
			// One tasks/get: what happened before the config was set; the rest came pushed.
			if n := p.count(d.get); n != 1 || te.accepted == 0 {
				t.Errorf("%d tasks/get calls and %d notifications accepted (of %d), want 1 and some:\n%s", n, te.accepted, te.received, dump(entries))
			}
			if te.attacks["replay"] != http.StatusUnauthorized {
				t.Errorf("a replayed notification was answered %d", te.attacks["replay"])
			}
		})
	}
}
