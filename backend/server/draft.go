package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2a01"
	"github.com/agenthub/agenthub/backend/tasks"
)

// The v0.1 draft shapes (the v0.1 draft as its Chinese overview and its push-notifications topic describe it): tasks carry
// a sessionId, parts a "type", artifacts an "index", states are lower-case words. Everything inside
// the hub is a2a-go's v1.0 model; these types exist only at the edge.

// The shapes a task is written in live in backend/a2a01, shared with push notifications.
type (
	draftPart     = a2a01.Part
	draftFile     = a2a01.File
	draftMessage  = a2a01.Message
	draftStatus   = a2a01.Status
	draftArtifact = a2a01.Artifact
	draftTask     = a2a01.Task
)

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

func toDraftState(s a2a.TaskState) string { return a2a01.FromV1State(s) }

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

func toDraftMessage(m *a2a.Message) *draftMessage              { return a2a01.FromV1Message(m) }
func toDraftStatus(s a2a.TaskStatus) draftStatus               { return a2a01.FromV1Status(s) }
func toDraftArtifact(a *a2a.Artifact, index int) draftArtifact { return a2a01.FromV1Artifact(a, index) }
func toDraftTask(t *a2a.Task) *draftTask                       { return a2a01.FromV1Task(t) }

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
