package credentials

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// tokenTripper records the token endpoint traffic under the call that needed the token.
type tokenTripper struct{ t *authTransport }

func (tt tokenTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := drainRequestBody(req)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	callID, _ := req.Context().Value(callIDKey{}).(string)
	m, ok := req.Context().Value(maskerKey{}).(*wirelog.Masker)
	if !ok {
		m = wirelog.NewMasker(nil, nil, nil)
	}
	return tt.t.tap.Do(out, body, callID, "token", m)
}

// tokenCache holds one scheme's access token until it expires or the agent refuses it.
type tokenCache struct {
	mu       sync.Mutex
	tok      *oauth2.Token
	clientID string
	secret   string
	seen     []string // recent access tokens, kept to mask them in logs
}

const tokensRemembered = 8

func (c *tokenCache) get(ctx context.Context, s Scheme, sec Secret) (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && c.tok.Valid() && c.clientID == sec.ClientID && c.secret == sec.ClientSecret {
		return c.tok, nil
	}
	c.tok = nil
	cfg := clientcredentials.Config{ClientID: sec.ClientID, ClientSecret: sec.ClientSecret, TokenURL: s.TokenURL,
		Scopes: s.Scopes, AuthStyle: oauth2.AuthStyleAutoDetect}
	tok, err := cfg.Token(ctx)
	if err != nil {
		return nil, err
	}
	c.tok, c.clientID, c.secret = tok, sec.ClientID, sec.ClientSecret
	c.seen = append(c.seen, tok.AccessToken)
	if tok.RefreshToken != "" {
		c.seen = append(c.seen, tok.RefreshToken)
	}
	if len(c.seen) > tokensRemembered {
		c.seen = c.seen[len(c.seen)-tokensRemembered:]
	}
	return tok, nil
}

// drop forgets the token if it is still the one the agent refused.
func (c *tokenCache) drop(access string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && c.tok.AccessToken == access {
		c.tok = nil
	}
}

func (c *tokenCache) recent() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}
