package credentials_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// credExecutor echoes the text it gets; the text "stream" makes it run a task with a few events.
type credExecutor struct{}

func (credExecutor) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := ""
		if ec.Message != nil && len(ec.Message.Parts) > 0 {
			text = ec.Message.Parts[0].Text()
		}
		if !strings.HasPrefix(text, "stream") {
			yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("echo: "+text)), nil)
			return
		}
		events := []a2a.Event{
			a2a.NewSubmittedTask(ec, ec.Message),
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil),
			a2a.NewArtifactEvent(ec, a2a.NewTextPart("artifact: "+text)),
			a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("done: "+text))),
		}
		for _, e := range events {
			if !yield(e, nil) {
				return
			}
		}
	}
}

func (credExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// credAgent is a real a2a-go/v2 JSON-RPC agent behind an auth check, with its own OAuth2 token
// endpoint at /token.
type credAgent struct {
	t        *testing.T
	srv      *httptest.Server
	card     *a2a.AgentCard
	cardJSON []byte

	clientID, clientSecret string
	expiresIn              int // seconds; under 10 the oauth2 package treats a token as already expired

	mu     sync.Mutex
	check  func(r *http.Request, validToken func(string) bool) (status int, detail string)
	valid  map[string]bool // tokens the endpoint issued and has not revoked
	issued []string

	tokenFetches atomic.Int32
	rpcCalls     atomic.Int32
}

func startCredAgent(t *testing.T, schemes a2a.NamedSecuritySchemes, reqs a2a.SecurityRequirementsOptions,
	check func(r *http.Request, validToken func(string) bool) (int, string)) *credAgent {
	t.Helper()
	a := &credAgent{t: t, clientID: "hub-client", clientSecret: "cs-Sup3r/Secret+Value", expiresIn: 3600, check: check, valid: map[string]bool{}}
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(credExecutor{}))
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", a.token)
	mux.HandleFunc("/a2a", func(w http.ResponseWriter, r *http.Request) {
		a.rpcCalls.Add(1)
		a.mu.Lock()
		status, detail := a.check(r, func(tok string) bool { return a.valid[tok] })
		a.mu.Unlock()
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"jsonrpc": "2.0", "id": null, "error": {"code": -32030, "message": %q}}`, detail)
			return
		}
		rpc.ServeHTTP(w, r)
	})
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)

	for name, s := range schemes { // token URLs point at this server, known only now
		if o, ok := s.(a2a.OAuth2SecurityScheme); ok {
			flow := o.Flows.(a2a.ClientCredentialsOAuthFlow)
			flow.TokenURL = a.srv.URL + "/token"
			o.Flows = flow
			schemes[name] = o
		}
	}
	a.card = &a2a.AgentCard{
		Name: "cred agent", Description: "checks credentials", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(a.srv.URL+"/a2a", a2a.TransportProtocolJSONRPC)},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills:          []a2a.AgentSkill{{ID: "echo", Name: "echo", Description: "echo", Tags: []string{"echo"}}},
		SecuritySchemes: schemes, SecurityRequirements: reqs,
	}
	a.cardJSON = credJSON(t, a.card)
	return a
}

// token is a client credentials endpoint: client id and secret in Basic auth or in the form.
func (a *credAgent) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	if r.PostFormValue("grant_type") != "client_credentials" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error": "unsupported_grant_type"}`)
		return
	}
	if id != a.clientID || secret != a.clientSecret {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error": "invalid_client", "error_description": "unknown client or wrong secret"}`)
		return
	}
	n := a.tokenFetches.Add(1)
	tok := fmt.Sprintf("at-%d-%s", n, strings.Repeat("x", 12))
	a.mu.Lock()
	a.valid[tok] = true
	a.issued = append(a.issued, tok)
	a.mu.Unlock()
	fmt.Fprintf(w, `{"access_token": %q, "token_type": "bearer", "expires_in": %d, "refresh_token": "rt-%d-never-shown"}`, tok, a.expiresIn, n)
}

func (a *credAgent) revokeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.valid)
}

func (a *credAgent) tokens() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.issued...)
}

