package auth

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrRevoked is why a stream's context ended when the credential it was opened with stopped working:
// the key was rotated or the principal removed. New requests with that credential are refused at
// once (the principals table is read under auth_epoch on every request); a stream authenticated only
// when it opened, so it needs telling. It is an ErrUnauthenticated: the stream ends with -32030.
var ErrRevoked = unauthenticated("the credential this stream was opened with was revoked: its key was rotated or its principal removed")

// credential is what a request authenticated with (ResolveContext): an agent's name and the key
// generation of its API key or token. Rotate and Remove both move the generation.
type credential struct {
	revocations *revocations
	name        string
	generation  int64
}

type credentialKey struct{}

// UntilRevoked is ctx, ended with cause ErrRevoked once the credential the request was resolved
// from (ResolveContext) is revoked; stop releases the watch and must be called when the stream
// ends. A request without a revocable credential (the owner, anonymous, the hub's own work) gets
// ctx with a plain cancel.
func UntilRevoked(ctx context.Context) (context.Context, context.CancelFunc) {
	c, ok := ctx.Value(credentialKey{}).(credential)
	if !ok || c.revocations == nil {
		return context.WithCancel(ctx)
	}
	return c.revocations.hold(ctx, c)
}

// revocationPoll is how often, while any stream holds a credential, the watcher reads auth_epoch to
// catch changes this process's Principals did not make (another process or replica on the same
// database). Changes made here end streams at once, before Rotate or Remove returns.
var revocationPoll = time.Second

// revocations are the credentials open streams hold, so that revoking one ends them.
type revocations struct {
	ps *Principals

	mu      sync.Mutex
	holds   map[*hold]struct{}
	polling bool // a poll goroutine runs; it stops when no stream holds a credential
}

type hold struct {
	name       string
	generation int64
	cancel     context.CancelCauseFunc
}

func newRevocations(ps *Principals) *revocations {
	return &revocations{ps: ps, holds: map[*hold]struct{}{}}
}

func (rv *revocations) hold(ctx context.Context, c credential) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	h := &hold{name: c.name, generation: c.generation, cancel: cancel}
	rv.mu.Lock()
	rv.holds[h] = struct{}{}
	if !rv.polling {
		rv.polling = true
		go rv.poll()
	}
	rv.mu.Unlock()
	// A revocation committed after the request was authenticated but before the hold was filed
	// swept without it: look once more, now that any later sweep will find it.
	if !rv.valid(h) {
		cancel(ErrRevoked)
	}
	return ctx, func() {
		rv.mu.Lock()
		delete(rv.holds, h)
		rv.mu.Unlock()
		cancel(context.Canceled)
	}
}

// valid says whether h's credential still works. A failed read is not taken for a revocation: the
// next sweep looks again.
func (rv *revocations) valid(h *hold) bool {
	gen, err := rv.ps.generation(context.Background(), h.name)
	if errors.Is(err, ErrNotFound) {
		return false
	}
	return err != nil || gen == h.generation
}

// sweep ends the streams whose credentials no longer work: those of name, or all if name is "".
func (rv *revocations) sweep(name string) {
	rv.mu.Lock()
	var held []*hold
	for h := range rv.holds {
		if name == "" || h.name == name {
			held = append(held, h)
		}
	}
	rv.mu.Unlock()
	for _, h := range held {
		if !rv.valid(h) {
			h.cancel(ErrRevoked)
		}
	}
}

// poll sweeps every stream whenever auth_epoch has moved, for as long as any stream holds a
// credential. Its first look always sweeps: a change may have come before it read the counter.
func (rv *revocations) poll() {
	var seen int64 = -1
	tick := time.NewTicker(revocationPoll)
	defer tick.Stop()
	for range tick.C {
		rv.mu.Lock()
		if len(rv.holds) == 0 {
			rv.polling = false
			rv.mu.Unlock()
			return
		}
		rv.mu.Unlock()
		epoch, err := rv.ps.cache.current(context.Background())
		if err != nil || epoch == seen {
			continue
		}
		seen = epoch
		rv.sweep("")
	}
}
