package chats

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A2UI (a2ui-project/a2ui): what the owner sends back about a surface an agent drew. The UI builds
// the action or error; the hub checks it before it goes: each message is an A2UI v0.9 action or
// error, and every surface it names (and every surface whose data model goes along) was created in
// this conversation, by its agent. So a surface's data model goes only to the agent that created it.

// ErrA2UI means A2UI messages or a data model the conversation cannot send.
var ErrA2UI = errors.New("A2UI")

// a2uiLegacyMediaType is how older agents mark A2UI data parts.
const a2uiLegacyMediaType = "application/json+a2ui"

func isA2UIPart(p *a2a.Part) bool {
	if p == nil {
		return false
	}
	mt := p.MediaType
	if mt == "" {
		mt, _ = p.Metadata["mimeType"].(string)
	}
	return mt == A2UIMediaType || mt == a2uiLegacyMediaType
}

// surfacesCreated are the ids of the surfaces the agent created in these entries (createSurface in
// an A2UI part of anything it sent).
func surfacesCreated(entries []Entry) map[string]bool {
	out := map[string]bool{}
	scan := func(parts a2a.ContentParts) {
		for _, p := range parts {
			d, ok := p.Content.(a2a.Data)
			if !ok || !isA2UIPart(p) {
				continue
			}
			list, _ := d.Value.([]any)
			for _, m := range list {
				obj, _ := m.(map[string]any)
				cs, _ := obj["createSurface"].(map[string]any)
				if id, _ := cs["surfaceId"].(string); id != "" {
					out[id] = true
				}
			}
		}
	}
	msg := func(m *a2a.Message) {
		if m != nil {
			scan(m.Parts)
		}
	}
	for _, e := range entries {
		if e.Direction != In {
			continue
		}
		switch v := e.Event.(type) {
		case *a2a.Message:
			msg(v)
		case *a2a.TaskStatusUpdateEvent:
			msg(v.Status.Message)
		case *a2a.Task:
			msg(v.Status.Message)
			for _, h := range v.History {
				if h != nil && h.Role == a2a.MessageRoleAgent {
					msg(h)
				}
			}
			for _, a := range v.Artifacts {
				if a != nil {
					scan(a.Parts)
				}
			}
		case *a2a.TaskArtifactUpdateEvent:
			if v.Artifact != nil {
				scan(v.Artifact.Parts)
			}
		}
	}
	return out
}

// checkA2UI checks out's A2UI messages and data model against the conversation's entries.
func (s *Service) checkA2UI(ctx context.Context, id string, out Outgoing) error {
	if len(out.A2UI) == 0 && out.A2UIDataModel == nil {
		return nil
	}
	entries, err := s.entries(ctx, id, 0)
	if err != nil {
		return err
	}
	created := surfacesCreated(entries)
	for i, m := range out.A2UI {
		obj, _ := m.(map[string]any)
		if obj == nil || obj["version"] != "v0.9" || len(obj) != 2 {
			return fmt.Errorf("%w: message %d is not an A2UI v0.9 action or error", ErrA2UI, i)
		}
		body, _ := obj["action"].(map[string]any)
		if body == nil {
			body, _ = obj["error"].(map[string]any)
		}
		if body == nil {
			return fmt.Errorf("%w: message %d is neither an action nor an error", ErrA2UI, i)
		}
		if sid, _ := body["surfaceId"].(string); !created[sid] {
			return fmt.Errorf("%w: message %d is about surface %q, which this conversation's agent did not create", ErrA2UI, i, sid)
		}
	}
	if out.A2UIDataModel != nil {
		surfaces, _ := out.A2UIDataModel["surfaces"].(map[string]any)
		if out.A2UIDataModel["version"] != "v0.9" || surfaces == nil || len(out.A2UIDataModel) != 2 {
			return fmt.Errorf("%w: the data model is not an a2uiClientDataModel of v0.9", ErrA2UI)
		}
		for sid := range surfaces {
			if !created[sid] {
				// the data model of another agent's surface never goes here
				return fmt.Errorf("%w: the data model of surface %q goes only to the agent that created it, not this conversation's", ErrA2UI, sid)
			}
		}
	}
	return nil
}
