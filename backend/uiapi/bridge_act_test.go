package uiapi_test

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/a2ui"
	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/channels"
)

// formDrawer is an agent that answers any text with an A2UI form (surface "plan", the same id in
// every agent of this kind) and asks for input; an A2UI action completes the task with an update.
// It records every message it receives, with the headers that came with it.
type formDrawer struct {
	mu  sync.Mutex
	got []received
}

type received struct {
	msg              *a2a.Message
	taskID           string
	key, ext, extOld string
}

func (f *formDrawer) received() []received {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]received(nil), f.got...)
}

func (f *formDrawer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		header := func(name string) string {
			v, _ := ec.ServiceParams.Get(name)
			return strings.Join(v, ",")
		}
		f.mu.Lock()
		f.got = append(f.got, received{msg: ec.Message, taskID: string(ec.TaskID), key: header("x-api-key"), ext: header("a2a-extensions"), extOld: header("x-a2a-extensions")})
		f.mu.Unlock()
		for _, p := range ec.Message.Parts {
			if a2ui.IsPart(p) {
				done := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2ui.NewPart([]any{
					map[string]any{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "plan", "components": []any{
						map[string]any{"id": "root", "component": "Text", "text": "Planned."}}}},
				}))
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, done), nil)
				return
			}
		}
		if ec.StoredTask == nil && !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		form := a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart("Fill in the form."), a2ui.NewPart([]any{
			map[string]any{"version": "v0.9", "createSurface": map[string]any{"surfaceId": "plan", "catalogId": "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json", "sendDataModel": true}},
			map[string]any{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "plan", "components": []any{
				map[string]any{"id": "root", "component": "Button", "child": "label", "action": map[string]any{"event": map[string]any{"name": "plan_it"}}},
				map[string]any{"id": "label", "component": "Text", "text": "Plan it"}}}},
		}))
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, form), nil)
	}
}

func (f *formDrawer) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// serveFormDrawer serves a formDrawer that declares the A2UI extension and wants key in X-Api-Key.
func serveFormDrawer(t *testing.T, name, key string) (*formDrawer, string) {
	f := &formDrawer{}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	card := &a2a.AgentCard{
		Name: name, Description: "draws a form", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: srv.URL + "/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true, Extensions: []a2a.AgentExtension{{URI: "https://a2ui.org/a2a-extension/a2ui/v0.9"}}},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills:               []a2a.AgentSkill{{ID: "form", Name: "form", Description: "form", Tags: []string{"form"}}},
		SecuritySchemes:      a2a.NamedSecuritySchemes{"key": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Api-Key"}},
		SecurityRequirements: a2a.SecurityRequirementsOptions{{"key": {}}},
	}
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(f))
	mux.Handle("/rpc", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != key {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		rpc.ServeHTTP(w, r)
	}))
	return f, srv.URL
}

