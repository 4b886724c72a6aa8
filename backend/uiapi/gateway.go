package uiapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/inbox"
	pushout "github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/scenario"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/tasks"
)

// Path is where the gateway listens on the hub's server.
const Path = "/ui/ws"

const (
	// maxFrameBytes bounds one request frame: an inbox reply may carry files up to the hub's 8 MiB
	// A2A body limit, which base64 grows by a third.
	maxFrameBytes = 12 << 20
	// queueFrames is each connection's outgoing queue; pushed events beyond it are dropped (the client
	// is told it lagged), replies wait for room.
	queueFrames = 256
	// writeTimeout disconnects a client that stops reading.
	writeTimeout = 10 * time.Second
	// pingInterval keeps idle connections alive through anything in between and detects dead peers.
	pingInterval = 30 * time.Second
	// concurrentCalls bounds the requests one connection has in flight.
	concurrentCalls = 8
)

// seenTopic is published when the owner marks an inbox task read, so every window updates its count.
const seenTopic = "inbox.seen"

// LocalAgent is an agent running on this hub's stack, as the UI sees it.
type LocalAgent struct {
	ID          string // "hub", "demo": the source its task store publishes under
	Name        string
	Description string
	Kind        string // hub | local
	BaseURL     string
	CardJSON    []byte
	Tasks       *tasks.Store
	// Push is the agent's push outbox: a task's delivery status is part of its detail (nil: none).
	Push *pushout.Outbox
	// Chat: it is also registered under ID with the registry (agents.Registry.Pin), so the owner
	// chats with it like with an added agent; that row is not listed a second time.
	Chat bool
}

// Config configures the gateway.
type Config struct {
	Token string // the secret that opens the UI; required
	// SaveToken keeps a regenerated token (ui.regenerateToken) for the next runs; nil: not kept.
	SaveToken func(context.Context, string) error
	// LoadToken, when set, reads the token where several replicas of the hub share it: each new
	// connection is checked against it, and Reload takes it. Nil: Token (as regenerated here) is
	// the only one.
	LoadToken func(context.Context) (string, error)
	Origins   []string // page origins allowed besides the hub's own (the desktop webview's)
	Version   string
	DataDir   string
	UIBase    string // the hub's base URL: the UI URL is UIBase/#token=TOKEN
	Agents    []LocalAgent
	Inbox     *inbox.Inbox // the owner's inbox, over the tasks of InboxAgent
	// Registry holds the remote agents the owner added by URL; required.
	Registry *agents.Registry
	// Chats are the owner's conversations with remote agents; Clients their connections and saved
	// credentials; Wire the raw log of what went over the wire. Required.
	Chats   *chats.Service
	Clients *agents.Clients
	Wire    *wirelog.Log
	// Auth holds the principals and the anonymous policy of Settings → Access (nil: none).
	Auth *auth.Service
	// Bridge speaks for the added agents in channels: bridge.states and the bridge topic (nil: none).
	Bridge *bridge.Bridge
	// Channels are this hub's channels: the channel topic tells the owner of new events and
	// changes in those it may see (nil: no channel topic).
	Channels *channels.Service
	// Extensions are this hub's extension methods by name (channels/*, knowledge/*), which ext.call
	// and ext.stream run as the owner; RemoteExtensions reaches an added agent's (nil: none).
	Extensions       map[string]server.ExtensionMethod
	RemoteExtensions RemoteExtensions
	// InboxAgent is the ID of the agent whose tasks are the owner's inbox.
	InboxAgent string
	// Scenarios are the scenarios saved in the hub and their runs (nil: none).
	Scenarios *scenario.Store
	Bus       *bus.Bus
	Logger    *slog.Logger
}