// client is the official SDK client over the hub's http.Client for this agent.
func (a *credAgent) client(secrets credentials.Secrets, wire wirelog.Recorder) *a2aclient.Client {
	a.t.Helper()
	hc := credentials.NewHTTPClient("agent-1", a.cardJSON, secrets, wire)
	c, err := a2aclient.NewFromCard(context.Background(), a.card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		a.t.Fatal(err)
	}
	a.t.Cleanup(func() { c.Destroy() })
	return c
}

func credSend(c *a2aclient.Client, text string) (string, error) {
	res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
	if err != nil {
		return "", err
	}
	msg, ok := res.(*a2a.Message)
	if !ok || len(msg.Parts) == 0 {
		return "", fmt.Errorf("unexpected result %T", res)
	}
	return msg.Parts[0].Text(), nil
}

// credAuthError asserts that err carries an *AuthError through the SDK's and net/http's wrapping.
func credAuthError(t *testing.T, err error) *credentials.AuthError {
	t.Helper()
	var ae *credentials.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) does not carry an *AuthError", err, err)
	}
	return ae
}

func credPut(t *testing.T, s credentials.Secrets, scheme string, sec credentials.Secret) {
	t.Helper()
	if err := s.Put("agent-1", scheme, sec); err != nil {
		t.Fatal(err)
	}
}

func TestCredentialsAPIKeyGoesWhereTheCardSays(t *testing.T) {
	const key = "k3y/with spaces&symbols="
	for _, in := range []a2a.APIKeySecuritySchemeLocation{"header", "query", "cookie"} {
		t.Run(string(in), func(t *testing.T) {
			got := func(r *http.Request) string {
				switch in {
				case "header":
					return r.Header.Get("X-Api-Key")
				case "query":
					return r.URL.Query().Get("api_key")
				default:
					c, err := r.Cookie("sid")
					if err != nil {
						return ""
					}
					v, _ := url.QueryUnescape(c.Value)
					return v
				}
			}
			name := map[a2a.APIKeySecuritySchemeLocation]string{"header": "X-Api-Key", "query": "api_key", "cookie": "sid"}[in]
			agent := startCredAgent(t,
				a2a.NamedSecuritySchemes{"key": a2a.APIKeySecurityScheme{Location: in, Name: name}},
				a2a.SecurityRequirementsOptions{{"key": {}}},
				func(r *http.Request, _ func(string) bool) (int, string) {
					switch got(r) {
					case key:
						return 0, ""
					case "":
						return http.StatusUnauthorized, "an API key is required"
					default:
						return http.StatusUnauthorized, "invalid API key"
					}
				})
			secrets := credFileSecrets(t, t.TempDir())
			c := agent.client(secrets, nil)

			_, err := credSend(c, "hi")
			ae := credAuthError(t, err)
			if ae.Status != 401 || len(ae.Missing) != 1 || ae.Missing[0] != "key" || ae.Scheme != "" {
				t.Errorf("without a key: %+v", ae)
			}
			if want := fmt.Sprintf(`set "key" (API key in %s %s)`, map[a2a.APIKeySecuritySchemeLocation]string{"header": "header", "query": "query parameter", "cookie": "cookie"}[in], name); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}

			credPut(t, secrets, "key", credentials.Secret{APIKey: "wrong"})
			_, err = credSend(c, "hi")
			ae = credAuthError(t, err)
			if ae.Status != 401 || ae.Scheme != "key" || ae.Detail != "invalid API key" || len(ae.Missing) != 0 {
				t.Errorf("with a wrong key: %+v", ae)
			}
			if !strings.Contains(err.Error(), "the agent refused the credentials (HTTP 401): invalid API key") {
				t.Errorf("error = %q", err)
			}

			// Saved after the client was made: it applies to the next call.
			credPut(t, secrets, "key", credentials.Secret{APIKey: key})
			if reply, err := credSend(c, "hi"); err != nil || reply != "echo: hi" {
				t.Errorf("with the right key: %q, %v", reply, err)
			}
		})
	}
}

