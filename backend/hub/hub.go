// Package hub is the composition root: it resolves the data directory, opens each agent's SQLite
// store, recovers interrupted tasks, and starts the hub's A2A server and the demo agent, in that order,
// and stops them in reverse.
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	grpccreds "google.golang.org/grpc/credentials"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/agents"
	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/channels"
	"github.com/agenthub/agenthub/backend/chats"
	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/inbox"
	"github.com/agenthub/agenthub/backend/knowledge"
	"github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/scenario"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
	"github.com/agenthub/agenthub/backend/uiapi"
)

// Default loopback addresses of the hub and the demo agent.
const (
	DefaultAddr     = "127.0.0.1:47470"
	DefaultDemoAddr = "127.0.0.1:47471"
)

// DefaultDataDir is the per-user data location: ~/.config/agenthub on Linux, %AppData%\AgentHub on
// Windows, ~/Library/Application Support/AgentHub on macOS.
func DefaultDataDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no per-user config directory; pass --data: %w", err)
	}
	name := "AgentHub"
	if runtime.GOOS == "linux" { // lower-case dot-directories are the convention there
		name = "agenthub"
	}
	return filepath.Join(dir, name), nil
}

// Agent is one A2A agent running on the hub's stack: its SQLite file, task store, server and listener.
type Agent struct {
	Name    string
	BaseURL string
	// LocalURL reaches the agent from this computer (the bound port on loopback): where the UI opens,
	// whatever public name BaseURL carries.
	LocalURL string
	DB       *store.DB
	Tasks    *tasks.Store
	Server   *server.Server
	Bus      *bus.Bus
	// Auth holds the agent's signing key (its JWKS is served at auth.JWKSPath); Push its outbox.
	Auth *auth.Service
	Push *push.Outbox

	http *http.Server
	grpc *grpc.Server // nil without a gRPC address
	// GRPCAddr is where the gRPC binding listens (host:port as bound); empty without one.
	GRPCAddr string
	release  func()
	// extensions are closed (those that are io.Closers) once serving ends, before the store closes.
	extensions []server.Extension
	done       chan struct{} // closed when serving ends
	err        error         // why serving ended (nil after Stop); read after done is closed
}

// AgentSpec says what to run.
type AgentSpec struct {
	ID                         string // names the agent's events on the bus: "hub", "demo"
	Name, Description, Version string
	Skills                     []a2a.AgentSkill
	// Executor builds the agent's executor over its database and task store.
	Executor func(context.Context, *store.DB, *tasks.Store) (a2asrv.AgentExecutor, error)
	// Extensions opens the extensions the agent serves on its endpoint (nil: none), once its
	// database, bus and auth are open and before it accepts a request.
	Extensions func(context.Context, ExtensionEnv) ([]server.Extension, error)
	Addr       string // host:port to listen on; loopback unless the agent authenticates with anonymous off
	// GRPCAddr, when set, is where the agent's gRPC binding listens (same rule as Addr; TLS with
	// TLSCert). Empty: the agent speaks JSON-RPC and HTTP+JSON only.
	GRPCAddr string
	// DBPath is the agent's SQLite file in the data dir; its lock file sits beside it either way.
	DBPath string
	// Database, when set, is a PostgreSQL URL the agent keeps its tables in instead of DBPath.
	Database string
	// Authenticate makes every JSON-RPC caller present an API key or a token of this agent's
	// principals (anonymous loopback callers as the stored policy allows), and lets the agent listen
	// beyond loopback once anonymous access is off. The hub authenticates; the demo agent does not.
	Authenticate bool
	// PublicURL is the agent's base URL as others reach it (https://hub.example:8443), for its card,
	// its tokens' issuer and the Host allow-list; default http(s)://ADDR as bound.
	PublicURL string
	// TLSCert and TLSKey, both or neither, are PEM files: the agent then serves HTTPS.
	TLSCert, TLSKey string
	Bus             *bus.Bus // shared with the other agents of the hub; nil for a bus of its own
	Logger          *slog.Logger
	Push            PushOptions
	// AllowedHosts and AllowedOrigins extend the loopback Host and own-Origin allow-lists (see
	// server.Config); IdleTimeout closes idle keep-alive connections (default DefaultIdleTimeout).
	AllowedHosts   []string
	AllowedOrigins []string
	IdleTimeout    time.Duration
}

// ExtensionEnv is what an extension of an agent is opened over: the agent's database (its tables
// migrated by the extension's own package), the shared bus with the agent's source name for its
// events, the agent's base URL, and its logger.
type ExtensionEnv struct {
	DB      *store.DB
	Dir     string // the agent's data dir, for local files (the database may be PostgreSQL's)
	Bus     *bus.Bus
	Source  string
	BaseURL string
	Logger  *slog.Logger
}

