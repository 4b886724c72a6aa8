package tasks

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Usage is what one principal's tasks hold on this agent.
type Usage struct {
	Open  int   // tasks not yet in a terminal state
	Tasks int   // every task it created
	Bytes int64 // the stored JSON of those tasks as they are now (history and artifacts included)
}

// UsageOf reads owner's Usage, from the owner index (length() of a blob does not read the blob).
func (s *Store) UsageOf(ctx context.Context, owner string) (Usage, error) {
	var u Usage
	err := s.db.Reader.QueryRowContext(ctx, `SELECT COUNT(*),
		COALESCE(SUM(CASE WHEN state NOT IN (?, ?, ?, ?) THEN 1 ELSE 0 END), 0), COALESCE(SUM(length(task_json)), 0)
		FROM tasks WHERE owner = ?`,
		string(a2a.TaskStateCompleted), string(a2a.TaskStateFailed), string(a2a.TaskStateCanceled), string(a2a.TaskStateRejected),
		owner).Scan(&u.Tasks, &u.Open, &u.Bytes)
	return u, err
}
