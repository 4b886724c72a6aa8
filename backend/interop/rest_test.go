package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/tasks"
)

// pathRecorder is an HTTP client that notes the path of every request it sends.
type pathRecorder struct {
	mu    sync.Mutex
	paths []string
}

func (p *pathRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	p.mu.Lock()
	p.paths = append(p.paths, r.URL.Path)
	p.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (p *pathRecorder) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.paths)
}

// restClient is a2a-go/v2's client on the card's HTTP+JSON interface (forced: JSON-RPC comes first
// in the card), with every request's path recorded.
func restClient(t *testing.T, card *a2a.AgentCard, opts ...a2aclient.FactoryOption) (*a2aclient.Client, *pathRecorder) {
	t.Helper()
	rec := &pathRecorder{}
	hc := &http.Client{Transport: rec}
	opts = append(opts, a2aclient.WithRESTTransport(hc), a2aclient.WithJSONRPCTransport(hc),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolHTTPJSON}}))
	client, err := a2aclient.NewFromCard(t.Context(), card, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return client, rec
}

// bindings are the bindings besides JSON-RPC that a2a-go/v2's client is run on against the hub and
// the demo agent: each makes a client forced onto that binding, and checks afterwards that every
// call went there.
var bindings = []struct {
	name   string
	client func(t *testing.T, card *a2a.AgentCard, opts ...a2aclient.FactoryOption) (c *a2aclient.Client, check func(t *testing.T))
}{
	{"REST", func(t *testing.T, card *a2a.AgentCard, opts ...a2aclient.FactoryOption) (*a2aclient.Client, func(*testing.T)) {
		c, rec := restClient(t, card, opts...)
		return c, func(t *testing.T) {
			for _, p := range rec.seen() {
				if !strings.HasPrefix(p, server.RESTPath+"/") {
					t.Errorf("a request went to %s, not the REST binding", p)
				}
			}
		}
	}},
	{"gRPC", func(t *testing.T, card *a2a.AgentCard, opts ...a2aclient.FactoryOption) (*a2aclient.Client, func(*testing.T)) {
		c, rec := grpcClient(t, card, opts...)
		return c, func(t *testing.T) {
			for _, m := range rec.seen() {
				if !strings.HasPrefix(m, "/lf.a2a.v1.A2AService/") {
					t.Errorf("a call went to %s, not v1.0's gRPC service", m)
				}
			}
			if len(rec.seen()) == 0 {
				t.Error("no call went over gRPC")
			}
		}
	}},
}

