package chats

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

// Directions of an entry.
const (
	Out   = "out"   // the owner sent it
	In    = "in"    // the agent sent it
	Local = "local" // the hub noted it: a call that failed
)

// Conversation is one context with one remote agent.
type Conversation struct {
	ID        string
	AgentID   string
	ContextID string // "" until the agent names it
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	State     a2a.TaskState // of its newest task; "" when none
	Busy      bool          // a call to the agent is in flight
	Preview   Preview       // the newest words exchanged, for the list
}

// Preview is the newest text of a conversation: who wrote it and its first words.
type Preview struct {
	Direction string // Out (the owner) or In (the agent); "" when nothing was said yet
	Text      string
}

// Entry is one recorded exchange: a message out, an event in, or a failed call.
type Entry struct {
	ConversationID string
	Seq            int64
	At             time.Time
	Direction      string
	TaskID         string
	Kind           string    // message | task | status | artifact | error
	Final          bool      // the agent's turn ended here
	Event          a2a.Event // nil for kind error
	Error          *CallError
}

// CallError is why a call to the agent failed, as the owner should read it.
type CallError struct {
	Kind    string `json:"kind"` // auth | network | protocol | remote
	Message string `json:"message"`
	Code    int    `json:"code,omitempty"` // the JSON-RPC error code, when the agent sent one
}

func (e *CallError) Error() string { return e.Message }

const conversationColumns = `c.id, c.agent_id, c.context_id, c.title, c.created_at, c.updated_at,
	COALESCE((SELECT state FROM chat_tasks t WHERE t.conversation_id = c.id ORDER BY t.created_at DESC, t.task_id DESC LIMIT 1), '')`

func scanConversation(row interface{ Scan(...any) error }) (Conversation, error) {
	var c Conversation
	var created, updated int64
	var state string
	if err := row.Scan(&c.ID, &c.AgentID, &c.ContextID, &c.Title, &created, &updated, &state); err != nil {
		return Conversation{}, err
	}
	c.CreatedAt, c.UpdatedAt, c.State = time.Unix(0, created), time.Unix(0, updated), a2a.TaskState(state)
	return c, nil
}