// Gateway serves the UI websocket.
type Gateway struct {
	cfg      Config
	upgrader websocket.Upgrader
	agents   map[string]*LocalAgent
	refusals *refusalLog

	ctx   context.Context // cancelled by Close: ends every connection
	close context.CancelFunc
	conns sync.WaitGroup
	runs  sync.WaitGroup // scenario runs in flight

	changing sync.Mutex // one change of the token at a time: regenerate here, or Reload
	mu       sync.Mutex
	token    string
	open     map[*conn]context.CancelFunc // ends one connection (a regenerated token ends the others)
	// tokenChanges counts changes of the token. A connection whose token was checked before a change
	// but that registers in open after it would escape the change's sweep; it compares the count.
	tokenChanges uint64
}

// Token is the secret that opens the UI now.
func (g *Gateway) Token() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.token
}

// UIURL opens the UI in a browser; the token rides in the fragment, which browsers never send.
func (g *Gateway) UIURL() string { return g.cfg.UIBase + "/#token=" + g.Token() }

// regenerate replaces the token, keeps it, and ends every connection but keep's: what was opened
// with the old token (other tabs, a link someone copied) is refused from now on.
func (g *Gateway) regenerate(ctx context.Context, keep *conn) (string, error) {
	g.changing.Lock()
	defer g.changing.Unlock()
	token := NewToken()
	if g.cfg.SaveToken != nil {
		if err := g.cfg.SaveToken(ctx, token); err != nil {
			return "", err
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.token = token
	g.tokenChanges++
	for c, end := range g.open {
		if c != keep {
			end()
		}
	}
	if keep != nil {
		keep.token = token // the caller is handed the new token: its connection counts as opened with it
	}
	return token, nil
}

// Reload reads the token again (LoadToken), after another replica regenerated it: if it changed, it
// replaces this gateway's, and every connection opened with another token is ended, as regenerate
// ends them on the replica that regenerated it.
func (g *Gateway) Reload(ctx context.Context) error {
	if g.cfg.LoadToken == nil {
		return nil
	}
	// Held across the read: a token regenerated here meanwhile is never replaced by an older read.
	g.changing.Lock()
	defer g.changing.Unlock()
	token, err := g.cfg.LoadToken(ctx)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if token != g.token {
		g.tokenChanges++
	}
	g.token = token
	for c, end := range g.open {
		if c.token != token {
			end()
		}
	}
	return nil
}

// NewToken returns a fresh random token for Config.Token.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return base64.RawURLEncoding.EncodeToString(b)
}

// New returns the gateway.
func New(cfg Config) *Gateway {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	g := &Gateway{cfg: cfg, agents: map[string]*LocalAgent{}, token: cfg.Token, open: map[*conn]context.CancelFunc{},
		refusals: &refusalLog{log: cfg.Logger, interval: refusalInterval}}
	g.ctx, g.close = context.WithCancel(context.Background())
	for i := range cfg.Agents {
		g.agents[cfg.Agents[i].ID] = &cfg.Agents[i]
	}
	g.upgrader = websocket.Upgrader{
		ReadBufferSize: 16 << 10, WriteBufferSize: 16 << 10,
		CheckOrigin: func(*http.Request) bool { return true }, // checked in ServeHTTP, before the upgrade
	}
	return g
}

// ServeHTTP checks the Origin and token, then upgrades and serves one UI connection. The Host (DNS
// rebinding) is checked for every route of the hub's server by the server's guard, before this.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Refusals are logged (never the token), rate-limited, so a person can tell why a window did not
	// connect.
	refuse := func(status int, reason string) {
		g.refusals.refused(reason, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
		http.Error(w, reason, status)
	}
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin, r.Host) {
		refuse(http.StatusForbidden, "origin not allowed: "+origin)
		return
	}
	g.mu.Lock()
	token, want, changes := r.URL.Query().Get("token"), g.token, g.tokenChanges
	g.mu.Unlock()
	if g.cfg.LoadToken != nil {
		var err error
		if want, err = g.cfg.LoadToken(r.Context()); err != nil {
			g.cfg.Logger.Warn("UI connection: the token could not be read", "err", err)
			http.Error(w, "the UI token could not be read: try again", http.StatusServiceUnavailable)
			return
		}
	}
	if want == "" || subtle.ConstantTimeCompare([]byte(token), []byte(want)) != 1 {
		refuse(http.StatusUnauthorized, "missing or wrong UI token: open the UI with the link `agenthub serve` printed")
		return
	}
	ws, err := g.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	g.conns.Add(1)
	defer g.conns.Done()
	c := &conn{g: g, ws: ws, token: token, tokenChanges: changes, out: make(chan []byte, queueFrames), calls: make(chan struct{}, concurrentCalls),
		// Nothing pushed yet: the first counts computed are pushed, whatever they are. The UI read the
		// counts of the moment it connected from inbox.list; starting from 0/0 here left it on those when
		// they dropped to 0/0 (issue 29 item 11).
		lastCounts: [2]int{-1, -1}}
	c.serve(g.ctx)
}

