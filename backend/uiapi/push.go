package uiapi

import (
	"context"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/bus"
)

// pushSummary sums up the delivery of the task's push notifications at agent a; nil when the agent
// has no outbox or the task no notifications.
func (g *Gateway) pushSummary(ctx context.Context, a *LocalAgent, taskID string) (*PushSummary, error) {
	if a.Push == nil {
		return nil, nil
	}
	st, err := a.Push.Status(ctx, a2a.TaskID(taskID))
	if err != nil || len(st) == 0 {
		return nil, err
	}
	sum := &PushSummary{Configs: len(st), GiveUpAfterSeconds: a.Push.GiveUpAfter().Seconds()}
	var last, next time.Time
	for _, s := range st {
		sum.Delivered += s.Delivered
		sum.Pending += s.Pending
		sum.Failed += s.Failed
		sum.Canceled += s.Canceled
		if s.LastError != "" && s.LastFailureAt.After(last) {
			last, sum.LastError, sum.LastStatus = s.LastFailureAt, s.LastError, s.LastStatus
		}
		if s.Pending > 0 && (next.IsZero() || s.NextAttemptAt.Before(next)) {
			next = s.NextAttemptAt
		}
	}
	if !last.IsZero() {
		sum.LastFailureAt = timeString(last)
	}
	if !next.IsZero() {
		sum.NextAttemptAt = timeString(next)
	}
	return sum, nil
}

// pushUpdate is the pushed form of a delivery outcome: the task's summary as it now stands.
func (g *Gateway) pushUpdate(ctx context.Context, e bus.Event) (PushUpdate, bool) {
	a, err := g.agent(e.Source)
	if err != nil {
		return PushUpdate{}, false
	}
	sum, err := g.pushSummary(ctx, a, e.Key)
	if err != nil || sum == nil {
		return PushUpdate{}, false
	}
	return PushUpdate{Agent: a.ID, TaskID: e.Key, Push: *sum}, true
}