// PushOptions tunes push notification delivery; zero values take backend/push's defaults.
type PushOptions struct {
	RetryMax    time.Duration // the longest wait between two attempts
	GiveUpAfter time.Duration // how long a notification is retried before it fails
}

// HTTP server limits. The server has no overall ReadTimeout or WriteTimeout: either would cut SSE
// streams, so the JSON-RPC router bounds each body read and each stream write itself.
const (
	DefaultIdleTimeout = 2 * time.Minute
	readHeaderTimeout  = 10 * time.Second
	maxHeaderBytes     = 64 << 10
)

// StartAgent opens the agent's store, recovers its interrupted tasks (before accepting any request),
// and serves it. It returns once the listener is bound.
func StartAgent(ctx context.Context, spec AgentSpec) (a *Agent, err error) {
	if err := checkListen(spec); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(spec.DBPath), 0o700); err != nil {
		return nil, err
	}
	release, err := lockFile(spec.DBPath + ".lock")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	target := spec.DBPath
	if spec.Database != "" {
		target = spec.Database
	}
	db, err := store.Open(target)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	b := spec.Bus
	if b == nil {
		b = bus.New()
	}
	ts, err := tasks.Open(ctx, db, b, spec.ID)
	if err != nil {
		return nil, err
	}
	ts.SetLogger(spec.Logger)
	// The outbox is the store's write hook before any task is written, recovery included, so every
	// stored event has its notifications recorded with it. Delivery starts once the listener is bound.
	pushConfigs := tasks.NewPushConfigs(db)
	outbox, err := push.Open(ctx, push.Config{DB: db, Configs: pushConfigs, Bus: b, Source: spec.ID, Logger: spec.Logger,
		RetryMax: spec.Push.RetryMax, GiveUpAfter: spec.Push.GiveUpAfter})
	if err != nil {
		return nil, err
	}
	ts.SetWriteHook(outbox)
	exec, err := spec.Executor(ctx, db, ts)
	if err != nil {
		return nil, err
	}
	resumer, _ := exec.(tasks.Resumer)
	resumed, failed, err := ts.Recover(ctx, resumer)
	if err != nil {
		return nil, fmt.Errorf("recover %s tasks: %w", spec.Name, err)
	}
	if resumed+failed > 0 {
		spec.Logger.Info("recovered interrupted tasks", "agent", spec.Name, "resumed", resumed, "failed", failed)
	}
	ln, err := net.Listen("tcp", spec.Addr)
	if err != nil {
		return nil, fmt.Errorf("%s cannot listen on %s: %w", spec.Name, spec.Addr, err)
	}
	var grpcLn net.Listener
	var grpcOpts []grpc.ServerOption
	if spec.GRPCAddr != "" {
		if spec.TLSCert != "" {
			creds, err := grpccreds.NewServerTLSFromFile(spec.TLSCert, spec.TLSKey)
			if err != nil {
				ln.Close()
				return nil, fmt.Errorf("%s's gRPC binding: %w", spec.Name, err)
			}
			grpcOpts = append(grpcOpts, grpc.Creds(creds))
		}
		if grpcLn, err = net.Listen("tcp", spec.GRPCAddr); err != nil {
			ln.Close()
			return nil, fmt.Errorf("%s cannot listen for gRPC on %s: %w", spec.Name, spec.GRPCAddr, err)
		}
		defer func() {
			if err != nil {
				grpcLn.Close()
			}
		}()
	}
	scheme := "http://"
	if spec.TLSCert != "" {
		scheme = "https://"
	}
	base := scheme + ln.Addr().String()
	local := base
	if ip := ln.Addr().(*net.TCPAddr).IP; ip.IsUnspecified() { // 0.0.0.0 or [::]: this computer is loopback
		local = scheme + net.JoinHostPort("127.0.0.1", fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))
	}
	if spec.PublicURL != "" {
		base = strings.TrimRight(spec.PublicURL, "/")
	}
	// One auth service per agent database: its principals and the signing key its tokens and push
	// notifications are signed with; a token names the agent's base URL as issuer and audience.
	authSvc, err := auth.Open(ctx, auth.Config{DB: db, Issuer: base, Bus: b, Logger: spec.Logger})
	if err != nil {
		ln.Close()
		return nil, err
	}
	for _, addr := range []string{spec.Addr, spec.GRPCAddr} {
		if addr != "" && !server.LoopbackHost(addr) && authSvc.AnonymousPolicy() != auth.AnonymousOff {
			ln.Close()
			return nil, fmt.Errorf("refusing to listen on %s while callers without a key may use %s: turn anonymous access off first "+
				"(Settings → Access → \"Refuse them\", or with the hub stopped: agenthub principals anonymous off)", addr, spec.Name)
		}
	}
	cfg := server.Config{
		Name: spec.Name, Description: spec.Description, Version: spec.Version, Skills: spec.Skills,
		Executor: exec, Store: ts, PushConfigs: outbox.Guard(pushConfigs), BaseURL: base, Logger: spec.Logger,
		AllowedHosts: spec.AllowedHosts, AllowedOrigins: spec.AllowedOrigins,
	}
	if spec.PublicURL != "" { // the name other computers reach the agent by is a Host it answers to
		if u, err := url.Parse(spec.PublicURL); err == nil && u.Hostname() != "" {
			cfg.AllowedHosts = append(slices.Clone(cfg.AllowedHosts), u.Hostname())
		}
	}
	if spec.Authenticate {
		cfg.Auth = authSvc
	}
	if grpcLn != nil {
		cfg.GRPCURL = grpcURL(grpcLn.Addr(), spec.PublicURL)
	}
	// Every agent signs its card with its token key; its JWKS (below) is at its own origin.
	cfg.CardSigner = authSvc
	if spec.Extensions != nil {
		if cfg.Extensions, err = spec.Extensions(ctx, ExtensionEnv{DB: db, Dir: filepath.Dir(spec.DBPath), Bus: b, Source: spec.ID, BaseURL: base, Logger: spec.Logger}); err != nil {
			ln.Close()
			return nil, err
		}
	}
	srv, err := server.New(cfg)
	if err != nil {
		ln.Close()
		for _, e := range cfg.Extensions {
			if c, ok := e.(io.Closer); ok {
				c.Close()
			}
		}
		return nil, err
	}
	// Receivers verify notifications with the agent's public keys.
	srv.Mux().Handle(auth.JWKSPath, authSvc.JWKSHandler())
	outbox.Start(authSvc, base)
	idle := spec.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	a = &Agent{Name: spec.Name, BaseURL: base, LocalURL: local, DB: db, Tasks: ts, Server: srv, Bus: b, Auth: authSvc, Push: outbox, release: release, extensions: cfg.Extensions, done: make(chan struct{}),
		http: &http.Server{Handler: srv.HTTPHandler(), ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idle, MaxHeaderBytes: maxHeaderBytes,
			ErrorLog: slog.NewLogLogger(spec.Logger.Handler(), slog.LevelWarn)}}
	if grpcLn != nil {
		a.grpc, a.GRPCAddr = srv.GRPCServer(grpcOpts...), grpcLn.Addr().String()
		go func() {
			if err := a.grpc.Serve(grpcLn); err != nil {
				spec.Logger.Error("gRPC serving ended", "agent", spec.Name, "error", err)
			}
		}()
	}
	go func() {
		var err error
		if spec.TLSCert != "" {
			err = a.http.ServeTLS(ln, spec.TLSCert, spec.TLSKey)
		} else {
			err = a.http.Serve(ln)
		}
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		a.err = err
		close(a.done)
	}()
	return a, nil
}

