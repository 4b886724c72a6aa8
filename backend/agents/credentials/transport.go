package credentials

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/oauth2"

	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// Timeouts of the connection to an agent. There is no overall timeout: a stream may last hours.
const (
	dialTimeout           = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 3 * time.Minute // a blocking SendMessage answers when the task is done
	tokenFetchTimeout     = 30 * time.Second
)

// NewHTTPClient returns the client for every call to one agent. It applies the credentials of the
// first of the card's alternatives whose schemes all have saved secrets (read at request time, so a
// credential saved later applies to the next call), records the traffic to wire (may be nil) with
// every secret masked, and turns a 401/403 into an *AuthError. An OAuth2 token is cached until it
// expires; a 401 drops it, and the request is retried once with a fresh one.
func NewHTTPClient(agentID string, card []byte, secrets Secrets, wire wirelog.Recorder) *http.Client {
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		ResponseHeaderTimeout: responseHeaderTimeout,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   8,
		ForceAttemptHTTP2:     true,
	}
	t := &authTransport{
		needs:   CardAuth(card),
		secrets: secrets,
		agentID: agentID,
		tap:     wirelog.NewTap(agentID, wire, base),
		tokens:  map[string]*tokenCache{},
	}
	for _, s := range t.needs.Schemes {
		if s.Kind == SchemeOAuth2 {
			t.tokens[s.Name] = &tokenCache{}
		}
	}
	t.tokenClient = &http.Client{Transport: tokenTripper{t}, Timeout: tokenFetchTimeout}
	return &http.Client{Transport: t, CheckRedirect: SameOriginRedirects}
}

type authTransport struct {
	agentID     string
	needs       AuthNeeds
	secrets     Secrets
	tap         *wirelog.Tap
	tokens      map[string]*tokenCache // per OAuth2 scheme; fixed after construction
	tokenClient *http.Client
}

// The call a token fetch belongs to, and how to mask it, travel in the context the oauth2 package
// hands back to tokenTripper.
type (
	callIDKey struct{}
	maskerKey struct{}
)

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := drainRequestBody(req)
	if err != nil {
		return nil, err
	}
	callID := uuid.NewString()
	ctx := context.WithValue(req.Context(), callIDKey{}, callID)
	method := jsonrpcMethodOf(body)
	if method == "" { // not JSON-RPC: a call of the HTTP+JSON binding, named by its HTTP method and path
		method = req.Method + " " + req.URL.Path
	}
	saved, err := t.load()
	if err != nil {
		return nil, err
	}
	alt := t.needs.Choose(saved)
	for attempt := 0; ; attempt++ {
		out := req.Clone(ctx)
		out.Body, out.GetBody, out.ContentLength = http.NoBody, nil, 0
		if len(body) > 0 {
			out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		used, err := t.apply(ctx, out, alt, saved)
		m := t.masker(saved) // after apply: it knows the access token just fetched
		if err != nil {
			t.tap.Failed(callID, method, out, time.Now(), err, m)
			return nil, err
		}
		resp, err := t.tap.Do(out, body, callID, method, m)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp, nil
		}
		detail := refusalDetail(resp, m)
		if resp.StatusCode == http.StatusUnauthorized && attempt == 0 && len(used) > 0 {
			for scheme, access := range used {
				t.tokens[scheme].drop(access) // fetched again on the retry
			}
			continue
		}
		return nil, t.refused(resp.StatusCode, detail, alt, saved)
	}
}

// load reads the saved secrets of every usable scheme of the agent.
func (t *authTransport) load() (map[string]Secret, error) {
	saved := map[string]Secret{}
	if t.secrets == nil {
		return saved, nil
	}
	for _, s := range t.needs.Schemes {
		if s.Kind == SchemeUnsupported {
			continue
		}
		sec, ok, err := t.secrets.Get(t.agentID, s.Name)
		if err != nil {
			return nil, fmt.Errorf("read the credentials of agent %s: %w", t.agentID, err)
		}
		if ok {
			saved[s.Name] = sec
		}
	}
	return saved, nil
}

