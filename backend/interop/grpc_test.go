package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/server"
)

// methodRecorder notes the full method name of every gRPC call a client makes.
type methodRecorder struct {
	mu      sync.Mutex
	methods []string
}

func (m *methodRecorder) note(method string) {
	m.mu.Lock()
	m.methods = append(m.methods, method)
	m.mu.Unlock()
}

func (m *methodRecorder) seen() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.methods)
}

func (m *methodRecorder) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			m.note(method)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			m.note(method)
			return streamer(ctx, desc, cc, method, opts...)
		})}
}

// grpcClient is a2a-go/v2's client on the card's v1.0 gRPC interface (forced: it comes last), with
// every call's method recorded.
func grpcClient(t *testing.T, card *a2a.AgentCard, opts ...a2aclient.FactoryOption) (*a2aclient.Client, *methodRecorder) {
	t.Helper()
	rec := &methodRecorder{}
	opts = append(opts, grpcv1.WithGRPCTransport(rec.dialOptions()...),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolGRPC}}))
	client, err := a2aclient.NewFromCard(t.Context(), card, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Destroy() })
	return client, rec
}

// TestCardListsGRPC: an agent started with a gRPC address lists it last in supportedInterfaces, for
// v1.0 and v0.3, and among v0.3's additionalInterfaces; a client left to choose keeps JSON-RPC, and
// the hub's own client (JSON-RPC only) still finds its endpoints.
func TestCardListsGRPC(t *testing.T) {
	a := startDemoAgent(t)
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), a.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	// Each version as host:port (a2a-go's clients dial it, and take the first), then again as the
	// absolute URL the specification asks for (the TCK reads that one, the last).
	var listed []string
	for _, iface := range card.SupportedInterfaces {
		if iface.ProtocolBinding == a2a.TransportProtocolGRPC {
			listed = append(listed, string(iface.ProtocolVersion)+" "+iface.URL)
		}
	}
	if want := []string{"1.0 " + a.GRPCAddr, "0.3 " + a.GRPCAddr, "1.0 grpc://" + a.GRPCAddr, "0.3 grpc://" + a.GRPCAddr}; !slices.Equal(listed, want) ||
		card.SupportedInterfaces[0].ProtocolBinding != a2a.TransportProtocolJSONRPC {
		t.Fatalf("the card's gRPC interfaces: %v, want %v", listed, want)
	}
	resp, err := http.Get(a.BaseURL + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var doc struct {
		AdditionalInterfaces []struct {
			URL       string `json:"url"`
			Transport string `json:"transport"`
		} `json:"additionalInterfaces"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || !slices.ContainsFunc(doc.AdditionalInterfaces, func(i struct {
		URL       string `json:"url"`
		Transport string `json:"transport"`
	}) bool {
		return i.Transport == "GRPC" && i.URL == a.GRPCAddr
	}) {
		t.Fatalf("v0.3's additionalInterfaces: %+v %v", doc.AdditionalInterfaces, err)
	}
	eps, err := agents.Endpoints(raw)
	if err != nil || len(eps) == 0 {
		t.Fatalf("the hub's own client reads the card: %v %v", eps, err)
	}
	checkOwnClientEndpoints(t, eps, a)
}

// TestGoV03GRPCClientAgainstDemoAgent: a2a-go's v0.3 gRPC transport (v0.3's a2a.v1.A2AService) is
// served beside v1.0's on the same port; its tasks are v0.3 tasks.
func TestGoV03GRPCClientAgainstDemoAgent(t *testing.T) {
	a := startDemoAgent(t)
	rec := &methodRecorder{}
	conn, err := grpc.NewClient(a.GRPCAddr, rec.dialOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	tr := grpcv0.NewGRPCTransport(conn)
	defer tr.Destroy()
	driveV03Transport(t, a, tr, "hello over v0.3 grpc")
	for _, m := range rec.seen() {
		if !strings.HasPrefix(m, "/a2a.v1.A2AService/") {
			t.Errorf("a call went to %s, not v0.3's service", m)
		}
	}
}

// grpcReason is the A2A reason in a gRPC error's ErrorInfo.
func grpcReason(err error) string {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == "a2a-protocol.org" {
			return info.Reason
		}
	}
	return ""
}

// TestGRPCBadInput: each bad call gets its gRPC status with the A2A reason a2a-go's client maps
// back, and stores nothing; a browser's plain HTTP/1.1 POST to the port reaches no method.
func TestGRPCBadInput(t *testing.T) {
	a := startDemoAgent(t)
	conn, err := grpc.NewClient(a.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := a2apb.NewA2AServiceClient(conn)
	ctx := t.Context()
	msg := func(text string) *a2apb.Message {
		return &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: text}}}}
	}
	deep := any("x")
	for range server.MaxNestingDepth + 10 {
		deep = []any{deep}
	}
	deepMeta, err := structpb.NewStruct(map[string]any{"a": deep})
	if err != nil {
		t.Fatal(err)
	}
	deepMsg := msg("deep")
	deepMsg.Metadata = deepMeta
	before := countTasks(t, a.Tasks)
	for _, c := range []struct {
		name   string
		call   func(ctx context.Context) error
		code   codes.Code
		reason string
	}{
		{"oversized message", func(ctx context.Context) error {
			_, err := client.SendMessage(ctx, &a2apb.SendMessageRequest{Message: msg(strings.Repeat("x", server.DefaultMaxBodyBytes+1))})
			return err
		}, codes.ResourceExhausted, ""},
		{"too deeply nested", func(ctx context.Context) error {
			_, err := client.SendMessage(ctx, &a2apb.SendMessageRequest{Message: deepMsg})
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST"},
		{"too deeply nested, streamed", func(ctx context.Context) error {
			s, err := client.SendStreamingMessage(ctx, &a2apb.SendMessageRequest{Message: deepMsg})
			if err != nil {
				return err
			}
			_, err = s.Recv()
			return err
		}, codes.InvalidArgument, "INVALID_REQUEST"},
		{"unknown task", func(ctx context.Context) error {
			_, err := client.GetTask(ctx, &a2apb.GetTaskRequest{Id: "no-such-task"})
			return err
		}, codes.NotFound, "TASK_NOT_FOUND"},
		{"message to an unknown task", func(ctx context.Context) error {
			m := msg("x")
			m.TaskId = "no-such-task"
			_, err := client.SendMessage(ctx, &a2apb.SendMessageRequest{Message: m})
			return err
		}, codes.NotFound, "TASK_NOT_FOUND"},
		{"subscribe to an unknown task", func(ctx context.Context) error {
			s, err := client.SubscribeToTask(ctx, &a2apb.SubscribeToTaskRequest{Id: "no-such-task"})
			if err != nil {
				return err
			}
			_, err = s.Recv()
			return err
		}, codes.NotFound, "TASK_NOT_FOUND"},
		{"unsupported version", func(ctx context.Context) error {
			_, err := client.SendMessage(metadata.AppendToOutgoingContext(ctx, "a2a-version", "0.5"), &a2apb.SendMessageRequest{Message: msg("x")})
			return err
		}, codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call(ctx)
			if status.Code(err) != c.code || (c.reason != "" && grpcReason(err) != c.reason) {
				t.Fatalf("%v (reason %q); want %v with reason %q", err, grpcReason(err), c.code, c.reason)
			}
		})
	}
	// A web page can send a simple POST to the port; HTTP/1.1 is not gRPC's HTTP/2, so no method runs.
	if resp, err := http.Post("http://"+a.GRPCAddr+"/lf.a2a.v1.A2AService/SendMessage", "text/plain", bytes.NewReader([]byte("hello"))); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatalf("a plain HTTP/1.1 POST was answered 200")
		}
	}
	if after := countTasks(t, a.Tasks); after != before {
		t.Fatalf("bad calls stored tasks: %d before, %d after", before, after)
	}
	// The same message, well sent, is taken: the refusals above were for what they name.
	if _, err := client.SendMessage(ctx, &a2apb.SendMessageRequest{Message: msg("hello")}); err != nil {
		t.Fatalf("a good send: %v", err)
	}
	if after := countTasks(t, a.Tasks); after != before+1 {
		t.Fatalf("a good send stored %d tasks", after-before)
	}
}

// TestGRPCWithoutCredential: the hub with anonymous access off answers every gRPC method without a
// credential, or with a wrong one, UNAUTHENTICATED, and stores nothing; the right key is taken.
func TestGRPCWithoutCredential(t *testing.T) {
	h, key, _ := startAuthHub(t, "alice")
	conn, err := grpc.NewClient(h.Agent.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := a2apb.NewA2AServiceClient(conn)
	before := countTasks(t, h.Agent.Tasks)
	send := &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1", Role: a2apb.Role_ROLE_USER,
		Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "hello"}}}}}
	calls := map[string]func(ctx context.Context) error{
		"SendMessage": func(ctx context.Context) error { _, err := client.SendMessage(ctx, send); return err },
		"SendStreamingMessage": func(ctx context.Context) error {
			s, err := client.SendStreamingMessage(ctx, send)
			if err == nil {
				_, err = s.Recv()
			}
			return err
		},
		"ListTasks": func(ctx context.Context) error {
			_, err := client.ListTasks(ctx, &a2apb.ListTasksRequest{})
			return err
		},
		"GetTask": func(ctx context.Context) error {
			_, err := client.GetTask(ctx, &a2apb.GetTaskRequest{Id: "x"})
			return err
		},
		"CancelTask": func(ctx context.Context) error {
			_, err := client.CancelTask(ctx, &a2apb.CancelTaskRequest{Id: "x"})
			return err
		},
		"ExtendedCard": func(ctx context.Context) error {
			_, err := client.GetExtendedAgentCard(ctx, &a2apb.GetExtendedAgentCardRequest{})
			return err
		},
	}
	for name, call := range calls {
		for _, md := range []metadata.MD{nil, metadata.Pairs("x-api-key", "ahk_wrong"), metadata.Pairs("authorization", "Bearer not.a.token")} {
			ctx := metadata.NewOutgoingContext(t.Context(), md)
			if err := call(ctx); status.Code(err) != codes.Unauthenticated || grpcReason(err) != "UNAUTHENTICATED" {
				t.Fatalf("%s with %v: %v, want UNAUTHENTICATED", name, md, err)
			}
		}
	}
	if after := countTasks(t, h.Agent.Tasks); after != before {
		t.Fatalf("refused calls stored tasks: %d before, %d after", before, after)
	}
	ctx := metadata.AppendToOutgoingContext(t.Context(), "x-api-key", key)
	if _, err := client.ListTasks(ctx, &a2apb.ListTasksRequest{}); err != nil {
		t.Fatalf("the right key: %v", err)
	}
	// The hub's inbox keeps the task working for its owner: the send returns it at once.
	send.Configuration = &a2apb.SendMessageConfiguration{ReturnImmediately: true}
	if _, err := client.SendMessage(ctx, send); err != nil {
		t.Fatalf("a send with the right key: %v", err)
	}
	if after := countTasks(t, h.Agent.Tasks); after != before+1 {
		t.Fatalf("a send with the right key stored %d tasks", after-before)
	}
}

// checkOwnClientEndpoints: the hub's own client reads an agent's card as JSON-RPC at /a2a first, then
// REST at /rest, then gRPC at the agent's gRPC address.
func checkOwnClientEndpoints(t *testing.T, eps []agents.Endpoint, a *hub.Agent) {
	t.Helper()
	want := map[agents.Binding]string{agents.JSONRPC: a.BaseURL + server.RPCPath, agents.HTTPJSON: a.BaseURL + server.RESTPath, agents.GRPC: a.GRPCAddr}
	last := agents.JSONRPC
	for _, ep := range eps {
		if ep.Binding == agents.GRPC && ep.URL == "grpc://"+a.GRPCAddr {
			ep.URL = a.GRPCAddr // the same address, as the specification spells it
		}
		if ep.URL != want[ep.Binding] || (ep.Binding == agents.GRPC && ep.Dialect != agents.V10) {
			t.Fatalf("the hub's own client would call %s (%v over %q), want %s", ep.URL, ep.Dialect, ep.Binding, want[ep.Binding])
		}
		order := []agents.Binding{agents.JSONRPC, agents.HTTPJSON, agents.GRPC}
		if slices.Index(order, ep.Binding) < slices.Index(order, last) {
			t.Fatalf("the hub's own client's endpoints are out of order: %+v", eps)
		}
		last = ep.Binding
	}
	if eps[0].Binding != agents.JSONRPC || eps[len(eps)-1].Binding != agents.GRPC {
		t.Fatalf("the hub's own client's endpoints: %+v", eps)
	}
}

// A data part whose value is a list (A2UI messages) cannot be answered over gRPC: a2a-go's proto
// conversion takes objects only. The caller is told so, in words, rather than "internal error"; the
// same task reads fine over JSON-RPC.
func TestGRPCSaysWhyAListDataPartCannotBeAnswered(t *testing.T) {
	a := startDemoAgent(t)
	conn, err := grpc.NewClient(a.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = a2apb.NewA2AServiceClient(conn).SendMessage(t.Context(), &a2apb.SendMessageRequest{Message: &a2apb.Message{MessageId: "m1",
		Role: a2apb.Role_ROLE_USER, Parts: []*a2apb.Part{{Content: &a2apb.Part_Text{Text: "plan a release"}}}}})
	if st, _ := status.FromError(err); st.Code() != codes.Unimplemented || !strings.Contains(st.Message(), "JSON-RPC or HTTP+JSON") {
		t.Fatalf("an A2UI answer over gRPC: %v", err)
	}
}