// Stop stops serving (giving open requests a moment; streams are cut) and closes the store.
func (a *Agent) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if a.grpc != nil { // unary calls finish; streams, like SSE's, are cut
		stopped := make(chan struct{})
		go func() { a.grpc.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-ctx.Done():
			a.grpc.Stop()
		}
	}
	if err := a.http.Shutdown(ctx); err != nil {
		a.http.Close()
	}
	<-a.done
	a.Push.Close() // before the store closes; an attempt cut short stays pending
	err := a.err
	for _, e := range a.extensions {
		if c, ok := e.(io.Closer); ok { // no request is using it now, and its tables are still open
			err = errors.Join(err, c.Close())
		}
	}
	err = errors.Join(err, a.DB.Close())
	a.release()
	return err
}

// grpcURL is the gRPC interface's address in the card: as bound, or with the public URL's host name.
func grpcURL(bound net.Addr, publicURL string) string {
	if u, err := url.Parse(publicURL); publicURL != "" && err == nil && u.Hostname() != "" {
		return net.JoinHostPort(u.Hostname(), fmt.Sprint(bound.(*net.TCPAddr).Port))
	}
	return bound.String()
}

// checkListen refuses an address beyond loopback for an agent that does not authenticate its callers
// (whether anonymous access is off is checked once its policy is read), and half a TLS pair.
func checkListen(spec AgentSpec) error {
	if _, _, err := net.SplitHostPort(spec.Addr); err != nil {
		return fmt.Errorf("address %q: %w", spec.Addr, err)
	}
	if (spec.TLSCert == "") != (spec.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	for _, addr := range []string{spec.Addr, spec.GRPCAddr} {
		if addr == "" || server.LoopbackHost(addr) || spec.Authenticate {
			continue
		}
		return fmt.Errorf("refusing to listen on %s: %s does not authenticate its callers, so it listens on loopback only (127.0.0.1)", addr, spec.Name)
	}
	if spec.GRPCAddr != "" {
		if _, _, err := net.SplitHostPort(spec.GRPCAddr); err != nil {
			return fmt.Errorf("gRPC address %q: %w", spec.GRPCAddr, err)
		}
	}
	return nil
}

// Config configures Start.
type Config struct {
	DataDir string
	// Database is where the hub keeps its tables: empty for hub.db in DataDir (SQLite), or a
	// PostgreSQL URL (postgres://…), where the hub's tables go in its search_path (or public) and the
	// demo agent's in the schema demo. DataDir still holds the hub's local files.
	Database string
	Addr     string
	DemoAddr string
	// GRPCAddr and DemoGRPCAddr, when set, are where the hub's and the demo agent's gRPC bindings
	// listen (--grpc-addr, --demo-grpc-addr). Empty: no gRPC.
	GRPCAddr, DemoGRPCAddr string
	NoDemo                 bool
	Version                string
	Logger                 *slog.Logger

	// UI is the built frontend served at / (index.html at its root). Nil, or without index.html, and
	// the hub serves a page saying the frontend is not built.
	UI fs.FS
	// UIOrigins are page origins, besides the hub's own, allowed to open the UI websocket: the
	// desktop window's webview origin. They pass the hub's Origin check on every route.
	UIOrigins []string
	// AllowedHosts are host names the hub answers to besides loopback names (a public URL's name);
	// a request with any other Host header is refused with 403 (DNS rebinding).
	AllowedHosts []string
	// IdleTimeout closes keep-alive connections idle that long; default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Secrets says where credentials for remote agents are kept: "auto" (the OS keyring when it
	// answers, else a user-only file in the data dir), "keyring", "file", or "database" (the hub's
	// database, each value sealed under the key in SecretsKeyFile). Default "auto", or "database"
	// when Database is set: then it is the only mode, as every replica must read the same secrets.
	Secrets string
	// SecretsKeyFile is the file of the key that seals secrets in the database: exactly 32 random
	// bytes, readable by its owner only (see secrets.ReadKeyFile). Required with Secrets "database".
	SecretsKeyFile string
	// InboxBlockingWait bounds how long a blocking send to the inbox waits for the owner before it
	// returns the task still working; zero means inbox.DefaultBlockingWait.
	InboxBlockingWait time.Duration
	// PublicURL is the hub's base URL as other computers reach it (for its card, its tokens and
	// the Host allow-list) when it listens beyond loopback; TLSCert/TLSKey make it serve HTTPS.
	PublicURL, TLSCert, TLSKey string
	// Push tunes push notification delivery of the hub and the demo agent.
	Push PushOptions
	// DemoTick is the demo agent's pace (nil: its normal second); 0 sends the same events without
	// pausing, for benchmarks.
	DemoTick *time.Duration
	// PushFallback is how long a conversation's task watched through push notifications may go
	// without one before the hub asks the agent (default chats.DefaultPushFallback).
	PushFallback time.Duration
	// ChannelHops is how many times in a row added agents in a channel are sent each other's
	// answers that @mention them before the chain stops (default bridge.DefaultHops).
	ChannelHops int
	// ChannelForwards is how many messages to agents one channel message may lead to in all
	// (default bridge.DefaultForwards).
	ChannelForwards int
}

// Hub is the running hub: its own agent (with the inbox), unless disabled the demo agent, and the UI
// gateway, all on one event bus.
type Hub struct {
	DataDir string
	Agent   *Agent
	Inbox   *inbox.Inbox
	Demo    *Agent
	Bus     *bus.Bus
	// Agents is the registry of remote agents the owner added, kept in hub.db.
	Agents *agents.Registry
	// Clients are the connections to them; Chats the owner's conversations with them.
	Clients *agents.Clients
	Chats   *chats.Service
	// Auth is who may call the hub: its principals and their keys, its tokens, the anonymous policy.
	Auth *auth.Service
	// Channels is the channels extension, served on the hub's JSON-RPC endpoint.
	Channels *channels.Service
	// Knowledge is the hub's knowledge graph (the knowledge-graph extension).
	Knowledge *knowledge.Service
	// Bridge brings added agents into channels (members remote://AGENT-ID).
	Bridge *bridge.Bridge
	// Scenarios are the scenarios the owner saved in the app, and their runs.
	Scenarios *scenario.Store

	gateway *uiapi.Gateway
	routes  *pendingMux // what the hub serves beside A2A: the UI, its gateway, token and push endpoints
	wire    *wirelog.Log
}

// openClients opens what the hub needs to talk to remote agents: their registry, the owner's saved
// credentials, the raw wire log, and the conversations, whose unfinished tasks are watched again.
func (h *Hub) openClients(ctx context.Context, cfg Config) (err error) {
	db := h.Agent.DB
	if h.Agents, err = agents.OpenRegistry(ctx, db, nil, h.Bus); err != nil {
		return err
	}
	displaced, err := h.pinLocal(ctx)
	if err != nil {
		return err
	}
	secrets, err := credentials.OpenSecretsWith(ctx, credentials.SecretsConfig{
		DataDir: cfg.DataDir, Mode: cfg.Secrets, DB: db, KeyFile: cfg.SecretsKeyFile})
	if err != nil {
		return err
	}
	if h.wire, err = wirelog.Open(ctx, db, h.Bus); err != nil {
		return err
	}
	// When the owner chats with the hub itself (a note to their own inbox), the hub's client calls it
	// with this run's owner key, so the task is the owner's: no anonymous caller can read it, and it
	// works with anonymous access off. The key is this process's own (each replica of a team hub
	// has its own), so it stays in memory, not in the shared store.
	secrets = credentials.Pinned(secrets, HubID, "apiKey", credentials.Secret{APIKey: h.Agent.Auth.OwnerKey()})
	h.Clients = agents.NewClients(h.Agents, secrets, h.wire)
	// The hub's webhook for agents that push a conversation's task updates. Its URL is the hub's base
	// URL: loopback unless --public-url names one that agents on other computers can reach.
	receiver, err := push.OpenReceiver(ctx, push.ReceiverConfig{DB: db, BaseURL: h.Agent.BaseURL, Logger: cfg.Logger})
	if err != nil {
		return err
	}
	h.routes.mux.Handle(push.InPath, receiver)
	if h.Scenarios, err = scenario.OpenStore(ctx, db, h.Bus); err != nil {
		return err
	}
	h.Chats, err = chats.Open(ctx, chats.Config{
		DB: db, Bus: h.Bus, Logger: cfg.Logger, Push: receiver, PushFallback: cfg.PushFallback,
		Dial: func(ctx context.Context, id string) (chats.Remote, error) { return h.Clients.Conn(ctx, id) },
		ClassifyError: func(err error) *chats.CallError {
			kind, message := agents.Classify(err)
			return &chats.CallError{Kind: kind, Message: message}
		},
	})
	if err != nil {
		return err
	}
	for from, to := range displaced {
		if err := h.Chats.MoveAgent(ctx, from, to); err != nil {
			return err
		}
	}
	if err := h.Chats.Resume(ctx); err != nil {
		return err
	}
	return h.openBridge(ctx, cfg)
}

// openBridge lets the owner add added agents to channels, and starts the bridge that speaks for
// them there, with the same connections and credentials as the owner's conversations.
func (h *Hub) openBridge(ctx context.Context, cfg Config) (err error) {
	if err := h.tieChannelsToPrincipals(ctx); err != nil {
		return err
	}
	h.Channels.SetRemoteAgents(func(ctx context.Context, id string) error {
		if id == HubID {
			return errors.New("the hub itself is not one of its channels' agents")
		}
		_, err := h.Agents.Get(ctx, id)
		return err
	})
	h.Bridge, err = bridge.Open(ctx, bridge.Config{DB: h.Agent.DB, Bus: h.Bus, Channels: h.Channels, Hops: cfg.ChannelHops, Forwards: cfg.ChannelForwards, Logger: cfg.Logger,
		Name: func(ctx context.Context, id string) string {
			r, err := h.Agents.Get(ctx, id)
			if err != nil {
				return ""
			}
			return r.Name
		},
		Dial: func(ctx context.Context, id string) (chats.Remote, error) { return h.Clients.Conn(ctx, id) },
		Classify: func(err error) string {
			_, message := agents.Classify(err)
			return message
		},
	})
	if err != nil {
		return err
	}
	return h.Bridge.Start(ctx)
}

// tieChannelsToPrincipals makes channel memberships follow the principals: only an active principal
// can be made a member or a direct recipient, and a removed one leaves every channel at once, so a
// name added again starts with nothing. Memberships left by a removal made while the hub was not
// running (`agenthub principals remove`, perhaps `add` again) are dropped here, at start.
func (h *Hub) tieChannelsToPrincipals(ctx context.Context) error {
	ps := h.Agent.Auth.Principals
	h.Channels.SetPrincipals(ps)
	ps.OnRemove(func(ctx context.Context, p auth.Principal) error {
		_, err := h.Channels.RemoveEverywhere(context.WithoutCancel(ctx), p.ID)
		return err
	})
	added, err := ps.AddedAt(ctx)
	if err != nil {
		return err
	}
	_, err = h.Channels.ForgetFormer(ctx, added)
	return err
}

// pinLocal registers the hub's own agent and the demo agent with the registry under their ids, so the
// owner chats with them (over A2A, on loopback) like with any agent they add. It returns the ids of
// rows the owner had added by hand for them, mapped to the id that replaces each.
func (h *Hub) pinLocal(ctx context.Context) (map[string]string, error) {
	displaced := map[string]string{}
	pin := func(id string, a *Agent) error {
		old, err := h.Agents.Pin(ctx, id, a.BaseURL+a2asrv.WellKnownAgentCardPath, a.Server.CardJSON())
		if old != "" {
			displaced[old] = id
		}
		return err
	}
	if err := pin(HubID, h.Agent); err != nil {
		return nil, err
	}
	if h.Demo != nil {
		if err := pin(DemoID, h.Demo); err != nil {
			return nil, err
		}
	}
	return displaced, nil
}

// Agent IDs on the bus and in the UI.
const (
	HubID  = "hub"
	DemoID = "demo"
)

// HubSpec is the hub's own agent.
func HubSpec(cfg Config, h *Hub) AgentSpec {
	in := &h.Inbox
	return AgentSpec{
		ID:          HubID,
		Name:        "AgentHub",
		Description: "The AgentHub on this computer. Its inbox skill delivers your message to the person at this desktop, who answers when they can; its knowledge skill answers a question to its knowledge graph at once.",
		Version:     cfg.Version,
		Skills:      []a2a.AgentSkill{inbox.Skill, knowledge.Skill},
		Executor: func(ctx context.Context, db *store.DB, ts *tasks.Store) (a2asrv.AgentExecutor, error) {
			var err error
			if *in, err = inbox.Open(ctx, db, ts); err != nil {
				return nil, err
			}
			(*in).SetBlockingWait(cfg.InboxBlockingWait)
			return hubExecutor{inbox: *in, knowledge: func() *knowledge.Service { return h.Knowledge }}, nil
		},
		// The channels and knowledge-graph extensions are the hub's (see extensions.go).
		Extensions: func(ctx context.Context, env ExtensionEnv) ([]server.Extension, error) {
			return h.openExtensions(ctx, env)
		},
		Addr:     cfg.Addr,
		GRPCAddr: cfg.GRPCAddr,
		DBPath:   HubDBPath(cfg.DataDir),
		Database: cfg.Database,
		// The hub is the agent others call: they present its principals' keys or tokens.
		Authenticate: true,
		PublicURL:    cfg.PublicURL,
		TLSCert:      cfg.TLSCert,
		TLSKey:       cfg.TLSKey,
		Logger:       cfg.Logger,
		Push:         cfg.Push,

		AllowedHosts: cfg.AllowedHosts, AllowedOrigins: cfg.UIOrigins, IdleTimeout: cfg.IdleTimeout,
	}
}

// DemoSpec is the demo agent.
func DemoSpec(cfg Config) AgentSpec {
	return AgentSpec{
		ID:          DemoID,
		Name:        "AgentHub demo agent",
		Description: "A demo A2A agent to try a client on: streaming with progress, cancellation, questions back (input-required), file and data artifacts.",
		Version:     cfg.Version,
		Skills:      demoagent.Skills,
		Executor: func(context.Context, *store.DB, *tasks.Store) (a2asrv.AgentExecutor, error) {
			a := demoagent.New()
			if cfg.DemoTick != nil {
				a.Tick = *cfg.DemoTick
			}
			return a, nil
		},
		// the demo agent draws A2UI surfaces: its card declares the extension (it serves no methods)
		Extensions: func(context.Context, ExtensionEnv) ([]server.Extension, error) {
			var out []server.Extension
			for _, e := range demoagent.A2UIExtensionCards() {
				out = append(out, cardOnly{e})
			}
			return out, nil
		},
		Addr:     cfg.DemoAddr,
		GRPCAddr: cfg.DemoGRPCAddr,
		DBPath:   filepath.Join(cfg.DataDir, "demo-agent.db"),
		Database: store.WithSchema(cfg.Database, "demo"),
		Logger:   cfg.Logger,
		Push:     cfg.Push,

		AllowedHosts: cfg.AllowedHosts, IdleTimeout: cfg.IdleTimeout,
	}
}

func (cfg *Config) defaults() error {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Database != "" {
		// Replicas share the database, not a keyring or a data dir: only the database mode gives
		// them all the same credentials.
		switch cfg.Secrets {
		case "", "auto":
			cfg.Secrets = "database"
		case "database":
		default:
			return fmt.Errorf("secrets mode %q cannot be used with a PostgreSQL database: each replica would keep its own credentials; use --secrets database", cfg.Secrets)
		}
	}
	if cfg.Secrets == "" {
		cfg.Secrets = "auto"
	}
	if cfg.Secrets == "database" && cfg.SecretsKeyFile == "" {
		return errors.New("secrets kept in the database need a key file: pass --secrets-key-file PATH " +
			"(32 random bytes, made with: head -c 32 /dev/urandom > PATH && chmod 600 PATH)")
	}
	if cfg.DemoAddr == "" {
		cfg.DemoAddr = DefaultDemoAddr
	}
	if cfg.DataDir == "" {
		dir, err := DefaultDataDir()
		if err != nil {
			return err
		}
		cfg.DataDir = dir
	}
	return nil
}

// Start starts the hub, then the demo agent, then opens the UI gateway on the hub's server.
func Start(ctx context.Context, cfg Config) (*Hub, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	h := &Hub{DataDir: cfg.DataDir, Bus: bus.New()}
	spec := HubSpec(cfg, h)
	spec.Bus = h.Bus
	agent, err := StartAgent(ctx, spec)
	if err != nil {
		return nil, err
	}
	h.Agent = agent
	// The hub's server answers A2A from here on, while the rest starts. Until the UI, its gateway, the
	// token endpoint and the push receiver are mounted, a request for one of them waits rather than
	// meeting a 404: a tab that reconnects or reloads while the hub restarts would show "404 page not
	// found" (it did, in e2e on a slow machine).
	h.routes = newPendingMux()
	agent.Server.Mux().Handle("/", h.routes)
	started := false
	defer func() {
		if !started {
			h.routes.fail()
		}
	}()
	// After the hub's lock is held: one process at a time writes the token file.
	db := agent.DB
	token, fresh, err := loadUIToken(ctx, db, cfg.DataDir)
	if err != nil {
		agent.Stop()
		return nil, err
	}
	if fresh && db.Postgres() {
		cfg.Logger.Info("new UI token", "database", store.Redacted(cfg.Database))
	} else if fresh {
		cfg.Logger.Info("new UI token", "file", UITokenPath(cfg.DataDir))
	}
	// On PostgreSQL the token is the table's: every connection is checked against it, so a token
	// regenerated on another replica is refused here at once.
	var loadToken func(context.Context) (string, error)
	if db.Postgres() {
		loadToken = func(ctx context.Context) (string, error) { return readUIToken(ctx, db) }
	}
	if !cfg.NoDemo {
		spec := DemoSpec(cfg)
		spec.Bus = h.Bus
		if h.Demo, err = StartAgent(ctx, spec); err != nil {
			agent.Stop()
			return nil, err
		}
	}
	if err := h.openClients(ctx, cfg); err != nil {
		h.Stop()
		return nil, err
	}
	h.Auth = agent.Auth
	local := []uiapi.LocalAgent{localAgent(HubID, "hub", agent)}
	if h.Demo != nil {
		local = append(local, localAgent(DemoID, "local", h.Demo))
	}
	saveToken := func(ctx context.Context, t string) error { return saveUIToken(ctx, db, cfg.DataDir, t) }
	h.gateway = uiapi.New(uiapi.Config{
		Token: token, SaveToken: saveToken, LoadToken: loadToken, UIBase: agent.LocalURL,
		Origins: cfg.UIOrigins, Version: cfg.Version, DataDir: cfg.DataDir,
		Agents: local, Inbox: h.Inbox, InboxAgent: HubID, Registry: h.Agents, Bus: h.Bus, Logger: cfg.Logger,
		Chats: h.Chats, Clients: h.Clients, Wire: h.wire, Auth: h.Auth, Bridge: h.Bridge, Channels: h.Channels,
		Extensions: extensionMethods(agent.extensions), RemoteExtensions: remoteExtensions{h.Clients}, Scenarios: h.Scenarios,
	})
	// A token regenerated on another replica: the gateway takes it and ends the connections opened
	// with the old one (on the notes' goroutine: one read). Once now too, for a note sent before this.
	reload := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.gateway.Reload(ctx); err != nil {
			cfg.Logger.Warn("reading the UI token another replica regenerated", "err", err)
		}
	}
	db.Follow(uiTokenTopic, func(string) { reload() }, reload)
	if db.Postgres() {
		reload()
	}
	mux := h.routes.mux
	mux.Handle(uiapi.Path, h.gateway)
	mux.Handle(auth.TokenPath, h.Auth.TokenHandler())
	mux.Handle("/", uiHandler(h, cfg.UI))
	h.routes.open()
	started = true
	return h, nil
}

