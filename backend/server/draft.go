package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/tasks"
)

// The v0.1 draft shapes (specs/a2a-core-overview-zh.md, specs/a2a-push-notifications.md): tasks carry
// a sessionId, parts a "type", artifacts an "index", states are lower-case words. Everything inside
// the hub is a2a-go's v1.0 model; these types exist only at the edge.

type draftPart struct {
	Type     string         `json:"type"`
	Text     *string        `json:"text,omitempty"`
	File     *draftFile     `json:"file,omitempty"`
	Data     any            `json:"data,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type draftFile struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
}

type draftMessage struct {
	Role     string         `json:"role"`
	Parts    []draftPart    `json:"parts"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type draftStatus struct {
	State     string        `json:"state"`
	Message   *draftMessage `json:"message,omitempty"`
	Timestamp string        `json:"timestamp,omitempty"`
}

type draftArtifact struct {
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []draftPart    `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Index       int            `json:"index"`
	Append      bool           `json:"append,omitempty"`
	LastChunk   bool           `json:"lastChunk,omitempty"`
}

type draftTask struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionId"`
	Status    draftStatus     `json:"status"`
	History   []draftMessage  `json:"history,omitempty"`
	Artifacts []draftArtifact `json:"artifacts,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

type draftStatusEvent struct {
	ID       string         `json:"id"`
	Status   draftStatus    `json:"status"`
	Final    bool           `json:"final"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type draftArtifactEvent struct {
	ID       string         `json:"id"`
	Artifact draftArtifact  `json:"artifact"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type draftPushConfig struct {
	URL            string               `json:"url"`
	Token          string               `json:"token,omitempty"`
	Authentication *draftAuthentication `json:"authentication,omitempty"`
}

type draftAuthentication struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

type draftTaskPushConfig struct {
	ID                     string          `json:"id"`
	PushNotificationConfig draftPushConfig `json:"pushNotificationConfig"`
}

var draftStates = map[a2a.TaskState]string{
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

func toDraftState(s a2a.TaskState) string {
	if d, ok := draftStates[s]; ok {
		return d
	}
	return "unknown"
}

// fromDraftMessage converts and validates a draft message. The Chinese overview's example names the
// parts "data"; that spelling is accepted too.
func fromDraftMessage(raw json.RawMessage) (*a2a.Message, error) {
	var m struct {
		draftMessage
		Data []draftPart `json:"data"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("message: %v", err)
	}
	if m.Parts == nil {
		m.Parts = m.Data
	}
	var role a2a.MessageRole
	switch m.Role {
	case "user":
		role = a2a.MessageRoleUser
	case "agent":
		role = a2a.MessageRoleAgent
	default:
		return nil, fmt.Errorf(`message.role must be "user" or "agent", got %q`, m.Role)
	}
	if len(m.Parts) == 0 {
		return nil, fmt.Errorf("message.parts must hold at least one part")
	}
	parts := make([]*a2a.Part, 0, len(m.Parts))
	for i, p := range m.Parts {
		part, err := fromDraftPart(p)
		if err != nil {
			return nil, fmt.Errorf("message.parts[%d]: %v", i, err)
		}
		parts = append(parts, part)
	}
	msg := a2a.NewMessage(role, parts...)
	msg.Metadata = m.Metadata
	// The draft creates the task before a2a-go sees the message: refuse here what could not be stored.
	if err := tasks.CheckMessage(msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func fromDraftPart(p draftPart) (*a2a.Part, error) {
	var part *a2a.Part
	switch p.Type {
	case "text":
		if p.Text == nil {
			return nil, fmt.Errorf("a text part needs text")
		}
		part = a2a.NewTextPart(*p.Text)
	case "file":
		f := p.File
		if f == nil || (f.Bytes == "") == (f.URI == "") {
			return nil, fmt.Errorf("a file part needs exactly one of file.bytes and file.uri")
		}
		if f.URI != "" {
			part = &a2a.Part{Content: a2a.URL(f.URI)}
		} else {
			b, err := base64.StdEncoding.DecodeString(f.Bytes)
			if err != nil {
				return nil, fmt.Errorf("file.bytes is not base64: %v", err)
			}
			part = &a2a.Part{Content: a2a.Raw(b)}
		}
		part.Filename, part.MediaType = f.Name, f.MimeType
	case "data":
		obj, ok := p.Data.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("a data part needs an object in data")
		}
		part = a2a.NewDataPart(obj)
	default:
		return nil, fmt.Errorf(`part type must be "text", "file" or "data", got %q`, p.Type)
	}
	part.Metadata = p.Metadata
	return part, nil
}

func toDraftParts(parts []*a2a.Part) []draftPart {
	out := make([]draftPart, 0, len(parts))
	for _, p := range parts {
		d := draftPart{Metadata: p.Metadata}
		switch c := p.Content.(type) {
		case a2a.Text:
			s := string(c)
			d.Type, d.Text = "text", &s
		case a2a.Raw:
			d.Type, d.File = "file", &draftFile{Name: p.Filename, MimeType: p.MediaType, Bytes: base64.StdEncoding.EncodeToString(c)}
		case a2a.URL:
			d.Type, d.File = "file", &draftFile{Name: p.Filename, MimeType: p.MediaType, URI: string(c)}
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

func toDraftMessage(m *a2a.Message) *draftMessage {
	if m == nil {
		return nil
	}
	role := "agent"
	if m.Role == a2a.MessageRoleUser {
		role = "user"
	}
	return &draftMessage{Role: role, Parts: toDraftParts(m.Parts), Metadata: m.Metadata}
}

func toDraftStatus(s a2a.TaskStatus) draftStatus {
	d := draftStatus{State: toDraftState(s.State), Message: toDraftMessage(s.Message)}
	if s.Timestamp != nil {
		d.Timestamp = s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	return d
}

func toDraftArtifact(a *a2a.Artifact, index int) draftArtifact {
	return draftArtifact{Name: a.Name, Description: a.Description, Parts: toDraftParts(a.Parts), Metadata: a.Metadata, Index: index}
}

func toDraftTask(t *a2a.Task) *draftTask {
	d := &draftTask{ID: string(t.ID), SessionID: t.ContextID, Status: toDraftStatus(t.Status), Metadata: t.Metadata}
	for _, m := range t.History {
		d.History = append(d.History, *toDraftMessage(m))
	}
	for i, a := range t.Artifacts {
		d.Artifacts = append(d.Artifacts, toDraftArtifact(a, i))
	}
	return d
}

// artifactIndexes numbers a task's artifacts in order of first appearance, as the draft's
// Artifact.index expects.
type artifactIndexes map[a2a.ArtifactID]int

func (ai artifactIndexes) of(id a2a.ArtifactID) int {
	if i, ok := ai[id]; ok {
		return i
	}
	ai[id] = len(ai)
	return ai[id]
}

// toDraftEvent converts a stream event; the draft stream has only status and artifact events, so a
// task snapshot becomes its status.
func toDraftEvent(ev a2a.Event, idx artifactIndexes) any {
	switch v := ev.(type) {
	case *a2a.Task:
		for _, a := range v.Artifacts {
			idx.of(a.ID)
		}
		return &draftStatusEvent{ID: string(v.ID), Status: toDraftStatus(v.Status), Final: tasks.IsFinalState(v.Status.State), Metadata: v.Metadata}
	case *a2a.TaskStatusUpdateEvent:
		return &draftStatusEvent{ID: string(v.TaskID), Status: toDraftStatus(v.Status), Final: tasks.IsFinalState(v.Status.State), Metadata: v.Metadata}
	case *a2a.TaskArtifactUpdateEvent:
		a := toDraftArtifact(v.Artifact, idx.of(v.Artifact.ID))
		a.Append, a.LastChunk = v.Append, v.LastChunk
		return &draftArtifactEvent{ID: string(v.TaskID), Artifact: a, Metadata: v.Metadata}
	case *a2a.Message:
		// An agent that answers with a bare message: the draft has no such event, so it is a final status.
		return &draftStatusEvent{ID: string(v.TaskID), Status: draftStatus{State: "completed", Message: toDraftMessage(v)}, Final: true}
	}
	return nil
}

func fromDraftPushConfig(c *draftPushConfig) *a2a.PushConfig {
	pc := &a2a.PushConfig{ID: draftPushConfigID, URL: c.URL, Token: c.Token}
	if c.Authentication != nil {
		pc.Auth = &a2a.PushAuthInfo{Scheme: strings.Join(c.Authentication.Schemes, ","), Credentials: c.Authentication.Credentials}
	}
	return pc
}

func toDraftPushConfig(pc *a2a.PushConfig) draftPushConfig {
	c := draftPushConfig{URL: pc.URL, Token: pc.Token}
	if pc.Auth != nil {
		c.Authentication = &draftAuthentication{Schemes: strings.Split(pc.Auth.Scheme, ","), Credentials: pc.Auth.Credentials}
	}
	return c
}

// draftPushConfigID is the id of the one push config a draft task has (the draft knows no config ids).
const draftPushConfigID = "v0.1"
