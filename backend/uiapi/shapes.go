package uiapi

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/filename"
	"github.com/agenthub/agenthub/backend/tasks"
)

// The plain shapes the UI renders (see the package documentation). They carry no protocol logic:
// whatever dialect a task came in, the UI sees these.

type TaskSummary struct {
	Agent           string `json:"agent"`
	ID              string `json:"id"`
	ContextID       string `json:"contextId"`
	State           string `json:"state"`
	Dialect         string `json:"dialect"`
	Direction       string `json:"direction"`
	Title           string `json:"title"`
	CreatedAt       string `json:"createdAt"`
	UpdatedAt       string `json:"updatedAt"`
	WaitingForOwner bool   `json:"waitingForOwner"`
	// ConversationID is the chat the owner sent the task from ("" when it did not come from a chat).
	ConversationID string `json:"conversationId,omitempty"`
	// ChannelID and ChannelName: the channel that started the task (direction "channel").
	ChannelID   string `json:"channelId,omitempty"`
	ChannelName string `json:"channelName,omitempty"`
	// Unreadable, when set, says why the stored task could not be read; the other fields are what
	// the row's columns still tell.
	Unreadable string `json:"unreadable,omitempty"`
}

type TaskDetail struct {
	Summary   TaskSummary     `json:"summary"`
	History   []Message       `json:"history"`
	Artifacts []Artifact      `json:"artifacts"`
	Status    Status          `json:"status"`
	Events    []TimelineEvent `json:"events"`
	Raw       json.RawMessage `json:"raw"`
	// Push is how the task's push notifications are being delivered; absent when it has none.
	Push *PushSummary `json:"push,omitempty"`
}

// PushSummary is the delivery of a task's push notifications, over all its push configs.
type PushSummary struct {
	Configs   int `json:"configs"`
	Delivered int `json:"delivered"`
	Pending   int `json:"pending"`
	Failed    int `json:"failed"`
	Canceled  int `json:"canceled"`
	// Of the most recent failed attempt: why, its HTTP status (0: no answer) and when.
	LastError     string `json:"lastError,omitempty"`
	LastStatus    int    `json:"lastStatus,omitempty"`
	LastFailureAt string `json:"lastFailureAt,omitempty"`
	// NextAttemptAt is when a pending notification is next tried.
	NextAttemptAt string `json:"nextAttemptAt,omitempty"`
	// GiveUpAfterSeconds is how long a notification is retried before it fails.
	GiveUpAfterSeconds float64 `json:"giveUpAfterSeconds"`
}

// PushUpdate is the pushed form of a delivery outcome.
type PushUpdate struct {
	Agent  string      `json:"agent"`
	TaskID string      `json:"taskId"`
	Push   PushSummary `json:"push"`
}

type TimelineEvent struct {
	Seq      int64           `json:"seq"`
	At       string          `json:"at"`
	Kind     string          `json:"kind"`
	Final    bool            `json:"final"`
	State    string          `json:"state,omitempty"`
	Status   *Status         `json:"status,omitempty"`
	Message  *Message        `json:"message,omitempty"`
	Artifact *Artifact       `json:"artifact,omitempty"`
	Raw      json.RawMessage `json:"raw"`
	// Unreadable, when set, says why the stored event could not be read.
	Unreadable string `json:"unreadable,omitempty"`
}

type TaskUpdate struct {
	Agent   string        `json:"agent"`
	TaskID  string        `json:"taskId"`
	Summary TaskSummary   `json:"summary"`
	Event   TimelineEvent `json:"event"`
}

type InboxItem struct {
	TaskSummary
	Unread      bool     `json:"unread"`
	Sender      string   `json:"sender"` // who sent it, as the owner reads it
	LastMessage *Message `json:"lastMessage,omitempty"`
}

type Status struct {
	State   string   `json:"state"`
	Message *Message `json:"message,omitempty"`
	At      string   `json:"at,omitempty"`
}

type Message struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

