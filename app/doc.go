// Package app is AgentHub's Wails layer and nothing else: the desktop window's lifecycle and the native
// bits the browser cannot do (opening links in the system browser, file dialogs, notifications). It
// starts the hub (backend/hub) when the window opens and stops it when the window closes; every piece
// of logic stays in backend/.
//
// The window is compiled only with the `desktop` build tag (plus `webkit2_41` on Linux). Without it,
// Available is false and main runs the hub headless, so `go build` and `go test ./...` need no webkit.
//
// Dependencies point one way: app imports backend, never the reverse. No package under backend/ may
// import app (or Wails).
package app

import (
	"io/fs"
	"log/slog"

	"github.com/agenthub/agenthub/backend/hub"
)

// Options configures Run.
type Options struct {
	Hub    hub.Config // the hub the window starts and stops
	Assets fs.FS      // the built frontend (index.html at its root)
	Logger *slog.Logger
}