func TestCredentialsBearerTokenAndForbidden(t *testing.T) {
	agent := startCredAgent(t,
		a2a.NamedSecuritySchemes{"jwt": a2a.HTTPAuthSecurityScheme{Scheme: "Bearer"}},
		a2a.SecurityRequirementsOptions{{"jwt": {}}},
		func(r *http.Request, _ func(string) bool) (int, string) {
			switch r.Header.Get("Authorization") {
			case "Bearer good":
				return 0, ""
			case "Bearer reader":
				return http.StatusForbidden, "this token may only read"
			default:
				return http.StatusUnauthorized, "bad token"
			}
		})
	secrets := credFileSecrets(t, t.TempDir())
	c := agent.client(secrets, nil)

	credPut(t, secrets, "jwt", credentials.Secret{Token: "reader"})
	_, err := credSend(c, "hi")
	if ae := credAuthError(t, err); ae.Status != 403 || ae.Scheme != "jwt" {
		t.Errorf("forbidden: %+v", ae)
	}
	if !strings.Contains(err.Error(), "refused access with these credentials (HTTP 403): this token may only read") {
		t.Errorf("error = %q", err)
	}
	credPut(t, secrets, "jwt", credentials.Secret{Token: "good"})
	if reply, err := credSend(c, "yo"); err != nil || reply != "echo: yo" {
		t.Errorf("with a good token: %q, %v", reply, err)
	}
}

func TestCredentialsUseTheFirstAlternativeWhoseSchemesAreAllSaved(t *testing.T) {
	var seen atomic.Value
	agent := startCredAgent(t,
		a2a.NamedSecuritySchemes{
			"a": a2a.APIKeySecurityScheme{Location: "header", Name: "X-A"},
			"b": a2a.HTTPAuthSecurityScheme{Scheme: "bearer"},
			"c": a2a.APIKeySecurityScheme{Location: "header", Name: "X-C"},
		},
		a2a.SecurityRequirementsOptions{{"a": {}, "b": {}}, {"c": {}}},
		func(r *http.Request, _ func(string) bool) (int, string) {
			seen.Store(r.Header.Get("X-A") + "|" + r.Header.Get("Authorization") + "|" + r.Header.Get("X-C"))
			if r.Header.Get("X-C") == "c" || (r.Header.Get("X-A") == "a" && r.Header.Get("Authorization") == "Bearer b") {
				return 0, ""
			}
			return http.StatusUnauthorized, "no"
		})
	secrets := credFileSecrets(t, t.TempDir())
	c := agent.client(secrets, nil)

	credPut(t, secrets, "a", credentials.Secret{APIKey: "a"})
	_, err := credSend(c, "1")
	// Half of the first alternative is saved: it is the closest, and only its missing half is asked for.
	if ae := credAuthError(t, err); len(ae.Missing) != 1 || ae.Missing[0] != "b" {
		t.Errorf("missing = %v, want [b]", ae.Missing)
	}
	if seen.Load() != "||" {
		t.Errorf("an incomplete alternative sent credentials: %q", seen.Load())
	}
	credPut(t, secrets, "c", credentials.Secret{APIKey: "c"})
	if _, err := credSend(c, "2"); err != nil || seen.Load() != "||c" {
		t.Errorf("second alternative: %v, sent %q", err, seen.Load())
	}
	credPut(t, secrets, "b", credentials.Secret{Token: "b"})
	if _, err := credSend(c, "3"); err != nil || seen.Load() != "a|Bearer b|" {
		t.Errorf("first alternative: %v, sent %q", err, seen.Load())
	}
}

func oauthAgent(t *testing.T) *credAgent {
	return startCredAgent(t,
		a2a.NamedSecuritySchemes{"cc": a2a.OAuth2SecurityScheme{Flows: a2a.ClientCredentialsOAuthFlow{Scopes: map[string]string{"a2a": ""}}}},
		a2a.SecurityRequirementsOptions{{"cc": {"a2a"}}},
		func(r *http.Request, valid func(string) bool) (int, string) {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || !valid(tok) {
				return http.StatusUnauthorized, "token " + tok + " is not valid"
			}
			return 0, ""
		})
}

