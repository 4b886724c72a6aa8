package uiapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// records keeps the log records the hub writes.
type records struct {
	mu   sync.Mutex
	msgs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Clone())
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// A loop guessing UI tokens must not write a log line a try: the first refusals are logged one by
// one, the rest are counted in a summary line.
func TestWrongTokenLoopDoesNotFloodTheLog(t *testing.T) {
	rec := &records{}
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", NoDemo: true,
		Version: "test", Logger: slog.New(rec), Secrets: "file"}))
	if err != nil {
		t.Fatal(err)
	}
	const tries = 3000
	for i := range tries {
		resp, err := http.Get(h.Agent.BaseURL + "/ui/ws?token=guess" + strings.Repeat("x", i%7))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("try %d: HTTP %d", i, resp.StatusCode)
		}
	}
	h.Stop() // ends the current window: its summary is written

	rec.mu.Lock()
	defer rec.mu.Unlock()
	lines, counted, summaries := 0, int64(0), 0
	for _, r := range rec.msgs {
		switch {
		case r.Message == "ui websocket refused":
			lines++
		case strings.HasPrefix(r.Message, "ui websocket refusals"):
			summaries++
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "count" {
					counted += a.Value.Int64()
				}
				return true
			})
		}
	}
	if lines == 0 || lines > 10*(summaries+1) {
		t.Fatalf("%d refusal lines and %d summaries for %d tries", lines, summaries, tries)
	}
	if int64(lines)+counted != tries {
		t.Fatalf("%d lines + %d counted, want all %d tries accounted for", lines, counted, tries)
	}
}
