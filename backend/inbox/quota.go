package inbox

import (
	"context"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/auth"
)

// Quota is what one caller may leave with the hub: without it, any key holder (or every program on
// this computer, as anonymous) could fill the disk with messages nobody asked for, cancelling each
// task to send the next. The owner has none. Anonymous callers share one.
type Quota struct {
	Open  int   // tasks still open: a new one past it is refused
	Tasks int   // tasks kept in all, ended ones included
	Bytes int64 // the stored JSON of its tasks: any message past it is refused, a later turn too
}

// DefaultQuota is far beyond what an agent asking a person things needs, and bounds what a hostile
// key can store to about a gigabyte.
var DefaultQuota = Quota{Open: 100, Tasks: 10_000, Bytes: 1 << 30}

// SetQuota changes the quota (tests).
func (in *Inbox) SetQuota(q Quota) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.quota = q
}

// Admit refuses a caller's message, before anything of it is stored, when its tasks already hold its
// quota: UnsupportedOperationError (-32004) saying which, with {quota, limit, used, principal} in
// its ErrorInfo metadata. The hub's own work and the owner are not counted.
func (in *Inbox) Admit(ctx context.Context, msg *a2a.Message) error {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok || p.Kind == auth.KindOwner {
		return nil
	}
	in.mu.Lock()
	q := in.quota
	in.mu.Unlock()
	u, err := in.store.UsageOf(ctx, p.ID)
	if err != nil {
		return err
	}
	newTask := msg.TaskID == ""
	switch {
	case u.Bytes >= q.Bytes:
		return refused(p.ID, "bytes", q.Bytes, u.Bytes, "its tasks hold %d bytes, its quota is %d; wait for the owner to end some", u.Bytes, q.Bytes)
	case newTask && u.Open >= q.Open:
		return refused(p.ID, "open", int64(q.Open), int64(u.Open), "it has %d open tasks here, its quota is %d; wait for answers, or cancel one, before sending a new one", u.Open, q.Open)
	case newTask && u.Tasks >= q.Tasks:
		return refused(p.ID, "tasks", int64(q.Tasks), int64(u.Tasks), "it has %d tasks here, its quota is %d", u.Tasks, q.Tasks)
	}
	return nil
}

func refused(principal, quota string, limit, used int64, format string, args ...any) error {
	return a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf("quota exceeded for %s: ", principal)+fmt.Sprintf(format, args...)).
		WithErrorInfoMeta(map[string]string{"quota": quota, "limit": fmt.Sprint(limit), "used": fmt.Sprint(used), "principal": principal})
}