// TestCardListsRESTAndClientsKeepJSONRPC: the card offers HTTP+JSON after JSON-RPC; a2a-go's client
// left to choose still speaks JSON-RPC, and forced to REST speaks REST at the card's URL.
func TestCardListsRESTAndClientsKeepJSONRPC(t *testing.T) {
	a := startDemoAgent(t)
	ctx := t.Context()
	card, err := agentcard.DefaultResolver.Resolve(ctx, a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	var rest *a2a.AgentInterface
	for _, iface := range card.SupportedInterfaces {
		if iface.ProtocolBinding == a2a.TransportProtocolHTTPJSON && rest == nil {
			rest = iface // v1.0's comes first, then v0.3's at the same URL
		}
	}
	if rest == nil || rest.URL != a.BaseURL+server.RESTPath || rest.ProtocolVersion != a2a.Version {
		t.Fatalf("the card's HTTP+JSON interface: %+v (interfaces %+v)", rest, card.SupportedInterfaces)
	}
	if card.SupportedInterfaces[0].ProtocolBinding != a2a.TransportProtocolJSONRPC {
		t.Fatalf("the first interface is %+v, want JSON-RPC", card.SupportedInterfaces[0])
	}
	// The served document: v0.3 readers still see JSON-RPC at /a2a first, and REST among v0.3's
	// interfaces (v0.3's REST paths are served below the same URL).
	resp, err := http.Get(a.BaseURL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var doc struct {
		URL                  string `json:"url"`
		PreferredTransport   string `json:"preferredTransport"`
		AdditionalInterfaces []struct {
			Transport string `json:"transport"`
		} `json:"additionalInterfaces"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.URL != a.BaseURL+server.RPCPath || doc.PreferredTransport != "JSONRPC" {
		t.Fatalf("the card's v0.3 fields: %+v %v", doc, err)
	}
	if !slices.ContainsFunc(doc.AdditionalInterfaces, func(i struct {
		Transport string `json:"transport"`
	}) bool {
		return i.Transport == "HTTP+JSON"
	}) {
		t.Fatalf("v0.3's additionalInterfaces do not list HTTP+JSON, which is served in v0.3 too: %s", raw)
	}
	eps, err := agents.Endpoints(raw)
	if err != nil || len(eps) == 0 {
		t.Fatalf("the hub's own client reads the card: %v %v", eps, err)
	}
	checkOwnClientEndpoints(t, eps, a)

	send := func(c *a2aclient.Client) {
		t.Helper()
		if _, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi"))}); err != nil {
			t.Fatal(err)
		}
	}
	rec := &pathRecorder{}
	hc := &http.Client{Transport: rec}
	chosen, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc))
	if err != nil {
		t.Fatal(err)
	}
	send(chosen)
	if got := rec.seen(); len(got) != 1 || got[0] != server.RPCPath {
		t.Fatalf("a2a-go's client left to choose called %v, want JSON-RPC at %s", got, server.RPCPath)
	}
	forced, rrec := restClient(t, card)
	send(forced)
	if got := rrec.seen(); len(got) != 1 || got[0] != server.RESTPath+"/message:send" {
		t.Fatalf("a2a-go's client forced to REST called %v", got)
	}
}

// TestGoRESTClientAgainstDemoAgent drives the demo agent over HTTP+JSON with a2a-go/v2's REST
// client: every operation, and the tasks it creates are v1.0 tasks.
func TestGoClientOnEachBindingAgainstDemoAgent(t *testing.T) {
	a := startDemoAgent(t)
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			client, check := b.client(t, card)
			defer check(t)
			driveDemoAgent(t, a, client)
		})
	}
}

// driveDemoAgent runs every operation against the demo agent with client, on whatever binding.
func driveDemoAgent(t *testing.T, a *hub.Agent, client *a2aclient.Client) {
	ctx := t.Context()
	res, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello over rest"))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || artifactText(task) != "hello over rest" {
		t.Fatalf("send: %#v", res)
	}
	if d, err := a.Tasks.DialectOf(ctx, task.ID); err != nil || d != tasks.DialectV1 {
		t.Fatalf("a task sent over this binding is in dialect %v (%v), want v1.0", d, err)
	}
	got, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: task.ID})
	if err != nil || got.ID != task.ID || artifactText(got) != "hello over rest" {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, err := client.ListTasks(ctx, &a2a.ListTasksRequest{ContextID: task.ContextID})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Fatalf("list: %+v %v", list, err)
	}
	// v1.0: an ended task takes no subscription and no message, as on JSON-RPC.
	for _, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: task.ID}) {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Fatalf("subscribe to a completed task: %v", err)
		}
	}
	if _, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("more"))}); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("a message to a completed task: %v", err)
	}
	if _, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Fatalf("cancel a completed task: %v", err)
	}
	if _, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("get an unknown task: %v", err)
	}

	t.Run("stream, resubscribe, push configs, cancel", func(t *testing.T) {
		var id a2a.TaskID
		for ev, err := range client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 100"))}) {
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.State == a2a.TaskStateWorking {
				id = s.TaskID
				break // the client goes away; the task keeps running
			}
		}
		if id == "" {
			t.Fatal("the stream ended before the task worked")
		}
		// A task on its turn takes no further message (the busy-task guard), as on JSON-RPC.
		if _, err := client.SendMessage(ctx, &a2a.SendMessageRequest{Message: &a2a.Message{ID: "m-busy", Role: a2a.MessageRoleUser, TaskID: id,
			Parts: a2a.ContentParts{a2a.NewTextPart("again")}}}); !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Fatalf("a message to a working task: %v", err)
		}

		cfg, err := client.CreateTaskPushConfig(ctx, &a2a.PushConfig{TaskID: id, ID: "hook-1", URL: "http://127.0.0.1:9/hook", Token: "tok"})
		if err != nil || cfg.ID != "hook-1" || cfg.URL != "http://127.0.0.1:9/hook" {
			t.Fatalf("create push config: %+v %v", cfg, err)
		}
		if got, err := client.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: id, ID: "hook-1"}); err != nil || got.URL != cfg.URL {
			t.Fatalf("get push config: %+v %v", got, err)
		}
		if all, err := client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: id}); err != nil || len(all) != 1 || all[0].ID != "hook-1" {
			t.Fatalf("list push configs: %+v %v", all, err)
		}
		if err := client.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: id, ID: "hook-1"}); err != nil {
			t.Fatalf("delete push config: %v", err)
		}
		if all, err := client.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: id}); err != nil || len(all) != 0 {
			t.Fatalf("push configs after delete: %+v %v", all, err)
		}

		var events []a2a.Event
		canceled := false
		for ev, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
			if !canceled {
				canceled = true
				if got, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err != nil || got.ID != id {
					t.Fatalf("cancel: %+v %v", got, err)
				}
			}
		}
		if first, ok := events[0].(*a2a.Task); !ok || first.ID != id || first.Status.State != a2a.TaskStateWorking {
			t.Fatalf("the subscription opens with %#v, want the working task", events[0])
		}
		if last, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); !ok || last.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("the subscription ends with %#v, want canceled", events[len(events)-1])
		}
		if got, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id}); err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("cancel a canceled task again (idempotent, as on JSON-RPC): %+v %v", got, err)
		}
	})
}

// TestGoClientOnEachBindingAgainstAuthHub: the hub with anonymous access off takes REST and gRPC calls
// with an API key only, and a principal sees only its own tasks on each binding as over JSON-RPC.
func TestGoClientOnEachBindingAgainstAuthHub(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			h, key, _ := startAuthHub(t, "alice")
			card, err := agentcard.DefaultResolver.Resolve(t.Context(), h.Agent.BaseURL)
			if err != nil {
				t.Fatal(err)
			}
			creds := a2aclient.NewInMemoryCredentialsStore()
			client, check := b.client(t, card, a2aclient.WithCallInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
			defer check(t)
			driveAuthHub(t, h, key, client, creds)
		})
	}
}

// driveAuthHub checks, with client on whatever binding, that the hub with anonymous access off
// takes calls with an API key only, and that a principal sees only its own tasks.
func driveAuthHub(t *testing.T, h *hub.Hub, key string, client *a2aclient.Client, creds *a2aclient.InMemoryCredentialsStore) {
	ctx := t.Context()
	_, carolKey, err := h.Auth.Principals.Add(ctx, "carol")
	if err != nil {
		t.Fatal(err)
	}
	as := func(session string) context.Context {
		return a2aclient.AttachSessionID(ctx, a2aclient.SessionID(session))
	}
	msg := func() *a2a.SendMessageRequest {
		return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello over rest")),
			Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
	}
	before := countTasks(t, h.Agent.Tasks)
	if _, err := client.SendMessage(as("nobody"), msg()); !errors.Is(err, a2a.ErrUnauthenticated) {
		t.Fatalf("a send without a credential: %v, want unauthenticated", err)
	}
	creds.Set("wrong", "apiKey", "ahk_not-a-key-this-hub-issued")
	if _, err := client.ListTasks(as("wrong"), &a2a.ListTasksRequest{}); !errors.Is(err, a2a.ErrUnauthenticated) {
		t.Fatalf("a list with a wrong key: %v, want unauthenticated", err)
	}
	for ev, err := range client.SendStreamingMessage(as("nobody"), msg()) {
		if ev != nil || !errors.Is(err, a2a.ErrUnauthenticated) {
			t.Fatalf("a stream without a credential: %v %v", ev, err)
		}
	}
	if after := countTasks(t, h.Agent.Tasks); after != before {
		t.Fatalf("refused sends stored tasks: %d before, %d after", before, after)
	}

	creds.Set("alice", "apiKey", a2aclient.AuthCredential(key))
	creds.Set("carol", "apiKey", a2aclient.AuthCredential(carolKey))
	res, err := client.SendMessage(as("alice"), msg())
	if err != nil {
		t.Fatalf("alice's send: %v", err)
	}
	task := res.(*a2a.Task)
	if got, err := client.GetTask(as("alice"), &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.ID != task.ID {
		t.Fatalf("alice reads her task: %+v %v", got, err)
	}
	if list, err := client.ListTasks(as("alice"), &a2a.ListTasksRequest{}); err != nil || len(list.Tasks) != 1 {
		t.Fatalf("alice's list: %+v %v", list, err)
	}
	// Carol sees nothing of alice's.
	if _, err := client.GetTask(as("carol"), &a2a.GetTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("carol reads alice's task: %v", err)
	}
	if list, err := client.ListTasks(as("carol"), &a2a.ListTasksRequest{}); err != nil || len(list.Tasks) != 0 {
		t.Fatalf("carol's list: %+v %v", list, err)
	}
	if _, err := client.CancelTask(as("carol"), &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("carol cancels alice's task: %v", err)
	}
	if _, err := client.CreateTaskPushConfig(as("carol"), &a2a.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook"}); err == nil {
		t.Fatal("carol set a push config on alice's task")
	}
	for _, err := range client.SubscribeToTask(as("carol"), &a2a.SubscribeToTaskRequest{ID: task.ID}) {
		if !errors.Is(err, a2a.ErrTaskNotFound) {
			t.Fatalf("carol subscribes to alice's task: %v", err)
		}
	}
	cfg, err := client.CreateTaskPushConfig(as("alice"), &a2a.PushConfig{TaskID: task.ID, ID: "h", URL: "http://127.0.0.1:9/hook"})
	if err != nil || cfg.ID != "h" {
		t.Fatalf("alice's push config: %+v %v", cfg, err)
	}
	if all, err := client.ListTaskPushConfigs(as("alice"), &a2a.ListTaskPushConfigRequest{TaskID: task.ID}); err != nil || len(all) != 1 {
		t.Fatalf("alice's push configs: %+v %v", all, err)
	}
	if got, err := client.CancelTask(as("alice"), &a2a.CancelTaskRequest{ID: task.ID}); err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("alice cancels her task: %+v %v", got, err)
	}
}

// countTasks is how many tasks the store holds, whoever owns them.
func countTasks(t *testing.T, s *tasks.Store) int {
	t.Helper()
	res, err := s.List(context.Background(), &a2a.ListTasksRequest{PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	return res.TotalSize
}

// restErrorBody is the binding's error object (AIP-193's google.rpc.Status, as a2a-go writes it).
type restErrorBody struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details []struct {
			Type   string `json:"@type"`
			Reason string `json:"reason"`
			Domain string `json:"domain"`
		} `json:"details"`
	} `json:"error"`
}

// rawREST sends one request to the REST binding and decodes its error body, if any.
func rawREST(t *testing.T, method, url, contentType string, body []byte, headers map[string]string) (*http.Response, restErrorBody) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	if h, ok := headers["Host"]; ok {
		req.Host = h
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e restErrorBody
	if resp.StatusCode != http.StatusOK {
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s %s: status %d with Content-Type %q, want the binding's JSON error", method, url, resp.StatusCode, ct)
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatalf("%s %s: status %d, error body: %v", method, url, resp.StatusCode, err)
		}
	}
	return resp, e
}

// TestRESTBadInput: each malformed call gets the binding's HTTP error with the A2A reason a2a-go's
// client maps back, and stores nothing.
func TestRESTBadInput(t *testing.T) {
	a := startDemoAgent(t)
	base := a.BaseURL + server.RESTPath
	send := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`)
	deep := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"a":` +
		strings.Repeat("[", server.MaxNestingDepth+10) + strings.Repeat("]", server.MaxNestingDepth+10) + `}}}`)
	before := countTasks(t, a.Tasks)
	for _, c := range []struct {
		name, method, path, contentType string
		body                            []byte
		headers                         map[string]string
		status                          int
		reason                          string
	}{
		{"wrong method on a route", http.MethodGet, "/message:send", "", nil, nil, http.StatusMethodNotAllowed, "INVALID_REQUEST"},
		{"wrong method on tasks", http.MethodDelete, "/tasks", "", nil, nil, http.StatusMethodNotAllowed, "INVALID_REQUEST"},
		{"unknown path", http.MethodPost, "/messages:send", "application/json", send, nil, http.StatusNotFound, "METHOD_NOT_FOUND"},
		{"unknown path below a task", http.MethodGet, "/tasks/x/artifacts", "", nil, nil, http.StatusNotFound, "METHOD_NOT_FOUND"},
		{"text/plain body", http.MethodPost, "/message:send", "text/plain", send, nil, http.StatusUnsupportedMediaType, "INVALID_REQUEST"},
		{"form body", http.MethodPost, "/message:stream", "application/x-www-form-urlencoded", send, nil, http.StatusUnsupportedMediaType, "INVALID_REQUEST"},
		{"no content type", http.MethodPost, "/message:send", "", send, nil, http.StatusUnsupportedMediaType, "INVALID_REQUEST"},
		{"oversized body", http.MethodPost, "/message:send", "application/json", append(append([]byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"`),
			bytes.Repeat([]byte("x"), server.DefaultMaxBodyBytes)...), `"}]}}`...), nil, http.StatusRequestEntityTooLarge, "INVALID_REQUEST"},
		{"too deeply nested", http.MethodPost, "/message:send", "application/json", deep, nil, http.StatusBadRequest, "INVALID_REQUEST"},
		{"not JSON", http.MethodPost, "/message:send", "application/json", []byte(`{"message":`), nil, http.StatusBadRequest, "PARSE_ERROR"},
		{"unknown task", http.MethodGet, "/tasks/no-such-task", "", nil, nil, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"subscribe to an unknown task", http.MethodPost, "/tasks/no-such-task:subscribe", "", nil, nil, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"message to an unknown task", http.MethodPost, "/message:send", "application/json",
			[]byte(`{"message":{"messageId":"m2","taskId":"no-such-task","role":"ROLE_USER","parts":[{"text":"x"}]}}`), nil, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"unsupported version", http.MethodPost, "/message:send", "application/json", send, map[string]string{"A2A-Version": "0.5"}, http.StatusBadRequest, "VERSION_NOT_SUPPORTED"},
		{"foreign Host", http.MethodPost, "/message:send", "application/json", send, map[string]string{"Host": "evil.example"}, http.StatusForbidden, "UNAUTHORIZED"},
		{"foreign Origin", http.MethodPost, "/message:send", "application/json", send, map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden, "UNAUTHORIZED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, e := rawREST(t, c.method, base+c.path, c.contentType, c.body, c.headers)
			if resp.StatusCode != c.status || e.Error.Code != c.status || len(e.Error.Details) == 0 ||
				e.Error.Details[0].Reason != c.reason || e.Error.Details[0].Domain != "a2a-protocol.org" || e.Error.Message == "" {
				t.Fatalf("status %d, body %+v; want %d with reason %s", resp.StatusCode, e, c.status, c.reason)
			}
			if c.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == "" {
				t.Fatal("405 without Allow")
			}
		})
	}
	// A body of unknown length (chunked) is typed too.
	chunked, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/message:send", io.MultiReader(bytes.NewReader(send)))
	if err != nil {
		t.Fatal(err)
	}
	chunked.Header.Set("Content-Type", "text/plain")
	if resp, err := http.DefaultClient.Do(chunked); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType || resp.ContentLength == 0 {
		t.Fatalf("a chunked text/plain send: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if after := countTasks(t, a.Tasks); after != before {
		t.Fatalf("bad calls stored tasks: %d before, %d after", before, after)
	}
	// The same body, well sent, is taken: the refusals above were for what they name.
	if resp, e := rawREST(t, http.MethodPost, base+"/message:send", "application/json", send, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("a good send: %d %+v", resp.StatusCode, e)
	}
	if after := countTasks(t, a.Tasks); after != before+1 {
		t.Fatalf("a good send stored %d tasks", after-before)
	}
}

