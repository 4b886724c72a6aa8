// Package server is the HTTP face of an A2A agent on the hub's stack: the well-known cards and one
// JSON-RPC endpoint that speaks v1.0 and v0.3 (through a2a-go/v2 and its a2av0 compat layer) and the
// v0.1 draft (through our adapter), all over the same request handler and SQLite stores.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"time"

	a2alegacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/agenthub/agenthub/backend/auth"
	hubpush "github.com/agenthub/agenthub/backend/push"
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
	// Auth, when set, authenticates every JSON-RPC request (see authenticate) and the card declares
	// its schemes; the token endpoint is at BaseURL + auth.TokenPath. Nil: every caller is anonymous
	// and unrestricted (the demo agent, which listens on loopback only).
	Auth Authenticator
	// Extensions serve JSON-RPC methods of their own on the endpoint and add to the card.
	Extensions []Extension
	// CardSigner, when set, signs the served cards (A2A §8.4) with its current key. Nil: unsigned.
	CardSigner CardSigner
	// GRPCURL, when set, is the host:port of the agent's gRPC binding as clients dial it: the card
	// lists it, and Server.GRPCServer builds the server to serve there.
	GRPCURL string

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
	Card    *a2a.AgentCard
	cards   *signedCards
	Handler a2asrv.RequestHandler
	mux     *http.ServeMux
	guarded http.Handler
	grpc    *grpcBinding // nil without Config.GRPCURL
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
		// a2a-go offers the push config methods only with a sender; notifications themselves are
		// recorded in the push outbox by the task store's write hook, so this one sends nothing.
		a2asrv.WithPushNotifications(cfg.PushConfigs, hubpush.Sender{}),
		a2asrv.WithCapabilityChecks(&card.Capabilities),
		a2asrv.WithLogger(cfg.Logger),
	)
	// a2a-go's handler keeps its call context, logging and capability checks around every method;
	// the methods that run the agent are ours (see executions), so a2a-go never runs it.
	intercepted, ok := sdk.(*a2asrv.InterceptedHandler)
	if !ok {
		return nil, fmt.Errorf("a2a-go's handler is a %T, not the *a2asrv.InterceptedHandler this server wraps", sdk)
	}
	intercepted.Handler = newExecutions(intercepted.Handler, cfg, &card.Capabilities)
	var handler a2asrv.RequestHandler = durableSubscribe{RequestHandler: sdk, store: cfg.Store}
	followUps, takesFollowUps := cfg.Executor.(FollowUps)
	if takesFollowUps {
		handler = followUpHandler{RequestHandler: handler, store: cfg.Store, exec: followUps}
	}
	if b, ok := cfg.Executor.(BlockingBound); ok {
		handler = boundedSend{RequestHandler: handler, store: cfg.Store, wait: b.BlockingWait}
	}
	admit, admits := cfg.Executor.(Admitter)
	if admits {
		handler = admitHandler{RequestHandler: handler, admit: admit}
	}
	transport := []a2asrv.TransportOption{a2asrv.WithTransportKeepAlive(cfg.KeepAlive),
		a2asrv.WithTransportPanicHandler(recoverer(cfg.Logger, "json-rpc transport"))}
	v1 := a2asrv.NewJSONRPCHandler(handler, transport...)
	v03 := a2av0.NewJSONRPCHandler(handler, transport...)
	draft := &draftDialect{handler: handler, store: cfg.Store, keepAlive: cfg.KeepAlive, admit: admit}

	rt := &router{methods: map[string]method{}, shared: map[string]map[tasks.Dialect]method{}, maxBody: cfg.MaxBodyBytes, log: cfg.Logger,
		dialectOf: cfg.Store.DialectOf, bodyTimeout: cfg.BodyReadTimeout, writeTimeout: cfg.StreamWriteTimeout,
		streams: newStreamLimits(cfg.MaxStreams, cfg.MaxStreamsPerClient)}
	// Every method answers its errors in its own dialect's shape (see inDialect).
	unary := func(d tasks.Dialect, h http.Handler) method {
		return method{dialect: d, call: callInDialect(d, sdkCall(h))}
	}
	v03Stream := func(decodeInto func() any) method {
		return method{dialect: tasks.DialectV03, stream: streamInDialect(tasks.DialectV03, sdkStream(v03, decodeInto))}
	}
	draftCall := func(call func(ctx context.Context, r *request) (json.RawMessage, error)) method {
		return method{dialect: tasks.DialectV01, call: callInDialect(tasks.DialectV01, call)}
	}
	draftStream := func(stream func(ctx context.Context, r *request, w http.ResponseWriter)) method {
		return method{dialect: tasks.DialectV01, stream: streamInDialect(tasks.DialectV01, stream)}
	}
	// v1.0 params may use proto field names (task_id) as ProtoJSON allows.
	v1Unary := func(checks ...func(ctx context.Context, r *request) error) method {
		return method{dialect: tasks.DialectV1, call: callInDialect(tasks.DialectV1, sdkCall(v1)), precheck: prechecks(append([]func(context.Context, *request) error{protoJSONNames}, checks...)...)}
	}
	for _, name := range []string{"GetTask", "CancelTask", "GetTaskPushNotificationConfig",
		"CreateTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard"} {
		rt.methods[name] = v1Unary()
	}
	rt.methods["ListTasks"] = v1Unary(listTasksParams)
	// v1.0 forbids both on a task that has ended: UnsupportedOperationError, as an immediate reply.
	// A task on its turn (working) takes no message in any dialect: -32004 too.
	// An executor that takes follow-ups (the inbox) gets them instead.
	busy := func(path ...string) func(ctx context.Context, r *request) error {
		if takesFollowUps {
			return func(context.Context, *request) error { return nil }
		}
		return busyTaskGuard(cfg.Store, path...)
	}
	sendCheck := prechecks(openTaskGuard(cfg.Store, "message", "taskId"), busy("message", "taskId"))
	rt.methods["SendMessage"] = v1Unary(sendCheck)
	rt.methods["SendStreamingMessage"] = method{dialect: tasks.DialectV1, stream: streamInDialect(tasks.DialectV1, sdkStream(v1, func() any { return &a2a.SendMessageRequest{} })),
		precheck: prechecks(protoJSONNames, openTaskGuard(cfg.Store, "message", "taskId"), busy("message", "taskId"))}
	rt.methods["SubscribeToTask"] = method{dialect: tasks.DialectV1, stream: streamInDialect(tasks.DialectV1, sdkStream(v1, func() any { return &a2a.SubscribeToTaskRequest{} })),
		precheck: prechecks(protoJSONNames, subscribableTask(cfg.Store))}
	for _, name := range []string{"tasks/pushNotificationConfig/set", "agent/getAuthenticatedExtendedCard"} {
		rt.methods[name] = unary(tasks.DialectV03, v03)
	}
	v03Call := func(call func(ctx context.Context, r *request) (json.RawMessage, error)) method {
		return method{dialect: tasks.DialectV03, call: callInDialect(tasks.DialectV03, call)}
	}
	rt.methods["tasks/pushNotificationConfig/get"] = v03Call(v03GetPushConfig(handler, sdkCall(v03)))
	rt.methods["tasks/pushNotificationConfig/list"] = v03Call(withResult(sdkCall(v03), emptyListNotNull))
	rt.methods["tasks/pushNotificationConfig/delete"] = v03Call(withResult(sdkCall(v03), nullResult))
	rt.methods["message/send"] = withPrecheck(unary(tasks.DialectV03, v03), busy("message", "taskId"))
	rt.methods["message/stream"] = withPrecheck(v03Stream(func() any { return &a2alegacy.MessageSendParams{} }), busy("message", "taskId"))
	rt.methods["tasks/send"] = withPrecheck(draftCall(draft.send), busy("id"))
	rt.methods["tasks/sendSubscribe"] = withPrecheck(draftStream(draft.sendSubscribe), busy("id"))
	rt.methods["tasks/pushNotification/set"] = draftCall(draft.setPush)
	rt.methods["tasks/pushNotification/get"] = draftCall(draft.getPush)
	rt.shared["tasks/get"] = map[tasks.Dialect]method{tasks.DialectV03: unary(tasks.DialectV03, v03), tasks.DialectV01: draftCall(draft.get)}
	rt.shared["tasks/cancel"] = map[tasks.Dialect]method{tasks.DialectV03: unary(tasks.DialectV03, v03), tasks.DialectV01: draftCall(draft.cancel)}
	rt.shared["tasks/resubscribe"] = map[tasks.Dialect]method{
		tasks.DialectV03: v03Stream(func() any { return &a2alegacy.TaskIDParams{} }),
		tasks.DialectV01: draftStream(draft.resubscribe),
	}

	for _, e := range cfg.Extensions {
		if err := rt.addExtension(e, cfg.KeepAlive); err != nil {
			return nil, err
		}
	}
	cardJSON, legacyJSON, err := cardDocuments(card, cfg.Extensions)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	var rpc http.Handler = callerLocality(rt)
	if cfg.Auth != nil {
		rpc = authenticate(cfg.Auth, tokenURL(cfg), cfg.Logger, jsonRPCFail, rpc)
	}
	mux.Handle(RPCPath, rpc)
	// The HTTP+JSON binding: the same handler, principals, limits and prechecks as JSON-RPC's v1.0.
	var rest http.Handler = callerLocality(http.StripPrefix(RESTPath, newRESTBinding(handler, rt, transport, sendCheck, busy("message", "taskId"), subscribableTask(cfg.Store))))
	if cfg.Auth != nil {
		rest = authenticate(cfg.Auth, tokenURL(cfg), cfg.Logger, restFail, rest)
	}
	mux.Handle(RESTPath+"/", rest)
	var grpcB *grpcBinding
	if cfg.GRPCURL != "" {
		grpcB = newGRPCBinding(cfg, rt, handler, grpcChecks{send: sendCheck, subscribe: subscribableTask(cfg.Store)},
			grpcChecks{send: busy("message", "taskId")})
	}
	cards := newSignedCards(cfg.CardSigner, cfg.BaseURL, cardJSON, legacyJSON, cfg.Logger)
	mux.Handle(a2asrv.WellKnownAgentCardPath, cards.handler(0))
	mux.Handle(legacyCardPath, cards.handler(1))
	g := guard{origins: cfg.AllowedOrigins}
	for _, h := range cfg.AllowedHosts {
		g.hosts = append(g.hosts, strings.ToLower(h))
	}
	return &Server{Card: card, cards: cards, Handler: handler, mux: mux, guarded: g.wrap(mux), grpc: grpcB}, nil
}

