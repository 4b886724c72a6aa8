package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// cardCheck is one line of js/card-verify.mjs output.
type cardCheck struct {
	URL        string   `json:"url"`
	Signatures int      `json:"signatures"`
	Verified   int      `json:"verified"`
	Kids       []string `json:"kids"`
	Error      string   `json:"error"`
}

// verifyCardsWithJS runs js/card-verify.mjs (npm canonicalize + jose, no code of the hub's) on urls.
func verifyCardsWithJS(t *testing.T, urls ...string) []cardCheck {
	t.Helper()
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "jose", "package.json")); err != nil {
		t.Fatal("jose is not installed; run: npm ci --prefix backend/interop/js")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node (v20 or later) is not on PATH")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"card-verify.mjs"}, urls...)...)
	cmd.Dir = jsDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("card-verify.mjs: %v\n%s", err, stderr.String())
	}
	var out []cardCheck
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var c cardCheck
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("card-verify.mjs printed %q", sc.Text())
		}
		out = append(out, c)
	}
	if len(out) != len(urls) {
		t.Fatalf("card-verify.mjs reported %d cards of %d:\n%s", len(out), len(urls), stdout.String())
	}
	return out
}

// TestHubCardsVerifyWithAnIndependentImplementation: the cards the hub and the demo agent serve (the
// v1.0/v0.3 agent-card.json and the draft's agent.json) carry a §8.4 signature that npm canonicalize
// + jose verify against the JWKS at the agent's origin, with the kid of its current token key; after
// the key rotates, the cards are signed with the new key and still verify.
func TestHubCardsVerifyWithAnIndependentImplementation(t *testing.T) {
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", DemoAddr: "127.0.0.1:0",
		Version: "test", Secrets: "file", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	urls := []string{h.Agent.BaseURL + "/.well-known/agent-card.json", h.Agent.BaseURL + "/.well-known/agent.json",
		h.Demo.BaseURL + "/.well-known/agent-card.json"}
	kidOf := func(a *hub.Agent) string { kid, _ := a.Auth.CardKey(); return kid }
	check := func(when string) {
		t.Helper()
		for i, c := range verifyCardsWithJS(t, urls...) {
			want := kidOf(h.Agent)
			if i == 2 {
				want = kidOf(h.Demo)
			}
			if c.Error != "" || c.Signatures != 1 || c.Verified != 1 || len(c.Kids) != 1 || c.Kids[0] != want {
				t.Errorf("%s: %s: %+v, want one signature verified with kid %s", when, c.URL, c, want)
			}
		}
	}
	check("first key")
	before := kidOf(h.Agent)
	if err := h.Agent.Auth.RotateSigningKey(t.Context()); err != nil {
		t.Fatal(err)
	}
	if kidOf(h.Agent) == before {
		t.Fatal("the token key did not rotate")
	}
	check("after rotation")
}
