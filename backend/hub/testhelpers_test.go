//go:build unix

package hub_test

// Helpers of the process-level durability tests: they build the real agenthub binary once, run
// `agenthub serve` as a child process, talk JSON-RPC (unary and SSE) to it, and kill it with SIGKILL.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// Deadlines guard against hangs only; no test asserts on how long anything takes. They are generous
// because the binary may be built with the race detector and the machine may be busy.
const (
	startDeadline  = 60 * time.Second
	callDeadline   = 30 * time.Second
	eventDeadline  = 30 * time.Second
	exitDeadline   = 30 * time.Second
	buildDeadline  = 5 * time.Minute
	stderrTailSize = 8 << 10
)

var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// raceEnabled reports whether this test binary runs under the race detector; the agenthub binary is
// then built with it too, so the server's own goroutines are race-checked while it is killed and
// recovered.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// repoRoot is the directory of the module's go.mod.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("go env GOMOD: not inside a module")
	}
	return filepath.Dir(gomod), nil
}

// agenthubBinary builds the binary once per test run (from the repository root, as `go build .`).
func agenthubBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, err = os.MkdirTemp("", "agenthub-durability-"); err != nil {
			buildErr = err
			return
		}
		bin := filepath.Join(buildDir, "agenthub")
		args := []string{"build", "-o", bin}
		if raceEnabled() {
			// checkptr (on with -race) aborts inside Cayley's boltdb/bolt, which the hub opens for its
			// knowledge graph; the race detector itself stays on.
			args = append(args, "-race", "-gcflags=all=-d=checkptr=0")
		}
		ctx, cancel := context.WithTimeout(context.Background(), buildDeadline)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", append(args, ".")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), root, err, out)
			return
		}
		binPath = bin
	})
	if buildErr != nil {
		t.Fatalf("building agenthub: %v", buildErr)
	}
	return binPath
}

// lockedBuffer collects a child's stderr.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func tail(s string) string {
	if len(s) > stderrTailSize {
		return "..." + s[len(s)-stderrTailSize:]
	}
	return s
}

// serveProc is one running `agenthub serve`.
type serveProc struct {
	t       *testing.T
	name    string
	cmd     *exec.Cmd
	HubURL  string // hub base URL (its public URL, with --public-url)
	Listen  string // where the hub listens (HubURL without --public-url)
	DemoURL string // demo agent base URL
	UIURL   string // the UI link it printed, token included
	stderr  *lockedBuffer
	exited  chan struct{} // closed once the process has been waited for
}

// HubRPC and DemoRPC are the JSON-RPC endpoints.
func (p *serveProc) HubRPC() string  { return p.Listen + "/a2a" }
func (p *serveProc) DemoRPC() string { return p.DemoURL + "/a2a" }

// startServe runs `agenthub serve` on dataDir with free loopback ports and returns once it printed
// both URLs (it prints them after its listeners are bound), with any extra flags. The process is
// killed at cleanup.
func startServe(t *testing.T, name, dataDir string, flags ...string) *serveProc {
	t.Helper()
	bin := agenthubBinary(t)
	args := append([]string{"serve", "--secrets", "file", "--addr", "127.0.0.1:0", "--demo-addr", "127.0.0.1:0", "--data", dataDir}, hubtest.ServeFlags(t, dataDir)...)
	args = append(args, flags...)
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{t: t, name: name, cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // nobody reads stdout after start-up; keep draining it
			}
		}
		close(lines)
		cmd.Wait() // only after stdout is drained, as os/exec requires
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
		if strings.Contains(p.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("%s: the race detector reported a data race:\n%s", name, p.stderr.String())
		} else if t.Failed() {
			t.Logf("%s stderr:\n%s", name, tail(p.stderr.String()))
		}
	})
	deadline := time.After(startDeadline)
	for p.HubURL == "" || p.DemoURL == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				<-p.exited
				t.Fatalf("%s exited before it was ready (%v); stderr:\n%s", name, cmd.ProcessState, tail(p.stderr.String()))
			}
			if u, ok := strings.CutPrefix(line, "hub: "); ok {
				p.HubURL = strings.TrimSpace(u)
			}
			if u, ok := strings.CutPrefix(line, "listening: "); ok {
				p.Listen = strings.TrimSpace(u)
			}
			if u, ok := strings.CutPrefix(line, "ui: "); ok {
				p.UIURL = strings.TrimSpace(u)
			}
			if u, ok := strings.CutPrefix(line, "demo agent: "); ok {
				p.DemoURL = strings.TrimSpace(u)
			}
		case <-deadline:
			t.Fatalf("%s did not print its URLs within %v; stderr:\n%s", name, startDeadline, tail(p.stderr.String()))
		}
	}
	if p.Listen == "" {
		p.Listen = p.HubURL
	}
	return p
}

// kill9 kills the process with SIGKILL (no shutdown code runs) and checks that this is how it died.
func (p *serveProc) kill9() {
	p.t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		p.t.Fatalf("kill -9 %s: %v", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(exitDeadline):
		p.t.Fatalf("%s did not die after SIGKILL", p.name)
	}
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		p.t.Fatalf("%s ended with %v, want death by SIGKILL", p.name, p.cmd.ProcessState)
	}
}

