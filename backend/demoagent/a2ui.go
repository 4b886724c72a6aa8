package demoagent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// The demo agent speaks A2UI v0.9 (a2ui-project/a2ui): "plan a release" answers with a form (a text
// field, a date, a choice, two buttons) as an A2UI surface and waits (input-required); the person's
// action comes back as an A2UI data part in the same task, and the agent answers by updating the same
// surface (a confirmation) or deleting it (discard). "plan a release v0.8" does the same in A2UI v0.8
// (a2ui_v08.go): one message per data part, userAction back. Everything it sends validates against
// the official JSON schemas of its version (../interop/a2ui_test.go runs them from the npm package
// @a2ui/web_core).

const (
	// A2UIExtension is the extension URI the demo agent's card declares.
	A2UIExtension = "https://a2ui.org/a2a-extension/a2ui/v0.9.1"
	// A2UIMediaType marks a data part whose data is a list of A2UI messages.
	A2UIMediaType       = "application/a2ui+json"
	a2uiLegacyMediaType = "application/json+a2ui"
	// A2UIBasicCatalog is the catalog its surfaces use.
	A2UIBasicCatalog = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
	a2uiVersion      = "v0.9" // the messages' version field: v0.9.1 keeps v0.9's message schema
)

// A2UIExtensionCard is the card's capabilities.extensions entry for v0.9.1.
func A2UIExtensionCard() a2a.AgentExtension {
	return a2a.AgentExtension{URI: A2UIExtension, Description: "Answers \"plan a release\" with an A2UI form and updates it when you submit.",
		Params: map[string]any{"supportedCatalogIds": []any{A2UIBasicCatalog}}}
}

// A2UIExtensionCards are the card's A2UI entries: v0.9.1 and v0.8.
func A2UIExtensionCards() []a2a.AgentExtension {
	return []a2a.AgentExtension{A2UIExtensionCard(), A2UIExtensionCardV08()}
}

// A2UIPart is a data part carrying A2UI messages: the media type in the part's own field (A2A v1.0)
// and in metadata.mimeType, where the A2UI extension text and v0.3 agents look for it.
func A2UIPart(messages []map[string]any) *a2a.Part {
	list := make([]any, len(messages))
	for i, m := range messages {
		list[i] = m
	}
	p := a2a.NewDataPart(list)
	p.MediaType = A2UIMediaType
	p.Metadata = map[string]any{"mimeType": A2UIMediaType}
	return p
}

// A2UIMessages are the A2UI messages of the message's A2UI data parts, in order: a part's data is a
// list of messages (v0.9) or one message (v0.8).
func A2UIMessages(m *a2a.Message) []map[string]any {
	if m == nil {
		return nil
	}
	var out []map[string]any
	for _, p := range m.Parts {
		d, ok := p.Content.(a2a.Data)
		if !ok || !isA2UIPart(p) {
			continue
		}
		switch v := d.Value.(type) {
		case []any:
			for _, x := range v {
				if obj, ok := x.(map[string]any); ok {
					out = append(out, obj)
				}
			}
		case map[string]any:
			out = append(out, v)
		}
	}
	return out
}

func isA2UIPart(p *a2a.Part) bool {
	mt := p.MediaType
	if mt == "" {
		mt, _ = p.Metadata["mimeType"].(string)
	}
	return mt == A2UIMediaType || mt == a2uiLegacyMediaType
}

// surfaceIDOf is the form's surface id: one per task, whole (task ids made close together may share
// a prefix).
func surfaceIDOf(id a2a.TaskID) string { return "release-plan-" + string(id) }

func msg(kind string, body map[string]any) map[string]any {
	return map[string]any{"version": a2uiVersion, kind: body}
}

func text(id, t, variant string) map[string]any {
	c := map[string]any{"id": id, "component": "Text", "text": t}
	if variant != "" {
		c["variant"] = variant
	}
	return c
}

func path(p string) map[string]any { return map[string]any{"path": p} }

