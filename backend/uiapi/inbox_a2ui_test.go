package uiapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/a2ui"
)

// An agent asks the owner through the inbox with an A2UI surface; the owner's action on it goes back
// to that agent as an A2UI part of the answer, in its task. An action about a surface the sender did
// not draw in that task, or not an action at all, is refused and nothing is added.
func TestInboxA2UIActionGoesBackToTheSender(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	sender := client(t, h.Agent.BaseURL)
	form := []any{
		map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "lunch", "catalogId": "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},
		map[string]any{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "lunch", "components": []any{
			map[string]any{"id": "root", "component": "Button", "child": "label", "action": map[string]any{"event": map[string]any{"name": "yes"}}},
			map[string]any{"id": "label", "component": "Text", "text": "Yes"},
		}}},
	}
	task := startTask(t, sender, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Lunch at noon?"), a2ui.NewPart(form)))
	c.await("task", func(d json.RawMessage) bool { return strings.Contains(string(d), `"state":"working"`) })

	action := func(surface string) map[string]any {
		return map[string]any{"version": "v0.9", "action": map[string]any{"name": "yes", "surfaceId": surface, "sourceComponentId": "root",
			"timestamp": "2026-11-28T12:00:00Z", "context": map[string]any{}}}
	}
	for name, bad := range map[string][]any{
		"another surface": {action("not-drawn-here")},
		"not an action":   {map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "lunch"}}},
		"another version": {map[string]any{"version": "v0.8", "userAction": map[string]any{"surfaceId": "lunch"}}},
	} {
		if f := c.call("inbox.act", map[string]any{"id": task.ID, "action": "answer", "a2ui": bad}); f.Error == nil || f.Error.Code != "invalid_params" {
			t.Fatalf("%s: %+v", name, f.Error)
		}
	}
	c.result("inbox.act", map[string]any{"id": task.ID, "action": "answer", "a2ui": []any{action("lunch")}}, nil)

	got, err := sender.GetTask(t.Context(), &a2a.GetTaskRequest{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Artifacts) != 1 {
		t.Fatalf("the sender sees %d artifacts, want the one answer: %+v", len(got.Artifacts), got.Artifacts)
	}
	parts := got.Artifacts[0].Parts
	if len(parts) != 1 || !a2ui.IsPart(parts[0]) {
		t.Fatalf("the answer's parts: %+v", parts)
	}
	list, _ := parts[0].Content.(a2a.Data).Value.([]any)
	act, _ := list[0].(map[string]any)["action"].(map[string]any)
	if len(list) != 1 || act["surfaceId"] != "lunch" || act["name"] != "yes" {
		t.Fatalf("the action the sender got: %+v", list)
	}
}