// Close ends every UI connection (the HTTP server's shutdown does not reach hijacked connections)
// and waits for them.
func (g *Gateway) Close() {
	g.close()
	g.conns.Wait()
	g.runs.Wait() // scenario runs end with the gateway's context, and record how far they got
	g.refusals.flush()
}

func (g *Gateway) originAllowed(origin, host string) bool {
	return origin == "http://"+host || slices.Contains(g.cfg.Origins, origin)
}

// connKey carries the calling connection in a call's context.
type connKey struct{}

// conn is one UI connection: a reader dispatching calls, a writer draining out, and a forwarder
// turning bus events into pushed frames.
type conn struct {
	g     *Gateway
	ws    *websocket.Conn
	token string // the token it was opened with (or was handed, see regenerate); guarded by g.mu
	// tokenChanges is Gateway.tokenChanges when its token was checked.
	tokenChanges uint64
	out          chan []byte
	calls        chan struct{}
	lagged       atomic.Bool

	// ctx lives as long as the connection: ext.stream's streams run under it.
	ctx context.Context

	mu         sync.Mutex
	lastCounts [2]int                        // waiting, unread last pushed
	streams    map[string]context.CancelFunc // open ext.stream streams by id
	nextStream int
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

type push struct {
	Topic string `json:"topic"`
	Data  any    `json:"data"`
}

func (c *conn) serve(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	c.ctx = ctx
	c.streams = map[string]context.CancelFunc{}
	c.g.mu.Lock()
	if c.g.tokenChanges != c.tokenChanges {
		// The token changed between its check and now, and the sweep did not see this connection.
		c.g.mu.Unlock()
		c.ws.Close()
		return
	}
	c.g.open[c] = cancel
	c.g.mu.Unlock()
	defer func() {
		c.g.mu.Lock()
		delete(c.g.open, c)
		c.g.mu.Unlock()
	}()
	sub := c.g.cfg.Bus.Subscribe(func(e bus.Event) bool {
		return e.Topic == tasks.Topic || e.Topic == seenTopic || e.Topic == agents.Topic || e.Topic == auth.Topic || e.Topic == scenario.Topic ||
			e.Topic == chats.Topic || e.Topic == wirelog.Topic || e.Topic == pushout.Topic || e.Topic == bridge.Topic ||
			(e.Topic == channels.Topic && c.g.cfg.Channels != nil)
	}, queueFrames)
	defer sub.Close()

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.write(ctx, cancel) }()
	go func() { defer wg.Done(); c.forward(ctx, sub) }()

	c.ws.SetReadLimit(maxFrameBytes)
	c.ws.SetReadDeadline(time.Now().Add(2 * pingInterval))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(2 * pingInterval)) })

	if info, err := c.g.hubInfo(ctx); err == nil {
		c.pushFrame(push{Topic: "hello", Data: info})
	}
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			break
		}
		c.ws.SetReadDeadline(time.Now().Add(2 * pingInterval))
		var req request
		if err := json.Unmarshal(data, &req); err != nil || req.Method == "" || len(req.ID) == 0 {
			c.sendReply(ctx, reply{ID: req.ID, Error: &Error{Code: CodeBadRequest, Message: "a request is {id, method, params}"}})
			continue
		}
		select {
		case c.calls <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		go func() {
			defer func() { <-c.calls }()
			result, err := c.g.call(context.WithValue(ctx, connKey{}, c), req.Method, req.Params)
			var then func()
			if a, ok := result.(afterReply); ok {
				result, then = a.result, a.then
			}
			rep := reply{ID: req.ID, Result: result}
			if err != nil {
				rep = reply{ID: req.ID, Error: errorOf(err, c.g.cfg.Logger, req.Method)}
			}
			c.sendReply(ctx, rep)
			if then != nil {
				then()
			}
		}()
	}
	cancel()
	c.ws.Close()
	wg.Wait()
}

