package tasks

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// Row is a stored task with the columns lists show beside it.
type Row struct {
	Task      *a2a.Task
	Version   taskstore.TaskVersion
	Dialect   Dialect
	CreatedAt time.Time
	UpdatedAt time.Time
	// Owner is the principal whose request created the task ("agent://NAME", "anonymous",
	// "user://owner"), or "" for a task stored before principals existed.
	Owner string
	// Unreadable, when set, says why the stored task JSON could not be read. Task then holds only
	// what the row's columns know (id, context id, state), so a list can still show the row.
	Unreadable string
}

// Position is a place in a list of tasks: rows sort by (time, ID), newest first. The time is the
// creation time for Page and the update time for List.
type Position struct {
	CreatedAt int64 // unix nanoseconds
	ID        string
}

// Token is the position as an opaque string for a client to hand back.
func (p Position) Token() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.CreatedAt, 10) + ":" + p.ID))
}

// ParsePosition reads a Token; anything else is a2a.ErrInvalidParams.
func ParsePosition(tok string) (Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		if at, id, ok := strings.Cut(string(raw), ":"); ok {
			if n, err := strconv.ParseInt(at, 10, 64); err == nil {
				return Position{CreatedAt: n, ID: id}, nil
			}
		}
	}
	return Position{}, fmt.Errorf("not a position this hub gave out: %w", a2a.ErrInvalidParams)
}

// Newer reports whether p comes before q in the list, newest first.
func (p Position) Newer(q Position) bool {
	return p.CreatedAt > q.CreatedAt || (p.CreatedAt == q.CreatedAt && p.ID > q.ID)
}

// PositionOf is r's place in creation order.
func PositionOf(r Row) Position {
	return Position{CreatedAt: r.CreatedAt.UnixNano(), ID: string(r.Task.ID)}
}

// PageQuery selects tasks newest first by creation.
type PageQuery struct {
	States []a2a.TaskState // any of these; none means every state
	After  *Position       // only rows older than this position
	Limit  int
}

// Page returns up to q.Limit tasks, newest first by creation. A task whose JSON does not decode is
// in the page as a Row marked Unreadable.
func (s *Store) Page(ctx context.Context, q PageQuery) ([]Row, error) {
	if q.Limit < 1 {
		return nil, fmt.Errorf("limit must be positive, got %d: %w", q.Limit, a2a.ErrInvalidParams)
	}
	var where []string
	var args []any
	if len(q.States) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?,", len(q.States)), ",")
		where = append(where, "state IN ("+marks+")")
		for _, st := range q.States {
			args = append(args, string(st))
		}
	}
	if q.After != nil {
		where = append(where, "(created_at < ? OR (created_at = ? AND id < ?))")
		args = append(args, q.After.CreatedAt, q.After.CreatedAt, q.After.ID)
	}
	filter := ""
	if len(where) > 0 {
		filter = " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT `+rowColumns+` FROM tasks`+filter+
		` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, q.Limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		if r.Unreadable != "" {
			s.log.Warn("a stored task is unreadable; listed as such", "source", s.source, "task", r.Task.ID, "error", r.Unreadable)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

const rowColumns = `id, context_id, state, task_json, version, dialect, created_at, updated_at, owner`

// scanRow reads one row; a task JSON that does not decode gives a Row marked Unreadable, not an
// error, so one bad row cannot take a whole list down with it.
func scanRow(row interface{ Scan(...any) error }) (Row, error) {
	var body []byte
	var r Row
	var id, contextID, state string
	var created, updated int64
	if err := row.Scan(&id, &contextID, &state, &body, &r.Version, &r.Dialect, &created, &updated, &r.Owner); err != nil {
		return Row{}, err
	}
	r.CreatedAt, r.UpdatedAt = time.Unix(0, created), time.Unix(0, updated)
	r.Task = &a2a.Task{}
	if err := json.Unmarshal(body, r.Task); err != nil {
		r.Task = &a2a.Task{ID: a2a.TaskID(id), ContextID: contextID, Status: a2a.TaskStatus{State: a2a.TaskState(state)}}
		r.Unreadable = err.Error()
	}
	return r, nil
}

// Row returns one task with its list columns (marked Unreadable if its JSON does not decode), or
// a2a.ErrTaskNotFound.
func (s *Store) Row(ctx context.Context, id a2a.TaskID) (Row, error) {
	r, err := scanRow(s.db.Reader.QueryRowContext(ctx, `SELECT `+rowColumns+` FROM tasks WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, a2a.ErrTaskNotFound
	}
	return r, err
}

// Title is the first text the sender wrote, on one line and shortened: how lists name a task.
func Title(t *a2a.Task) string {
	for _, m := range t.History {
		if m == nil || m.Role != a2a.MessageRoleUser {
			continue
		}
		for _, p := range m.Parts {
			if text, ok := p.Content.(a2a.Text); ok && strings.TrimSpace(string(text)) != "" {
				return shorten(strings.Join(strings.Fields(string(text)), " "), 120)
			}
		}
	}
	return "(no text)"
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Listed is what a list of tasks recorded beside the task stores (the ones the owner sent from
// chats, the ones channels sent agents) is asked for: newest first by when the hub first heard of
// them, like PageQuery.
type Listed struct {
	AgentID string          // "" for every agent
	Skip    []string        // agents left out (those whose tasks are listed from their own store)
	States  []a2a.TaskState // any of these; none means every state
	After   *Position       // only tasks older than this
	Limit   int
}

// Where is l's conditions as SQL over the named columns (created holds unix nanoseconds), with
// their arguments; ORDER BY created DESC, id DESC and LIMIT l.Limit go with it.
func (l Listed) Where(agent, state, created, id string) (string, []any) {
	where := []string{"1 = 1"}
	var args []any
	if l.AgentID != "" {
		where, args = append(where, agent+" = ?"), append(args, l.AgentID)
	}
	for _, skip := range l.Skip {
		where, args = append(where, agent+" <> ?"), append(args, skip)
	}
	if len(l.States) > 0 {
		where = append(where, state+" IN (?"+strings.Repeat(", ?", len(l.States)-1)+")")
		for _, st := range l.States {
			args = append(args, string(st))
		}
	}
	if l.After != nil {
		where = append(where, "("+created+" < ? OR ("+created+" = ? AND "+id+" < ?))")
		args = append(args, l.After.CreatedAt, l.After.CreatedAt, l.After.ID)
	}
	return strings.Join(where, " AND "), args
}
