// Package chats is the owner's conversations with remote agents: one per A2A context. A message the
// owner sends is recorded, then delivered on a goroutine that records every event the agent sends
// back (streamed; for agents that don't stream, pushed to the hub's webhook when the card says the
// agent pushes, else polled with tasks/get) and publishes each on the
// bus. Everything is in hub.db, so after a restart every conversation and task timeline is there, and
// tasks that were still running are watched again.
package chats

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/filename"
	"github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of conversation changes: Key is the conversation id; Data is the recorded
// *Entry, or nil when only the conversation changed (a call ended, it was renamed or deleted).
const Topic = "chat"

var (
	// ErrNotFound means there is no conversation with that id.
	ErrNotFound = errors.New("no such conversation")
	// ErrEmpty means a message with no text, file or data.
	ErrEmpty = errors.New("a message needs text, a file or data")
	// ErrTooLarge means the attachments exceed MaxAttachmentBytes.
	ErrTooLarge = errors.New("attachments are too large")
	// ErrEmptyFile means an attached file has no bytes: A2A carries a file inline as a non-empty
	// "raw" (a2a-go stores an empty one as null and can no longer read the task back), so it is
	// refused before anything is recorded or sent.
	ErrEmptyFile = errors.New("an attached file is empty (0 bytes) and cannot be sent over A2A")
)

// MaxAttachmentBytes bounds the files of one message (the UI's own cap is 8 MiB per file).
const MaxAttachmentBytes = 8 << 20

// Remote is what a conversation needs of a connection to an agent; agents.Conn is one.
type Remote interface {
	Streaming() bool
	Send(ctx context.Context, msg *a2a.Message, stream bool) iter.Seq2[a2a.Event, error]
	GetTask(ctx context.Context, id a2a.TaskID) (*a2a.Task, error)
	Cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error)
}

// Dialer opens the connection to a registered agent (no network I/O); an agent that is not
// registered is an error wrapping the registry's not-found error.
type Dialer func(ctx context.Context, agentID string) (Remote, error)

// Config configures Open.
type Config struct {
	DB     *store.DB
	Bus    *bus.Bus
	Dial   Dialer
	Logger *slog.Logger
	// ClassifyError turns a failed call's error into what the owner reads (nil: a generic one).
	ClassifyError func(error) *CallError
	// PollEvery is the first interval between tasks/get calls for agents that don't stream (default
	// 1 s); it doubles up to 5 s while nothing changes.
	PollEvery time.Duration
	// Push, when set, is the hub's webhook: a task of an agent whose card says it sends push
	// notifications is watched through them instead of by polling (see push.go).
	Push *push.Receiver
	// PushFallback is how long a pushed task may go without news before one tasks/get (default 30 s).
	PushFallback time.Duration
}

// Service keeps the conversations and runs the calls.
type Service struct {
	db       *store.DB
	bus      *bus.Bus
	dial     Dialer
	log      *slog.Logger
	classify func(error) *CallError
	poll     time.Duration
	now      func() time.Time

	pushIn       *push.Receiver
	pushFallback time.Duration

	ctx    context.Context // ends when the service closes; calls run under it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	busy map[string]int // conversation id → calls in flight
}

// Open migrates the chat tables and returns the service. Call Resume once the agents can be dialed.
func Open(ctx context.Context, cfg Config) (*Service, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := cfg.DB.Migrate(ctx, "chats", sub); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ClassifyError == nil {
		cfg.ClassifyError = func(err error) *CallError { return &CallError{Kind: "protocol", Message: err.Error()} }
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = time.Second
	}
	if cfg.PushFallback <= 0 {
		cfg.PushFallback = DefaultPushFallback
	}
	life, cancel := context.WithCancel(context.Background())
	return &Service{db: cfg.DB, bus: cfg.Bus, dial: cfg.Dial, log: cfg.Logger, classify: cfg.ClassifyError, poll: cfg.PollEvery,
		pushIn: cfg.Push, pushFallback: cfg.PushFallback, now: time.Now, ctx: life, cancel: cancel, busy: map[string]int{}}, nil
}