// TestRESTWithoutCredential: the hub with anonymous access off answers every REST route without a
// credential with 401 in the binding's terms (and the bearer challenge), and stores nothing.
func TestRESTWithoutCredential(t *testing.T) {
	h, key, _ := startAuthHub(t, "alice")
	base := h.Agent.BaseURL + server.RESTPath
	before := countTasks(t, h.Agent.Tasks)
	send := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`)
	for _, c := range []struct {
		method, path, contentType string
		body                      []byte
	}{
		{http.MethodPost, "/message:send", "application/json", send},
		{http.MethodPost, "/message:stream", "application/json", send},
		{http.MethodGet, "/tasks", "", nil},
		{http.MethodGet, "/tasks/x", "", nil},
		{http.MethodPost, "/tasks/x:cancel", "", nil},
		{http.MethodGet, "/tasks/x/pushNotificationConfigs", "", nil},
		{http.MethodGet, "/extendedAgentCard", "", nil},
	} {
		resp, e := rawREST(t, c.method, base+c.path, c.contentType, c.body, nil)
		if resp.StatusCode != http.StatusUnauthorized || e.Error.Status != "UNAUTHENTICATED" || e.Error.Details[0].Reason != "UNAUTHENTICATED" ||
			!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("%s %s without a credential: %d %+v", c.method, c.path, resp.StatusCode, e)
		}
	}
	if resp, e := rawREST(t, http.MethodPost, base+"/message:send", "application/json", send, map[string]string{"X-Api-Key": "ahk_wrong"}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong key: %d %+v", resp.StatusCode, e)
	}
	if after := countTasks(t, h.Agent.Tasks); after != before {
		t.Fatalf("refused calls stored tasks: %d before, %d after", before, after)
	}
	if resp, e := rawREST(t, http.MethodGet, base+"/tasks", "", nil, map[string]string{"X-Api-Key": key}); resp.StatusCode != http.StatusOK {
		t.Fatalf("the right key: %d %+v", resp.StatusCode, e)
	}
}

// TestStreamOnEachBindingEndsWhenItsKeyIsRevoked: a REST or gRPC stream outlives its request's
// authentication only until its key is revoked; it then ends with an UNAUTHENTICATED error, as a
// JSON-RPC stream ends with -32030.
func TestStreamOnEachBindingEndsWhenItsKeyIsRevoked(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			h, key, _ := startAuthHub(t, "alice")
			card, err := agentcard.DefaultResolver.Resolve(t.Context(), h.Agent.BaseURL)
			if err != nil {
				t.Fatal(err)
			}
			creds := a2aclient.NewInMemoryCredentialsStore()
			creds.Set("alice", "apiKey", a2aclient.AuthCredential(key))
			client, check := b.client(t, card, a2aclient.WithCallInterceptors(&a2aclient.AuthInterceptor{Service: creds}))
			defer check(t)
			revokeMidStream(t, h, client)
		})
	}
}

func revokeMidStream(t *testing.T, h *hub.Hub, client *a2aclient.Client) {
	ctx := t.Context()
	as := a2aclient.AttachSessionID(ctx, a2aclient.SessionID("alice"))
	res, err := client.SendMessage(as, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello, owner")),
		Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	var events []a2a.Event
	var last error
	for ev, err := range client.SubscribeToTask(as, &a2a.SubscribeToTaskRequest{ID: res.(*a2a.Task).ID}) {
		if err != nil {
			last = err
			break
		}
		events = append(events, ev)
		if len(events) == 1 {
			if err := h.Auth.Principals.Remove(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(events) == 0 || !errors.Is(last, a2a.ErrUnauthenticated) {
		t.Fatalf("after %d events the stream ended with %v, want unauthenticated", len(events), last)
	}
}

// TestGoV03RESTClientAgainstDemoAgent: a2a-go's v0.3 REST transport (paths under /v1) is served below
// the same /rest URL as v1.0's; its tasks are v0.3 tasks, and its refusals are the binding's.
func TestGoV03RESTClientAgainstDemoAgent(t *testing.T) {
	a := startDemoAgent(t)
	rec := &pathRecorder{}
	tr, err := a2av0.NewRESTTransport(a2av0.RESTTransportConfig{URL: a.BaseURL + server.RESTPath, Client: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	driveV03Transport(t, a, tr, "hello over v0.3 rest")
	for _, p := range rec.seen() {
		if !strings.HasPrefix(p, server.RESTPath+"/v1/") {
			t.Errorf("a request went to %s, not v0.3's REST paths", p)
		}
	}
	// The binding's own checks hold on v0.3's paths too.
	base := a.BaseURL + server.RESTPath + "/v1"
	before := countTasks(t, a.Tasks)
	send := []byte(`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"hello"}]}}`)
	for _, c := range []struct {
		name, method, path, contentType string
		body                            []byte
		status                          int
	}{
		{"wrong method", http.MethodGet, "/message:send", "", nil, http.StatusMethodNotAllowed},
		{"unknown path", http.MethodPost, "/messages:send", "application/json", send, http.StatusNotFound},
		{"v1.0's card path", http.MethodGet, "/extendedAgentCard", "", nil, http.StatusNotFound},
		{"text/plain body", http.MethodPost, "/message:send", "text/plain", send, http.StatusUnsupportedMediaType},
		{"oversized body", http.MethodPost, "/message:send", "application/json", append(append([]byte(`{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"`),
			bytes.Repeat([]byte("x"), server.DefaultMaxBodyBytes)...), `"}]}}`...), http.StatusRequestEntityTooLarge},
		{"not JSON", http.MethodPost, "/message:send", "application/json", []byte(`{"message":`), http.StatusBadRequest},
		{"a foreign Origin", http.MethodPost, "/message:send", "application/json", send, http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			headers := map[string]string{}
			if c.status == http.StatusForbidden {
				headers["Origin"] = "http://evil.example"
			}
			resp, e := rawREST(t, c.method, base+c.path, c.contentType, c.body, headers)
			if resp.StatusCode != c.status || e.Error.Code != c.status {
				t.Fatalf("status %d, body %+v; want %d", resp.StatusCode, e, c.status)
			}
		})
	}
	if after := countTasks(t, a.Tasks); after != before {
		t.Fatalf("bad calls stored tasks: %d before, %d after", before, after)
	}
}

