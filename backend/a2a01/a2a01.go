// Package a2a01 holds the v0.1 draft's wire shapes (as the draft's Chinese overview
// and its push-notifications topic describe them) and their conversion from a2a-go's v1.0 model, for every package
// that writes them: the server's draft dialect and push notifications to v0.1 webhooks. Tasks carry a
// sessionId, parts a "type", artifacts an "index", states are lower-case words.
package a2a01

import (
	"encoding/base64"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

type Part struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text,omitempty"`
	File     *File          `json:"file,omitempty"`
	Data     any            `json:"data,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type File struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
}

type Message struct {
	Role     string         `json:"role"`
	Parts    []Part         `json:"parts"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type Status struct {
	State     string   `json:"state"`
	Message   *Message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

type Artifact struct {
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []Part         `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Index       int            `json:"index"`
	Append      bool           `json:"append,omitempty"`
	LastChunk   bool           `json:"lastChunk,omitempty"`
}

type Task struct {
	ID        string         `json:"id"`
	SessionID string         `json:"sessionId"`
	Status    Status         `json:"status"`
	History   []Message      `json:"history,omitempty"`
	Artifacts []Artifact     `json:"artifacts,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

var states = map[a2a.TaskState]string{
	a2a.TaskStateSubmitted:     "submitted",
	a2a.TaskStateWorking:       "working",
	a2a.TaskStateInputRequired: "input-required",
	a2a.TaskStateCompleted:     "completed",
	a2a.TaskStateCanceled:      "canceled",
	a2a.TaskStateFailed:        "failed",
	// The draft has no rejected or auth-required: the nearest meaning a draft client acts on.
	a2a.TaskStateRejected:     "failed",
	a2a.TaskStateAuthRequired: "input-required",
}

// FromV1State is the draft's name of a state.
func FromV1State(s a2a.TaskState) string {
	if d, ok := states[s]; ok {
		return d
	}
	return "unknown"
}

// FromV1Parts converts parts; a part the draft cannot carry is left out.
func FromV1Parts(parts []*a2a.Part) []Part {
	out := make([]Part, 0, len(parts))
	for _, p := range parts {
		d := Part{Metadata: p.Metadata}
		switch c := p.Content.(type) {
		case a2a.Text:
			s := string(c)
			d.Type, d.Text = "text", &s
		case a2a.Raw:
			d.Type, d.File = "file", &File{Name: p.Filename, MimeType: p.MediaType, Bytes: base64.StdEncoding.EncodeToString(c)}
		case a2a.URL:
			d.Type, d.File = "file", &File{Name: p.Filename, MimeType: p.MediaType, URI: string(c)}
		case a2a.Data:
			d.Type = "data"
			if obj, ok := c.Value.(map[string]any); ok {
				d.Data = obj
			} else {
				d.Data = map[string]any{"value": c.Value} // the draft's data is always an object
			}
		default:
			continue
		}
		out = append(out, d)
	}
	return out
}

// FromV1Message converts a message (nil stays nil).
func FromV1Message(m *a2a.Message) *Message {
	if m == nil {
		return nil
	}
	role := "agent"
	if m.Role == a2a.MessageRoleUser {
		role = "user"
	}
	return &Message{Role: role, Parts: FromV1Parts(m.Parts), Metadata: m.Metadata}
}

// FromV1Status converts a status.
func FromV1Status(s a2a.TaskStatus) Status {
	d := Status{State: FromV1State(s.State), Message: FromV1Message(s.Message)}
	if s.Timestamp != nil {
		d.Timestamp = s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	return d
}

// FromV1Artifact converts an artifact, numbered index among its task's artifacts.
func FromV1Artifact(a *a2a.Artifact, index int) Artifact {
	return Artifact{Name: a.Name, Description: a.Description, Parts: FromV1Parts(a.Parts), Metadata: a.Metadata, Index: index}
}

// FromV1Task converts a task: its context is the draft's session, its artifacts numbered in order.
func FromV1Task(t *a2a.Task) *Task {
	d := &Task{ID: string(t.ID), SessionID: t.ContextID, Status: FromV1Status(t.Status), Metadata: t.Metadata}
	for _, m := range t.History {
		d.History = append(d.History, *FromV1Message(m))
	}
	for i, a := range t.Artifacts {
		d.Artifacts = append(d.Artifacts, FromV1Artifact(a, i))
	}
	return d
}
