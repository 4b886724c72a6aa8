// Package app is AgentHub's Wails layer and nothing else: the desktop window's lifecycle, native
// dialogs and the tray icon. It starts the hub (backend/hub) when the window opens and stops it when
// the window closes; every piece of logic stays in backend/.
//
// The desktop window arrives with its own issue; until then this package is empty and `agenthub`
// with no command runs the hub headless, as `agenthub serve` does.
//
// Dependencies point one way: app imports backend, never the reverse. No package under backend/ may
// import app (or Wails), so `go test ./backend/...` builds without webkit.
package app