// Close stops the calls in flight and waits for them. What they recorded stays; tasks still running
// at the agent are watched again by the next Resume.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
}

// Resume watches again, with tasks/get, every task that was still running when the hub last stopped.
func (s *Service) Resume(ctx context.Context) error {
	open, err := s.openTasks(ctx)
	if err != nil {
		return err
	}
	for _, t := range open {
		remote, err := s.dial(ctx, t.AgentID)
		if err != nil {
			s.log.Warn("cannot resume a conversation's task", "conversation", t.ConversationID, "task", t.TaskID, "err", err)
			continue
		}
		s.goCall(t.ConversationID, func(ctx context.Context) { s.watch(ctx, t.ConversationID, remote, t.TaskID, nil) })
	}
	return nil
}

// Start opens a new conversation with a registered agent. Nothing is sent until the first message.
func (s *Service) Start(ctx context.Context, agentID string) (Conversation, error) {
	if _, err := s.dial(ctx, agentID); err != nil {
		return Conversation{}, err
	}
	now := s.now()
	c := Conversation{ID: uuid.NewString(), AgentID: agentID, Title: "New conversation", CreatedAt: now, UpdatedAt: now}
	if err := s.insertConversation(ctx, c); err != nil {
		return Conversation{}, err
	}
	s.publish(c.ID, nil)
	return c, nil
}

// List returns the conversations, of one agent or ("" ) all, most recently active first.
func (s *Service) List(ctx context.Context, agentID string) ([]Conversation, error) {
	return s.conversations(ctx, agentID)
}

// Get returns a conversation and everything recorded in it.
func (s *Service) Get(ctx context.Context, id string) (Conversation, []Entry, error) {
	c, err := s.conversation(ctx, id)
	if err != nil {
		return Conversation{}, nil, err
	}
	entries, err := s.entries(ctx, id, 0)
	return c, entries, err
}

// Conversation returns one conversation.
func (s *Service) Conversation(ctx context.Context, id string) (Conversation, error) {
	return s.conversation(ctx, id)
}

