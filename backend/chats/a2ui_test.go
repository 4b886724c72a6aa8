package chats_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/chats"
)

// A2UI through a conversation: the demo agent's form is recorded as it came (media type and all),
// the owner's action goes back as an application/a2ui+json part in the same task with the data
// model, the agent's update arrives on the same surface, and all of it is there after a restart.
// Actions and data models about surfaces this conversation's agent never created are refused.
func TestA2UIFormActionAndUpdateAreRecordedAndSurviveRestart(t *testing.T) {
	w := newWorld(t)
	c := w.conversation(w.demo.BaseURL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "plan a release"})
	entries := w.waitFor(c.ID, "the form", reached(a2a.TaskStateInputRequired))
	var surface string
	var task a2a.TaskID
	for _, e := range entries {
		if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateInputRequired {
			for _, p := range st.Status.Message.Parts {
				if d, ok := p.Content.(a2a.Data); ok && p.MediaType == chats.A2UIMediaType {
					list := d.Value.([]any)
					surface = list[0].(map[string]any)["createSurface"].(map[string]any)["surfaceId"].(string)
					task = st.TaskID
				}
			}
		}
	}
	if surface == "" {
		t.Fatalf("no A2UI form recorded:\n%s", dump(entries))
	}

	// refused: a surface the agent never created, in the action or in the data model; not an action
	action := func(sid string) map[string]any {
		return map[string]any{"version": "v0.9", "action": map[string]any{"name": "plan_release", "surfaceId": sid, "sourceComponentId": "submit",
			"timestamp": time.Now().UTC().Format(time.RFC3339), "context": map[string]any{"version": "5.0", "date": "", "channel": []any{"nightly"}}}}
	}
	model := func(sid string) map[string]any {
		return map[string]any{"version": "v0.9", "surfaces": map[string]any{sid: map[string]any{"release": map[string]any{"version": "5.0"}}}}
	}
	for name, out := range map[string]chats.Outgoing{
		"an action on another surface":      {Task: task, A2UI: []any{action("someone-elses")}},
		"another surface's data model":      {Task: task, A2UI: []any{action(surface)}, A2UIDataModel: model("someone-elses")},
		"a server message sent as a client": {Task: task, A2UI: []any{map[string]any{"version": "v0.9", "deleteSurface": map[string]any{"surfaceId": surface}}}},
	} {
		if _, err := w.h.Chats.Send(t.Context(), c.ID, out); !errors.Is(err, chats.ErrA2UI) {
			t.Errorf("%s: Send answered %v, want ErrA2UI", name, err)
		}
	}

	sent := send(t, w.h.Chats, c.ID, chats.Outgoing{Task: task, A2UI: []any{action(surface)}, A2UIDataModel: model(surface)})
	msg := sent.Event.(*a2a.Message)
	if len(msg.Parts) != 1 || msg.Parts[0].MediaType != chats.A2UIMediaType || msg.Parts[0].Metadata["mimeType"] != chats.A2UIMediaType || msg.Metadata["a2uiClientDataModel"] == nil {
		t.Fatalf("the action went as %+v", msg)
	}
	w.waitFor(c.ID, "the confirmation", reached(a2a.TaskStateCompleted))

	w.restart()
	_, entries, err := w.h.Chats.Get(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var confirmed bool
	for _, e := range entries {
		if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateCompleted && st.Status.Message != nil {
			for _, p := range st.Status.Message.Parts {
				if d, ok := p.Content.(a2a.Data); ok && p.MediaType == chats.A2UIMediaType {
					b := strings.Builder{}
					for _, m := range d.Value.([]any) {
						if uc, ok := m.(map[string]any)["updateComponents"].(map[string]any); ok && uc["surfaceId"] == surface {
							b.WriteString("ok")
						}
					}
					confirmed = b.Len() > 0
				}
			}
		}
	}
	if !confirmed {
		t.Fatalf("after the restart the confirmation of surface %s is not recorded:\n%s", surface, dump(entries))
	}
}

