// Package jsclient runs the official A2A JavaScript SDK's client (../js/client.mjs) against an
// agent, or several replicas of one, from a Go test, and reports each of its scenarios as a check.
package jsclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// What client.mjs runs: every scenario once per protocol version. Keep in step with its SCENARIOS.
var (
	Protocols = []string{"1.0", "0.3", "1.0-rest"}
	Scenarios = []string{"card", "send", "stream", "ask", "file", "data", "cancel", "get", "resubscribe", "not-found"}
)

// result is one line of client.mjs output.
type result struct {
	Protocol string `json:"protocol"`
	Scenario string `json:"scenario"`
	OK       bool   `json:"ok"`
	Detail   string `json:"detail"`
}

// Dir is the npm project holding the pinned @a2a-js/sdk and client.mjs.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "js")
}

// Run drives the agent at baseURLs (several: replicas of one agent, each SDK call going to the next)
// with client.mjs, over the v1.0 and v0.3 JSON-RPC bindings and v1.0 HTTP+JSON, and fails t for each scenario that
// failed or did not report.
func Run(t *testing.T, baseURLs ...string) {
	t.Helper()
	dir := Dir()
	// A missing toolchain or SDK is a broken checkout, not a reason to pass quietly.
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		t.Fatal("the @a2a-js/sdk is not installed; run: npm ci --prefix backend/interop/js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH; install it, then run: npm ci --prefix backend/interop/js")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", strings.Join(baseURLs, ","))
	cmd.Dir = dir
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
		var r result
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
	for _, p := range Protocols {
		for _, s := range Scenarios {
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