func localAgent(id, kind string, a *Agent) uiapi.LocalAgent {
	return uiapi.LocalAgent{ID: id, Name: a.Name, Description: a.Server.Card.Description, Kind: kind,
		BaseURL: a.BaseURL, CardJSON: a.Server.CardJSON(), Tasks: a.Tasks, Push: a.Push, Chat: true}
}

// UIToken is the UI access token, kept across runs (in the data dir, or the PostgreSQL database every
// replica shares) until regenerated in Settings.
func (h *Hub) UIToken() string { return h.gateway.Token() }

// UIURL opens the UI in a browser; the token rides in the fragment, which browsers never send.
func (h *Hub) UIURL() string { return h.gateway.UIURL() }

// WSURL is the UI gateway's websocket address (the token goes in its ?token= query).
func (h *Hub) WSURL() string { return "ws" + strings.TrimPrefix(h.Agent.LocalURL, "http") + uiapi.Path }

// InboxArrival is a new task in the owner's inbox.
type InboxArrival struct {
	TaskID string
	Title  string
}

// WatchInbox calls fn for every task that arrives in the owner's inbox until ctx is done (for
// desktop notifications). fn runs on WatchInbox's own goroutine.
func (h *Hub) WatchInbox(ctx context.Context, fn func(InboxArrival)) {
	sub := h.Bus.Subscribe(func(e bus.Event) bool { return e.Topic == tasks.Topic && e.Source == HubID && e.Seq == 1 }, 64)
	go func() {
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-sub.C:
				if l, ok := e.Data.(*tasks.Logged); ok {
					if t, ok := l.Event.(*a2a.Task); ok {
						fn(InboxArrival{TaskID: string(t.ID), Title: tasks.Title(t)})
					}
				}
			case <-sub.Lagged: // a burst: the inbox view shows them all; no notification storm
			}
		}
	}()
}

