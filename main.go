// Command agenthub is AgentHub: a desktop home for A2A agents. With no command it opens the desktop
// window; `agenthub serve` runs the hub headless with the same UI in a browser; `agenthub demo-agent`
// runs the demo agent alone.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/agenthub/agenthub/app"
	"github.com/agenthub/agenthub/backend/bridge"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/push"
	"github.com/agenthub/agenthub/backend/store"
)

// frontendDist is the built UI (`npm --prefix frontend run build`). A fresh clone holds only
// frontend/dist/.gitkeep, and the hub then serves a page saying the frontend is not built.
//
//go:embed all:frontend/dist
var frontendDist embed.FS

func uiAssets() fs.FS {
	sub, err := fs.Sub(frontendDist, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return sub
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `AgentHub %s: a desktop home for A2A agents.

Usage:
  agenthub [--data DIR]
      Open the desktop window; the hub and the demo agent run while it is open.
  agenthub serve [--addr 127.0.0.1:PORT] [--demo-addr 127.0.0.1:PORT] [--no-demo] [--demo-tick 1s] [--data DIR] [--secrets auto|keyring|file|database]
      [--grpc-addr HOST:PORT] [--demo-grpc-addr 127.0.0.1:PORT]
      [--database postgres://USER@HOST/DB] [--secrets-key-file FILE]
      [--push-retry-max 5m] [--push-give-up 24h] [--public-url URL] [--tls-cert FILE --tls-key FILE]
      [--channel-hops 3] [--channel-forwards 16] [--cpuprofile FILE]
      Run the hub headless: its A2A server (and the demo agent, unless --no-demo), and the UI at the
      printed "ui:" URL, which carries the UI's access token. --addr beyond loopback (0.0.0.0:PORT)
      needs anonymous access off (agenthub principals anonymous off).
  agenthub demo-agent [--addr 127.0.0.1:PORT] [--grpc-addr 127.0.0.1:PORT] [--tick 1s] [--data DIR] [--cpuprofile FILE]
      Run only the demo A2A agent.
  agenthub principals add|list|rotate|remove [NAME] [--data DIR | --database URL]
  agenthub principals anonymous [off|read-public|send] [--data DIR | --database URL]
      Manage the agents allowed to call the hub (agent://NAME) and their API keys, and what callers
      without a key may do. Changes need AgentHub stopped (while it runs, use Settings → Access);
      "list" and printing the policy work at any time. "add" and "rotate" print the new key once,
      alone on the last line.
  agenthub scenario run FILE... [--agent URL|ID] [--key KEY] [--junit out.xml] [--json]
      Run saved scenarios against an A2A agent, without the window or a running hub; exit 0 when
      every expectation holds, 1 when one fails, 2 for a file refused (agenthub scenario help).
  agenthub scenario record [CONVERSATION-ID] [--out FILE] [--data DIR]
      Write a conversation stored in the hub as a scenario file; without an id, list them.
  agenthub version
      Print the version.

A binary built without the desktop window (plain "go build") runs "serve" when given no command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "desktop"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "desktop":
		if app.Available {
			return desktop(args, stderr)
		}
		fmt.Fprintln(stderr, "agenthub: built without the desktop window; running headless (agenthub serve)")
		return serve(args, stdout, stderr)
	case "serve":
		return serve(args, stdout, stderr)
	case "demo-agent":
		return demoAgent(args, stdout, stderr)
	case "principals":
		return principals(args, stdout, stderr)
	case "scenario":
		return scenarioCmd(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "agenthub", version)
		return 0
	case "help":
		fmt.Fprintf(stdout, usage, version)
		return 0
	}
	fmt.Fprintf(stderr, "agenthub: unknown command %q\n\n"+usage, cmd, version)
	return 2
}

// profileCPU starts a CPU profile written to path (nothing when path is empty) and returns what
// ends it: the process's own profile under the load it served, which an in-process benchmark cannot
// give (its profile mixes the load generator and the peer server in).
func profileCPU(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// hubFlags declares the hub's flags, shared by the window and serve.
func hubFlags(fs *flag.FlagSet) *hub.Config {
	cfg := &hub.Config{Version: version}
	fs.StringVar(&cfg.Addr, "addr", hub.DefaultAddr, "`host:port` of the hub (port 0 picks a free one); beyond loopback only with anonymous access off")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "the hub's base `URL` as other computers reach it (its card, tokens and allowed Host names)")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "PEM certificate `file`: serve HTTPS (with --tls-key)")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "PEM private key `file` for --tls-cert")
	fs.StringVar(&cfg.DemoAddr, "demo-addr", hub.DefaultDemoAddr, "loopback `host:port` of the demo agent")
	fs.StringVar(&cfg.GRPCAddr, "grpc-addr", "", "`host:port` of the hub's gRPC binding (e.g. 127.0.0.1:47472; TLS with --tls-cert); same rule as --addr; default: no gRPC")
	fs.StringVar(&cfg.DemoGRPCAddr, "demo-grpc-addr", "", "loopback `host:port` of the demo agent's gRPC binding; default: no gRPC")
	fs.BoolVar(&cfg.NoDemo, "no-demo", false, "do not start the demo agent")
	fs.StringVar(&cfg.DataDir, "data", "", "data `directory` (default: the per-user config directory)")
	fs.DurationVar(&cfg.Push.RetryMax, "push-retry-max", push.DefaultRetryMax, "the longest wait between two attempts to deliver a push notification")
	fs.DurationVar(&cfg.Push.GiveUpAfter, "push-give-up", push.DefaultGiveUpAfter, "how long a push notification is retried before it is given up")
	cfg.DemoTick = new(time.Duration)
	fs.DurationVar(cfg.DemoTick, "demo-tick", time.Second, "the demo agent's pace: `interval` of slow's progress and of echo chunks; 0 sends the same events without pausing (benchmarks)")
	fs.IntVar(&cfg.ChannelHops, "channel-hops", bridge.DefaultHops, "how many times in a row agents in a channel answer each other's @mentions before the chain stops (`N` ≥ 1)")
	fs.IntVar(&cfg.ChannelForwards, "channel-forwards", bridge.DefaultForwards, "how many messages to agents one person's channel message may lead to in all, agents answering agents included (`N` ≥ 1)")
	fs.StringVar(&cfg.Secrets, "secrets", "auto", "where remote agents' credentials are kept: `auto` (the OS keyring when it answers, else a user-only file in the data directory), keyring, file, or database (the hub's database, sealed under --secrets-key-file; the only mode with a PostgreSQL database)")
	fs.StringVar(&cfg.SecretsKeyFile, "secrets-key-file", "", "`file` of the key that seals credentials kept in the database: exactly 32 random bytes, mode 0600 (head -c 32 /dev/urandom > FILE)")
	return cfg
}

// databaseEnv names the hub's PostgreSQL URL when --database is not given.
const databaseEnv = "AGENTHUB_DATABASE"

func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := hubFlags(fs)
	// Only the headless hub takes a database server: the desktop keeps hub.db in its data directory.
	fs.StringVar(&cfg.Database, "database", os.Getenv(databaseEnv), "the hub's PostgreSQL `URL` (postgres://USER@HOST/DB?…; default $"+databaseEnv+"): its tables go there instead of hub.db in the data directory, and several hubs may share it")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `file` when the hub stops (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	stopProfile, err := profileCPU(*cpuProfile)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	defer stopProfile()
	if cfg.Database != "" && !store.IsPostgresURL(cfg.Database) {
		fmt.Fprintf(stderr, "agenthub: --database wants a postgres:// URL, not %q\n", store.Redacted(cfg.Database))
		return 2
	}
	cfg.Logger = newLogger(stderr)
	cfg.UI = uiAssets()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := hub.Start(ctx, *cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	fmt.Fprintf(stdout, "AgentHub %s\ndata: %s\n", version, h.DataDir)
	if cfg.Database != "" {
		fmt.Fprintf(stdout, "database: %s\n", store.Redacted(cfg.Database))
	}
	fmt.Fprintf(stdout, "hub: %s\n", h.Agent.BaseURL)
	if h.Agent.LocalURL != h.Agent.BaseURL { // --public-url names a proxy or another name: where to point it
		fmt.Fprintf(stdout, "listening: %s\n", h.Agent.LocalURL)
	}
	if h.Agent.GRPCAddr != "" {
		fmt.Fprintf(stdout, "grpc: %s\n", h.Agent.GRPCAddr)
	}
	fmt.Fprintf(stdout, "ui: %s\nsecrets: %s\n", h.UIURL(), h.Clients.Secrets().Where())
	if h.Demo != nil {
		fmt.Fprintf(stdout, "demo agent: %s\n", h.Demo.BaseURL)
		if h.Demo.GRPCAddr != "" {
			fmt.Fprintf(stdout, "demo agent grpc: %s\n", h.Demo.GRPCAddr)
		}
	}
	select {
	case <-ctx.Done():
	case <-h.Done():
		err = h.Err()
	}
	if stopErr := h.Stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	return 0
}

func desktop(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("agenthub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := hubFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := newLogger(stderr)
	cfg.Logger = logger
	cfg.UI = uiAssets()
	if err := app.Run(app.Options{Hub: *cfg, Assets: uiAssets(), Logger: logger}); err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	return 0
}

func demoAgent(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := hub.Config{Version: version}
	fs.StringVar(&cfg.DemoAddr, "addr", hub.DefaultDemoAddr, "loopback `host:port` of the demo agent")
	fs.StringVar(&cfg.DemoGRPCAddr, "grpc-addr", "", "loopback `host:port` of its gRPC binding; default: no gRPC")
	fs.StringVar(&cfg.DataDir, "data", "", "data `directory` (default: the per-user config directory)")
	cfg.DemoTick = new(time.Duration)
	fs.DurationVar(cfg.DemoTick, "tick", time.Second, "the pace: `interval` of slow's progress and of echo chunks; 0 sends the same events without pausing (benchmarks)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `file` when the agent stops (go tool pprof reads it)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	stopProfile, err := profileCPU(*cpuProfile)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	defer stopProfile()
	cfg.Logger = newLogger(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := hub.StartDemo(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	fmt.Fprintf(stdout, "AgentHub %s\ndemo agent: %s\n", version, a.BaseURL)
	if a.GRPCAddr != "" {
		fmt.Fprintf(stdout, "grpc: %s\n", a.GRPCAddr)
	}
	<-ctx.Done()
	if err := a.Stop(); err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	return 0
}
