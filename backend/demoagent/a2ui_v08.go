package demoagent

import (
	"fmt"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// A2UI v0.8, the version many deployed agents still speak: the same release form in v0.8's shapes.
// A message has no version field and one operation key (beginRendering, surfaceUpdate,
// dataModelUpdate, deleteSurface); a component is {"id", "component": {"<Type>": {props}}}; values
// are {"literalString"} or {"path"}; children are {"explicitList": [...]}; the data model travels as
// key/value entries; a data part carries one message.

const (
	// A2UIExtensionV08 is the v0.8 extension URI the card declares too.
	A2UIExtensionV08 = "https://a2ui.org/a2a-extension/a2ui/v0.8"
	// A2UIStandardCatalogV08 is v0.8's standard catalog, the one its surfaces use.
	A2UIStandardCatalogV08 = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"
)

// A2UIExtensionCardV08 is the card's capabilities.extensions entry for v0.8.
func A2UIExtensionCardV08() a2a.AgentExtension {
	return a2a.AgentExtension{URI: A2UIExtensionV08, Description: "Answers \"plan a release v0.8\" with the same form in A2UI v0.8.",
		Params: map[string]any{"supportedCatalogIds": []any{A2UIStandardCatalogV08}}}
}

// A2UIPartsV08 are data parts of one v0.8 message each (the v0.8 extension's encoding), the media
// type in the part's field and in metadata.mimeType.
func A2UIPartsV08(messages []map[string]any) a2a.ContentParts {
	out := make(a2a.ContentParts, len(messages))
	for i, m := range messages {
		p := a2a.NewDataPart(m)
		p.MediaType = A2UIMediaType
		p.Metadata = map[string]any{"mimeType": A2UIMediaType}
		out[i] = p
	}
	return out
}

func lit(s string) map[string]any { return map[string]any{"literalString": s} }

func comp(id, typ string, props map[string]any) map[string]any {
	return map[string]any{"id": id, "component": map[string]any{typ: props}}
}

func text08(id, t, hint string) map[string]any {
	props := map[string]any{"text": lit(t)}
	if hint != "" {
		props["usageHint"] = hint
	}
	return comp(id, "Text", props)
}

func list08(ids ...string) map[string]any {
	l := make([]any, len(ids))
	for i, id := range ids {
		l[i] = id
	}
	return map[string]any{"explicitList": l}
}

// PlanFormV08 is the release-planning surface in v0.8: its components and data, then beginRendering
// (the order v0.8 recommends, so the client draws it whole).
func PlanFormV08(surfaceID string) []map[string]any {
	ctx := []any{
		map[string]any{"key": "version", "value": path("/release/version")},
		map[string]any{"key": "date", "value": path("/release/date")},
		map[string]any{"key": "channel", "value": path("/release/channel")},
	}
	return []map[string]any{
		{"surfaceUpdate": map[string]any{"surfaceId": surfaceID, "components": []any{
			comp("root", "Card", map[string]any{"child": "form"}),
			comp("form", "Column", map[string]any{"children": list08("title", "version", "date", "channel", "buttons")}),
			text08("title", "Plan a release", "h3"),
			comp("version", "TextField", map[string]any{"label": lit("Version"), "text": path("/release/version")}),
			comp("date", "DateTimeInput", map[string]any{"value": path("/release/date"), "enableDate": true}),
			comp("channel", "MultipleChoice", map[string]any{"selections": path("/release/channel"), "maxAllowedSelections": 1,
				"options": []any{
					map[string]any{"label": lit("Stable"), "value": "stable"},
					map[string]any{"label": lit("Beta"), "value": "beta"},
					map[string]any{"label": lit("Nightly"), "value": "nightly"},
				}}),
			comp("buttons", "Row", map[string]any{"children": list08("submit", "discard")}),
			comp("submit", "Button", map[string]any{"child": "submit-label", "primary": true,
				"action": map[string]any{"name": "plan_release", "context": ctx}}),
			text08("submit-label", "Plan it", ""),
			comp("discard", "Button", map[string]any{"child": "discard-label", "action": map[string]any{"name": "discard_release", "context": []any{}}}),
			text08("discard-label", "Discard", ""),
		}}},
		{"dataModelUpdate": map[string]any{"surfaceId": surfaceID, "path": "/release", "contents": []any{
			map[string]any{"key": "version", "valueString": "1.0.0"},
			map[string]any{"key": "date", "valueString": ""},
			map[string]any{"key": "channel", "valueString": "stable"},
		}}},
		{"beginRendering": map[string]any{"surfaceId": surfaceID, "root": "root", "catalogId": A2UIStandardCatalogV08}},
	}
}

// PlanConfirmedV08 turns the v0.8 form into its confirmation.
func PlanConfirmedV08(surfaceID, version, date, channel string) []map[string]any {
	when := "no date set yet"
	if date != "" {
		when = "on " + date
	}
	return []map[string]any{
		{"surfaceUpdate": map[string]any{"surfaceId": surfaceID, "components": []any{
			comp("form", "Column", map[string]any{"children": list08("title", "summary")}),
			text08("title", "Release planned", "h3"),
			text08("summary", fmt.Sprintf("Version %s goes out on the %s channel, %s.", version, channel, when), ""),
		}}},
		{"dataModelUpdate": map[string]any{"surfaceId": surfaceID, "path": "/release", "contents": []any{
			map[string]any{"key": "version", "valueString": version},
			map[string]any{"key": "date", "valueString": date},
			map[string]any{"key": "channel", "valueString": channel},
			map[string]any{"key": "planned", "valueBoolean": true},
		}}},
	}
}

// PlanDiscardedV08 removes the v0.8 form.
func PlanDiscardedV08(surfaceID string) []map[string]any {
	return []map[string]any{{"deleteSurface": map[string]any{"surfaceId": surfaceID}}}
}