func TestCredentialsOAuth2CachesTheTokenAndRetriesOnceAfterA401(t *testing.T) {
	agent := oauthAgent(t)
	secrets := credFileSecrets(t, t.TempDir())
	credPut(t, secrets, "cc", credentials.Secret{ClientID: agent.clientID, ClientSecret: agent.clientSecret})
	c := agent.client(secrets, nil)

	for i := range 3 {
		if reply, err := credSend(c, fmt.Sprint(i)); err != nil || reply != fmt.Sprintf("echo: %d", i) {
			t.Fatalf("call %d: %q, %v", i, reply, err)
		}
	}
	if n := agent.tokenFetches.Load(); n != 1 {
		t.Errorf("3 calls fetched %d tokens, want 1 (cached)", n)
	}

	// The agent revokes the token: one 401, a new token, and the same request again.
	agent.revokeAll()
	calls := agent.rpcCalls.Load()
	if reply, err := credSend(c, "again"); err != nil || reply != "echo: again" {
		t.Fatalf("after revocation: %q, %v", reply, err)
	}
	if n := agent.tokenFetches.Load(); n != 2 {
		t.Errorf("token fetches = %d, want 2", n)
	}
	if n := agent.rpcCalls.Load() - calls; n != 2 {
		t.Errorf("the revoked call reached the agent %d times, want 2 (one retry)", n)
	}

	// A token the agent refuses even fresh: exactly one retry, then an AuthError.
	agent.mu.Lock()
	agent.check = func(*http.Request, func(string) bool) (int, string) { return http.StatusUnauthorized, "nobody gets in" }
	agent.mu.Unlock()
	calls, fetches := agent.rpcCalls.Load(), agent.tokenFetches.Load()
	_, err := credSend(c, "refused")
	if ae := credAuthError(t, err); ae.Status != 401 || ae.Scheme != "cc" || ae.Detail != "nobody gets in" {
		t.Errorf("refused: %+v", ae)
	}
	if n := agent.rpcCalls.Load() - calls; n != 2 {
		t.Errorf("a refused call reached the agent %d times, want 2", n)
	}
	if n := agent.tokenFetches.Load() - fetches; n != 1 {
		t.Errorf("a refused call fetched %d tokens, want 1", n)
	}
}