// StartDemo starts the demo agent alone (`agenthub demo-agent`).
func StartDemo(ctx context.Context, cfg Config) (*Agent, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	return StartAgent(ctx, DemoSpec(cfg))
}

// Stop closes the UI connections, stops the demo agent, then the hub.
func (h *Hub) Stop() error {
	if h.gateway != nil {
		h.gateway.Close()
	}
	if h.Bridge != nil {
		h.Bridge.Close() // before the store closes: answers in flight are published
	}
	if h.Chats != nil {
		h.Chats.Close() // before the store closes: calls in flight record what they got
	}
	if h.wire != nil {
		h.wire.Close() // writes what is queued
	}
	var err error
	if h.Demo != nil {
		err = h.Demo.Stop()
	}
	return errors.Join(err, h.Agent.Stop())
}

// Done is closed when the hub stops serving; Err then says why.
func (h *Hub) Done() <-chan struct{} { return h.Agent.done }

// Err is why the hub stopped serving (nil when stopped by Stop); valid once Done is closed.
func (h *Hub) Err() error { return h.Agent.err }

// uiHandler serves the built frontend, or a page saying it is not built. The server's guard has
// checked the Host and Origin already.
func uiHandler(h *Hub, ui fs.FS) http.Handler {
	if ui != nil {
		if _, err := fs.Stat(ui, "index.html"); err == nil {
			files := http.FileServerFS(ui)
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// No directory listings: a directory other than the root (served as index.html) is
				// not a page of the UI.
				if name := strings.TrimPrefix(path.Clean(r.URL.Path), "/"); name != "" {
					if st, err := fs.Stat(ui, name); err == nil && st.IsDir() {
						http.NotFound(w, r)
						return
					}
				}
				hdr := w.Header()
				hdr.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
				hdr.Set("X-Content-Type-Options", "nosniff")
				hdr.Set("Referrer-Policy", "no-referrer")
				if r.URL.Path == "/" || r.URL.Path == "/index.html" {
					hdr.Set("Cache-Control", "no-cache")
				}
				files.ServeHTTP(w, r)
			})
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		demo := ""
		if h.Demo != nil {
			demo = fmt.Sprintf(`<p>Demo agent: <a href="%[1]s/.well-known/agent-card.json">%[1]s</a></p>`, h.Demo.BaseURL)
		}
		fmt.Fprintf(w, `<!doctype html><meta charset="utf-8"><title>AgentHub</title>
<h1>AgentHub</h1><p>The hub is running, but this binary was built without the frontend: run <code>make build</code> (or <code>npm --prefix frontend run build</code> before <code>go build</code>).</p>
<p>Agent card: <a href="/.well-known/agent-card.json">/.well-known/agent-card.json</a> &middot; JSON-RPC endpoint: <code>%s%s</code></p>%s`,
			h.Agent.BaseURL, server.RPCPath, demo)
	})
}

