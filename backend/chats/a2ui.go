package chats

import (
	"context"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2ui"
)

// A2UI (a2ui-project/a2ui): what the owner sends back about a surface an agent drew. The UI builds
// the action or error; the hub checks it before it goes (a2ui.CheckClient): every surface it names,
// and every surface whose data model goes along, was created in this conversation by its agent.

// ErrA2UI means A2UI messages or a data model the conversation cannot send.
var ErrA2UI = a2ui.ErrRefused

// surfacesCreated are the ids of the surfaces the agent created in these entries (createSurface in
// an A2UI part of anything it sent).
func surfacesCreated(entries []Entry) a2ui.Created {
	out := a2ui.Created{}
	msg := func(m *a2a.Message) {
		if m != nil {
			a2ui.AddCreated(out, m.Parts)
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
					a2ui.AddCreated(out, a.Parts)
				}
			}
		case *a2a.TaskArtifactUpdateEvent:
			if v.Artifact != nil {
				a2ui.AddCreated(out, v.Artifact.Parts)
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
	return a2ui.CheckClient(out.A2UI, out.A2UIDataModel, surfacesCreated(entries))
}