func (s *Service) insertConversation(ctx context.Context, c Conversation) error {
	_, err := s.db.Writer.ExecContext(ctx, `INSERT INTO conversations(id, agent_id, context_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.AgentID, c.ContextID, c.Title, c.CreatedAt.UnixNano(), c.UpdatedAt.UnixNano())
	return err
}

func (s *Service) conversation(ctx context.Context, id string) (Conversation, error) {
	c, err := readConversation(ctx, s.db.Reader, id)
	if err != nil {
		return c, err
	}
	c.Busy = s.isBusy(id)
	c.Preview, err = s.preview(ctx, id)
	return c, err
}

// readConversation is a conversation's row (no preview, not busy).
func readConversation(ctx context.Context, db *sql.DB, id string) (Conversation, error) {
	c, err := scanConversation(db.QueryRowContext(ctx, `SELECT `+conversationColumns+` FROM conversations c WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return c, err
}

// readConversations are the conversations (with agentID's only, when given), newest first (no
// previews, none busy).
func readConversations(ctx context.Context, db *sql.DB, agentID string) ([]Conversation, error) {
	q := `SELECT ` + conversationColumns + ` FROM conversations c`
	var args []any
	if agentID != "" {
		q += ` WHERE c.agent_id = ?`
		args = append(args, agentID)
	}
	rows, err := db.QueryContext(ctx, q+` ORDER BY c.updated_at DESC, c.id DESC`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Conversations lists the conversations stored in db, newest first, without running the chat
// service (agenthub scenario record, while the hub may run): no previews, none marked busy.
func Conversations(ctx context.Context, db *store.DB) ([]Conversation, error) {
	return readConversations(ctx, db.Reader, "")
}

// Transcript is a conversation stored in db and every entry of it, read without running the chat
// service.
func Transcript(ctx context.Context, db *store.DB, id string) (Conversation, []Entry, error) {
	c, err := readConversation(ctx, db.Reader, id)
	if err != nil {
		return c, nil, err
	}
	entries, err := readEntries(ctx, db.Reader, id, 0)
	return c, entries, err
}

func (s *Service) conversations(ctx context.Context, agentID string) ([]Conversation, error) {
	out, err := readConversations(ctx, s.db.Reader, agentID)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Busy = s.isBusy(out[i].ID)
	}
	for i := range out {
		if out[i].Preview, err = s.preview(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// previewScan bounds how far back a preview looks for words (a stream of data or file entries).
const previewScan = 40

// preview is the newest text of a conversation: a message, a status's message, or an artifact's
// text (its streamed chunks joined back together).
func (s *Service) preview(ctx context.Context, id string) (Preview, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT direction, kind, body FROM chat_entries
		WHERE conversation_id = ? AND kind <> 'error' ORDER BY seq DESC LIMIT ?`, id, previewScan)
	if err != nil {
		return Preview{}, err
	}
	defer rows.Close()
	var chunks []string // of the newest artifact, newest first
	var artifact a2a.ArtifactID
	for rows.Next() {
		var dir, kind string
		var body []byte
		if err := rows.Scan(&dir, &kind, &body); err != nil {
			return Preview{}, err
		}
		ev, err := tasks.DecodeEvent(kind, body)
		if err != nil {
			continue
		}
		if a, ok := ev.(*a2a.TaskArtifactUpdateEvent); ok && a.Artifact != nil {
			if artifact != "" && a.Artifact.ID != artifact {
				break
			}
			artifact = a.Artifact.ID
			chunks = append(chunks, textOf(a.Artifact.Parts))
			if !a.Append {
				break
			}
			continue
		}
		if artifact != "" {
			break
		}
		var text string
		switch v := ev.(type) {
		case *a2a.Message:
			text = textOf(v.Parts)
		case *a2a.TaskStatusUpdateEvent:
			if v.Status.Message != nil {
				text = textOf(v.Status.Message.Parts)
			}
		case *a2a.Task:
			if v.Status.Message != nil {
				text = textOf(v.Status.Message.Parts)
			}
		}
		if strings.TrimSpace(text) != "" {
			return Preview{Direction: dir, Text: shortText(text)}, rows.Err()
		}
	}
	if artifact != "" {
		slices.Reverse(chunks)
		return Preview{Direction: In, Text: shortText(strings.Join(chunks, ""))}, rows.Err()
	}
	return Preview{}, rows.Err()
}

func textOf(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if t, ok := p.Content.(a2a.Text); ok {
			b.WriteString(string(t))
		}
	}
	return b.String()
}

// shortText is the first 140 characters of text on one line.
func shortText(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > 140 {
		return string(r[:139]) + "…"
	}
	return text
}

// errEnded means an entry not recorded: the state of a task that had already ended. A cancel is
// answered twice, by the cancel call and by the task's stream (or the next tasks/get); the owner
// reads it once.
var errEnded = errors.New("the task has already ended")

// record appends e to its conversation in one transaction: the entry with the next sequence number,
// the conversation's context (the first one the agent names) and activity time, and the state of the
// task it concerns. It fills in e's Seq and At. The agent's report of a state, for a task recorded
// as ended (completed, canceled, failed, rejected), is not recorded: errEnded.
func (s *Service) record(ctx context.Context, e *Entry) error {
	var body []byte
	var err error
	if e.Kind == "error" {
		body, err = json.Marshal(e.Error)
	} else {
		body, err = json.Marshal(e.Event)
	}
	if err != nil {
		return err
	}
	e.At = s.now()
	now := e.At.UnixNano()
	var contextID string
	if e.Event != nil {
		contextID = e.Event.TaskInfo().ContextID
	}
	state, hasState := stateOf(e.Event)
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		// The agent's reports, and the hub's own (a task it lost contact with), set the task's state.
		if e.TaskID != "" && e.Direction != Out && hasState {
			var was string
			err := tx.QueryRowContext(ctx, `SELECT state FROM chat_tasks WHERE conversation_id = ? AND task_id = ?`, e.ConversationID, e.TaskID).Scan(&was)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if a2a.TaskState(was).Terminal() {
				return errEnded
			}
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM chat_entries WHERE conversation_id = ?`, e.ConversationID).Scan(&e.Seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chat_entries(conversation_id, seq, at, direction, task_id, kind, final, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ConversationID, e.Seq, now, e.Direction, e.TaskID, e.Kind, store.Flag(e.Final), body); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE conversations SET updated_at = ?, context_id = CASE WHEN context_id = '' THEN ? ELSE context_id END WHERE id = ?`,
			now, contextID, e.ConversationID); err != nil {
			return err
		}
		if e.TaskID != "" && e.Direction != Out && hasState {
			_, err := tx.ExecContext(ctx, `INSERT INTO chat_tasks(conversation_id, task_id, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT(conversation_id, task_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
				e.ConversationID, e.TaskID, string(state), now, now)
			return err
		}
		return nil
	})
}

// Entries returns a conversation's entries with seq > after, in order.
func (s *Service) entries(ctx context.Context, id string, after int64) ([]Entry, error) {
	return readEntries(ctx, s.db.Reader, id, after)
}

func readEntries(ctx context.Context, db *sql.DB, id string, after int64) ([]Entry, error) {
	rows, err := db.QueryContext(ctx, `SELECT seq, at, direction, task_id, kind, final, body FROM chat_entries
		WHERE conversation_id = ? AND seq > ? ORDER BY seq`, id, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e := Entry{ConversationID: id}
		var at int64
		var body []byte
		if err := rows.Scan(&e.Seq, &at, &e.Direction, &e.TaskID, &e.Kind, &e.Final, &body); err != nil {
			return nil, err
		}
		e.At = time.Unix(0, at)
		if e.Kind == "error" {
			e.Error = &CallError{}
			err = json.Unmarshal(body, e.Error)
		} else {
			e.Event, err = tasks.DecodeEvent(e.Kind, body)
		}
		if err != nil {
			return nil, fmt.Errorf("conversation %s entry %d: %w", id, e.Seq, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// openTask is a remote task that was not final when last seen.
type openTask struct {
	ConversationID string
	TaskID         a2a.TaskID
	AgentID        string
}

func (s *Service) openTasks(ctx context.Context) ([]openTask, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT t.conversation_id, t.task_id, c.agent_id FROM chat_tasks t
		JOIN conversations c ON c.id = t.conversation_id WHERE t.state IN (?, ?)`,
		string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []openTask
	for rows.Next() {
		var t openTask
		if err := rows.Scan(&t.ConversationID, &t.TaskID, &t.AgentID); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func stateOf(ev a2a.Event) (a2a.TaskState, bool) {
	switch v := ev.(type) {
	case *a2a.Task:
		return v.Status.State, true
	case *a2a.TaskStatusUpdateEvent:
		return v.Status.State, true
	}
	return "", false
}

// MoveAgent points every conversation with agent from at agent to instead: the same agent, now
// registered under another id (the demo agent added by hand before it was pinned).
func (s *Service) MoveAgent(ctx context.Context, from, to string) error {
	_, err := s.db.Writer.ExecContext(ctx, `UPDATE conversations SET agent_id = ? WHERE agent_id = ?`, to, from)
	return err
}
