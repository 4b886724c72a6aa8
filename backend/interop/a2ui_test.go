package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/demoagent"
)

// a2uiCheck is one document for js/a2ui-validate.mjs: a schema of A2UI v0.9 and a value.
type a2uiCheck struct {
	Schema string `json:"schema"`
	Data   any    `json:"data"`
	what   string
}

// validateA2UI checks each value against the official A2UI v0.9 JSON schemas, as shipped in the npm
// package @a2ui/web_core, with ajv (js/a2ui-validate.mjs): no code of the hub's decides.
func validateA2UI(t a2uiT, checks ...a2uiCheck) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@a2ui", "web_core", "package.json")); err != nil {
		t.Fatal("@a2ui/web_core is not installed; run: npm ci --prefix backend/interop/js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH")
	}
	in, _ := json.Marshal(checks)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "a2ui-validate.mjs")
	cmd.Dir, cmd.Stdin = jsDir, bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("a2ui-validate.mjs: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(checks) {
		t.Fatalf("a2ui-validate.mjs answered %d of %d:\n%s", len(lines), len(checks), out)
	}
	for i, l := range lines {
		var r struct {
			OK     bool     `json:"ok"`
			Errors []string `json:"errors"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || !r.OK {
			t.Errorf("%s is not valid against %s: %s", checks[i].what, checks[i].Schema, l)
		}
	}
}

// bothA2UI are the A2UI extensions the demo agent declares, as the hub's client activates them.
const bothA2UI = demoagent.A2UIExtension + ", " + demoagent.A2UIExtensionV08

// a2uiParts are the data of a message's A2UI parts (media type application/a2ui+json).
func a2uiParts(m *a2a.Message) []any {
	var out []any
	if m == nil {
		return nil
	}
	for _, p := range m.Parts {
		if d, ok := p.Content.(a2a.Data); ok && p.MediaType == demoagent.A2UIMediaType && p.Metadata["mimeType"] == demoagent.A2UIMediaType {
			out = append(out, d.Value)
		}
	}
	return out
}

// The demo agent speaks A2UI v0.9: its card declares the extension; "plan a release" answers with a
// form, the action the hub sends back updates the same surface. Everything on the wire is valid
// against the official schemas: the agent's surfaces, and the hub's capabilities, action and data
// model. The hub's client activates the extension with both headers on every request.
func TestA2UIDemoAgentAndHubClientAreSchemaValid(t *testing.T) {
	demo := startDemoAgent(t)
	card := fetchCard(t, demo.BaseURL, "1.0")
	if got := strings.Join(agents.A2UIExtensions(card), ", "); got != bothA2UI {
		t.Fatalf("the demo agent's card declares A2UI extensions %v, want %s", got, bothA2UI)
	}

	proxyURL, wire := recordingProxy(t, demo.BaseURL)
	card = bytes.ReplaceAll(card, []byte(demo.BaseURL), []byte(proxyURL))

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := agents.Dial(ctx, card, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// 1. the form
	first, err := chats.MessageOf(chats.Outgoing{Text: "plan a release"})
	if err != nil {
		t.Fatal(err)
	}
	var form []any
	var task a2a.TaskID
	var contextID string
	for ev, err := range conn.Send(ctx, first, true) {
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && st.Status.State == a2a.TaskStateInputRequired {
			form, task, contextID = a2uiParts(st.Status.Message), st.TaskID, st.ContextID
		}
	}
	if len(form) != 1 {
		t.Fatalf("the plan task asked with %d A2UI parts, want 1", len(form))
	}
	list, _ := form[0].([]any)
	create, _ := list[0].(map[string]any)["createSurface"].(map[string]any)
	surface, _ := create["surfaceId"].(string)
	if surface == "" || create["sendDataModel"] != true {
		t.Fatalf("the form's first message is not a createSurface asking for the data model: %v", list[0])
	}

	// 2. the action, as the UI hands it to the hub (chats.send's a2ui and a2uiDataModel)
	action := map[string]any{"version": "v0.9", "action": map[string]any{"name": "plan_release", "surfaceId": surface,
		"sourceComponentId": "submit", "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"context": map[string]any{"version": "2.0.0", "date": "2026-12-01", "channel": []any{"beta"}}}}
	model := map[string]any{"version": "v0.9", "surfaces": map[string]any{surface: map[string]any{"release": map[string]any{"version": "2.0.0"}}}}
	reply, err := chats.MessageOf(chats.Outgoing{Task: task, A2UI: []any{action}, A2UIDataModel: model})
	if err != nil {
		t.Fatal(err)
	}
	reply.ContextID = contextID
	var update []any
	var final a2a.TaskState
	for ev, err := range conn.Send(ctx, reply, true) {
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			final = st.Status.State
			update = append(update, a2uiParts(st.Status.Message)...)
		}
	}
	if final != a2a.TaskStateCompleted || len(update) != 1 {
		t.Fatalf("the action ended the task %s with %d A2UI parts, want completed with 1", final, len(update))
	}
	upd, _ := json.Marshal(update[0])
	if !strings.Contains(string(upd), `"surfaceId":"`+surface+`"`) || !strings.Contains(string(upd), "Version 2.0.0 goes out on the beta channel, on 2026-12-01.") {
		t.Fatalf("the update does not confirm the plan on the same surface: %s", upd)
	}

	// 3. what went over the wire
	checks := []a2uiCheck{
		{Schema: "server_to_client_list", Data: form[0], what: "the form"},
		{Schema: "server_to_client_list", Data: update[0], what: "the confirmation"},
		{Schema: "server_to_client_list", Data: demoagent.PlanDiscarded(surface), what: "the discard"},
	}
	sends := 0
	for _, r := range wire() {
		if r.ext != bothA2UI || r.xext != bothA2UI {
			t.Errorf("%s went with A2A-Extensions %q and X-A2A-Extensions %q, want %s in both", r.rpc.Method, r.ext, r.xext, bothA2UI)
		}
		m, method := r.rpc.Params.Message, r.rpc.Method
		if m.Metadata == nil {
			continue
		}
		sends++
		checks = append(checks, a2uiCheck{Schema: "client_capabilities", Data: m.Metadata["a2uiClientCapabilities"], what: method + "'s a2uiClientCapabilities"})
		if dm, ok := m.Metadata["a2uiClientDataModel"]; ok {
			checks = append(checks, a2uiCheck{Schema: "client_data_model", Data: dm, what: "the action's a2uiClientDataModel"})
		}
		for _, p := range m.Parts {
			if p.MediaType == demoagent.A2UIMediaType {
				checks = append(checks, a2uiCheck{Schema: "client_to_server_list", Data: p.Data, what: "the action part"})
			}
		}
	}
	if sends != 2 || len(checks) != 3+2+1+1 {
		t.Fatalf("saw %d sends and %d documents to check, want 2 sends (with capabilities), one data model and one action part", sends, len(checks))
	}
	validateA2UI(t, checks...)
}

// wireRequest is one JSON-RPC request the hub's client sent, with its extension headers.
type wireRequest struct {
	ext, xext string
	rpc       struct {
		Method string `json:"method"`
		Params struct {
			Message struct {
				Metadata map[string]any `json:"metadata"`
				Parts    []struct {
					Data      any            `json:"data"`
					MediaType string         `json:"mediaType"`
					Metadata  map[string]any `json:"metadata"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
}

// recordingProxy serves base through a proxy that records the JSON-RPC requests sent through it.
func recordingProxy(t *testing.T, base string) (proxyURL string, requests func() []wireRequest) {
	target, _ := url.Parse(base)
	var mu sync.Mutex
	var seen []wireRequest
	proxy := httputil.NewSingleHostReverseProxy(target)
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		req := wireRequest{ext: r.Header.Get("A2A-Extensions"), xext: r.Header.Get("X-A2A-Extensions")}
		if json.Unmarshal(body, &req.rpc) == nil && req.rpc.Method != "" { // not the card, say
			mu.Lock()
			seen = append(seen, req)
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ps.Close)
	return ps.URL, func() []wireRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// The demo agent's v0.8 variant ("plan a release v0.8"): each message a part of its own, valid
// against the official v0.8 schema with the standard catalog; the hub's userAction (one part, no
// data model) and its capabilities valid against v0.8's schemas; the confirmation on the same surface.
func TestA2UIv08DemoAgentAndHubClientAreSchemaValid(t *testing.T) {
	demo := startDemoAgent(t)
	proxyURL, wire := recordingProxy(t, demo.BaseURL)
	card := bytes.ReplaceAll(fetchCard(t, demo.BaseURL, "1.0"), []byte(demo.BaseURL), []byte(proxyURL))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := agents.Dial(ctx, card, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	send := func(m *a2a.Message) (parts []any, task a2a.TaskID, contextID string, final a2a.TaskState) {
		t.Helper()
		for ev, err := range conn.Send(ctx, m, true) {
			if err != nil {
				t.Fatal(err)
			}
			if st, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
				parts, task, contextID, final = append(parts, a2uiParts(st.Status.Message)...), st.TaskID, st.ContextID, st.Status.State
			}
		}
		return
	}
	first, err := chats.MessageOf(chats.Outgoing{Text: "plan a release v0.8"})
	if err != nil {
		t.Fatal(err)
	}
	form, task, contextID, state := send(first)
	if state != a2a.TaskStateInputRequired || len(form) != 3 {
		t.Fatalf("the v0.8 plan asked (%s) with %d A2UI parts, want input-required with 3 (surfaceUpdate, dataModelUpdate, beginRendering)", state, len(form))
	}
	begin, _ := form[2].(map[string]any)["beginRendering"].(map[string]any)
	surface, _ := begin["surfaceId"].(string)
	if surface == "" {
		t.Fatalf("the third part is not beginRendering: %v", form[2])
	}

	userAction := map[string]any{"userAction": map[string]any{"name": "plan_release", "surfaceId": surface, "sourceComponentId": "submit",
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "context": map[string]any{"version": "2.0.0", "date": "2026-12-01", "channel": []any{"beta"}}}}
	reply, err := chats.MessageOf(chats.Outgoing{Task: task, A2UI: []any{userAction}})
	if err != nil {
		t.Fatal(err)
	}
	reply.ContextID = contextID
	update, _, _, state := send(reply)
	if state != a2a.TaskStateCompleted || len(update) == 0 {
		t.Fatalf("the userAction ended the task %s with %d A2UI parts, want completed with the confirmation", state, len(update))
	}
	if upd, _ := json.Marshal(update); !strings.Contains(string(upd), "Version 2.0.0 goes out on the beta channel, on 2026-12-01.") || !strings.Contains(string(upd), `"surfaceId":"`+surface+`"`) {
		t.Fatalf("the update does not confirm the plan on the same surface: %s", upd)
	}

	var checks []a2uiCheck
	for i, m := range append(append(form, update...), toAny(demoagent.PlanDiscardedV08(surface))...) {
		checks = append(checks, a2uiCheck{Schema: "v0_8/server_to_client_with_standard_catalog", Data: m, what: fmt.Sprintf("the agent's message %d", i+1)})
	}
	actions := 0
	for _, r := range wire() {
		if r.ext != bothA2UI || r.xext != bothA2UI {
			t.Errorf("%s went with A2A-Extensions %q and X-A2A-Extensions %q, want %s in both", r.rpc.Method, r.ext, r.xext, bothA2UI)
		}
		m := r.rpc.Params.Message
		if m.Metadata == nil {
			continue
		}
		checks = append(checks, a2uiCheck{Schema: "v0_8/a2ui_client_capabilities_schema", Data: m.Metadata["a2uiClientCapabilities"], what: r.rpc.Method + "'s a2uiClientCapabilities"})
		if _, ok := m.Metadata["a2uiClientDataModel"]; ok {
			t.Errorf("a v0.8 surface's data model went to the agent: v0.8 has none")
		}
		for _, p := range m.Parts {
			if p.MediaType == demoagent.A2UIMediaType {
				actions++
				checks = append(checks, a2uiCheck{Schema: "v0_8/client_to_server", Data: p.Data, what: "the userAction part"})
			}
		}
	}
	if actions != 1 {
		t.Fatalf("the hub sent %d A2UI parts, want the one userAction", actions)
	}
	validateA2UI(t, checks...)
}

// toAny is a list of messages as the values a2uiCheck holds.
func toAny(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// The validator itself refuses what the schemas refuse, so a pass above means something.
func TestA2UIValidatorRefusesInvalidMessages(t *testing.T) {
	bad := []any{map[string]any{"version": "v0.9", "updateComponents": map[string]any{"surfaceId": "s",
		"components": []any{map[string]any{"id": "root", "component": "Script", "src": "javascript:alert(1)"}}}}}
	noTime := []any{map[string]any{"version": "v0.9", "action": map[string]any{"name": "x", "surfaceId": "s", "sourceComponentId": "b", "context": map[string]any{}}}}
	bad08 := map[string]any{"surfaceUpdate": map[string]any{"surfaceId": "s",
		"components": []any{map[string]any{"id": "root", "component": map[string]any{"Script": map[string]any{"src": "javascript:alert(1)"}}}}}}
	noTime08 := map[string]any{"userAction": map[string]any{"name": "x", "surfaceId": "s", "sourceComponentId": "b", "context": map[string]any{}}}
	ft := &fakeT{T: t}
	validateA2UI(ft, a2uiCheck{Schema: "server_to_client_list", Data: bad, what: "an unknown component"},
		a2uiCheck{Schema: "client_to_server_list", Data: noTime, what: "an action without a timestamp"},
		a2uiCheck{Schema: "v0_8/server_to_client_with_standard_catalog", Data: bad08, what: "an unknown v0.8 component"},
		a2uiCheck{Schema: "v0_8/client_to_server", Data: noTime08, what: "a v0.8 userAction without a timestamp"})
	if ft.errors != 4 {
		t.Fatalf("the validator refused %d of 4 invalid documents", ft.errors)
	}
}

// a2uiT is what validateA2UI needs of a test.
type a2uiT interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
	Context() context.Context
}

// fakeT counts the errors reported instead of failing the test.
type fakeT struct {
	*testing.T
	errors int
}

func (f *fakeT) Errorf(string, ...any) { f.errors++ }
