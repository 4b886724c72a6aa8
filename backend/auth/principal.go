// Package auth says who is calling the hub. Every request resolves to a Principal: the owner (the
// person at the desktop), an agent holding an API key (agent://NAME), or an anonymous loopback caller.
// It keeps the principals and their hashed keys in hub.db, issues and verifies the hub's own ES256
// access tokens (OAuth2 client credentials, RFC 6749 §4.4), publishes their public keys as a JWKS, and
// resolves an HTTP request's credentials. It decides identity only: what a principal may do is the
// caller's business.
package auth

import (
	"context"
	"errors"
	"strings"
)

// Kind is what sort of caller a principal is.
type Kind string

const (
	KindOwner     Kind = "owner"     // the person at the UI; the UI gateway's token makes you the owner
	KindAgent     Kind = "agent"     // a holder of an API key (or of a token minted from one)
	KindAnonymous Kind = "anonymous" // a loopback caller without credentials
	// KindRemote is an agent the owner added (any A2A dialect), as a member of a channel: the hub's
	// channel bridge speaks for it. No credential resolves to it: it is never a caller of the hub.
	KindRemote Kind = "remote"
)

// Principal is who a request acts for.
type Principal struct {
	ID   string // "user://owner", "agent://NAME", "remote://AGENT-ID" or "anonymous"
	Kind Kind
	Name string // the agent's NAME; "owner" for the owner; "" for anonymous
}

const (
	agentScheme  = "agent://"
	remoteScheme = "remote://"
)

var (
	// Owner is the person at the desktop.
	Owner = Principal{ID: "user://owner", Kind: KindOwner, Name: "owner"}
	// Anonymous is a caller that presented no credentials.
	Anonymous = Principal{ID: "anonymous", Kind: KindAnonymous}
)

// Agent is the principal agent://name.
func Agent(name string) Principal {
	return Principal{ID: agentScheme + name, Kind: KindAgent, Name: name}
}

// Remote is the principal remote://agentID of an added agent (agentID as the agents registry has it).
func Remote(agentID string) Principal {
	return Principal{ID: remoteScheme + agentID, Kind: KindRemote, Name: agentID}
}

// validAgentID checks the id part of remote://ID: the registry's ids are UUIDs or short names ("demo").
func validAgentID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ParseID is the principal with the given ID, or false if the ID names none.
func ParseID(id string) (Principal, bool) {
	switch id {
	case Owner.ID:
		return Owner, true
	case Anonymous.ID:
		return Anonymous, true
	}
	if name, ok := strings.CutPrefix(id, agentScheme); ok && ValidName(name) == nil {
		return Agent(name), true
	}
	if agentID, ok := strings.CutPrefix(id, remoteScheme); ok && validAgentID(agentID) {
		return Remote(agentID), true
	}
	return Principal{}, false
}

func (p Principal) String() string { return p.ID }

type principalKey struct{}

// WithPrincipal marks ctx as a request acting for p. The HTTP layer sets it once per request, after
// resolving the request's credentials; everything below reads it with PrincipalFrom.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom is the principal ctx acts for. Without one (work the hub does on its own: recovery,
// the owner's actions from the UI, background delivery) it is the owner, and ok is false.
func PrincipalFrom(ctx context.Context) (p Principal, ok bool) {
	p, ok = ctx.Value(principalKey{}).(Principal)
	if !ok {
		return Owner, false
	}
	return p, true
}

// MaxNameLen bounds a principal's name.
const MaxNameLen = 64

// ErrBadName means a name is not a valid principal name.
var ErrBadName = errors.New("a principal name is 1 to 64 characters: lower-case letters, digits, '.', '_' and '-', starting with a letter or digit")

// ValidName checks a principal name. Names go into URIs (agent://NAME) and are the OAuth2 client_id,
// so they keep to characters that need no escaping, and to one case, so "Bot" and "bot" cannot be two
// principals that look alike.
func ValidName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return ErrBadName
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '.' || c == '_' || c == '-') && i > 0:
		default:
			return ErrBadName
		}
	}
	return nil
}

// ErrUnauthenticated is what every failed authentication is (errors.Is); the HTTP layer answers it
// with 401 and JSON-RPC -32030.
var ErrUnauthenticated = errors.New("unauthenticated")

// AuthError is a failed authentication with a reason fit to show the caller: it never contains the
// credential or anything secret.
type AuthError struct{ Reason string }

func (e *AuthError) Error() string { return "unauthenticated: " + e.Reason }
func (e *AuthError) Unwrap() error { return ErrUnauthenticated }

func unauthenticated(reason string) error { return &AuthError{Reason: reason} }
