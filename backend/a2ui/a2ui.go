// Package a2ui holds what the hub checks of A2UI (a2ui-project/a2ui) messages that a person sends
// back about a surface an agent drew: in a chat (the agent is the server) or in the inbox (the agent
// is the caller). Each message is an A2UI action or error of the version of the surface it names
// (v0.9: {"version":"v0.9","action"|"error":…}; v0.8: {"userAction"|"error":…}), and every surface
// it names was created by that agent in that conversation or task, so nothing about a surface, its
// data model least of all, goes to another agent.
//
// The two versions travel differently: a v0.9 data part carries a list of messages, a v0.8 data part
// carries one message (the v0.8 extension text). Both are read either way.
package a2ui

import (
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

const (
	// MediaType marks a data part of A2UI messages; LegacyMediaType is the spelling of older agents.
	MediaType       = "application/a2ui+json"
	LegacyMediaType = "application/json+a2ui"

	// V09 and V08 are the protocol versions a surface may speak.
	V09 = "v0.9"
	V08 = "v0.8"
)

// ErrRefused means A2UI messages or a data model that cannot be sent.
var ErrRefused = errors.New("A2UI")

// v08Kinds are the operation keys of v0.8 messages (which carry no version field).
var v08Kinds = []string{"beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface", "userAction", "error"}

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

// NewPart is a data part of A2UI messages (a list, as v0.9 sends them), its media type in both
// places agents read it.
func NewPart(messages []any) *a2a.Part {
	return newPart(messages)
}

func newPart(data any) *a2a.Part {
	p := a2a.NewDataPart(data)
	p.MediaType = MediaType
	p.Metadata = map[string]any{"mimeType": MediaType}
	return p
}

// Parts are the data parts that carry messages: the v0.9 ones (and any others) as one list, each
// v0.8 message as a part of its own whose data is the message, as the v0.8 extension says.
func Parts(messages []any) a2a.ContentParts {
	var out a2a.ContentParts
	var list []any
	for _, m := range messages {
		if obj, _ := m.(map[string]any); obj != nil && VersionOf(obj) == V08 {
			out = append(out, newPart(obj))
			continue
		}
		list = append(list, m)
	}
	if len(list) > 0 {
		out = append(a2a.ContentParts{NewPart(list)}, out...)
	}
	return out
}

// Messages are the A2UI messages of a part: its data's list, or its data when that is one message.
func Messages(p *a2a.Part) []map[string]any {
	d, ok := p.Content.(a2a.Data)
	if !ok || !IsPart(p) {
		return nil
	}
	var out []map[string]any
	switch v := d.Value.(type) {
	case []any:
		for _, m := range v {
			if obj, ok := m.(map[string]any); ok {
				out = append(out, obj)
			}
		}
	case map[string]any:
		out = append(out, v)
	}
	return out
}

// VersionOf is a message's protocol version: V09 for a "version":"v0.9" message, V08 for one without
// a version field whose key is a v0.8 operation, "" for anything else.
func VersionOf(m map[string]any) string {
	if v, ok := m["version"]; ok {
		if v == V09 {
			return V09
		}
		return ""
	}
	for _, k := range v08Kinds {
		if _, ok := m[k]; ok {
			return V08
		}
	}
	return ""
}

// Created are the surfaces an agent created, by id, with the version each speaks.
type Created map[string]string

// AddCreated adds to created the surfaces parts create: a v0.9 createSurface, or the first v0.8
// beginRendering, surfaceUpdate or dataModelUpdate of a surface (v0.8 has no create message).
func AddCreated(created Created, parts a2a.ContentParts) {
	for _, p := range parts {
		for _, m := range Messages(p) {
			switch VersionOf(m) {
			case V09:
				cs, _ := m["createSurface"].(map[string]any)
				if id, _ := cs["surfaceId"].(string); id != "" {
					created[id] = V09
				}
			case V08:
				for _, k := range []string{"beginRendering", "surfaceUpdate", "dataModelUpdate"} {
					body, _ := m[k].(map[string]any)
					if id, _ := body["surfaceId"].(string); id != "" {
						if _, ok := created[id]; !ok {
							created[id] = V08
						}
					}
				}
			}
		}
	}
}

// CheckClient checks messages a person sends about surfaces, and the data model sent along (nil for
// none): actions and errors only (v0.9 action/error, v0.8 userAction/error), each about a surface in
// created and of that surface's version; the data model (v0.9 only) of such surfaces only.
func CheckClient(messages []any, dataModel map[string]any, created Created) error {
	for i, m := range messages {
		obj, _ := m.(map[string]any)
		version := VersionOf(obj)
		var body map[string]any
		switch {
		case version == V09 && len(obj) == 2:
			body, _ = obj["action"].(map[string]any)
			if body == nil {
				body, _ = obj["error"].(map[string]any)
			}
		case version == V08 && len(obj) == 1:
			body, _ = obj["userAction"].(map[string]any)
			if body == nil {
				body, _ = obj["error"].(map[string]any)
			}
		default:
			return fmt.Errorf("%w: message %d is not an A2UI v0.9 action or error, nor a v0.8 userAction or error", ErrRefused, i)
		}
		if body == nil {
			return fmt.Errorf("%w: message %d is neither an action nor an error", ErrRefused, i)
		}
		sid, _ := body["surfaceId"].(string)
		have, ok := created[sid]
		if !ok {
			return fmt.Errorf("%w: message %d is about surface %q, which this agent did not create here", ErrRefused, i, sid)
		}
		if have != version {
			return fmt.Errorf("%w: message %d is A2UI %s about surface %q, which speaks %s", ErrRefused, i, version, sid, have)
		}
	}
	if dataModel != nil {
		surfaces, _ := dataModel["surfaces"].(map[string]any)
		if dataModel["version"] != V09 || surfaces == nil || len(dataModel) != 2 {
			return fmt.Errorf("%w: the data model is not an a2uiClientDataModel of v0.9", ErrRefused)
		}
		for sid := range surfaces {
			if created[sid] != V09 {
				// the data model of another agent's surface never goes here (nor one of v0.8, which has none)
				return fmt.Errorf("%w: the data model of surface %q goes only to the agent that created it", ErrRefused, sid)
			}
		}
	}
	return nil
}
