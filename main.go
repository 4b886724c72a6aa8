// Command agenthub is AgentHub: a desktop home for A2A agents. `agenthub serve` runs the hub headless;
// `agenthub demo-agent` runs the demo agent alone.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agenthub/agenthub/backend/hub"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `AgentHub %s: a desktop home for A2A agents.

Usage:
  agenthub serve [--addr 127.0.0.1:PORT] [--demo-addr 127.0.0.1:PORT] [--no-demo] [--data DIR]
      Run the hub headless: its A2A server (and the demo agent, unless --no-demo).
  agenthub demo-agent [--addr 127.0.0.1:PORT] [--data DIR]
      Run only the demo A2A agent.
  agenthub version
      Print the version.

With no command, AgentHub runs the hub as "serve" does (the desktop window arrives in a later release).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdout, stderr)
	case "demo-agent":
		return demoAgent(args, stdout, stderr)
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

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func serve(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := hub.Config{Version: version}
	fs.StringVar(&cfg.Addr, "addr", hub.DefaultAddr, "loopback `host:port` of the hub (port 0 picks a free one)")
	fs.StringVar(&cfg.DemoAddr, "demo-addr", hub.DefaultDemoAddr, "loopback `host:port` of the demo agent")
	fs.BoolVar(&cfg.NoDemo, "no-demo", false, "do not start the demo agent")
	fs.StringVar(&cfg.DataDir, "data", "", "data `directory` (default: the per-user config directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg.Logger = newLogger(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := hub.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	fmt.Fprintf(stdout, "AgentHub %s\ndata: %s\nhub: %s\n", version, h.DataDir, h.Agent.BaseURL)
	if h.Demo != nil {
		fmt.Fprintf(stdout, "demo agent: %s\n", h.Demo.BaseURL)
	}
	select {
	case <-ctx.Done():
	case err = <-h.Done():
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

func demoAgent(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := hub.Config{Version: version}
	fs.StringVar(&cfg.DemoAddr, "addr", hub.DefaultDemoAddr, "loopback `host:port` of the demo agent")
	fs.StringVar(&cfg.DataDir, "data", "", "data `directory` (default: the per-user config directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg.Logger = newLogger(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := hub.StartDemo(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	fmt.Fprintf(stdout, "AgentHub %s\ndemo agent: %s\n", version, a.BaseURL)
	<-ctx.Done()
	if err := a.Stop(); err != nil {
		fmt.Fprintln(stderr, "agenthub:", err)
		return 1
	}
	return 0
}
