package a2ui

import (
	"errors"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Surfaces are created by v0.9 createSurface or by any v0.8 server message, and each keeps its
// version; the client's messages must be actions or errors of that version about such a surface.
func TestCheckClientBothVersions(t *testing.T) {
	v08 := NewPart(nil)
	v08.Content = a2a.Data{Value: map[string]any{"surfaceUpdate": map[string]any{"surfaceId": "old", "components": []any{}}}}
	legacy := a2a.NewDataPart([]any{map[string]any{"beginRendering": map[string]any{"surfaceId": "old2", "root": "root"}}})
	legacy.Metadata = map[string]any{"mimeType": LegacyMediaType}
	created := Created{}
	AddCreated(created, a2a.ContentParts{
		NewPart([]any{map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "new", "catalogId": "c"}}}),
		v08, legacy,
		a2a.NewDataPart(map[string]any{"surfaceUpdate": map[string]any{"surfaceId": "not-a2ui"}}), // no A2UI media type
	})
	if len(created) != 3 || created["new"] != V09 || created["old"] != V08 || created["old2"] != V08 {
		t.Fatalf("created %v", created)
	}
	act09 := func(sid string) any {
		return map[string]any{"version": "v0.9", "action": map[string]any{"surfaceId": sid}}
	}
	act08 := func(sid string) any { return map[string]any{"userAction": map[string]any{"surfaceId": sid}} }
	err08 := func(sid string) any { return map[string]any{"error": map[string]any{"surfaceId": sid, "message": "x"}} }
	for _, ok := range [][]any{{act09("new")}, {act08("old")}, {err08("old2")}, {act09("new"), act08("old")}} {
		if err := CheckClient(ok, nil, created); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	for name, bad := range map[string][]any{
		"v0.8 about a v0.9 surface":    {act08("new")},
		"v0.9 about a v0.8 surface":    {act09("old")},
		"v0.8 about another's":         {act08("not-a2ui")},
		"v0.8 error without a surface": {map[string]any{"error": map[string]any{"message": "x"}}},
		"two keys":                     {map[string]any{"userAction": map[string]any{"surfaceId": "old"}, "error": map[string]any{}}},
		"a v0.8 server message":        {map[string]any{"surfaceUpdate": map[string]any{"surfaceId": "old"}}},
		"an unknown version":           {map[string]any{"version": "v0.8", "userAction": map[string]any{"surfaceId": "old"}}},
	} {
		if err := CheckClient(bad, nil, created); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want ErrRefused", name, err)
		}
	}
	if err := CheckClient(nil, map[string]any{"version": "v0.9", "surfaces": map[string]any{"old": map[string]any{}}}, created); !errors.Is(err, ErrRefused) {
		t.Errorf("a data model of a v0.8 surface: %v", err)
	}

	// Parts: the v0.9 messages as one list, each v0.8 message a part of its own
	parts := Parts([]any{act08("old"), act09("new"), err08("old2")})
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	if l, ok := parts[0].Content.(a2a.Data).Value.([]any); !ok || len(l) != 1 {
		t.Errorf("part 0 is not the v0.9 list: %#v", parts[0].Content)
	}
	for _, p := range parts[1:] {
		if _, ok := p.Content.(a2a.Data).Value.(map[string]any); !ok || !IsPart(p) || p.Metadata["mimeType"] != MediaType {
			t.Errorf("a v0.8 part: %#v", p)
		}
	}
}
