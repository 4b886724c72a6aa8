// Package server is the HTTP face of an A2A agent on the hub's stack: the well-known cards and one
// JSON-RPC endpoint that speaks v1.0 and v0.3 (through a2a-go/v2 and its a2av0 compat layer) and the
// v0.1 draft (through our adapter), all over the same request handler and SQLite stores.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"time"

	a2alegacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/agenthub/agenthub/backend/tasks"
)

// RPCPath is where the JSON-RPC endpoint lives under an agent's base URL.
const RPCPath = "/a2a"

// DefaultMaxBodyBytes bounds a JSON-RPC request body (a file part travels inline as base64).
const DefaultMaxBodyBytes = 8 << 20

// Config describes one agent served on the stack.
type Config struct {
	Name        string
	Description string
	Version     string
	Skills      []a2a.AgentSkill
	Executor    a2asrv.AgentExecutor
	Store       *tasks.Store
	PushConfigs push.ConfigStore
	// BaseURL is where the agent is reachable, e.g. http://127.0.0.1:7777 (no trailing slash).
	BaseURL      string
	MaxBodyBytes int64         // default DefaultMaxBodyBytes
	KeepAlive    time.Duration // SSE keep-alive interval, default 15s
	Logger       *slog.Logger

	// AllowedHosts are host names (without port) the server answers to besides loopback names, e.g.
	// the name of a public URL. A request with any other Host is refused with 403 on every route.
	AllowedHosts []string
	// AllowedOrigins are browser page origins allowed besides the server's own (http://<its Host>),
	// e.g. the desktop window's webview. Any other Origin is refused with 403, except on the cards.
	AllowedOrigins []string

	// Limits; zero means the default (see limits.go).
	MaxStreams          int           // SSE streams open at once, server-wide
	MaxStreamsPerClient int           // SSE streams open at once from one remote IP address
	StreamWriteTimeout  time.Duration // one write of a stream; a client that stops reading is cut
	BodyReadTimeout     time.Duration // reading one request body
}

// Server is the agent's HTTP handler.
type Server struct {
	Card     *a2a.AgentCard
	CardJSON []byte // the agent-card.json document exactly as served
	Handler  a2asrv.RequestHandler
	mux      *http.ServeMux
	guarded  http.Handler
}

// New wires the agent's request handler, dialects, router and cards.
func New(cfg Config) (*Server, error) {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.limitDefaults()
	card := buildCard(cfg)
	sdk := a2asrv.NewHandler(cfg.Executor,
		a2asrv.WithTaskStore(cfg.Store),
		a2asrv.WithPushNotifications(cfg.PushConfigs, asyncSender{push.NewHTTPPushSender(nil), cfg.Logger}),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
		a2asrv.WithLogger(cfg.Logger),
		a2asrv.WithExecutionPanicHandler(recoverer(cfg.Logger, "agent executor")),
	)
	handler := durableSubscribe{RequestHandler: sdk, store: cfg.Store}
	transport := []a2asrv.TransportOption{a2asrv.WithTransportKeepAlive(cfg.KeepAlive),
		a2asrv.WithTransportPanicHandler(recoverer(cfg.Logger, "json-rpc transport"))}
	v1 := a2asrv.NewJSONRPCHandler(handler, transport...)
	v03 := a2av0.NewJSONRPCHandler(handler, transport...)
	draft := &draftDialect{handler: handler, store: cfg.Store, keepAlive: cfg.KeepAlive}

	rt := &router{methods: map[string]method{}, shared: map[string]map[tasks.Dialect]method{}, maxBody: cfg.MaxBodyBytes, log: cfg.Logger,
		dialectOf: cfg.Store.DialectOf, bodyTimeout: cfg.BodyReadTimeout, writeTimeout: cfg.StreamWriteTimeout,
		streams: newStreamLimits(cfg.MaxStreams, cfg.MaxStreamsPerClient)}
	unary := func(d tasks.Dialect, h http.Handler) method { return method{dialect: d, call: sdkCall(h)} }
	for _, name := range []string{"GetTask", "ListTasks", "CancelTask", "GetTaskPushNotificationConfig",
		"CreateTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard"} {
		rt.methods[name] = unary(tasks.DialectV1, v1)
	}
	// v1.0 forbids both on a task that has ended: UnsupportedOperationError, as an immediate reply.
	rt.methods["SendMessage"] = method{dialect: tasks.DialectV1, call: sdkCall(v1), precheck: openTaskGuard(cfg.Store, "message", "taskId")}
	rt.methods["SendStreamingMessage"] = method{dialect: tasks.DialectV1, stream: sdkStream(v1, func() any { return &a2a.SendMessageRequest{} }),
		precheck: openTaskGuard(cfg.Store, "message", "taskId")}
	rt.methods["SubscribeToTask"] = method{dialect: tasks.DialectV1, stream: sdkStream(v1, func() any { return &a2a.SubscribeToTaskRequest{} }),
		precheck: openTaskGuard(cfg.Store, "id")}
	for _, name := range []string{"message/send", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
		"tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete", "agent/getAuthenticatedExtendedCard"} {
		rt.methods[name] = unary(tasks.DialectV03, v03)
	}
	rt.methods["message/stream"] = method{dialect: tasks.DialectV03, stream: sdkStream(v03, func() any { return &a2alegacy.MessageSendParams{} })}
	rt.methods["tasks/send"] = method{dialect: tasks.DialectV01, call: draft.send}
	rt.methods["tasks/sendSubscribe"] = method{dialect: tasks.DialectV01, stream: draft.sendSubscribe}
	rt.methods["tasks/pushNotification/set"] = method{dialect: tasks.DialectV01, call: draft.setPush}
	rt.methods["tasks/pushNotification/get"] = method{dialect: tasks.DialectV01, call: draft.getPush}
	rt.shared["tasks/get"] = map[tasks.Dialect]method{tasks.DialectV03: unary(tasks.DialectV03, v03), tasks.DialectV01: {dialect: tasks.DialectV01, call: draft.get}}
	rt.shared["tasks/cancel"] = map[tasks.Dialect]method{tasks.DialectV03: unary(tasks.DialectV03, v03), tasks.DialectV01: {dialect: tasks.DialectV01, call: draft.cancel}}
	rt.shared["tasks/resubscribe"] = map[tasks.Dialect]method{
		tasks.DialectV03: {dialect: tasks.DialectV03, stream: sdkStream(v03, func() any { return &a2alegacy.TaskIDParams{} })},
		tasks.DialectV01: {dialect: tasks.DialectV01, stream: draft.resubscribe},
	}

	cardJSON, legacyJSON, err := cardDocuments(card)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(RPCPath, rt)
	mux.Handle(a2asrv.WellKnownAgentCardPath, staticJSON(cardJSON))
	mux.Handle(legacyCardPath, staticJSON(legacyJSON))
	g := guard{origins: cfg.AllowedOrigins}
	for _, h := range cfg.AllowedHosts {
		g.hosts = append(g.hosts, strings.ToLower(h))
	}
	return &Server{Card: card, CardJSON: cardJSON, Handler: handler, mux: mux, guarded: g.wrap(mux)}, nil
}