// write drains the queue to the socket; a write that times out ends the connection.
func (c *conn) write(ctx context.Context, cancel context.CancelFunc) {
	ping := time.NewTicker(pingInterval)
	defer ping.Stop()
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
			c.ws.Close() // unblocks the reader
			return
		case frame := <-c.out:
			c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, frame); err != nil {
				c.ws.Close()
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				c.ws.Close()
				return
			}
		}
	}
}

// sendReply queues a reply, waiting for room: replies are never dropped.
func (c *conn) sendReply(ctx context.Context, r reply) {
	frame, err := json.Marshal(r)
	if err != nil {
		frame, _ = json.Marshal(reply{ID: r.ID, Error: &Error{Code: CodeInternal, Message: "the reply could not be encoded"}})
	}
	select {
	case c.out <- frame:
	case <-ctx.Done():
	}
}

// pushFrame queues a pushed event if there is room; otherwise the client will be told it lagged.
func (c *conn) pushFrame(p push) {
	if !c.tellLagged() {
		return
	}
	frame, err := json.Marshal(p)
	if err != nil {
		return
	}
	select {
	case c.out <- frame:
	default:
		c.lagged.Store(true)
	}
}

// tellLagged queues the lagged frame if the client missed events and there is room, and says
// whether the client is now told of everything it missed.
func (c *conn) tellLagged() bool {
	if !c.lagged.Load() {
		return true
	}
	lag, _ := json.Marshal(push{Topic: "lagged", Data: struct{}{}})
	select {
	case c.out <- lag:
		c.lagged.Store(false)
		return true
	default:
		return false
	}
}

// lagRetry is how soon forward tries again to tell a client it lagged when its queue had no room:
// after a burst nothing else may come to carry the news, and the client must refetch.
const lagRetry = 200 * time.Millisecond

// forward turns bus events into pushed frames.
func (c *conn) forward(ctx context.Context, sub *bus.Subscription) {
	var retry <-chan time.Time
	for {
		if retry == nil && c.lagged.Load() {
			retry = time.After(lagRetry)
		}
		select {
		case <-ctx.Done():
			return
		case <-retry:
			retry = nil
			c.tellLagged()
		case <-sub.Lagged:
			c.lagged.Store(true)
			c.tellLagged()
		case e := <-sub.C:
			if e.Topic == channels.Topic {
				if up, ok := c.g.channelUpdate(ctx, e); ok {
					c.pushFrame(push{Topic: "channel", Data: up})
				}
			}
			if e.Topic == tasks.Topic {
				if up, ok := c.g.taskUpdate(ctx, e); ok {
					c.pushFrame(push{Topic: "task", Data: up})
				}
			}
			if e.Topic == scenario.Topic {
				c.pushFrame(push{Topic: "scenario", Data: map[string]string{"id": e.Key}})
			}
			if e.Topic == agents.Topic {
				c.pushFrame(push{Topic: "agents", Data: map[string]string{"id": e.Key}})
			}
			if e.Topic == auth.Topic { // never the key: the client refetches access.list
				c.pushFrame(push{Topic: "access", Data: map[string]string{"name": e.Key}})
			}
			if e.Topic == chats.Topic {
				c.pushFrame(push{Topic: "chat", Data: c.g.chatUpdate(ctx, e)})
			}
			if e.Topic == pushout.Topic {
				if up, ok := c.g.pushUpdate(ctx, e); ok {
					c.pushFrame(push{Topic: "push", Data: up})
				}
			}
			if st, ok := bridgeUpdate(e); ok {
				c.pushFrame(push{Topic: "bridge", Data: st})
			}
			if w, ok := e.Data.(wirelog.Entry); ok && e.Topic == wirelog.Topic {
				c.pushFrame(push{Topic: "wire", Data: map[string]any{"agentId": e.Key, "entry": wireEntryOf(w)}})
			}
			if e.Source == c.g.cfg.InboxAgent || e.Topic == seenTopic {
				c.pushCounts(ctx)
			}
		}
	}
}

