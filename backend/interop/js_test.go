package interop

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/interop/jsclient"
)

// jsDir is the npm project holding the pinned @a2a-js/sdk and client.mjs, relative to this package
// (go test runs in the package directory).
const jsDir = "js"

// jsResult is one line of client.mjs output.
type jsResult struct {
	Protocol string `json:"protocol"`
	Scenario string `json:"scenario"`
	OK       bool   `json:"ok"`
	Detail   string `json:"detail"`
}

// TestJSClientAgainstDemoAgent drives the demo agent with the official JavaScript SDK's client
// (js/client.mjs), over both the v1.0 and the v0.3 JSON-RPC bindings the agent card advertises.
func TestJSClientAgainstDemoAgent(t *testing.T) {
	// The server's log goes to a buffer, shown only if the test fails: its goroutines may still log
	// after the test ends, when t.Log would panic.
	var serverLog serverLogBuffer
	agent, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{
		DataDir:  t.TempDir(),
		DemoAddr: "127.0.0.1:0",
		Version:  "test",
		Logger:   slog.New(slog.NewTextHandler(&serverLog, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := agent.Stop(); err != nil {
			t.Errorf("stop the demo agent: %v", err)
		}
		if t.Failed() {
			t.Logf("demo agent log:\n%s", serverLog.String())
		}
	})

	jsclient.Run(t, agent.BaseURL)
}

// serverLogBuffer is a bytes.Buffer safe for the server's concurrent log writes.
type serverLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *serverLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *serverLogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