// Rename sets a conversation's title.
func (s *Service) Rename(ctx context.Context, id, title string) (Conversation, error) {
	title = strings.TrimSpace(title)
	if title == "" || utf8.RuneCountInString(title) > 200 {
		return Conversation{}, fmt.Errorf("a title is 1 to 200 characters")
	}
	res, err := s.db.Writer.ExecContext(ctx, `UPDATE conversations SET title = ? WHERE id = ?`, title, id)
	if err != nil {
		return Conversation{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Conversation{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	s.publish(id, nil)
	return s.conversation(ctx, id)
}

// Delete forgets a conversation here; the agent's side is not touched.
func (s *Service) Delete(ctx context.Context, id string) error {
	res, err := s.db.Writer.ExecContext(ctx, `DELETE FROM conversations WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	s.publish(id, nil)
	return nil
}

// File is an attachment the owner sends.
type File struct {
	Name      string
	MediaType string
	Bytes     []byte
}

// Outgoing is a message the owner sends.
type Outgoing struct {
	Text  string
	Files []File
	Data  any        // a data part, when not nil
	Task  a2a.TaskID // answer this task (input-required) rather than start a new one
	// A2UI, when not empty, is a list of A2UI client messages (an action, an error) sent as one data
	// part of media type application/a2ui+json (A2UIMediaType).
	A2UI []any
	// A2UIDataModel, when not nil, goes in the message's metadata as a2uiClientDataModel: the data
	// models of the surfaces of this conversation's agent that asked for them (sendDataModel).
	A2UIDataModel map[string]any
}

// A2UIMediaType marks a data part whose data is a list of A2UI messages.
const A2UIMediaType = a2ui.MediaType

// Send records the owner's message and delivers it on its own goroutine; what the agent answers is
// recorded and published as it arrives. The returned entry is the message as recorded.
func (s *Service) Send(ctx context.Context, id string, out Outgoing) (Entry, error) {
	msg, err := MessageOf(out)
	if err != nil {
		return Entry{}, err
	}
	c, err := s.conversation(ctx, id)
	if err != nil {
		return Entry{}, err
	}
	if err := s.checkA2UI(ctx, id, out); err != nil {
		return Entry{}, err
	}
	remote, err := s.dial(ctx, c.AgentID)
	if err != nil {
		return Entry{}, err
	}
	msg.ContextID = c.ContextID
	e := Entry{ConversationID: id, Direction: Out, TaskID: string(out.Task), Kind: "message", Event: msg}
	if err := s.record(ctx, &e); err != nil {
		return Entry{}, err
	}
	if c.Title == "New conversation" && out.Text != "" {
		s.db.Writer.ExecContext(ctx, `UPDATE conversations SET title = ? WHERE id = ?`, titleFrom(out.Text), id)
	}
	s.publish(id, &e)
	s.goCall(id, func(ctx context.Context) { s.deliver(ctx, id, remote, msg) })
	return e, nil
}

// MessageOf is the A2A message the owner's out becomes (no context yet: Send sets the conversation's).
func MessageOf(out Outgoing) (*a2a.Message, error) {
	var parts []*a2a.Part
	if strings.TrimSpace(out.Text) != "" {
		parts = append(parts, a2a.NewTextPart(out.Text))
	}
	total := 0
	for _, f := range out.Files {
		if len(f.Bytes) == 0 {
			return nil, fmt.Errorf("%w: %q", ErrEmptyFile, f.Name)
		}
		total += len(f.Bytes)
		p := a2a.NewRawPart(f.Bytes)
		p.Filename, p.MediaType = filename.Clean(f.Name), f.MediaType
		if p.MediaType == "" {
			p.MediaType = "application/octet-stream"
		}
		parts = append(parts, p)
	}
	if total > MaxAttachmentBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, total, MaxAttachmentBytes)
	}
	if out.Data != nil {
		parts = append(parts, a2a.NewDataPart(out.Data))
	}
	if len(out.A2UI) > 0 {
		// the media type in the part's field (A2A v1.0) and in metadata.mimeType, where the A2UI
		// extension's text (and v0.3 agents) look for it
		parts = append(parts, a2ui.Parts(out.A2UI)...)
	}
	if len(parts) == 0 {
		return nil, ErrEmpty
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	msg.TaskID = out.Task
	if out.A2UIDataModel != nil {
		msg.Metadata = map[string]any{"a2uiClientDataModel": out.A2UIDataModel}
	}
	return msg, nil
}

// titleFrom is a conversation's title from its first message: the first line, at most 60 characters.
func titleFrom(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if utf8.RuneCountInString(line) > 60 {
		line = string([]rune(line)[:59]) + "…"
	}
	return line
}

// Cancel asks the agent to cancel a task of the conversation and records the answer.
func (s *Service) Cancel(ctx context.Context, id string, taskID a2a.TaskID) error {
	c, err := s.conversation(ctx, id)
	if err != nil {
		return err
	}
	remote, err := s.dial(ctx, c.AgentID)
	if err != nil {
		return err
	}
	task, err := remote.Cancel(ctx, taskID)
	if err != nil {
		s.fail(ctx, id, taskID, err)
		return s.classify(err)
	}
	s.recordIn(ctx, id, &a2a.TaskStatusUpdateEvent{TaskID: task.ID, ContextID: task.ContextID, Status: task.Status})
	return nil
}

func (s *Service) goCall(id string, call func(context.Context)) {
	s.mu.Lock()
	s.busy[id]++
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			if s.busy[id]--; s.busy[id] <= 0 {
				delete(s.busy, id)
			}
			s.mu.Unlock()
			s.publish(id, nil)
		}()
		call(s.ctx)
	}()
}

func (s *Service) isBusy(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy[id] > 0
}

func (s *Service) publish(id string, e *Entry) {
	if s.bus == nil {
		return
	}
	ev := bus.Event{Topic: Topic, Key: id}
	if e != nil {
		ev.Seq, ev.Data = e.Seq, e
	}
	s.bus.Publish(ev)
}
