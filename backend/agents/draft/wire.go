package draft

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The v0.1 draft's shapes (its Chinese overview) as servers send them, read tolerantly: the
// AgentVault profile (AgentVault A2A Protocol Profile v0.2) puts text in a part's "content", writes states
// in upper case, calls the agent "assistant", gives a task a top-level "state" and "messages", and
// has artifacts {id, type, content, url, mediaType}. Unknown fields are ignored. Everything is
// translated to a2a-go v2 types here, at the edge.

type wireFile struct {
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Bytes    string `json:"bytes,omitempty"`
	URI      string `json:"uri,omitempty"`
}

type wirePart struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Content   json.RawMessage `json:"content"`
	File      *wireFile       `json:"file"`
	Data      json.RawMessage `json:"data"`
	URL       string          `json:"url"`
	MediaType string          `json:"mediaType"`
	MimeType  string          `json:"mimeType"`
	Filename  string          `json:"filename"`
	Metadata  map[string]any  `json:"metadata"`
}

type wireMessage struct {
	Role      string          `json:"role"`
	Parts     []wirePart      `json:"parts"`
	Data      json.RawMessage `json:"data"` // the overview's example names the parts "data"
	MessageID string          `json:"messageId"`
	Metadata  map[string]any  `json:"metadata"`
}

type wireStatus struct {
	State     string          `json:"state"`
	Message   json.RawMessage `json:"message"`
	Timestamp json.RawMessage `json:"timestamp"`
}

type wireArtifact struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parts       []wirePart     `json:"parts"`
	Metadata    map[string]any `json:"metadata"`
	Index       *int           `json:"index"`
	Append      bool           `json:"append"`
	LastChunk   bool           `json:"lastChunk"`
	// AgentVault's artifact, and the artifactId of later drafts.
	ID         string          `json:"id"`
	ArtifactID string          `json:"artifactId"`
	Type       string          `json:"type"`
	Content    json.RawMessage `json:"content"`
	URL        string          `json:"url"`
	MediaType  string          `json:"mediaType"`
}

type wireTask struct {
	ID        string          `json:"id"`
	SessionID string          `json:"sessionId"`
	ContextID string          `json:"contextId"`
	Status    json.RawMessage `json:"status"`
	State     string          `json:"state"`
	History   []wireMessage   `json:"history"`
	Messages  []wireMessage   `json:"messages"`
	Artifacts []wireArtifact  `json:"artifacts"`
	Metadata  map[string]any  `json:"metadata"`
}

// idOnly reports a tasks/send result that names the task and nothing else (AgentVault's
// TaskSendResult): the task itself has to be fetched.
func (t *wireTask) idOnly() bool {
	return t.ID != "" && t.Status == nil && t.State == "" && t.History == nil && t.Messages == nil && t.Artifacts == nil
}

func (t *wireTask) toA2A(session string) (*a2a.Task, error) {
	if t.ID == "" {
		return nil, fmt.Errorf("%w: task without an id", a2a.ErrInvalidAgentResponse)
	}
	task := &a2a.Task{ID: a2a.TaskID(t.ID), ContextID: firstOf(t.SessionID, t.ContextID, session), Metadata: t.Metadata}
	var err error
	if task.Status, err = statusFrom(t.Status, t.State, nil, nil, task); err != nil {
		return nil, err
	}
	history := t.History
	if history == nil {
		history = t.Messages
	}
	for i := range history {
		m, err := history[i].toA2A(task)
		if err != nil {
			return nil, fmt.Errorf("task history[%d]: %w", i, err)
		}
		if history[i].MessageID == "" {
			// AgentVault's messages have no ids: name them by place, so the same message read
			// again (each tasks/get) is recognised as the same.
			m.ID = fmt.Sprintf("%s/messages/%d", t.ID, i)
		}
		task.History = append(task.History, m)
	}
	// AgentVault asks its question as the task's last message, with INPUT_REQUIRED and no status
	// message: the question is the status's message, as in the other dialects.
	if n := len(task.History); n > 0 && task.Status.Message == nil && waitsForClient(task.Status.State) && task.History[n-1].Role == a2a.MessageRoleAgent {
		task.Status.Message = task.History[n-1]
	}
	for i := range t.Artifacts {
		a, err := t.Artifacts[i].toA2A(i)
		if err != nil {
			return nil, fmt.Errorf("task artifacts[%d]: %w", i, err)
		}
		task.Artifacts = append(task.Artifacts, a)
	}
	return task, nil
}