// running reports whether the process is still alive.
func (p *serveProc) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// --- JSON-RPC ---

var requestSeq atomic.Int64

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

func rpcBody(t *testing.T, method string, params any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": requestSeq.Add(1), "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// postRPC POSTs one JSON-RPC request, with extra headers as name/value pairs, and reads the whole reply.
func postRPC(t *testing.T, url, method string, params any, headers ...string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(rpcBody(t, method, params)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading response: %v", method, err)
	}
	return resp, body
}

// call makes a unary JSON-RPC call and returns its result; a JSON-RPC error fails the test.
func call(t *testing.T, url, method string, params any) json.RawMessage {
	t.Helper()
	resp, body := postRPC(t, url, method, params)
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("%s: HTTP %d, response is not JSON-RPC: %v\n%s", method, resp.StatusCode, err, body)
	}
	if r.Error != nil {
		t.Fatalf("%s: JSON-RPC error %d %s %s", method, r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if r.Result == nil {
		t.Fatalf("%s: response has no result: %s", method, body)
	}
	return r.Result
}

// sseStream is an open streaming JSON-RPC call; each `data:` line is one JSON-RPC response.
type sseStream struct {
	t      *testing.T
	method string
	events chan json.RawMessage // closed when the stream ends
	cancel context.CancelFunc
	mu     sync.Mutex
	err    error // why reading ended (nil: clean EOF)
}

// openStream opens a streaming call, with extra headers as name/value pairs.
func openStream(t *testing.T, url, method string, params any, headers ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(rpcBody(t, method, params)))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("%s %s: %v", method, url, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("%s: HTTP %d with Content-Type %q, want an SSE stream: %s", method, resp.StatusCode, ct, body)
	}
	s := &sseStream{t: t, method: method, events: make(chan json.RawMessage), cancel: cancel}
	go func() {
		defer close(s.events)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:"); ok && err == nil {
				select {
				case s.events <- json.RawMessage(strings.TrimSpace(data)):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					s.mu.Lock()
					s.err = err
					s.mu.Unlock()
				}
				return
			}
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *sseStream) close() { s.cancel() }

// next returns the result of the next event, or ok=false once the stream has ended. A JSON-RPC error
// event fails the test.
func (s *sseStream) next() (result json.RawMessage, ok bool) {
	s.t.Helper()
	select {
	case data, ok := <-s.events:
		if !ok {
			return nil, false
		}
		var r rpcResponse
		if err := json.Unmarshal(data, &r); err != nil {
			s.t.Fatalf("%s: event is not a JSON-RPC response: %v\n%s", s.method, err, data)
		}
		if r.Error != nil {
			s.t.Fatalf("%s: JSON-RPC error event %d %s %s", s.method, r.Error.Code, r.Error.Message, r.Error.Data)
		}
		if r.Result == nil {
			s.t.Fatalf("%s: event has no result: %s", s.method, data)
		}
		return r.Result, true
	case <-time.After(eventDeadline):
		s.t.Fatalf("%s: no event and no end of stream within %v", s.method, eventDeadline)
		return nil, false
	}
}

// mustNext is next for an event that must come.
func (s *sseStream) mustNext() json.RawMessage {
	s.t.Helper()
	ev, ok := s.next()
	if !ok {
		s.t.Fatalf("%s: the stream ended early (%v)", s.method, s.readErr())
	}
	return ev
}

// all reads every event until the server ends the stream.
func (s *sseStream) all() []json.RawMessage {
	s.t.Helper()
	var out []json.RawMessage
	for {
		ev, ok := s.next()
		if !ok {
			if err := s.readErr(); err != nil {
				s.t.Fatalf("%s: the stream broke instead of ending: %v", s.method, err)
			}
			return out
		}
		out = append(out, ev)
	}
}

func (s *sseStream) readErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// --- JSON ---

func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, raw)
	}
	return v
}

// at walks a decoded JSON value by object keys and array indexes; it returns nil if any step is missing.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		default:
			panic(fmt.Sprintf("bad path element %T", p))
		}
	}
	return v
}

func str(v any, path ...any) string {
	s, _ := at(v, path...).(string)
	return s
}

func list(v any, path ...any) []any {
	a, _ := at(v, path...).([]any)
	return a
}

func has(v any, key string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[key]
	return ok
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func pretty(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// sameJSON fails the test unless got and want are the same JSON value.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s changed:\n--- want (before the kill)\n%s\n--- got (after the restart)\n%s", what, pretty(want), pretty(got))
	}
}

// streamRefused calls a streaming method that must be refused at once: a plain JSON-RPC error
// response instead of an SSE stream.
func streamRefused(t *testing.T, url, method string, params any) *rpcError {
	t.Helper()
	resp, body := postRPC(t, url, method, params, "Accept", "text/event-stream")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: HTTP %d with Content-Type %q, want an immediate JSON-RPC error: %s", method, resp.StatusCode, ct, body)
	}
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil || r.Error == nil {
		t.Fatalf("%s: want a JSON-RPC error, got %s (%v)", method, body, err)
	}
	return r.Error
}