// legacyCardPath serves the card in the v0.1 draft's shape.
const legacyCardPath = "/.well-known/agent.json"

// Mux returns the agent's routes; the hub adds its own (the UI) beside them.
func (s *Server) Mux() *http.ServeMux { return s.mux }

// HTTPHandler is what an http.Server serves: the mux behind the Host and Origin checks, which thereby
// cover every route, the ones the hub adds included.
func (s *Server) HTTPHandler() http.Handler { return s.guarded }

func buildCard(cfg Config) *a2a.AgentCard {
	url := strings.TrimRight(cfg.BaseURL, "/") + RPCPath
	return &a2a.AgentCard{
		Name:        cfg.Name,
		Description: cfg.Description,
		Version:     cfg.Version,
		Provider:    &a2a.AgentProvider{Org: "AgentHub", URL: "https://github.com/agenthub/agenthub"},
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
			{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true, PushNotifications: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             cfg.Skills,
	}
}

// cardDocuments renders the card twice. agent-card.json carries the v1.0 fields (supportedInterfaces)
// and the v0.3 ones (url, protocolVersion, preferredTransport) in one document, which both a2a-go's
// v1.0 and v0.3 clients read without a version header. agent.json adds the v0.1 draft's
// authentication and stateTransitionHistory for draft clients.
func cardDocuments(card *a2a.AgentCard) (cardJSON, legacyJSON []byte, err error) {
	producer := a2av0.NewStaticAgentCardProducer(card).(a2asrv.AgentCardJSONProducer)
	cardJSON, err = producer.CardJSON(context.Background())
	if err != nil {
		return nil, nil, err
	}
	var legacy map[string]any
	if err := json.Unmarshal(cardJSON, &legacy); err != nil {
		return nil, nil, err
	}
	legacy["authentication"] = map[string]any{"schemes": []string{}}
	if caps, ok := legacy["capabilities"].(map[string]any); ok {
		caps["stateTransitionHistory"] = true
	}
	legacyJSON, err = json.MarshalIndent(legacy, "", "  ")
	return cardJSON, legacyJSON, err
}

func staticJSON(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(body)
		case http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "*")
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	})
}

// openTaskGuard returns a precheck that refuses, with UnsupportedOperationError, a request naming a
// task (at the JSON path given) that is in a terminal state. Unknown tasks and malformed params pass
// through to the method, which reports them in its own terms.
func openTaskGuard(store *tasks.Store, path ...string) func(ctx context.Context, r *request) error {
	return func(ctx context.Context, r *request) error {
		raw := r.Params
		for _, key := range path {
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return nil
			}
			raw = obj[key]
		}
		var id string
		if json.Unmarshal(raw, &id) != nil || id == "" {
			return nil
		}
		stored, err := store.Get(ctx, a2a.TaskID(id))
		if err != nil || !stored.Task.Status.State.Terminal() {
			return nil
		}
		return fmt.Errorf("%w: task %s is %s and takes no more messages or subscriptions", a2a.ErrUnsupportedOperation, id, stored.Task.Status.State)
	}
}

// durableSubscribe serves SubscribeToTask (and v0.3 tasks/resubscribe) from the SQLite event log
// instead of a2a-go's in-memory queue, which only knows executions running in this process: a stream
// can be resubscribed after a dropped connection or a restart, and replays what happened.
type durableSubscribe struct {
	a2asrv.RequestHandler
	store *tasks.Store
}

func (h durableSubscribe) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if req == nil || req.ID == "" {
			yield(nil, a2a.ErrInvalidParams)
			return
		}
		for l, err := range h.store.Stream(ctx, req.ID) {
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(l.Event, nil) {
				return
			}
		}
	}
}

// asyncSender delivers push notifications off the task's event pipeline, so a slow or dead webhook
// neither delays nor fails the task. Delivery is best effort until the durable push outbox lands.
type asyncSender struct {
	sender push.Sender
	log    *slog.Logger
}

func (s asyncSender) SendPush(ctx context.Context, config *a2a.PushConfig, event a2a.Event) error {
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := s.sender.SendPush(ctx, config, event); err != nil {
			s.log.Warn("push notification not delivered", "task", config.TaskID, "error", err)
		}
	}()
	return nil
}
