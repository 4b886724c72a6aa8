package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// jsDir is the npm project holding the pinned @a2a-js/sdk and client.mjs, relative to this package
// (go test runs in the package directory).
const jsDir = "js"

// What client.mjs runs: every scenario once per protocol version. Keep in step with its SCENARIOS.
var (
	jsProtocols = []string{"1.0", "0.3"}
	jsScenarios = []string{"card", "send", "stream", "ask", "file", "data", "cancel", "get", "resubscribe", "not-found"}
)

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
	// A missing toolchain or SDK is a broken checkout, not a reason to pass quietly.
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		t.Fatal("the @a2a-js/sdk is not installed; run: npm ci --prefix backend/interop/js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH; install it, then run: npm ci --prefix backend/interop/js")
	}

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

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", agent.BaseURL)
	cmd.Dir = jsDir
	cmd.WaitDelay = 5 * time.Second // don't wait forever on pipes held by a killed node's children
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		t.Errorf("client.mjs did not finish within the deadline: %v", ctx.Err())
	}

	seen := map[string]bool{}
	allOK := true
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r jsResult
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Scenario == "" {
			t.Errorf("client.mjs printed a line that is not a scenario result: %s", line)
			allOK = false
			continue
		}
		key := r.Protocol + "/" + r.Scenario
		if seen[key] {
			t.Errorf("scenario %s reported twice", key)
		}
		seen[key] = true
		if r.OK {
			t.Logf("ok   %s: %s", key, r.Detail)
		} else {
			t.Errorf("FAIL %s: %s", key, r.Detail)
			allOK = false
		}
	}
	for _, p := range jsProtocols {
		for _, s := range jsScenarios {
			if key := p + "/" + s; !seen[key] {
				t.Errorf("scenario %s did not report", key)
				allOK = false
			}
		}
	}

	// A non-zero exit with every scenario passing means client.mjs itself broke (a crash, or a
	// scenario this test does not know about failing).
	var exitErr *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &exitErr) && !allOK:
		// the failing scenarios are reported above
	default:
		t.Errorf("node client.mjs: %v", runErr)
	}
	if stderr.Len() > 0 && (t.Failed() || runErr != nil) {
		t.Logf("client.mjs stderr:\n%s", stderr.String())
	}
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
