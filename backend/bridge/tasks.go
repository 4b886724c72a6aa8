package bridge

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// ErrNoTask: no task a channel started with that agent.
var ErrNoTask = errors.New("no such channel task")

// Task is a task a channel started with an added agent, as the Tasks list shows it.
type Task struct {
	AgentID   string
	TaskID    string
	ChannelID string
	State     a2a.TaskState
	Title     string // the first line of the message that began it
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TaskQuery selects channel tasks newest first by when the bridge first heard of them.
type TaskQuery = tasks.Listed

const taskColumns = `agent_id, task_id, channel_id, state, title, created_at, updated_at`

// Tasks lists the tasks channels started with added agents.
func (b *Bridge) Tasks(ctx context.Context, q TaskQuery) ([]Task, error) {
	where, args := q.Where("agent_id", "state", "created_at", "task_id")
	rows, err := b.cfg.DB.Reader.QueryContext(ctx, `SELECT `+taskColumns+` FROM bridge_tasks
		WHERE `+where+` ORDER BY created_at DESC, task_id DESC LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Task is one channel task of an agent, or ErrNoTask.
func (b *Bridge) Task(ctx context.Context, agentID, taskID string) (Task, error) {
	t, err := scanTask(b.cfg.DB.Reader.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM bridge_tasks WHERE agent_id = ? AND task_id = ?`, agentID, taskID))
	if errors.Is(err, sql.ErrNoRows) {
		return Task{}, ErrNoTask
	}
	return t, err
}

// TaskChannels maps each of the ids that is a task a channel started with the agent to its channel.
func (b *Bridge) TaskChannels(ctx context.Context, agentID string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{agentID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := b.cfg.DB.Reader.QueryContext(ctx, `SELECT task_id, channel_id FROM bridge_tasks
		WHERE agent_id = ? AND task_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var task, channel string
		if err := rows.Scan(&task, &channel); err != nil {
			return nil, err
		}
		out[task] = channel
	}
	return out, rows.Err()
}

// TaskAgents are the agents channels started tasks with.
func (b *Bridge) TaskAgents(ctx context.Context) ([]string, error) {
	rows, err := b.cfg.DB.Reader.QueryContext(ctx, `SELECT DISTINCT agent_id FROM bridge_tasks ORDER BY agent_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func scanTask(row interface{ Scan(...any) error }) (Task, error) {
	var t Task
	var state string
	var created, updated int64
	if err := row.Scan(&t.AgentID, &t.TaskID, &t.ChannelID, &state, &t.Title, &created, &updated); err != nil {
		return Task{}, err
	}
	t.State, t.CreatedAt, t.UpdatedAt = a2a.TaskState(state), time.Unix(0, created), time.Unix(0, updated)
	return t, nil
}