func (c *conn) pushCounts(ctx context.Context) {
	if c.g.cfg.Inbox == nil {
		return
	}
	waiting, unread, err := c.g.cfg.Inbox.Counts(ctx)
	if err != nil {
		return
	}
	c.mu.Lock()
	changed := c.lastCounts != [2]int{waiting, unread}
	c.lastCounts = [2]int{waiting, unread}
	c.mu.Unlock()
	if changed {
		c.pushFrame(push{Topic: "inbox", Data: map[string]int{"waiting": waiting, "unread": unread}})
	}
}

// Error is a call's error as the UI receives it.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// RPC is the JSON-RPC error an extension answered (code rpc_error only).
	RPC *RPCErrorDetail `json:"rpc,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Error codes.
const (
	CodeBadRequest    = "bad_request"
	CodeUnknownMethod = "unknown_method"
	CodeInvalidParams = "invalid_params"
	CodeNotFound      = "not_found"
	CodeConflict      = "conflict"
	CodeInternal      = "internal"
	// CodeAgent: the remote agent refused or failed the call (the message says how, in its words).
	CodeAgent = "agent_error"
	// CodeRPC: an extension method (ext.call, ext.stream) answered a JSON-RPC error; Error.RPC has it.
	CodeRPC = "rpc_error"
	// CodeUnavailable: the hub's database cannot be reached now (PostgreSQL restarting or out of
	// reach); the call did not happen and may be tried again shortly.
	CodeUnavailable = "unavailable"
)

// storageMessage is the message of CodeUnavailable.
const storageMessage = "storage unavailable: the hub's database cannot be reached; retry shortly"

func errorOf(err error, log *slog.Logger, method string) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if e, ok := rpcError(err); ok { // an extension's JSON-RPC error, kept whole
		return e
	}
	switch {
	case isNotFound(err), errors.Is(err, agents.ErrNotFound), errors.Is(err, agents.ErrNoCard), errors.Is(err, chats.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, inbox.ErrNotWaiting), errors.Is(err, agents.ErrCardUntrusted):
		return &Error{Code: CodeConflict, Message: err.Error()}
	case isInvalidParams(err), errors.Is(err, agents.ErrBadURL), errors.Is(err, agents.ErrBadCredential), errors.Is(err, agents.ErrBindingNotOffered):
		return &Error{Code: CodeInvalidParams, Message: err.Error()}
	}
	var call *chats.CallError
	if errors.As(err, &call) {
		return &Error{Code: CodeAgent, Message: call.Message}
	}
	if server.StorageUnavailable(err) {
		log.Warn("ui call failed: storage unavailable", "method", method, "err", err)
		return &Error{Code: CodeUnavailable, Message: storageMessage}
	}
	log.Warn("ui call failed", "method", method, "err", err)
	return &Error{Code: CodeInternal, Message: err.Error()}
}
