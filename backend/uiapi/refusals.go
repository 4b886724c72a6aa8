package uiapi

import (
	"log/slog"
	"sync"
	"time"
)

// refusalLog logs refused connections, at most refusalBurst a window: a person can still tell why a
// window did not connect, and a loop guessing tokens cannot fill the log (it used to write one line a
// try). What goes unlogged is counted and reported in one line when the window ends.
type refusalLog struct {
	log      *slog.Logger
	interval time.Duration

	mu         sync.Mutex
	logged     int         // lines written in this window
	suppressed int         // refusals not written in this window
	window     *time.Timer // ends the window; nil while no window is open
}

const (
	refusalBurst    = 10
	refusalInterval = time.Minute
)

func (l *refusalLog) refused(reason string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.window == nil {
		l.window = time.AfterFunc(l.interval, l.flush)
	}
	if l.logged < refusalBurst {
		l.logged++
		l.log.Warn("ui websocket refused", append([]any{"reason", reason}, args...)...)
		return
	}
	l.suppressed++
}

// flush ends the window: the count of unlogged refusals, if any, goes out as one line.
func (l *refusalLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.window != nil {
		l.window.Stop()
		l.window = nil
	}
	if l.suppressed > 0 {
		l.log.Warn("ui websocket refusals not logged one by one", "count", l.suppressed, "window", l.interval)
	}
	l.logged, l.suppressed = 0, 0
}