// statusFrom reads a status given as an object ({state, message, timestamp}), as a bare state
// string, or (AgentVault events) as top-level state/message/timestamp fields.
func statusFrom(status json.RawMessage, state string, message, timestamp json.RawMessage, info a2a.TaskInfoProvider) (a2a.TaskStatus, error) {
	if raw := bytes.TrimSpace(status); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			state = s
		} else {
			var ws wireStatus
			if err := json.Unmarshal(raw, &ws); err != nil {
				return a2a.TaskStatus{}, fmt.Errorf("%w: status: %v", a2a.ErrInvalidAgentResponse, err)
			}
			state, message, timestamp = firstOf(ws.State, state), firstRaw(ws.Message, message), firstRaw(ws.Timestamp, timestamp)
		}
	}
	st := a2a.TaskStatus{State: parseState(state), Timestamp: parseTime(timestamp)}
	var err error
	st.Message, err = messageFrom(message, info)
	return st, err
}

// waitsForClient reports a state in which the agent waits for the client (a question is asked).
func waitsForClient(s a2a.TaskState) bool {
	return s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired
}

// parseState maps "working", "WORKING", "input_required", "TASK_STATE_INPUT_REQUIRED"... to a2a-go's
// states; a state it does not know (the draft's "unknown" included) is unspecified, not an error.
func parseState(s string) a2a.TaskState {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(strings.TrimPrefix(s, "task_state_"), "_", "-")
	switch s {
	case "submitted":
		return a2a.TaskStateSubmitted
	case "working":
		return a2a.TaskStateWorking
	case "input-required":
		return a2a.TaskStateInputRequired
	case "auth-required":
		return a2a.TaskStateAuthRequired
	case "completed":
		return a2a.TaskStateCompleted
	case "canceled", "cancelled":
		return a2a.TaskStateCanceled
	case "failed":
		return a2a.TaskStateFailed
	case "rejected":
		return a2a.TaskStateRejected
	}
	return a2a.TaskStateUnspecified
}

func parseTime(raw json.RawMessage) *time.Time {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}

// messageFrom reads a message object, or a bare string (AgentVault's status message), as a message
// of the task info names.
func messageFrom(raw json.RawMessage, info a2a.TaskInfoProvider) (*a2a.Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return a2a.NewMessageForTask(a2a.MessageRoleAgent, info, a2a.NewTextPart(text)), nil
	}
	var wm wireMessage
	if err := json.Unmarshal(raw, &wm); err != nil {
		return nil, fmt.Errorf("%w: message: %v", a2a.ErrInvalidAgentResponse, err)
	}
	return wm.toA2A(info)
}

func (m *wireMessage) toA2A(info a2a.TaskInfoProvider) (*a2a.Message, error) {
	parts := m.Parts
	if parts == nil && m.Data != nil {
		_ = json.Unmarshal(m.Data, &parts) // not a list of parts: no parts
	}
	role := a2a.MessageRoleAgent // "agent", AgentVault's "assistant", anything not the user
	if strings.EqualFold(m.Role, "user") {
		role = a2a.MessageRoleUser
	}
	msg := a2a.NewMessageForTask(role, info)
	if m.MessageID != "" {
		msg.ID = m.MessageID
	}
	msg.Metadata = m.Metadata
	msg.Parts = a2a.ContentParts{}
	for i := range parts {
		p, err := parts[i].toA2A()
		if err != nil {
			return nil, fmt.Errorf("%w: parts[%d]: %v", a2a.ErrInvalidAgentResponse, i, err)
		}
		if p != nil {
			msg.Parts = append(msg.Parts, p)
		}
	}
	return msg, nil
}