// Choose returns the schemes of the first alternative of needs that the saved secrets fully cover,
// or nil: then a request goes without credentials, and the agent decides.
func (needs AuthNeeds) Choose(saved map[string]Secret) []Scheme {
	for _, alt := range needs.Alternatives {
		if len(alt) == 0 {
			continue // anonymous access is the last resort, not a choice over saved credentials
		}
		var schemes []Scheme
		for _, name := range alt {
			s, ok := needs.Scheme(name)
			if !ok || !Covers(saved[name], s) {
				schemes = nil
				break
			}
			schemes = append(schemes, s)
		}
		if schemes != nil {
			return schemes
		}
	}
	return nil
}

// apply sets the credentials of the chosen schemes on req, and returns the OAuth2 access tokens used.
func (t *authTransport) apply(ctx context.Context, req *http.Request, alt []Scheme, saved map[string]Secret) (map[string]string, error) {
	used := map[string]string{}
	for _, s := range alt {
		sec := saved[s.Name]
		switch s.Kind {
		case SchemeAPIKey:
			switch s.In {
			case "header":
				req.Header.Set(s.ParamName, sec.APIKey)
			case "query":
				q := req.URL.Query()
				q.Set(s.ParamName, sec.APIKey)
				req.URL.RawQuery = q.Encode()
			case "cookie":
				req.Header.Set("Cookie", joinCookie(req.Header.Get("Cookie"), s.ParamName, sec.APIKey))
			}
		case SchemeBearer:
			req.Header.Set("Authorization", "Bearer "+sec.Token)
		case SchemeOAuth2:
			tctx := context.WithValue(ctx, oauth2.HTTPClient, t.tokenClient)
			tctx = context.WithValue(tctx, maskerKey{}, t.masker(saved))
			tok, err := t.tokens[s.Name].get(tctx, s, sec)
			if err != nil {
				return nil, t.tokenError(s, err, t.masker(saved))
			}
			tok.SetAuthHeader(req)
			used[s.Name] = tok.AccessToken
		}
	}
	return used, nil
}

// joinCookie adds name=value to a Cookie header. A value with bytes a cookie cannot carry is
// URL-encoded rather than silently stripped of them (which is what net/http would do).
func joinCookie(header, name, value string) string {
	for _, c := range []byte(value) {
		if c <= 0x20 || c >= 0x7f || c == '"' || c == ';' || c == '\\' || c == ',' {
			value = url.QueryEscape(value)
			break
		}
	}
	if header == "" {
		return name + "=" + value
	}
	return header + "; " + name + "=" + value
}

// refused builds the AuthError for a 401/403: with the schemes to set when no credentials were sent.
func (t *authTransport) refused(status int, detail string, alt []Scheme, saved map[string]Secret) *AuthError {
	e := &AuthError{Status: status, Detail: detail}
	if alt != nil {
		names := make([]string, len(alt))
		for i, s := range alt {
			names[i] = s.Name
		}
		e.Scheme = strings.Join(names, "+")
		return e
	}
	e.Missing, e.hints = t.missing(saved)
	return e
}

// missing picks the alternative closest to usable (fewest schemes without a secret, usable kinds
// first) and names what it lacks.
func (t *authTransport) missing(saved map[string]Secret) ([]string, map[string]string) {
	var best []string
	bestScore := -1
	for _, alt := range t.needs.Alternatives {
		var lacking []string
		score := 0
		for _, name := range alt {
			s, _ := t.needs.Scheme(name)
			if s.Kind == SchemeUnsupported {
				score += 1000
			}
			if !Covers(saved[name], s) {
				lacking = append(lacking, name)
				score++
			}
		}
		if len(lacking) > 0 && (bestScore < 0 || score < bestScore) {
			best, bestScore = lacking, score
		}
	}
	hints := map[string]string{}
	for _, name := range best {
		if s, ok := t.needs.Scheme(name); ok {
			hints[name] = s.Hint()
		}
	}
	return best, hints
}

