package bridge

import (
	"slices"
	"testing"
)

func TestMentions(t *testing.T) {
	agents := []member{{id: "demo", slug: "demo-agent"}, {id: "demo-2"}, {id: "4f1c2a9e-0b7d-4c1e-9a55-2f6b8d0c3e11", slug: "weather-bot"}}
	all := []string{"demo", "demo-2", "4f1c2a9e-0b7d-4c1e-9a55-2f6b8d0c3e11"}
	for _, c := range []struct {
		text, self string
		want       []string
	}{
		{"@demo hello", "", []string{"demo"}},
		{"hello @DEMO.", "", []string{"demo"}},
		{"@demo-2 hi", "", []string{"demo-2"}},
		{"mail me at x@demo please", "", nil},
		{"(@demo) and @demo-2, and @4F1C2A9E-0B7D-4C1E-9A55-2F6B8D0C3E11", "", all},
		{"@all go", "", all},
		{"@Weather-Bot, and @demo-agent: hi", "", []string{"demo", "4f1c2a9e-0b7d-4c1e-9a55-2f6b8d0c3e11"}},
		{"@weather", "", nil},
		// An agent (self set) does not reach everyone with @all, only those it names.
		{"@all go", "demo", nil},
		{"@all go, @demo-2 and @demo", "demo", []string{"demo-2"}},
		{"@demo says @demo", "demo", nil},
		{"@demos @alice", "", nil},
	} {
		if got := mentioned(c.text, agents, c.self, c.self == ""); !slices.Equal(got, c.want) {
			t.Errorf("mentioned(%q, self %q) = %v, want %v", c.text, c.self, got, c.want)
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Demo agent":           "demo-agent",
		"a2a-js interop agent": "a2a-js-interop-agent",
		"  Météo / Bot!  ":     "météo-bot",
		"v1.0 agent.":          "v1.0-agent",
		"***":                  "",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAddressed(t *testing.T) {
	for in, want := range map[string]string{
		"@demo ask":                    "ask",
		"  @demo, @js: ping @demo @js": "ping @demo @js",
		"ask @demo":                    "ask @demo",
		"@ demo":                       "@ demo",
		"@demo":                        "",
		"hello":                        "hello",
	} {
		if got := addressed(in); got != want {
			t.Errorf("addressed(%q) = %q, want %q", in, got, want)
		}
	}
}