// Two agents in a channel draw a surface of the same id; the owner's action on one's surface
// (bridge.act) reaches that agent only, in the task that drew it, with its credentials, the A2UI
// extension's headers and the surface's data model; the other receives nothing. The channel shows
// the action as the owner's, and the agent's update comes back as a draft data part with its media
// type. Actions about surfaces the agent did not draw there are refused and send nothing.
func TestGatewayBridgeActReachesOnlyTheCreator(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	one, oneURL := serveFormDrawer(t, "Planner One", "key-one")
	two, twoURL := serveFormDrawer(t, "Planner Two", "key-two")
	var a1, a2 struct{ ID string }
	c.result("agents.add", map[string]any{"url": oneURL}, &a1)
	c.result("agents.setCredential", map[string]any{"id": a1.ID, "scheme": "key", "apiKey": "key-one"}, nil)
	c.result("agents.add", map[string]any{"url": twoURL}, &a2)
	c.result("agents.setCredential", map[string]any{"id": a2.ID, "scheme": "key", "apiKey": "key-two"}, nil)
	m1, m2 := "remote://"+a1.ID, "remote://"+a2.ID
	ch, err := h.Channels.Create(t.Context(), channels.CreateParams{Name: "plans", Members: []string{m1, m2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Channels.Publish(t.Context(), channels.PublishParams{ChannelID: ch.ID,
		Parts: []json.RawMessage{json.RawMessage(`{"type":"text","text":"@all plan a release"}`)}}); err != nil {
		t.Fatal(err)
	}
	asking := map[string]string{} // member → the task that asks
	for len(asking) < 2 {
		var st bridge.State
		json.Unmarshal(c.await("bridge", func(d json.RawMessage) bool {
			var s bridge.State
			return json.Unmarshal(d, &s) == nil && s.ChannelID == ch.ID && s.State == "input-required"
		}), &st)
		asking[st.Member] = st.TaskID
	}
	// The surfaces reach the channel as draft data parts, one per A2UI message, with the media type.
	var events []channels.MessageEvent
	deadline := time.Now().Add(30 * time.Second)
	for {
		events = history(t, h.Channels, ch.ID)
		forms := 0
		for _, ev := range events {
			if strings.Contains(string(asJSON(ev.Parts)), "createSurface") {
				forms++
			}
		}
		if forms == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the channel has %d forms: %s", forms, asJSON(events))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, ev := range events {
		if ev.Author != m1 || !strings.Contains(string(asJSON(ev.Parts)), "createSurface") {
			continue
		}
		var parts []map[string]any
		json.Unmarshal(asJSON(ev.Parts), &parts)
		if len(parts) != 3 || parts[0]["type"] != "text" {
			t.Fatalf("the form's parts: %s", asJSON(parts))
		}
		for _, p := range parts[1:] {
			meta, _ := p["metadata"].(map[string]any)
			if _, isObj := p["data"].(map[string]any); p["type"] != "data" || !isObj || meta["mimeType"] != a2ui.MediaType {
				t.Errorf("an A2UI message in the channel: %s", asJSON(p))
			}
		}
	}

	action := func(surface string) map[string]any {
		return map[string]any{"version": "v0.9", "action": map[string]any{"name": "plan_it", "surfaceId": surface, "sourceComponentId": "root",
			"timestamp": "2026-11-28T12:00:00Z", "context": map[string]any{"version": "2.0"}}}
	}
	model := map[string]any{"version": "v0.9", "surfaces": map[string]any{"plan": map[string]any{"release": "2.0"}}}
	for name, params := range map[string]map[string]any{
		"the other agent's task": {"channelId": ch.ID, "member": m2, "taskId": asking[m1], "a2ui": []any{action("plan")}},
		"a surface not drawn":    {"channelId": ch.ID, "member": m1, "taskId": asking[m1], "a2ui": []any{action("elsewhere")}},
		"another surface's data model": {"channelId": ch.ID, "member": m1, "taskId": asking[m1], "a2ui": []any{action("plan")},
			"a2uiDataModel": map[string]any{"version": "v0.9", "surfaces": map[string]any{"elsewhere": map[string]any{}}}},
		"not an action": {"channelId": ch.ID, "member": m1, "taskId": asking[m1], "a2ui": []any{map[string]any{"version": "v0.9", "deleteSurface": map[string]any{"surfaceId": "plan"}}}},
		"not a member":  {"channelId": ch.ID, "member": "remote://demo", "taskId": asking[m1], "a2ui": []any{action("plan")}},
	} {
		if f := c.call("bridge.act", params); f.Error == nil || f.Error.Code != "invalid_params" {
			t.Errorf("%s: %+v", name, f.Error)
		}
	}
	if f := c.call("bridge.act", map[string]any{"channelId": "no-such-channel", "member": m1, "taskId": asking[m1], "a2ui": []any{action("plan")}}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("unknown channel: %+v", f.Error)
	}

	var res struct{ Event channels.MessageEvent }
	c.result("bridge.act", map[string]any{"channelId": ch.ID, "member": m1, "taskId": asking[m1], "a2ui": []any{action("plan")}, "a2uiDataModel": model}, &res)
	if !strings.Contains(string(asJSON(res.Event.Parts)), "chose plan it (version: 2.0)") || strings.HasPrefix(res.Event.Author, "remote://") {
		t.Errorf("the channel's line of the action: %s by %s", asJSON(res.Event.Parts), res.Event.Author)
	}
	// The update comes back into the channel as the creator's, in its task (the agent received the
	// action before it answered).
	deadline = time.Now().Add(30 * time.Second)
	for !strings.Contains(string(asJSON(history(t, h.Channels, ch.ID))), "Planned.") {
		if time.Now().After(deadline) {
			t.Fatal("the creator's update never reached the channel")
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := one.received()
	if len(got) != 2 {
		t.Fatalf("the creator received %d messages, want the mention and the action", len(got))
	}
	act := got[1]
	if act.taskID != asking[m1] || act.key != "key-one" || !strings.Contains(act.ext, "https://a2ui.org/a2a-extension/a2ui/v0.9") || !strings.Contains(act.extOld, "https://a2ui.org/a2a-extension/a2ui/v0.9") {
		t.Errorf("the action came in task %q (want %q), key %q, extension headers %q / %q", act.taskID, asking[m1], act.key, act.ext, act.extOld)
	}
	if len(act.msg.Parts) != 1 || !a2ui.IsPart(act.msg.Parts[0]) || !strings.Contains(string(asJSON(act.msg.Parts[0])), `"plan_it"`) {
		t.Errorf("the action's parts: %s", asJSON(act.msg.Parts))
	}
	if dm, _ := json.Marshal(act.msg.Metadata["a2uiClientDataModel"]); string(dm) != string(asJSON(model)) {
		t.Errorf("the data model the creator got: %s", dm)
	}
	if n := len(two.received()); n != 1 {
		t.Errorf("the other agent received %d messages, want only the mention", n)
	}
	if n := len(two.received()); n != 1 {
		t.Errorf("the other agent received %d messages after the update, want only the mention", n)
	}
}

func asJSON(v any) []byte {
	j, _ := json.Marshal(v)
	return j
}

// history is every event of the channel, as the owner reads them.
func history(t *testing.T, s *channels.Service, id string) []channels.MessageEvent {
	t.Helper()
	page, err := s.History(t.Context(), channels.HistoryParams{ChannelID: id, PageSize: 200})
	if err != nil {
		t.Fatal(err)
	}
	var out []channels.MessageEvent
	for _, raw := range page.Events {
		var ev channels.MessageEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}
