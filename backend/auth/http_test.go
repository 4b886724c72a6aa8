package auth

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// serve mounts the handlers as the hub will, with /whoami standing for a protected route: it answers
// the resolved principal's ID, or 401 with the error.
func serve(t *testing.T, f *fixture) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(TokenPath, f.svc.TokenHandler())
	mux.Handle(JWKSPath, f.svc.JWKSHandler())
	mux.HandleFunc("/whoami", func(w http.ResponseWriter, r *http.Request) {
		p, err := f.svc.Resolve(r)
		if errors.Is(err, ErrUnauthenticated) {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, p.ID)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// The token endpoint works with golang.org/x/oauth2's client-credentials client, both ways it sends
// credentials, and its tokens verify with go-jose (an independent JOSE implementation) against the
// JWKS fetched over HTTP.
func TestTokenEndpointWithOAuth2ClientAndJWKS(t *testing.T) {
	f := newFixture(t)
	key := f.add(t, "bot")
	srv := serve(t, f)
	for _, style := range []oauth2.AuthStyle{oauth2.AuthStyleInHeader, oauth2.AuthStyleInParams} {
		cc := clientcredentials.Config{ClientID: "bot", ClientSecret: key, TokenURL: srv.URL + TokenPath, AuthStyle: style}
		tok, err := cc.Token(context.Background())
		if err != nil {
			t.Fatalf("auth style %d: %v", style, err)
		}
		// The clock stands still in the test, so expires_in is the whole TTL.
		if exp, _ := tok.Extra("expires_in").(float64); tok.TokenType != "Bearer" || tok.AccessToken == "" || exp != DefaultTokenTTL.Seconds() {
			t.Errorf("auth style %d: token_type %q, expires_in %v", style, tok.TokenType, tok.Extra("expires_in"))
		}
		verifyWithGoJose(t, srv.URL, tok.AccessToken, f.clock.Now())
		// The client the library builds sends the token as a bearer: the hub takes it.
		resp, err := cc.Client(context.Background()).Get(srv.URL + "/whoami")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "agent://bot" {
			t.Errorf("auth style %d: /whoami with the token = %d %s", style, resp.StatusCode, body)
		}
	}
	if strings.Contains(f.log.String(), key) {
		t.Errorf("the log holds the API key:\n%s", f.log.String())
	}
}

func verifyWithGoJose(t *testing.T, base, token string, now time.Time) {
	t.Helper()
	resp, err := http.Get(base + JWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("JWKS Content-Type %q", ct)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	parsed, err := josejwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	kid := parsed.Headers[0].KeyID
	keys := set.Key(kid)
	if len(keys) != 1 {
		t.Fatalf("JWKS has %d keys of kid %q, want 1", len(keys), kid)
	}
	jwk := keys[0]
	if !jwk.Valid() || !jwk.IsPublic() || jwk.Algorithm != "ES256" || jwk.Use != "sig" {
		t.Errorf("JWK %+v", jwk)
	}
	// kid is the key's RFC 7638 thumbprint, as go-jose computes it.
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil || base64.RawURLEncoding.EncodeToString(tp) != kid {
		t.Errorf("kid %s is not the key's thumbprint (%v)", kid, err)
	}
	var c josejwt.Claims
	var extra struct {
		Gen int64 `json:"gen"`
	}
	if err := parsed.Claims(jwk.Key, &c, &extra); err != nil {
		t.Fatalf("go-jose rejects the signature: %v", err)
	}
	if err := c.ValidateWithLeeway(josejwt.Expected{Issuer: testIssuer, Subject: "agent://bot",
		AnyAudience: josejwt.Audience{testIssuer}, Time: now}, 0); err != nil {
		t.Errorf("go-jose rejects the claims: %v", err)
	}
	if c.ID == "" || c.Expiry == nil || c.IssuedAt == nil || extra.Gen != 1 {
		t.Errorf("claims %+v, gen %d", c, extra.Gen)
	}
}

type tokenReply struct {
	status  int
	header  http.Header
	Error   string `json:"error"`
	Desc    string `json:"error_description"`
	Access  string `json:"access_token"`
	Type    string `json:"token_type"`
	Expires int64  `json:"expires_in"`
}

func postToken(t *testing.T, req *http.Request) tokenReply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := tokenReply{status: resp.StatusCode, header: resp.Header}
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("HTTP %d, not JSON: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	return r
}

func formRequest(t *testing.T, url string, form url.Values) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

func TestTokenEndpointErrors(t *testing.T) {
	f := newFixture(t)
	key := f.add(t, "bot")
	otherKey := f.add(t, "other")
	srv := serve(t, f)
	tokenURL := srv.URL + TokenPath
	grant := func(kv ...string) url.Values {
		v := url.Values{"grant_type": {"client_credentials"}}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	basic := func(req *http.Request, id, secret string) *http.Request {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
		return req
	}
	getReq, _ := http.NewRequest(http.MethodGet, tokenURL, nil)
	jsonReq, _ := http.NewRequest(http.MethodPost, tokenURL, strings.NewReader(`{"grant_type":"client_credentials"}`))
	jsonReq.Header.Set("Content-Type", "application/json")
	repeated := formRequest(t, tokenURL, grant("client_id", "bot", "client_secret", key))
	repeated.Body = io.NopCloser(strings.NewReader(grant("client_id", "bot", "client_secret", key).Encode() + "&grant_type=client_credentials"))
	repeated.ContentLength = -1
	big := formRequest(t, tokenURL, grant("client_id", "bot", "client_secret", key, "pad", strings.Repeat("x", maxTokenRequest)))
	bearer := formRequest(t, tokenURL, grant())
	bearer.Header.Set("Authorization", "Bearer whatever")
	inURL := formRequest(t, tokenURL+"?client_secret="+key, grant("client_id", "bot"))

	cases := []struct {
		name   string
		req    *http.Request
		status int
		err    string
	}{
		{"GET", getReq, 405, "invalid_request"},
		{"JSON body", jsonReq, 400, "invalid_request"},
		{"no grant_type", formRequest(t, tokenURL, url.Values{"client_id": {"bot"}, "client_secret": {key}}), 400, "invalid_request"},
		{"password grant", formRequest(t, tokenURL, url.Values{"grant_type": {"password"}, "client_id": {"bot"}, "client_secret": {key}}), 400, "unsupported_grant_type"},
		{"repeated parameter", repeated, 400, "invalid_request"},
		{"body too large", big, 400, "invalid_request"},
		{"secret in the URL", inURL, 400, "invalid_request"},
		{"Basic and body both", basic(formRequest(t, tokenURL, grant("client_secret", key)), "bot", key), 400, "invalid_request"},
		{"no client credentials", formRequest(t, tokenURL, grant()), 401, "invalid_client"},
		{"bearer instead of Basic", bearer, 401, "invalid_client"},
		{"wrong secret", formRequest(t, tokenURL, grant("client_id", "bot", "client_secret", key[:len(key)-1]+"x")), 401, "invalid_client"},
		{"wrong secret (Basic)", basic(formRequest(t, tokenURL, grant()), "bot", "nope"), 401, "invalid_client"},
		{"unknown client", formRequest(t, tokenURL, grant("client_id", "nobody", "client_secret", key)), 401, "invalid_client"},
		{"another client's secret", formRequest(t, tokenURL, grant("client_id", "bot", "client_secret", otherKey)), 401, "invalid_client"},
	}
	for _, tc := range cases {
		r := postToken(t, tc.req)
		if r.status != tc.status || r.Error != tc.err || r.Access != "" {
			t.Errorf("%s: HTTP %d %q (%s), want %d %q and no token", tc.name, r.status, r.Error, r.Desc, tc.status, tc.err)
		}
		if r.status == 401 && r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
		for _, secret := range []string{key, otherKey} {
			if strings.Contains(r.Desc, secret) {
				t.Errorf("%s: the error description holds a key", tc.name)
			}
		}
	}
	// A removed principal's key buys no token.
	if err := f.svc.Principals.Remove(context.Background(), "bot"); err != nil {
		t.Fatal(err)
	}
	if r := postToken(t, formRequest(t, tokenURL, grant("client_id", "bot", "client_secret", key))); r.status != 401 || r.Error != "invalid_client" {
		t.Errorf("removed principal: HTTP %d %q", r.status, r.Error)
	}
	log := f.log.String()
	for _, secret := range []string{key, otherKey, key[keyPrefixLen:]} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds a key:\n%s", log)
		}
	}
}

func whoami(t *testing.T, base string, headers ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/whoami", nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	key := f.add(t, "bot")
	srv := serve(t, f)
	tok := f.issue(t, "bot", 0)
	ok := []struct {
		name    string
		headers []string
		want    string
	}{
		{"no credentials", nil, "anonymous"},
		{"API key", []string{"X-Api-Key", key}, "agent://bot"},
		{"bearer token", []string{"Authorization", "Bearer " + tok}, "agent://bot"},
		{"bearer, any case", []string{"Authorization", "bearer " + tok}, "agent://bot"},
	}
	for _, tc := range ok {
		if status, body := whoami(t, srv.URL, tc.headers...); status != 200 || body != tc.want {
			t.Errorf("%s: %d %s, want %s", tc.name, status, body, tc.want)
		}
	}
	bad := []struct {
		name    string
		headers []string
		reason  string
	}{
		{"wrong API key", []string{"X-Api-Key", key[:len(key)-1] + "x"}, "unknown API key"},
		{"empty API key", []string{"X-Api-Key", ""}, "unknown API key"},
		{"huge API key", []string{"X-Api-Key", strings.Repeat("k", MaxAPIKeyHeader+1)}, "too large"},
		{"huge Authorization", []string{"Authorization", "Bearer " + strings.Repeat("t", MaxAuthorizationHeader)}, "too large"},
		{"two API keys", []string{"X-Api-Key", key, "X-Api-Key", key}, "more than one credential"},
		{"API key and token", []string{"X-Api-Key", key, "Authorization", "Bearer " + tok}, "more than one credential"},
		{"Basic scheme", []string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("bot:"+key))}, "unsupported Authorization scheme"},
		{"API key as bearer", []string{"Authorization", "Bearer " + key}, "malformed token"},
		{"bearer without token", []string{"Authorization", "Bearer"}, "malformed token"},
		{"tampered token", []string{"Authorization", "Bearer " + tamperSignature(tok)}, "signature invalid"},
	}
	for _, tc := range bad {
		status, body := whoami(t, srv.URL, tc.headers...)
		if status != 401 || !strings.Contains(body, tc.reason) {
			t.Errorf("%s: %d %s, want 401 saying %q", tc.name, status, body, tc.reason)
		}
		if strings.Contains(body, key) || strings.Contains(body, tok) {
			t.Errorf("%s: the error quotes the credential", tc.name)
		}
	}
	// Expired: the same token, later.
	f.clock.Advance(DefaultTokenTTL)
	if status, body := whoami(t, srv.URL, "Authorization", "Bearer "+tok); status != 401 || !strings.Contains(body, "expired") {
		t.Errorf("expired token: %d %s", status, body)
	}
	// A successful call marked the principal used.
	list, err := f.svc.Principals.List(context.Background())
	if err != nil || len(list) != 1 || list[0].LastUsedAt.IsZero() {
		t.Errorf("after use, List = %+v, %v; want LastUsedAt set", list, err)
	}
	if log := f.log.String(); strings.Contains(log, key) || strings.Contains(log, tok) {
		t.Errorf("the log holds a credential:\n%s", log)
	}
}

func TestJWKSHandler(t *testing.T) {
	f := newFixture(t)
	srv := serve(t, f)
	resp, err := http.Post(srv.URL+JWKSPath, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to the JWKS: %d, want 405", resp.StatusCode)
	}
	resp, err = http.Get(srv.URL + JWKSPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 1 || !set.Keys[0].IsPublic() || set.Keys[0].KeyID != f.svc.current.kid {
		t.Errorf("JWKS %+v, want the one public key", set)
	}
}