func (t *authTransport) tokenError(s Scheme, err error, m *wirelog.Masker) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 {
		detail := strings.TrimSpace(re.ErrorCode + ": " + re.ErrorDescription)
		if re.ErrorCode == "" {
			detail = wirelog.ClipBody(m.Text(strings.TrimSpace(string(re.Body))), 0, 300)
		}
		return &AuthError{Status: re.Response.StatusCode, Scheme: s.Name, Detail: strings.Trim(detail, ": "), tokenURL: s.TokenURL}
	}
	return fmt.Errorf("fetch an OAuth2 token from %s: %s", s.TokenURL, m.Text(err.Error()))
}

// masker hides every secret this agent's traffic may carry: the saved ones and the access tokens
// fetched with them.
func (t *authTransport) masker(saved map[string]Secret) *wirelog.Masker {
	var values, headers, query []string
	for _, sec := range saved {
		values = append(values, sec.Values()...)
	}
	for _, c := range t.tokens {
		values = append(values, c.recent()...)
	}
	for _, s := range t.needs.Schemes {
		switch {
		case s.Kind == SchemeAPIKey && s.In == "header":
			headers = append(headers, s.ParamName)
		case s.Kind == SchemeAPIKey && s.In == "query":
			query = append(query, s.ParamName)
		}
	}
	return wirelog.NewMasker(values, headers, query)
}

// refusalDetail reads what the agent said when it refused: a JSON-RPC error message, an OAuth-style
// error description, the WWW-Authenticate header, or the start of a text body.
func refusalDetail(resp *http.Response, m *wirelog.Masker) string {
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var doc struct {
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
		Message          string          `json:"message"`
	}
	detail := ""
	if json.Unmarshal(raw, &doc) == nil {
		var rpc struct {
			Message string `json:"message"`
		}
		var code string
		switch {
		case json.Unmarshal(doc.Error, &rpc) == nil && rpc.Message != "":
			detail = rpc.Message
		case doc.ErrorDescription != "":
			detail = doc.ErrorDescription
		case json.Unmarshal(doc.Error, &code) == nil && code != "":
			detail = code
		default:
			detail = doc.Message
		}
	}
	if detail == "" {
		detail = resp.Header.Get("WWW-Authenticate")
	}
	if detail == "" && !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("<")) {
		detail, _, _ = strings.Cut(strings.TrimSpace(string(raw)), "\n")
	}
	return wirelog.ClipBody(m.Text(strings.TrimSpace(detail)), 0, 300)
}

// drainRequestBody reads the request body whole, so it can be recorded and sent again; RoundTrip must
// close it in every case.
func drainRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("read the request body: %w", err)
	}
	return body, nil
}

// jsonrpcMethodOf names the JSON-RPC method(s) of a request body; "" when it is not JSON-RPC.
func jsonrpcMethodOf(body []byte) string {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return ""
	}
	names := make([]string, 0, len(batch))
	for _, b := range batch {
		names = append(names, b.Method)
	}
	return strings.Join(names, ",")
}

// MaskerOf returns, for a client made by NewHTTPClient, the masker of the agent's saved secrets
// and recent access tokens as they are when it is called; nil for any other client (nothing to mask).
func MaskerOf(hc *http.Client) func() (*wirelog.Masker, error) {
	if hc == nil {
		return nil
	}
	if t, ok := hc.Transport.(*authTransport); ok {
		return t.eventMasker
	}
	return nil
}

// eventMasker returns the masker for the agent's saved secrets and recent access tokens now.
func (t *authTransport) eventMasker() (*wirelog.Masker, error) {
	saved, err := t.load()
	if err != nil {
		return nil, err
	}
	return t.masker(saved), nil
}