func TestCredentialsOAuth2RefetchesAnExpiredTokenAndReportsABadClient(t *testing.T) {
	agent := oauthAgent(t)
	agent.expiresIn = 5 // within the oauth2 package's 10 s safety margin: expired on arrival
	secrets := credFileSecrets(t, t.TempDir())
	credPut(t, secrets, "cc", credentials.Secret{ClientID: agent.clientID, ClientSecret: agent.clientSecret})
	c := agent.client(secrets, nil)
	for i := range 2 {
		if _, err := credSend(c, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := agent.tokenFetches.Load(); n != 2 {
		t.Errorf("2 calls with expiring tokens fetched %d tokens, want 2", n)
	}

	credPut(t, secrets, "cc", credentials.Secret{ClientID: agent.clientID, ClientSecret: "not-the-secret"})
	calls := agent.rpcCalls.Load()
	_, err := credSend(c, "x")
	ae := credAuthError(t, err)
	if ae.Status != 401 || ae.Scheme != "cc" || !strings.Contains(ae.Detail, "invalid_client") {
		t.Errorf("bad client: %+v", ae)
	}
	if !strings.Contains(err.Error(), "token endpoint") || strings.Contains(err.Error(), "not-the-secret") {
		t.Errorf("error = %q", err)
	}
	if agent.rpcCalls.Load() != calls {
		t.Error("the call went to the agent without a token")
	}
}

func TestWireLogRecordsEveryStepOfAStreamingCallWithNoSecretInAnyRow(t *testing.T) {
	const key = "Qk/9+z y\"key"
	agent := startCredAgent(t,
		a2a.NamedSecuritySchemes{
			"key": a2a.APIKeySecurityScheme{Location: "query", Name: "api_key"},
			"cc":  a2a.OAuth2SecurityScheme{Flows: a2a.ClientCredentialsOAuthFlow{}},
		},
		a2a.SecurityRequirementsOptions{{"key": {}, "cc": {}}},
		func(r *http.Request, valid func(string) bool) (int, string) {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if got := r.URL.Query().Get("api_key"); got != key || !valid(tok) {
				return http.StatusUnauthorized, fmt.Sprintf("key %s with token %s refused", got, tok) // agents do echo secrets
			}
			return 0, ""
		})
	db := credStore(t)
	b := bus.New()
	sub := b.Subscribe(func(e bus.Event) bool { return e.Topic == wirelog.Topic }, 256)
	defer sub.Close()
	wire, err := wirelog.Open(context.Background(), db, b)
	if err != nil {
		t.Fatal(err)
	}
	defer wire.Close()
	secrets := credFileSecrets(t, t.TempDir())
	credPut(t, secrets, "key", credentials.Secret{APIKey: key})
	credPut(t, secrets, "cc", credentials.Secret{ClientID: agent.clientID, ClientSecret: agent.clientSecret})
	c := agent.client(secrets, wire)

	// The message itself carries the secrets, and the agent echoes them back.
	if _, err := credSend(c, "key "+key+" secret "+agent.clientSecret); err != nil {
		t.Fatal(err)
	}
	agent.revokeAll() // the stream starts with a 401, a new token and a retry
	var received int
	for ev, err := range c.SendStreamingMessage(context.Background(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("stream "+key))}) {
		if err != nil {
			t.Fatal(err)
		}
		_ = ev
		received++
	}
	if received < 3 {
		t.Fatalf("the stream gave %d events", received)
	}
	if err := wire.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	newestFirst, err := wire.List(context.Background(), "agent-1", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// Each step is labelled with its call, numbered in order of appearance: the token fetches belong
	// to the call that needed them.
	var steps []string
	calls := map[string]int{}
	for i := len(newestFirst) - 1; i >= 0; i-- {
		e := newestFirst[i]
		if _, ok := calls[e.CallID]; !ok {
			calls[e.CallID] = len(calls) + 1
		}
		step := fmt.Sprintf("call%d %s %s", calls[e.CallID], e.Kind, e.Method)
		if e.Status != 0 {
			step += fmt.Sprintf(" %d", e.Status)
		}
		steps = append(steps, step)
		if e.Kind == "request" && e.Method != "token" && !strings.Contains(e.URL, "api_key=•••") {
			t.Errorf("request URL %q does not show the masked key", e.URL)
		}
		if e.Kind == "request" && e.Method == "SendStreamingMessage" && e.Header["Authorization"] != "Bearer •••" {
			t.Errorf("request Authorization header = %q", e.Header["Authorization"])
		}
	}
	want := []string{
		"call1 request token", "call1 response token 200", "call1 request SendMessage", "call1 response SendMessage 200",
		"call2 request SendStreamingMessage", "call2 response SendStreamingMessage 401",
		"call2 request token", "call2 response token 200", "call2 request SendStreamingMessage", "call2 response SendStreamingMessage 200",
	}
	for range received {
		want = append(want, "call2 event SendStreamingMessage")
	}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Errorf("wire log steps:\n%s\nwant:\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	if last := newestFirst[0]; last.Kind != "event" || !strings.Contains(last.Body, "TASK_STATE_COMPLETED") {
		t.Errorf("the last entry is not the completing event: %+v", last)
	}

	// Every column of every row, against every secret in every encoding it travelled in.
	secretsUsed := []string{key, url.QueryEscape(key), agent.clientSecret, url.QueryEscape(agent.clientSecret), `Qk/9+z y\"key`}
	for i := range agent.tokens() {
		secretsUsed = append(secretsUsed, agent.tokens()[i], fmt.Sprintf("rt-%d-never-shown", i+1))
	}
	rows, err := db.Reader.Query(`SELECT call_id, kind, method, url, header, body FROM wire_log`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var cols [6]string
		if err := rows.Scan(&cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5]); err != nil {
			t.Fatal(err)
		}
		n++
		row := strings.Join(cols[:], "\x00")
		for _, s := range secretsUsed {
			if strings.Contains(row, s) {
				t.Errorf("wire_log row holds secret %q: %s", s, row)
			}
		}
	}
	if n != len(want) {
		t.Errorf("wire_log has %d rows, want %d", n, len(want))
	}

	deadline := time.After(10 * time.Second)
	for published := 0; published < len(want); published++ {
		select {
		case e := <-sub.C:
			if e.Key != "agent-1" {
				t.Errorf("bus event key = %q", e.Key)
			}
			if _, ok := e.Data.(wirelog.Entry); !ok {
				t.Errorf("bus event data is %T", e.Data)
			}
		case <-deadline:
			t.Fatalf("only %d of %d entries were published on the bus", published, len(want))
		}
	}
}

func TestCredentialsDoNotFollowARedirectToAnotherHost(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("X-Api-Key") != "")
	}))
	defer other.Close()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("X-Api-Key") != "k":
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Path == "/moved":
			http.Redirect(w, r, "/rpc", http.StatusTemporaryRedirect)
		case r.URL.Path == "/rpc":
			w.Write([]byte(`{"jsonrpc": "2.0", "id": 1, "result": {}}`))
		default:
			http.Redirect(w, r, other.URL+"/elsewhere", http.StatusTemporaryRedirect)
		}
	}))
	defer agent.Close()
	card := `{"name": "r", "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Api-Key"}}},
		"securityRequirements": [{"schemes": {"key": {"list": []}}}]}`
	secrets := credFileSecrets(t, t.TempDir())
	credPut(t, secrets, "key", credentials.Secret{APIKey: "k"})
	hc := credentials.NewHTTPClient("agent-1", []byte(card), secrets, nil)
	resp, err := hc.Post(agent.URL, "application/json", strings.NewReader(`{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}`))
	if err == nil {
		resp.Body.Close()
		t.Fatal("a redirect to another host was followed")
	}
	var re *credentials.RedirectError
	if !errors.As(err, &re) || re.To != other.URL+"/elsewhere" || leaked.Load() {
		t.Errorf("err = %v, key sent to the other host: %v", err, leaked.Load())
	}
	// Within the agent's origin a redirect is followed, credentials and all.
	resp, err = hc.Post(agent.URL+"/moved", "application/json", strings.NewReader(`{"jsonrpc": "2.0", "id": 1, "method": "GetTask"}`))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a redirect within the origin: %v %v", err, resp)
	}
	resp.Body.Close()

	// An agent that wants credentials its card never mentions gets a plain-spoken AuthError.
	resp, err = credentials.NewHTTPClient("agent-2", []byte(`{"name": "bare"}`), secrets, nil).Get(agent.URL)
	if err == nil {
		resp.Body.Close()
	}
	var ae *credentials.AuthError
	if !errors.As(err, &ae) || ae.Status != 401 || !strings.Contains(err.Error(), "credentials its card does not describe") {
		t.Errorf("err = %v", err)
	}
}

func credStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// What a Conn returns is masked by the wire log's rule: an agent quoting the owner's key in a task
// or in an error does not hand it on. An error stays the protocol's error to errors.Is.
func TestConnMasksSecretsTheAgentEchoes(t *testing.T) {
	const key = "sk-echo-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		sent := r.Header.Get("X-Api-Key")
		if req.Method == "tasks/cancel" {
			fmt.Fprintf(w, `{"jsonrpc": "2.0", "id": %s, "error": {"code": -32001, "message": "no task for key %s"}}`, req.ID, sent)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc": "2.0", "id": %s, "result": {"id": "t1", "state": "COMPLETED",
			"messages": [{"role": "assistant", "parts": [{"type": "text", "content": "your key: %s"}]}], "artifacts": []}}`, req.ID, sent)
	}))
	defer srv.Close()
	card := []byte(`{"name": "echo", "url": "` + srv.URL + `", "authSchemes": [{"scheme": "apiKey", "service_identifier": "echo"}]}`)
	secrets := credFileSecrets(t, t.TempDir())
	scheme := credentials.CardAuth(card).Schemes[0].Name
	credPut(t, secrets, scheme, credentials.Secret{APIKey: key})
	c, err := agents.Dial(t.Context(), card, credentials.NewHTTPClient("agent-1", card, secrets, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	task, err := c.GetTask(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got := task.History[0].Parts[0].Text(); got != "your key: •••" {
		t.Errorf("the task's message reads %q", got)
	}
	_, err = c.Cancel(t.Context(), "t1")
	if !errors.Is(err, a2a.ErrTaskNotFound) || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "no task for key •••") {
		t.Errorf("the error: %v", err)
	}
}
