// Package a2ui holds what the hub checks of A2UI (a2ui-project/a2ui) messages that a person sends
// back about a surface an agent drew: in a chat (the agent is the server) or in the inbox (the agent
// is the caller). Each message is an A2UI v0.9 action or error, and every surface it names was
// created by that agent in that conversation or task, so nothing about a surface, its data model
// least of all, goes to another agent.
package a2ui

import (
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

const (
	// MediaType marks a data part whose data is a list of A2UI messages; LegacyMediaType is the
	// spelling of older agents.
	MediaType       = "application/a2ui+json"
	LegacyMediaType = "application/json+a2ui"
)

// ErrRefused means A2UI messages or a data model that cannot be sent.
var ErrRefused = errors.New("A2UI")

// IsPart reports a data part of A2UI messages (its media type in mediaType or metadata.mimeType).
func IsPart(p *a2a.Part) bool {
	if p == nil {
		return false
	}
	mt := p.MediaType
	if mt == "" {
		mt, _ = p.Metadata["mimeType"].(string)
	}
	return mt == MediaType || mt == LegacyMediaType
}

// NewPart is a data part of A2UI messages, its media type in both places agents read it.
func NewPart(messages []any) *a2a.Part {
	p := a2a.NewDataPart(messages)
	p.MediaType = MediaType
	p.Metadata = map[string]any{"mimeType": MediaType}
	return p
}

// AddCreated adds to created the ids of the surfaces parts create (createSurface in an A2UI part).
func AddCreated(created map[string]bool, parts a2a.ContentParts) {
	for _, p := range parts {
		d, ok := p.Content.(a2a.Data)
		if !ok || !IsPart(p) {
			continue
		}
		list, _ := d.Value.([]any)
		for _, m := range list {
			obj, _ := m.(map[string]any)
			cs, _ := obj["createSurface"].(map[string]any)
			if id, _ := cs["surfaceId"].(string); id != "" {
				created[id] = true
			}
		}
	}
}

// CheckClient checks messages a person sends about surfaces, and the data model sent along (nil for
// none): v0.9 actions and errors only, about surfaces in created only.
func CheckClient(messages []any, dataModel map[string]any, created map[string]bool) error {
	for i, m := range messages {
		obj, _ := m.(map[string]any)
		if obj == nil || obj["version"] != "v0.9" || len(obj) != 2 {
			return fmt.Errorf("%w: message %d is not an A2UI v0.9 action or error", ErrRefused, i)
		}
		body, _ := obj["action"].(map[string]any)
		if body == nil {
			body, _ = obj["error"].(map[string]any)
		}
		if body == nil {
			return fmt.Errorf("%w: message %d is neither an action nor an error", ErrRefused, i)
		}
		if sid, _ := body["surfaceId"].(string); !created[sid] {
			return fmt.Errorf("%w: message %d is about surface %q, which this agent did not create here", ErrRefused, i, sid)
		}
	}
	if dataModel != nil {
		surfaces, _ := dataModel["surfaces"].(map[string]any)
		if dataModel["version"] != "v0.9" || surfaces == nil || len(dataModel) != 2 {
			return fmt.Errorf("%w: the data model is not an a2uiClientDataModel of v0.9", ErrRefused)
		}
		for sid := range surfaces {
			if !created[sid] {
				// the data model of another agent's surface never goes here
				return fmt.Errorf("%w: the data model of surface %q goes only to the agent that created it", ErrRefused, sid)
			}
		}
	}
	return nil
}
