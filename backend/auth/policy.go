package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// AnonymousPolicy is what a caller without credentials (a loopback caller, see Resolve) may do. The
// owner chooses it in Settings → Access; the hub's router enforces it.
type AnonymousPolicy string

const (
	// AnonymousOff refuses anonymous callers: every A2A call needs an API key or a token. (The agent
	// card stays public, so a caller can learn how to authenticate.)
	AnonymousOff AnonymousPolicy = "off"
	// AnonymousReadPublic lets anonymous callers read what is public, but not send to the hub.
	AnonymousReadPublic AnonymousPolicy = "read-public"
	// AnonymousSend lets anonymous callers send messages to the hub and read the tasks they started.
	// The default, so local tools keep working without a key until the owner says otherwise.
	AnonymousSend AnonymousPolicy = "send"
)

// DefaultAnonymousPolicy is the policy of a hub whose owner never chose one.
const DefaultAnonymousPolicy = AnonymousSend

// ErrBadPolicy means a value is not one of the anonymous policies.
var ErrBadPolicy = errors.New(`the anonymous policy is "off", "read-public" or "send"`)

// Valid reports whether p is one of the policies.
func (p AnonymousPolicy) Valid() bool {
	switch p {
	case AnonymousOff, AnonymousReadPublic, AnonymousSend:
		return true
	}
	return false
}

const anonymousSetting = "anonymous"

// loadPolicy reads the stored anonymous policy. A value this binary does not know (a newer binary
// wrote it) reads as AnonymousOff: refusing is the safe reading of a policy one cannot understand.
func loadPolicy(ctx context.Context, db *sql.DB) (AnonymousPolicy, error) {
	var v string
	err := db.QueryRowContext(ctx, `SELECT value FROM auth_settings WHERE name = ?`, anonymousSetting).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return DefaultAnonymousPolicy, nil
	}
	if err != nil {
		return "", err
	}
	if p := AnonymousPolicy(v); p.Valid() {
		return p, nil
	}
	return AnonymousOff, nil
}

// AnonymousPolicy is what anonymous callers may do now. It is read from memory (the hub is the only
// writer while it runs), so the router may ask on every request.
func (s *Service) AnonymousPolicy() AnonymousPolicy {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.anonymous
}

// SetAnonymousPolicy stores p, which takes effect for the next request.
func (s *Service) SetAnonymousPolicy(ctx context.Context, p AnonymousPolicy) error {
	if !p.Valid() {
		return fmt.Errorf("%w, not %q", ErrBadPolicy, string(p))
	}
	s.policyMu.Lock() // one writer at a time, so memory ends as the last write to the table
	defer s.policyMu.Unlock()
	if err := storePolicy(ctx, s.cfg.DB.Writer, p); err != nil {
		return err
	}
	s.mu.Lock()
	s.anonymous = p
	s.mu.Unlock()
	s.Principals.changed("")
	return nil
}

func storePolicy(ctx context.Context, db *sql.DB, p AnonymousPolicy) error {
	if !p.Valid() {
		return fmt.Errorf("%w, not %q", ErrBadPolicy, string(p))
	}
	_, err := db.ExecContext(ctx, `INSERT INTO auth_settings (name, value) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, anonymousSetting, string(p))
	if err != nil {
		return fmt.Errorf("set anonymous policy: %w", err)
	}
	return nil
}

// AnonymousPolicy is the stored policy, for tools that work on a stopped hub's database (the CLI).
func (ps *Principals) AnonymousPolicy(ctx context.Context) (AnonymousPolicy, error) {
	return loadPolicy(ctx, ps.db.Reader)
}

// LoadAnonymousPolicy is the policy stored in db. It only reads, so a tool may call it on a database
// that a running hub owns (store.OpenReadOnly).
func LoadAnonymousPolicy(ctx context.Context, db *sql.DB) (AnonymousPolicy, error) {
	return loadPolicy(ctx, db)
}

// SetAnonymousPolicy stores p in a stopped hub's database; the hub reads it when it starts.
func (ps *Principals) SetAnonymousPolicy(ctx context.Context, p AnonymousPolicy) error {
	return storePolicy(ctx, ps.db.Writer, p)
}