// A2UI v0.8 through a conversation: the demo agent's v0.8 form (one message per part), the owner's
// userAction going back as one part whose data is the message, in the same task and without a data
// model (v0.8 has none), and the update on the same surface, recorded across a restart. A v0.9
// action about the v0.8 surface, a userAction about another surface and a data model are refused.
func TestA2UIV08FormUserActionAndUpdate(t *testing.T) {
	w := newWorld(t)
	c := w.conversation(w.demo.BaseURL)
	send(t, w.h.Chats, c.ID, chats.Outgoing{Text: "plan a release v0.8"})
	entries := w.waitFor(c.ID, "the v0.8 form", reached(a2a.TaskStateInputRequired))
	var surface string
	var task a2a.TaskID
	for _, e := range entries {
		if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateInputRequired {
			for _, p := range st.Status.Message.Parts {
				if d, ok := p.Content.(a2a.Data); ok && p.MediaType == chats.A2UIMediaType {
					if br, ok := d.Value.(map[string]any)["beginRendering"].(map[string]any); ok {
						surface, task = br["surfaceId"].(string), st.TaskID
					}
				}
			}
		}
	}
	if surface == "" {
		t.Fatalf("no v0.8 form recorded:\n%s", dump(entries))
	}
	userAction := func(sid string) map[string]any {
		return map[string]any{"userAction": map[string]any{"name": "plan_release", "surfaceId": sid, "sourceComponentId": "submit",
			"timestamp": time.Now().UTC().Format(time.RFC3339), "context": map[string]any{"version": "8.0", "date": "", "channel": []any{"nightly"}}}}
	}
	for name, out := range map[string]chats.Outgoing{
		"a userAction on another surface": {Task: task, A2UI: []any{userAction("someone-elses")}},
		"a v0.9 action on the v0.8 surface": {Task: task, A2UI: []any{map[string]any{"version": "v0.9", "action": map[string]any{"name": "plan_release",
			"surfaceId": surface, "sourceComponentId": "submit", "timestamp": "2026-01-01T00:00:00Z", "context": map[string]any{}}}}},
		"a data model of the v0.8 surface": {Task: task, A2UI: []any{userAction(surface)},
			A2UIDataModel: map[string]any{"version": "v0.9", "surfaces": map[string]any{surface: map[string]any{}}}},
		"a v0.8 server message": {Task: task, A2UI: []any{map[string]any{"deleteSurface": map[string]any{"surfaceId": surface}}}},
	} {
		if _, err := w.h.Chats.Send(t.Context(), c.ID, out); !errors.Is(err, chats.ErrA2UI) {
			t.Errorf("%s: Send answered %v, want ErrA2UI", name, err)
		}
	}

	sent := send(t, w.h.Chats, c.ID, chats.Outgoing{Task: task, A2UI: []any{userAction(surface)}})
	msg := sent.Event.(*a2a.Message)
	if len(msg.Parts) != 1 || msg.Parts[0].MediaType != chats.A2UIMediaType || msg.Parts[0].Metadata["mimeType"] != chats.A2UIMediaType {
		t.Fatalf("the userAction went as %+v", msg)
	}
	if d, ok := msg.Parts[0].Content.(a2a.Data); !ok || d.Value.(map[string]any)["userAction"] == nil {
		t.Fatalf("the userAction part's data is not the message: %+v", msg.Parts[0])
	}
	w.waitFor(c.ID, "the v0.8 confirmation", reached(a2a.TaskStateCompleted))

	w.restart()
	_, entries, err := w.h.Chats.Get(t.Context(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	confirmed := false
	for _, e := range entries {
		if st, ok := e.Event.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateCompleted && st.Status.Message != nil {
			for _, p := range st.Status.Message.Parts {
				if d, ok := p.Content.(a2a.Data); ok && p.MediaType == chats.A2UIMediaType {
					if su, ok := d.Value.(map[string]any)["surfaceUpdate"].(map[string]any); ok && su["surfaceId"] == surface {
						confirmed = strings.Contains(fmt.Sprint(su), "Version 8.0 goes out on the nightly channel")
					}
				}
			}
		}
	}
	if !confirmed {
		t.Fatalf("after the restart the v0.8 confirmation of surface %s is not recorded:\n%s", surface, dump(entries))
	}
}