// pendingMux holds requests until Start has mounted its routes (open), then serves them; if Start
// fails (fail), the held requests get 503.
type pendingMux struct {
	mux   *http.ServeMux
	ready chan struct{}
	once  sync.Once
	ok    bool
	held  atomic.Int32 // requests waiting now (a test sees that one waits)
}

func newPendingMux() *pendingMux {
	return &pendingMux{mux: http.NewServeMux(), ready: make(chan struct{})}
}

func (p *pendingMux) open() { p.once.Do(func() { p.ok = true; close(p.ready) }) }
func (p *pendingMux) fail() { p.once.Do(func() { close(p.ready) }) }

func (p *pendingMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.held.Add(1)
	select {
	case <-p.ready:
		p.held.Add(-1)
	case <-r.Context().Done():
		p.held.Add(-1)
		return
	}
	if !p.ok {
		http.Error(w, "the hub did not start", http.StatusServiceUnavailable)
		return
	}
	p.mux.ServeHTTP(w, r)
}

// cardOnly is an extension that only declares itself on the card (A2UI: a protocol over messages,
// with no JSON-RPC methods of its own).
type cardOnly struct{ ext a2a.AgentExtension }

func (c cardOnly) Methods() map[string]server.ExtensionMethod { return nil }
func (c cardOnly) Card() server.ExtensionCard                 { return server.ExtensionCard{Extension: c.ext} }