// PlanForm is the release-planning surface, as created.
func PlanForm(surfaceID string) []map[string]any {
	return []map[string]any{
		msg("createSurface", map[string]any{"surfaceId": surfaceID, "catalogId": A2UIBasicCatalog, "sendDataModel": true}),
		msg("updateComponents", map[string]any{"surfaceId": surfaceID, "components": []any{
			map[string]any{"id": "root", "component": "Card", "child": "form"},
			map[string]any{"id": "form", "component": "Column", "children": []any{"title", "version", "date", "channel", "buttons"}},
			text("title", "Plan a release", "h3"),
			map[string]any{"id": "version", "component": "TextField", "label": "Version", "value": path("/release/version")},
			map[string]any{"id": "date", "component": "DateTimeInput", "label": "Release date", "value": path("/release/date"), "enableDate": true},
			map[string]any{"id": "channel", "component": "ChoicePicker", "label": "Channel", "variant": "mutuallyExclusive",
				"options": []any{
					map[string]any{"label": "Stable", "value": "stable"},
					map[string]any{"label": "Beta", "value": "beta"},
					map[string]any{"label": "Nightly", "value": "nightly"},
				}, "value": path("/release/channel")},
			map[string]any{"id": "buttons", "component": "Row", "children": []any{"submit", "discard"}},
			map[string]any{"id": "submit", "component": "Button", "child": "submit-label", "variant": "primary",
				"action": map[string]any{"event": map[string]any{"name": "plan_release", "context": map[string]any{
					"version": path("/release/version"), "date": path("/release/date"), "channel": path("/release/channel")}}}},
			text("submit-label", "Plan it", ""),
			map[string]any{"id": "discard", "component": "Button", "child": "discard-label",
				"action": map[string]any{"event": map[string]any{"name": "discard_release", "context": map[string]any{}}}},
			text("discard-label", "Discard", ""),
		}}),
		msg("updateDataModel", map[string]any{"surfaceId": surfaceID, "path": "/release",
			"value": map[string]any{"version": "1.0.0", "date": "", "channel": []any{"stable"}}}),
	}
}

// PlanConfirmed is the update that turns the form into its confirmation.
func PlanConfirmed(surfaceID, version, date, channel string) []map[string]any {
	when := "no date set yet"
	if date != "" {
		when = "on " + date
	}
	return []map[string]any{
		msg("updateComponents", map[string]any{"surfaceId": surfaceID, "components": []any{
			map[string]any{"id": "form", "component": "Column", "children": []any{"title", "summary"}},
			text("title", "Release planned", "h3"),
			text("summary", fmt.Sprintf("Version %s goes out on the %s channel, %s.", version, channel, when), ""),
		}}),
		msg("updateDataModel", map[string]any{"surfaceId": surfaceID, "path": "/release",
			"value": map[string]any{"version": version, "date": date, "channel": []any{channel}, "planned": true}}),
	}
}

// PlanDiscarded removes the form.
func PlanDiscarded(surfaceID string) []map[string]any {
	return []map[string]any{msg("deleteSurface", map[string]any{"surfaceId": surfaceID})}
}

// planForm starts the release-planning task: the form (in v0.8 when v08), then waiting for the
// person's action.
func (a *Agent) planForm(ec *a2asrv.ExecutorContext, v08 bool, yield func(a2a.Event, error) bool) {
	parts := a2a.ContentParts{a2a.NewTextPart("Let's plan a release: fill in the form.")}
	if v08 {
		parts = append(parts, A2UIPartsV08(PlanFormV08(surfaceIDOf(ec.TaskID)))...)
	} else {
		parts = append(parts, A2UIPart(PlanForm(surfaceIDOf(ec.TaskID))))
	}
	q := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
	yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, q), nil)
}

// a2uiAction answers an A2UI action on the release form; false when the message carries none (it is
// then an ordinary answer).
func (a *Agent) a2uiAction(ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) bool {
	surface := surfaceIDOf(ec.TaskID)
	for _, m := range A2UIMessages(ec.Message) {
		// a v0.9 action, or a v0.8 userAction: the answer speaks the same version
		act, ok := m["action"].(map[string]any)
		_, hasVersion := m["version"]
		v08 := false
		if !ok && !hasVersion {
			act, ok = m["userAction"].(map[string]any)
			v08 = ok
		}
		if !ok || act["surfaceId"] != surface {
			continue
		}
		ctx, _ := act["context"].(map[string]any)
		switch act["name"] {
		case "plan_release":
			version := strings.TrimSpace(str(ctx["version"]))
			if version == "" {
				version = "(unnamed)"
			}
			var parts a2a.ContentParts
			if v08 {
				channel := str(ctx["channel"])
				if channel == "" {
					channel = "stable" // the select shows its first option until changed, and says nothing
				}
				parts = A2UIPartsV08(PlanConfirmedV08(surface, version, str(ctx["date"]), channel))
			} else {
				parts = a2a.ContentParts{A2UIPart(PlanConfirmed(surface, version, str(ctx["date"]), str(ctx["channel"])))}
			}
			done := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, parts...)
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, done), nil)
		case "discard_release":
			gone := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Release planning discarded."))
			if v08 {
				gone.Parts = append(gone.Parts, A2UIPartsV08(PlanDiscardedV08(surface))...)
			} else {
				gone.Parts = append(gone.Parts, A2UIPart(PlanDiscarded(surface)))
			}
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, gone), nil)
		default:
			continue
		}
		return true
	}
	return false
}

// str is a context value as text: a string, the first of a list of strings (a choice), or its JSON.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		if len(x) > 0 {
			return str(x[0])
		}
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
