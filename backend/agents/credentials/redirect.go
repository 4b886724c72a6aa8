package credentials

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// RedirectError is a redirect to another origin (scheme, host or port), which AgentHub does not
// follow: an agent's card and its credentials belong to the origin the owner added.
type RedirectError struct {
	From, To string // the URL asked for, and where it redirects
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects to another origin, %s; not followed", e.From, e.To)
}

// SameOriginRedirects follows a redirect only within the origin of the first request: every
// request this client sends carries the agent's credentials, and a card fetched through a
// redirect would be another host's card registered under this one.
func SameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	first := via[0].URL
	if !strings.EqualFold(req.URL.Scheme, first.Scheme) || !strings.EqualFold(req.URL.Host, first.Host) {
		return &RedirectError{From: via[len(via)-1].URL.Redacted(), To: req.URL.Redacted()}
	}
	return nil
}
