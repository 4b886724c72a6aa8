package demoagent_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/demoagent"
)

// a2uiClient talks to the demo agent over a2a-go's JSON-RPC server.
func a2uiClient(t *testing.T) *a2aclient.Client {
	t.Helper()
	hs := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(&demoagent.Agent{}, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))))
	t.Cleanup(hs.Close)
	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface(hs.URL, a2a.TransportProtocolJSONRPC)})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// turn sends msg and returns the last status the task reached and the data of the A2UI parts of the
// status messages, one entry per part.
func turn(t *testing.T, c *a2aclient.Client, msg *a2a.Message) (final *a2a.TaskStatusUpdateEvent, parts []any) {
	t.Helper()
	for ev, err := range c.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: msg}) {
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			final = st
			if st.Status.Message != nil {
				for _, p := range st.Status.Message.Parts {
					if d, ok := p.Content.(a2a.Data); ok && p.MediaType == demoagent.A2UIMediaType && p.Metadata["mimeType"] == demoagent.A2UIMediaType {
						parts = append(parts, d.Value)
					}
				}
			}
		}
	}
	if final == nil {
		t.Fatal("no status")
	}
	return final, parts
}

// "plan a release v0.8" draws the form in A2UI v0.8: one message per part, no version field, v0.8's
// component shapes; a userAction in the same task updates the same surface in v0.8, and discard
// deletes it. The v0.9 form is unchanged beside it.
func TestPlanReleaseV08(t *testing.T) {
	c := a2uiClient(t)
	asked, parts := turn(t, c, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("plan a release v0.8")))
	if asked.Status.State != a2a.TaskStateInputRequired || len(parts) != 3 {
		t.Fatalf("the v0.8 form: %s with %d A2UI parts, want input-required with 3", asked.Status.State, len(parts))
	}
	var kinds []string
	surface := "release-plan-" + string(asked.TaskID)
	for _, p := range parts {
		m, ok := p.(map[string]any)
		if !ok || len(m) != 1 {
			t.Fatalf("a v0.8 part's data is not one message: %#v", p)
		}
		for k, body := range m {
			kinds = append(kinds, k)
			if body.(map[string]any)["surfaceId"] != surface {
				t.Errorf("%s is about %v, want %s", k, body.(map[string]any)["surfaceId"], surface)
			}
		}
	}
	if got := strings.Join(kinds, ","); got != "surfaceUpdate,dataModelUpdate,beginRendering" {
		t.Errorf("v0.8 messages %s", got)
	}
	form, _ := json.Marshal(parts[0])
	for _, want := range []string{`"component":{"TextField":{"label":{"literalString":"Version"},"text":{"path":"/release/version"}}}`,
		`"children":{"explicitList":["submit","discard"]}`, `"MultipleChoice"`} {
		if !strings.Contains(string(form), want) {
			t.Errorf("the v0.8 form lacks %s: %s", want, form)
		}
	}

	// the userAction, as the hub sends it back: one part, the message as its data
	act := a2a.NewDataPart(map[string]any{"userAction": map[string]any{"name": "plan_release", "surfaceId": surface, "sourceComponentId": "submit",
		"timestamp": time.Now().UTC().Format(time.RFC3339), "context": map[string]any{"version": "3.1.0", "date": "2026-12-24", "channel": []any{"beta"}}}})
	act.MediaType = demoagent.A2UIMediaType
	reply := a2a.NewMessage(a2a.MessageRoleUser, act)
	reply.TaskID, reply.ContextID = asked.TaskID, asked.ContextID
	done, upd := turn(t, c, reply)
	if done.Status.State != a2a.TaskStateCompleted || len(upd) != 2 {
		t.Fatalf("the userAction: %s with %d A2UI parts, want completed with 2", done.Status.State, len(upd))
	}
	b, _ := json.Marshal(upd)
	if !strings.Contains(string(b), `{"surfaceUpdate":{"components":`) || !strings.Contains(string(b), `"surfaceId":"`+surface+`"`) ||
		!strings.Contains(string(b), "Version 3.1.0 goes out on the beta channel, on 2026-12-24.") || strings.Contains(string(b), `"version":"v0.9"`) {
		t.Fatalf("the v0.8 confirmation: %s", b)
	}

	// discard, in another task
	asked, _ = turn(t, c, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("plan a release v0.8")))
	legacy := a2a.NewDataPart(map[string]any{"userAction": map[string]any{"name": "discard_release", "surfaceId": "release-plan-" + string(asked.TaskID),
		"sourceComponentId": "discard", "timestamp": time.Now().UTC().Format(time.RFC3339), "context": map[string]any{}}})
	legacy.Metadata = map[string]any{"mimeType": "application/json+a2ui"} // the older spelling, in metadata only
	reply = a2a.NewMessage(a2a.MessageRoleUser, legacy)
	reply.TaskID, reply.ContextID = asked.TaskID, asked.ContextID
	gone, del := turn(t, c, reply)
	if b, _ := json.Marshal(del); gone.Status.State != a2a.TaskStateCanceled || string(b) != `[{"deleteSurface":{"surfaceId":"release-plan-`+string(asked.TaskID)+`"}}]` {
		t.Fatalf("discard: %s, %s", gone.Status.State, b)
	}

	// "plan a release" still draws the v0.9 form: one part, a list of v0.9 messages
	_, v09 := turn(t, c, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("plan a release")))
	if len(v09) != 1 {
		t.Fatalf("the v0.9 form came in %d parts, want 1 list", len(v09))
	}
	if l, ok := v09[0].([]any); !ok || l[0].(map[string]any)["version"] != "v0.9" {
		t.Fatalf("the v0.9 form is not a list of v0.9 messages: %#v", v09[0])
	}
}

// The card declares both A2UI extensions the demo agent speaks.
func TestCardDeclaresBothA2UIVersions(t *testing.T) {
	var uris []string
	for _, e := range demoagent.A2UIExtensionCards() {
		uris = append(uris, e.URI)
	}
	if got := strings.Join(uris, " "); got != "https://a2ui.org/a2a-extension/a2ui/v0.9.1 https://a2ui.org/a2a-extension/a2ui/v0.8" {
		t.Fatalf("extensions %s", got)
	}
}
