package chats

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// SentTask is a task the owner started from a conversation: what the Tasks list shows of it.
type SentTask struct {
	ConversationID string
	AgentID        string
	TaskID         string
	State          a2a.TaskState
	Title          string // the owner's words that started it; the conversation's title if none
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// TaskQuery selects sent tasks newest first by when the hub first heard of them.
type TaskQuery = tasks.Listed

const sentColumns = `t.conversation_id, c.agent_id, t.task_id, t.state, t.created_at, t.updated_at, c.title,
	COALESCE((SELECT o.body FROM chat_entries o WHERE o.conversation_id = t.conversation_id AND o.direction = 'out'
		AND o.seq < (SELECT MIN(e.seq) FROM chat_entries e WHERE e.conversation_id = t.conversation_id AND e.task_id = t.task_id)
		ORDER BY o.seq DESC LIMIT 1), '')`

// Tasks lists the tasks the owner started from conversations.
func (s *Service) Tasks(ctx context.Context, q TaskQuery) ([]SentTask, error) {
	where, args := q.Where("c.agent_id", "t.state", "t.created_at", "t.task_id")
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT `+sentColumns+` FROM chat_tasks t JOIN conversations c ON c.id = t.conversation_id
		WHERE `+where+` ORDER BY t.created_at DESC, t.task_id DESC LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SentTask
	for rows.Next() {
		t, err := scanSent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Task is one sent task of an agent, or ErrNotFound.
func (s *Service) Task(ctx context.Context, agentID, taskID string) (SentTask, error) {
	t, err := scanSent(s.db.Reader.QueryRowContext(ctx, `SELECT `+sentColumns+` FROM chat_tasks t JOIN conversations c ON c.id = t.conversation_id
		WHERE c.agent_id = ? AND t.task_id = ? ORDER BY t.created_at DESC LIMIT 1`, agentID, taskID))
	if errors.Is(err, sql.ErrNoRows) {
		return SentTask{}, ErrNotFound
	}
	return t, err
}

// TaskEntries is what the conversation recorded of one of its tasks, in order: the message that
// started it (or answered it) and every event the agent sent for it.
func (s *Service) TaskEntries(ctx context.Context, conversationID, taskID string) ([]Entry, error) {
	all, err := s.entries(ctx, conversationID, 0)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for i, e := range all {
		if e.TaskID == taskID {
			out = append(out, e)
		} else if e.Direction == Out && e.TaskID == "" && i+1 < len(all) && all[i+1].TaskID == taskID {
			out = append(out, e) // the message that started it (sent before its id was known)
		}
	}
	return out, nil
}

// Conversations maps each of the ids that is a task the owner started with the agent to its
// conversation.
func (s *Service) TaskConversations(ctx context.Context, agentID string, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{agentID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT t.task_id, t.conversation_id FROM chat_tasks t JOIN conversations c ON c.id = t.conversation_id
		WHERE c.agent_id = ? AND t.task_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var task, conv string
		if err := rows.Scan(&task, &conv); err != nil {
			return nil, err
		}
		out[task] = conv
	}
	return out, rows.Err()
}

func scanSent(row interface{ Scan(...any) error }) (SentTask, error) {
	var t SentTask
	var state string
	var created, updated int64
	var started []byte
	if err := row.Scan(&t.ConversationID, &t.AgentID, &t.TaskID, &state, &created, &updated, &t.Title, &started); err != nil {
		return SentTask{}, err
	}
	t.State, t.CreatedAt, t.UpdatedAt = a2a.TaskState(state), time.Unix(0, created), time.Unix(0, updated)
	if len(started) > 0 {
		if ev, err := tasks.DecodeEvent("message", started); err == nil {
			if m, ok := ev.(*a2a.Message); ok {
				if title := tasks.Title(&a2a.Task{History: []*a2a.Message{m}}); title != "(no text)" {
					t.Title = title
				}
			}
		}
	}
	return t, nil
}

// TaskAgents lists the agents the owner has sent tasks to from conversations.
func (s *Service) TaskAgents(ctx context.Context) ([]string, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT DISTINCT c.agent_id FROM chat_tasks t JOIN conversations c ON c.id = t.conversation_id ORDER BY c.agent_id`)
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
