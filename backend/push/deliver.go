package push

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/tasks"
)

// Headers of a notification.
const (
	// SignatureHeader carries the notification's JWT on every POST. It is also sent as
	// "Authorization: Bearer" (as the draft's samples read it) unless the config brings credentials
	// of its own for that header.
	SignatureHeader = "A2A-Push-Signature"
	// The config's token: a2a-go v1.0 sends it as A2A-Notification-Token, v0.3 and the JS and
	// Python SDKs (every version) as X-A2A-Notification-Token. Every config gets the latter (the v0.1
	// draft names no header, and v0.2 settled on it); v1.0 configs get both.
	TokenHeaderV1  = "A2A-Notification-Token"
	TokenHeaderV03 = "X-A2A-Notification-Token"
)

// Claims are a notification JWT's claims: iss the hub's base URL, aud the webhook URL, iat and a
// TokenTTL exp (each attempt is signed anew), jti the notification's id (the same on every retry of
// it, so a receiver drops one it has seen), the task's id, and the hex SHA-256 of the exact body.
type Claims struct {
	jwt.RegisteredClaims
	TaskID     string `json:"task_id"`
	BodySHA256 string `json:"request_body_sha256"`
}

// permanentError is a failure that retrying cannot fix: the target is refused, or the receiver said
// 410 Gone.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// targetInfo is what push_targets says of a config's current URL.
type targetInfo struct {
	local     bool // set by a loopback caller
	validated bool // passed the v0.1 challenge
}

func (o *Outbox) target(ctx context.Context, l lane, url string) (targetInfo, error) {
	var t targetInfo
	var stored string
	err := o.cfg.DB.Reader.QueryRowContext(ctx, `SELECT url, caller_local, validated FROM push_targets WHERE task_id = ? AND config_id = ?`,
		l.task, l.config).Scan(&stored, &t.local, &t.validated)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && stored != url) {
		return targetInfo{}, nil // unknown caller: held to the remote rules
	}
	return t, err
}

// deliver makes one attempt: the v0.1 challenge first if the URL has not passed it, then the POST.
// It returns the HTTP status of the last answer (0 if none) and why the attempt failed.
func (o *Outbox) deliver(ctx context.Context, h *head, cfg *a2a.PushConfig, t targetInfo) (int, error) {
	client := o.remote
	if t.local {
		client = o.local
	}
	if h.dialect == tasks.DialectV01 && !t.validated {
		if status, err := o.challenge(ctx, client, cfg.URL); err != nil {
			return status, fmt.Errorf("validation challenge: %w", err)
		}
		if _, err := o.cfg.DB.Writer.ExecContext(ctx, `UPDATE push_targets SET validated = 1 WHERE task_id = ? AND config_id = ? AND url = ?`,
			h.lane.task, h.lane.config, cfg.URL); err != nil {
			return 0, err
		}
	}
	req, err := o.request(ctx, h, cfg)
	if err != nil {
		return 0, &permanentError{err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, classify(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return resp.StatusCode, nil
	case resp.StatusCode == http.StatusGone:
		return resp.StatusCode, &permanentError{fmt.Errorf("webhook answered %s: it wants no more notifications", resp.Status)}
	}
	return resp.StatusCode, fmt.Errorf("webhook answered %s", resp.Status)
}

// request builds the signed POST of a notification.
func (o *Outbox) request(ctx context.Context, h *head, cfg *a2a.PushConfig) (*http.Request, error) {
	sum := sha256.Sum256(h.payload)
	now := o.cfg.Now().Truncate(time.Second)
	token, err := o.signer.SignClaims(Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: o.issuer, Audience: jwt.ClaimStrings{cfg.URL}, ID: h.notificationID,
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(TokenTTL)),
		},
		TaskID:     h.lane.task,
		BodySHA256: hex.EncodeToString(sum[:]),
	})
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(h.payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "AgentHub-push")
	req.Header.Set(SignatureHeader, token)
	req.Header.Set("Authorization", "Bearer "+token)
	if cfg.Token != "" {
		req.Header.Set(TokenHeaderV03, cfg.Token)
		if h.dialect == tasks.DialectV1 {
			// a2a-go v2 reads A2A-Notification-Token; the JS and Python SDKs read the
			// X- name in every version, so a v1.0 config gets both.
			req.Header.Set(TokenHeaderV1, cfg.Token)
		}
	}
	if cfg.Auth != nil && cfg.Auth.Credentials != "" {
		// The receiver's own credentials: a v1.0 scheme, or the v0.1 draft's list joined with commas.
		for _, s := range strings.Split(cfg.Auth.Scheme, ",") {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "bearer":
				req.Header.Set("Authorization", "Bearer "+cfg.Auth.Credentials)
			case "basic":
				req.Header.Set("Authorization", "Basic "+cfg.Auth.Credentials)
			default:
				continue
			}
			break
		}
	}
	return req, nil
}

// challenge is the v0.1 draft's check that a URL wants notifications: GET it with a random
// validationToken query parameter, and expect 200 with the token as the body.
func (o *Outbox) challenge(ctx context.Context, client *http.Client, rawURL string) (int, error) {
	b := make([]byte, 18)
	rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, &permanentError{err}
	}
	q := u.Query()
	q.Set("validationToken", token)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, &permanentError{err}
	}
	req.Header.Set("User-Agent", "AgentHub-push")
	resp, err := client.Do(req)
	if err != nil {
		return 0, classify(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, fmt.Errorf("webhook answered %s", resp.Status)
	}
	if strings.TrimSpace(string(body)) != token {
		return resp.StatusCode, errors.New("webhook did not answer with the validationToken")
	}
	return resp.StatusCode, nil
}

// classify marks a refused target permanent; other transport errors are worth retrying.
func classify(err error) error {
	if errors.Is(err, ErrTargetRefused) {
		return &permanentError{err}
	}
	return err
}

// backoff is the delay before retry n (1, 2, ...): RetryBase doubled per retry up to RetryMax, with
// "equal jitter" (half fixed, half random), so receivers coming back are not hit by every hub at once
// and a retry never comes sooner than half the step.
func (o *Outbox) backoff(n int) time.Duration {
	d := o.cfg.RetryMax
	if n-1 < 30 {
		if step := o.cfg.RetryBase << (n - 1); step > 0 && step < d {
			d = step
		}
	}
	return d/2 + mrand.N(d/2+1)
}

// newClient is the HTTP client of deliveries. It checks the address of every connection it makes
// (DNS may have changed since the config was set), follows no redirects (a redirect could lead
// anywhere, and the headers carry the token), and uses no proxy (which would hide the address).
func newClient(timeout time.Duration, local bool) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return fmt.Errorf("%w: dialing %q, not an address", ErrTargetRefused, host)
			}
			return checkAddr(ip, local)
		}}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