// driveV03Transport runs a v0.3 transport of a2a-go (REST or gRPC) against the demo agent: a send
// (a v0.3 task), a stream to completion, a get, and the errors of an unknown task and of canceling
// an ended one.
func driveV03Transport(t *testing.T, a *hub.Agent, tr a2aclient.Transport, text string) {
	t.Helper()
	ctx := t.Context()
	res, err := tr.SendMessage(ctx, nil, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || artifactText(task) != text {
		t.Fatalf("send: %#v", res)
	}
	if d, err := a.Tasks.DialectOf(ctx, task.ID); err != nil || d != tasks.DialectV03 {
		t.Fatalf("a task sent over a v0.3 transport is in dialect %v (%v), want v0.3", d, err)
	}
	var states []a2a.TaskState
	for ev, err := range tr.SendStreamingMessage(ctx, nil, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("streamed"))}) {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			states = append(states, s.Status.State)
		}
	}
	if len(states) == 0 || states[len(states)-1] != a2a.TaskStateCompleted {
		t.Fatalf("the stream's states: %v", states)
	}
	if got, err := tr.GetTask(ctx, nil, &a2a.GetTaskRequest{ID: task.ID}); err != nil || got.ID != task.ID {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := tr.GetTask(ctx, nil, &a2a.GetTaskRequest{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("get an unknown task: %v", err)
	}
	if _, err := tr.CancelTask(ctx, nil, &a2a.CancelTaskRequest{ID: task.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Fatalf("cancel a completed task: %v", err)
	}
}