// CardJSON is the agent-card.json document exactly as served now (signed with the current key).
func (s *Server) CardJSON() []byte { return s.cards.doc(0) }

// legacyCardPath serves the card in the v0.1 draft's shape.
const legacyCardPath = "/.well-known/agent.json"

// Mux returns the agent's routes; the hub adds its own (the UI) beside them.
func (s *Server) Mux() *http.ServeMux { return s.mux }

func tokenURL(cfg Config) string { return strings.TrimRight(cfg.BaseURL, "/") + auth.TokenPath }

// HTTPHandler is what an http.Server serves: the mux behind the Host and Origin checks, which thereby
// cover every route, the ones the hub adds included.
func (s *Server) HTTPHandler() http.Handler { return s.guarded }

func buildCard(cfg Config) *a2a.AgentCard {
	url := strings.TrimRight(cfg.BaseURL, "/") + RPCPath
	card := &a2a.AgentCard{
		Name:        cfg.Name,
		Description: cfg.Description,
		Version:     cfg.Version,
		Provider:    &a2a.AgentProvider{Org: "AgentHub", URL: "https://github.com/agenthub/agenthub"},
		SupportedInterfaces: []*a2a.AgentInterface{
			{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version},
			{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version},
			// After JSON-RPC, so clients that take the first interface they speak keep JSON-RPC. v0.3's
			// REST paths start with /v1, below the same URL (see RESTPath).
			{URL: strings.TrimRight(cfg.BaseURL, "/") + RESTPath, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2a.Version},
			{URL: strings.TrimRight(cfg.BaseURL, "/") + RESTPath, ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: a2av0.Version},
		},
		Capabilities:       a2a.AgentCapabilities{Streaming: true, PushNotifications: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             cfg.Skills,
	}
	if cfg.GRPCURL != "" { // last: a binding clients pick only when they prefer it
		// Each version twice, in both forms in use: host:port, which a2a-go's gRPC clients dial as it
		// is (they take the first gRPC interface), and the absolute URL the specification asks for
		// (grpc://host:port), which the official TCK reads (it keeps the last, v0.3's
		// additionalInterfaces last of all).
		card.SupportedInterfaces = append(card.SupportedInterfaces,
			&a2a.AgentInterface{URL: cfg.GRPCURL, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version},
			&a2a.AgentInterface{URL: cfg.GRPCURL, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2av0.Version},
			&a2a.AgentInterface{URL: "grpc://" + cfg.GRPCURL, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2a.Version},
			&a2a.AgentInterface{URL: "grpc://" + cfg.GRPCURL, ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: a2av0.Version})
	}
	if cfg.Auth != nil {
		card.SecuritySchemes, card.SecurityRequirements = securitySchemes(tokenURL(cfg))
	}
	return card
}

// cardDocuments renders the card twice. agent-card.json carries the v1.0 fields (supportedInterfaces)
// and the v0.3 ones (url, protocolVersion, preferredTransport) in one document, which both a2a-go's
// v1.0 and v0.3 clients read without a version header. agent.json adds the v0.1 draft's
// authentication and stateTransitionHistory for draft clients.
func cardDocuments(card *a2a.AgentCard, exts []Extension) (cardJSON, legacyJSON []byte, err error) {
	producer := a2av0.NewStaticAgentCardProducer(card).(a2asrv.AgentCardJSONProducer)
	cardJSON, err = producer.CardJSON(context.Background())
	if err != nil {
		return nil, nil, err
	}
	if cardJSON, err = withBothSchemeShapes(cardJSON, card.SecuritySchemes); err != nil {
		return nil, nil, err
	}
	if cardJSON, err = withExtensionCards(cardJSON, exts); err != nil {
		return nil, nil, err
	}
	var legacy map[string]any
	if err := json.Unmarshal(cardJSON, &legacy); err != nil {
		return nil, nil, err
	}
	// The draft names schemes only: an API key (in X-Api-Key) or a bearer token (from the token URL).
	legacy["authentication"] = map[string]any{"schemes": []string{}}
	if len(card.SecuritySchemes) > 0 {
		legacy["authentication"] = map[string]any{"schemes": []string{"apiKey", "Bearer"}}
	}
	if caps, ok := legacy["capabilities"].(map[string]any); ok {
		caps["stateTransitionHistory"] = true
	}
	legacyJSON, err = json.MarshalIndent(legacy, "", "  ")
	return cardJSON, legacyJSON, err
}

// withBothSchemeShapes makes each security scheme of the compat card readable by v1.0 and v0.3
// parsers alike. a2a-go's compat producer writes them in v0.3's shape only ({"type":"apiKey","in":…}),
// which a2a-go's v1.0 parser refuses; v1.0 wraps each in a key naming its kind
// ({"apiKeySecurityScheme":{…}}). Both parsers ignore the other's keys, so each scheme gets both.
func withBothSchemeShapes(cardJSON []byte, schemes a2a.NamedSecuritySchemes) ([]byte, error) {
	if len(schemes) == 0 {
		return cardJSON, nil
	}
	v1, err := json.Marshal(schemes)
	if err != nil {
		return nil, err
	}
	var v1Schemes map[string]map[string]json.RawMessage
	var doc map[string]json.RawMessage
	var compat map[string]map[string]json.RawMessage
	if err := errors.Join(json.Unmarshal(v1, &v1Schemes), json.Unmarshal(cardJSON, &doc), json.Unmarshal(doc["securitySchemes"], &compat)); err != nil {
		return nil, err
	}
	for name, wrapped := range v1Schemes {
		if compat[name] == nil {
			compat[name] = map[string]json.RawMessage{}
		}
		maps.Copy(compat[name], wrapped)
	}
	if doc["securitySchemes"], err = json.Marshal(compat); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
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

func withPrecheck(m method, check func(ctx context.Context, r *request) error) method {
	m.precheck = check
	return m
}

// openTaskGuard returns a precheck that refuses, with UnsupportedOperationError, a request naming a
// task (at the JSON path given) that is in a terminal state. Unknown tasks and malformed params pass
// through to the method, which reports them in its own terms.
func openTaskGuard(store *tasks.Store, path ...string) func(ctx context.Context, r *request) error {
	return func(ctx context.Context, r *request) error {
		id, ok := r.stringAt(path...)
		if !ok {
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
// can be resubscribed after a dropped connection or a restart.
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
		for ev, err := range currentThenLive(ctx, h.store, req.ID) {
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// currentThenLive is a subscription to a task: the task as it stands now, then each event logged
// after that version, until one ends the stream. v1.0 (§3.1.6) says a subscription begins with the
// task's current state; replaying the log from the task's creation would open with a stale
// "submitted" task and run the client's view backwards. What came before is in the first task.
func currentThenLive(ctx context.Context, store *tasks.Store, id a2a.TaskID) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		stored, err := store.Get(ctx, id)
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(stored.Task, nil) {
			return
		}
		for l, err := range store.Stream(ctx, id) {
			if err != nil {
				yield(nil, err)
				return
			}
			if l.Version > stored.Version && !yield(l.Event, nil) {
				return
			}
		}
	}
}

// FollowUps is an executor that takes a further message into a task while its execution runs (the
// inbox, where a person reads the whole conversation). FollowUp reports whether it took msg; if not,
// the message goes to a2a-go as usual.
type FollowUps interface {
	FollowUp(ctx context.Context, msg *a2a.Message) (bool, error)
}

// followUpHandler offers a message naming a task to the executor's FollowUp before a2a-go, which
// refuses any message to a task whose execution is running.
type followUpHandler struct {
	a2asrv.RequestHandler
	store *tasks.Store
	exec  FollowUps
}

func (h followUpHandler) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if req == nil || req.Message == nil || req.Message.TaskID == "" {
		return h.RequestHandler.SendMessage(ctx, req)
	}
	took, err := h.exec.FollowUp(ctx, req.Message)
	if err != nil || !took {
		if err != nil {
			return nil, err
		}
		return h.RequestHandler.SendMessage(ctx, req)
	}
	stored, err := h.store.Get(ctx, req.Message.TaskID)
	if err != nil {
		return nil, err
	}
	if req.Config != nil && req.Config.HistoryLength != nil {
		tasks.TrimHistory(stored.Task, *req.Config.HistoryLength)
	}
	return stored.Task, nil
}

// SendStreamingMessage streams a follow-up's task as SubscribeToTask would from then on: the task as
// it stands, then what happens next.
func (h followUpHandler) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if req == nil || req.Message == nil || req.Message.TaskID == "" {
		return h.RequestHandler.SendStreamingMessage(ctx, req)
	}
	return func(yield func(a2a.Event, error) bool) {
		took, err := h.exec.FollowUp(ctx, req.Message)
		if err != nil {
			yield(nil, err)
			return
		}
		if !took {
			for ev, err := range h.RequestHandler.SendStreamingMessage(ctx, req) {
				if !yield(ev, err) {
					return
				}
			}
			return
		}
		for ev, err := range currentThenLive(ctx, h.store, req.Message.TaskID) {
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// BlockingBound is an executor whose tasks may wait on a person for hours (the hub's inbox). A blocking
// send to it returns after BlockingWait even if the turn has not ended, instead of outlasting every
// HTTP client's timeout; the sender then streams, polls or takes a push notification.
type BlockingBound interface {
	BlockingWait() time.Duration
}

// boundedSend bounds a blocking SendMessage (v1.0 SendMessage, v0.3 message/send and v0.1 tasks/send
// all end here): the message is handed to the executor as with returnImmediately, then the send waits,
// however long, until the executor has taken it (the task left submitted, so it is durably in the
// store), and then at most wait for the turn to end. It answers the task as it stands.
type boundedSend struct {
	a2asrv.RequestHandler
	store *tasks.Store
	wait  func() time.Duration
}

func (h boundedSend) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	wait := h.wait()
	if wait <= 0 || req == nil || (req.Config != nil && req.Config.ReturnImmediately) {
		return h.RequestHandler.SendMessage(ctx, req)
	}
	cfg := a2a.SendMessageConfig{}
	if req.Config != nil {
		cfg = *req.Config
	}
	early := *req
	early.Config = &a2a.SendMessageConfig{AcceptedOutputModes: cfg.AcceptedOutputModes, PushConfig: cfg.PushConfig, ReturnImmediately: true}
	res, err := h.RequestHandler.SendMessage(ctx, &early)
	task, ok := res.(*a2a.Task)
	if err != nil || !ok {
		return res, err
	}
	if err := h.await(ctx, task.ID, func(s a2a.TaskState) bool { return s != a2a.TaskStateSubmitted }); err != nil {
		return nil, err
	}
	bounded, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := h.await(bounded, task.ID, tasks.IsFinalState); err != nil && ctx.Err() != nil {
		return nil, err
	}
	stored, err := h.store.Get(ctx, task.ID)
	if err != nil {
		return nil, err
	}
	if cfg.HistoryLength != nil {
		tasks.TrimHistory(stored.Task, *cfg.HistoryLength)
	}
	return stored.Task, nil
}

// await returns once task id's state satisfies done: the stored state now, or a later one in its log
// (earlier turns replayed by the log are skipped). It returns ctx's error if ctx ends first.
func (h boundedSend) await(ctx context.Context, id a2a.TaskID, done func(a2a.TaskState) bool) error {
	stored, err := h.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if done(stored.Task.Status.State) {
		return nil
	}
	for l, err := range h.store.Stream(ctx, id) {
		if err != nil {
			return err
		}
		if l.Version <= stored.Version {
			continue
		}
		var state a2a.TaskState
		switch ev := l.Event.(type) {
		case *a2a.Task:
			state = ev.Status.State
		case *a2a.TaskStatusUpdateEvent:
			state = ev.Status.State
		default:
			continue
		}
		if done(state) {
			return nil
		}
	}
	return ctx.Err()
}

// callerLocality marks each request's context with whether it comes from this computer
// (onThisComputer), which decides where its push configs may point (backend/push's target rules).
func callerLocality(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(hubpush.WithLocalCaller(r.Context(), onThisComputer(r))))
	})
}