type Artifact struct {
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Parts       []Part `json:"parts"`
	Append      bool   `json:"append,omitempty"`
	LastChunk   bool   `json:"lastChunk,omitempty"`
}

type Part struct {
	Kind      string `json:"kind"` // text | file | data
	Text      string `json:"text,omitempty"`
	Name      string `json:"name,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	Bytes     []byte `json:"bytes,omitempty"` // base64 in JSON
	URL       string `json:"url,omitempty"`
	Size      int    `json:"size,omitempty"`
	Data      any    `json:"data,omitempty"`
}

// stateName turns TASK_STATE_INPUT_REQUIRED into input-required.
func stateName(s a2a.TaskState) string { return tasks.StateName(s) }

// stateOf is the inverse of stateName, for filters.
func stateOf(name string) (a2a.TaskState, bool) {
	s := a2a.TaskState("TASK_STATE_" + strings.ReplaceAll(strings.ToUpper(name), "-", "_"))
	switch s {
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
		a2a.TaskStateCompleted, a2a.TaskStateCanceled, a2a.TaskStateFailed, a2a.TaskStateRejected:
		return s, true
	}
	return "", false
}

func timeString(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func messageOf(m *a2a.Message) *Message {
	if m == nil {
		return nil
	}
	role := "agent"
	if m.Role == a2a.MessageRoleUser {
		role = "user"
	}
	return &Message{ID: m.ID, Role: role, Parts: partsOf(m.Parts)}
}

func partsOf(ps a2a.ContentParts) []Part {
	out := make([]Part, 0, len(ps))
	for _, p := range ps {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			out = append(out, Part{Kind: "text", Text: string(c)})
		case a2a.Raw:
			out = append(out, Part{Kind: "file", Name: filename.Clean(p.Filename), MediaType: p.MediaType, Bytes: c, Size: len(c)})
		case a2a.URL:
			out = append(out, Part{Kind: "file", Name: filename.Clean(p.Filename), MediaType: p.MediaType, URL: string(c)})
		case a2a.Data:
			// the media type says what the data is (application/a2ui+json: A2UI messages the UI
			// renders); agents of the A2UI extension's text, and v0.3 ones, put it in metadata.mimeType
			mt := p.MediaType
			if mt == "" {
				mt, _ = p.Metadata["mimeType"].(string)
			}
			out = append(out, Part{Kind: "data", MediaType: mt, Data: c.Value})
		}
	}
	return out
}

func artifactOf(a *a2a.Artifact) *Artifact {
	if a == nil {
		return nil
	}
	return &Artifact{ID: string(a.ID), Name: filename.Clean(a.Name), Description: a.Description, Parts: partsOf(a.Parts)}
}

func statusOf(s a2a.TaskStatus) Status {
	st := Status{State: stateName(s.State), Message: messageOf(s.Message)}
	if s.Timestamp != nil {
		st.At = timeString(*s.Timestamp)
	}
	return st
}

func timelineOf(l *tasks.Logged) TimelineEvent {
	raw, _ := json.Marshal(l.Event)
	ev := TimelineEvent{Seq: l.Seq, At: timeString(l.At), Kind: l.Kind, Final: l.Final, Raw: raw, Unreadable: l.Unreadable}
	switch e := l.Event.(type) {
	case *a2a.Task:
		st := statusOf(e.Status)
		ev.State, ev.Status = st.State, &st
	case *a2a.TaskStatusUpdateEvent:
		st := statusOf(e.Status)
		ev.State, ev.Status = st.State, &st
	case *a2a.TaskArtifactUpdateEvent:
		ev.Artifact = artifactOf(e.Artifact)
		if ev.Artifact != nil {
			ev.Artifact.Append, ev.Artifact.LastChunk = e.Append, e.LastChunk
		}
	case *a2a.Message:
		ev.Message = messageOf(e)
	}
	return ev
}

func timeline(log []*tasks.Logged) []TimelineEvent {
	out := make([]TimelineEvent, 0, len(log))
	for _, l := range log {
		out = append(out, timelineOf(l))
	}
	return out
}