// toA2A converts a part; a part of a type it does not know is skipped (nil, nil).
func (p *wirePart) toA2A() (*a2a.Part, error) {
	var contentText *string
	var s string
	if json.Unmarshal(p.Content, &s) == nil {
		contentText = &s
	}
	typ := strings.ToLower(p.Type)
	if typ == "" { // untyped: go by the fields present
		switch {
		case p.Text != nil || contentText != nil:
			typ = "text"
		case p.File != nil || p.URL != "":
			typ = "file"
		case p.Data != nil || p.Content != nil:
			typ = "data"
		}
	}
	var part *a2a.Part
	switch typ {
	case "text":
		text := ""
		if p.Text != nil {
			text = *p.Text
		} else if contentText != nil {
			text = *contentText
		}
		part = a2a.NewTextPart(text)
	case "file":
		var err error
		if part, err = p.filePart(); err != nil {
			return nil, err
		}
	case "data":
		var v any = map[string]any{}
		if raw := firstRaw(p.Data, p.Content); raw != nil {
			if err := json.Unmarshal(raw, &v); err != nil {
				return nil, fmt.Errorf("data part: %v", err)
			}
		}
		part = a2a.NewDataPart(v)
	default:
		return nil, nil
	}
	part.Metadata = p.Metadata
	if part.MediaType == "" {
		part.MediaType = firstOf(p.MediaType, p.MimeType)
	}
	return part, nil
}

func (p *wirePart) filePart() (*a2a.Part, error) {
	f := p.File
	if f == nil { // AgentVault: {type: "file", url, mediaType, filename}
		f = &wireFile{URI: p.URL, Name: p.Filename, MimeType: firstOf(p.MediaType, p.MimeType)}
	}
	var part *a2a.Part
	switch {
	case f.Bytes != "":
		b, err := decodeBase64(f.Bytes)
		if err != nil {
			return nil, fmt.Errorf("file.bytes is not base64: %v", err)
		}
		part = a2a.NewRawPart(b)
	case f.URI != "":
		part = &a2a.Part{Content: a2a.URL(f.URI)}
	default:
		return nil, fmt.Errorf("file part has neither bytes nor a uri")
	}
	part.Filename, part.MediaType = f.Name, f.MimeType
	return part, nil
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return nil, err
}

// toA2A converts an artifact. The draft names artifacts by index, so the index (or the position in
// a task's list) makes a stable id; appended chunks of one artifact keep one id.
func (a *wireArtifact) toA2A(pos int) (*a2a.Artifact, error) {
	index := pos
	if a.Index != nil {
		index = *a.Index
	}
	art := &a2a.Artifact{
		ID:          a2a.ArtifactID(firstOf(a.ArtifactID, a.ID, fmt.Sprintf("artifact-%d", index))),
		Name:        firstOf(a.Name, a.Type),
		Description: a.Description,
		Metadata:    a.Metadata,
		Parts:       a2a.ContentParts{},
	}
	for i := range a.Parts {
		p, err := a.Parts[i].toA2A()
		if err != nil {
			return nil, fmt.Errorf("%w: artifact parts[%d]: %v", a2a.ErrInvalidAgentResponse, i, err)
		}
		if p != nil {
			art.Parts = append(art.Parts, p)
		}
	}
	if a.Parts == nil { // AgentVault: the content itself, or a link to it
		var text string
		switch {
		case json.Unmarshal(a.Content, &text) == nil:
			art.Parts = append(art.Parts, &a2a.Part{Content: a2a.Text(text), MediaType: a.MediaType})
		case len(bytes.TrimSpace(a.Content)) > 0 && !bytes.Equal(bytes.TrimSpace(a.Content), []byte("null")):
			var v any
			if err := json.Unmarshal(a.Content, &v); err != nil {
				return nil, fmt.Errorf("%w: artifact content: %v", a2a.ErrInvalidAgentResponse, err)
			}
			art.Parts = append(art.Parts, &a2a.Part{Content: a2a.Data{Value: v}, MediaType: a.MediaType})
		}
		if a.URL != "" {
			art.Parts = append(art.Parts, &a2a.Part{Content: a2a.URL(a.URL), MediaType: a.MediaType})
		}
	}
	return art, nil
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstRaw(values ...json.RawMessage) json.RawMessage {
	for _, v := range values {
		if v := bytes.TrimSpace(v); len(v) > 0 && !bytes.Equal(v, []byte("null")) {
			return v
		}
	}
	return nil
}
