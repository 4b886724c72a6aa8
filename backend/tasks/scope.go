package tasks

import (
	"context"

	"github.com/agenthub/agenthub/backend/auth"
)

// A task belongs to the principal whose request created it (the tasks.owner column). A protocol
// caller sees only its own tasks: another principal's task is "not found", exactly as an id that
// does not exist, so nobody learns that it exists. The hub itself (a context without a principal:
// the UI gateway acting for the owner, recovery, push delivery) and the owner see every task.
//
// Rows written before principals existed have owner '' and were all created by anonymous loopback
// callers, so they stay visible to anonymous callers.

// ownerOf is the owner column a task created under ctx gets.
func ownerOf(ctx context.Context) string {
	p, _ := auth.PrincipalFrom(ctx)
	return p.ID
}

// scope says which owner a reader under ctx is limited to; all is true for the hub and the owner.
func scope(ctx context.Context) (owner string, all bool) {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok || p.Kind == auth.KindOwner {
		return "", true
	}
	return p.ID, false
}

// visible reports whether a task whose owner column is owner may be seen under ctx.
func visible(ctx context.Context, owner string) bool {
	who, all := scope(ctx)
	return all || owner == who || (owner == "" && who == auth.Anonymous.ID)
}

// scopeFilter is the SQL condition (and its argument) limiting a list to what ctx may see, or "".
func scopeFilter(ctx context.Context) (cond string, args []any) {
	who, all := scope(ctx)
	switch {
	case all:
		return "", nil
	case who == auth.Anonymous.ID:
		return "owner IN (?, '')", []any{who}
	default:
		return "owner = ?", []any{who}
	}
}
