//go:build unix

package main

// `agenthub principals` tested as users run it: the real binary, built once, against a temporary data
// directory, with the keys it prints checked against hub.db through backend/auth.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// agenthubBinary builds the binary once per test run, as `go build .`.
func agenthubBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agenthub-cli-")
		if err != nil {
			buildErr = err
			return
		}
		bin := filepath.Join(dir, "agenthub")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang guard, not a timing check
		defer cancel()
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
			return
		}
		binPath = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs agenthub with args. In a PostgreSQL test run the hub over the --data directory keeps
// its tables in that directory's own database, named by AGENTHUB_DATABASE as a team would.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(agenthubBinary(t), args...)
	cmd.Env = cliEnv(t, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("agenthub %s: %v", strings.Join(args, " "), err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// cliEnv is the environment of a command with args: in a PostgreSQL test run, AGENTHUB_DATABASE
// names the database of the --data directory in args.
func cliEnv(t *testing.T, args []string) []string {
	t.Helper()
	env := os.Environ()
	for i, a := range args {
		if a == "--data" && i+1 < len(args) {
			if u := hubtest.Database(t, args[i+1]); u != "" {
				env = append(env, "AGENTHUB_DATABASE="+u)
			}
		}
	}
	return env
}

// lastLine is the last line of out, which must end in a newline.
func lastLine(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// authenticate checks key against the principals in dir's hub.db, as the hub will.
func authenticate(t *testing.T, dir, key string) (auth.Principal, error) {
	t.Helper()
	db, err := store.Open(hubtest.Target(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ps, err := auth.OpenPrincipals(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return ps.Authenticate(context.Background(), key)
}

func TestPrincipalsCLI(t *testing.T) {
	dir := t.TempDir()
	add := runCLI(t, "principals", "add", "ci-bot", "--data", dir)
	if add.code != 0 {
		t.Fatalf("add: exit %d\n%s%s", add.code, add.stdout, add.stderr)
	}
	key := lastLine(t, add.stdout)
	if strings.ContainsAny(key, " \t") || !strings.HasPrefix(key, "ahk_") {
		t.Fatalf("add: the last line of stdout is %q, want the key alone", key)
	}
	if strings.Contains(add.stderr, key) || strings.Count(add.stdout, key) != 1 {
		t.Errorf("add: the key must appear once, on stdout's last line:\n%s\n--- stderr\n%s", add.stdout, add.stderr)
	}
	if p, err := authenticate(t, dir, key); err != nil || p.ID != "agent://ci-bot" {
		t.Fatalf("the printed key: %+v, %v; want agent://ci-bot", p, err)
	}

	// Flags may also come first; a second principal.
	other := runCLI(t, "principals", "add", "--data", dir, "other")
	if other.code != 0 {
		t.Fatalf("add --data DIR NAME: exit %d\n%s", other.code, other.stderr)
	}

	list := runCLI(t, "principals", "list", "--data", dir)
	if list.code != 0 {
		t.Fatalf("list: exit %d\n%s", list.code, list.stderr)
	}
	if !strings.Contains(list.stdout, "agent://ci-bot") || !strings.Contains(list.stdout, "agent://other") ||
		!strings.Contains(list.stdout, key[:12]) || strings.Contains(list.stdout, key[12:20]) {
		t.Errorf("list shows both principals and their key prefixes, never more of a key:\n%s", list.stdout)
	}

	rot := runCLI(t, "principals", "rotate", "ci-bot", "--data", dir)
	if rot.code != 0 {
		t.Fatalf("rotate: exit %d\n%s", rot.code, rot.stderr)
	}
	newKey := lastLine(t, rot.stdout)
	if newKey == key || !strings.HasPrefix(newKey, "ahk_") {
		t.Fatalf("rotate printed %q", newKey)
	}
	if _, err := authenticate(t, dir, key); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("the old key after rotate: %v, want ErrUnauthenticated", err)
	}
	if p, err := authenticate(t, dir, newKey); err != nil || p.ID != "agent://ci-bot" {
		t.Errorf("the new key: %+v, %v", p, err)
	}

	rm := runCLI(t, "principals", "remove", "ci-bot", "--data", dir)
	if rm.code != 0 {
		t.Fatalf("remove: exit %d\n%s", rm.code, rm.stderr)
	}
	if _, err := authenticate(t, dir, newKey); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("the key of a removed principal: %v, want ErrUnauthenticated", err)
	}
	if list := runCLI(t, "principals", "list", "--data", dir); strings.Contains(list.stdout, "ci-bot") || !strings.Contains(list.stdout, "agent://other") {
		t.Errorf("list after remove:\n%s", list.stdout)
	}

	// Errors (exit 1) and bad usage (exit 2).
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"principals", "add", "other", "--data", dir}, 1, "already exists"},
		{[]string{"principals", "remove", "ci-bot", "--data", dir}, 1, "no principal named"},
		{[]string{"principals", "rotate", "nobody", "--data", dir}, 1, "no principal named"},
		{[]string{"principals"}, 2, "Usage"},
		{[]string{"principals", "frobnicate"}, 2, "unknown command"},
		{[]string{"principals", "add", "--data", dir}, 2, "NAME"},
		{[]string{"principals", "add", "a", "b", "--data", dir}, 2, "NAME"},
		{[]string{"principals", "add", "Not/A name", "--data", dir}, 2, "lower-case"},
		{[]string{"principals", "list", "--bogus"}, 2, "bogus"},
	} {
		r := runCLI(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("agenthub %s: exit %d, stderr %q; want exit %d saying %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.code, tc.says)
		}
	}
}

// startServe runs `agenthub serve` on dir and returns once it holds the data directory (it prints the
// hub's URL after taking the lock and binding). stop interrupts it and waits for it to exit.
func startServe(t *testing.T, dir string) (stop func()) {
	t.Helper()
	_, stop = serveHub(t, dir)
	return stop
}

// startServeURL runs `agenthub serve` on dir for the rest of the test and returns the hub's URL.
func startServeURL(t *testing.T, dir string) string {
	t.Helper()
	base, _ := serveHub(t, dir)
	return base
}

// serveHub is startServe, also returning the hub's base URL.
func serveHub(t *testing.T, dir string) (base string, stop func()) {
	t.Helper()
	serve := exec.Command(agenthubBinary(t), append([]string{"serve", "--no-demo", "--secrets", "file", "--addr", "127.0.0.1:0", "--data", dir},
		hubtest.ServeFlags(t, dir)...)...)
	serve.Env = cliEnv(t, serve.Args)
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serveErr bytes.Buffer
	serve.Stderr = &serveErr
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if !sent && strings.HasPrefix(sc.Text(), "hub: ") {
				ready <- strings.TrimPrefix(sc.Text(), "hub: ")
				sent = true
			}
		}
		if !sent {
			ready <- ""
		}
		serve.Wait() // after stdout is drained, as os/exec requires
		close(exited)
	}()
	t.Cleanup(func() {
		serve.Process.Kill()
		<-exited
	})
	select {
	case base = <-ready:
		if base == "" {
			<-exited
			t.Fatalf("agenthub serve exited before it was ready:\n%s", serveErr.String())
		}
	case <-time.After(time.Minute): // a hang guard only
		t.Fatalf("agenthub serve printed no hub URL:\n%s", serveErr.String())
	}
	return base, func() {
		t.Helper()
		if err := serve.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		<-exited
		if code := serve.ProcessState.ExitCode(); code != 0 {
			t.Errorf("agenthub serve exited %d:\n%s", code, serveErr.String())
		}
	}
}

// While a hub runs on the data directory a change refuses, plainly, and changes nothing; once the
// hub has stopped it works, and the hub starts again over what it wrote. Reading works all along.
func TestPrincipalsCLIRefusesWhileTheHubRuns(t *testing.T) {
	if storetest.Postgres() {
		t.Skip("the data directory's lock guards hub.db, a SQLite file; on PostgreSQL changes work while hubs run (TestPrincipalsCLIWhileTeamHubsRun)")
	}
	dir := t.TempDir()
	stop := startServe(t, dir)
	for _, args := range [][]string{{"add", "bot"}, {"rotate", "bot"}, {"remove", "bot"}, {"anonymous", "off"}} {
		r := runCLI(t, append(append([]string{"principals"}, args...), "--data", dir)...)
		want := "AgentHub is running on " + dir + "; stop it first, or manage access in Settings → Access"
		if r.code != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Errorf("principals %s while the hub runs: exit %d, stdout %q, stderr %q; want exit 1 saying %q",
				args[0], r.code, r.stdout, r.stderr, want)
		}
	}
	stop()

	r := runCLI(t, "principals", "add", "bot", "--data", dir)
	if r.code != 0 || !strings.HasPrefix(lastLine(t, r.stdout), "ahk_") {
		t.Fatalf("add after the hub stopped: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	stop = startServe(t, dir)
	// Reading while the hub runs: its database, opened read-only, as it is now.
	if list := runCLI(t, "principals", "list", "--data", dir); list.code != 0 || !strings.Contains(list.stdout, "agent://bot") ||
		!strings.HasPrefix(list.stdout, "PRINCIPAL") {
		t.Errorf("list while the hub runs: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
	if r := runCLI(t, "principals", "anonymous", "--data", dir); r.code != 0 || strings.TrimSpace(r.stdout) != "send" {
		t.Errorf("printing the policy while the hub runs: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	stop()
	if list := runCLI(t, "principals", "list", "--data", dir); list.code != 0 || !strings.Contains(list.stdout, "agent://bot") {
		t.Errorf("list after the hub ran again: exit %d\n%s%s", list.code, list.stdout, list.stderr)
	}
}

// A data directory first created by the command (no hub ever ran on it) is one the hub starts on.
func TestPrincipalsCLIBeforeTheFirstHub(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fresh")
	if r := runCLI(t, "principals", "add", "bot", "--data", dir); r.code != 0 {
		t.Fatalf("add on a fresh directory: exit %d\n%s", r.code, r.stderr)
	}
	startServe(t, dir)()
}

// `principals anonymous` shows and sets what callers without a key may do, in the stopped hub's
// database; a value it does not know is a usage error.
func TestPrincipalsCLIAnonymousPolicy(t *testing.T) {
	dir := t.TempDir()
	if r := runCLI(t, "principals", "anonymous", "--data", dir); r.code != 0 || strings.TrimSpace(r.stdout) != "send" {
		t.Fatalf("the default: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "principals", "anonymous", "off", "--data", dir); r.code != 0 {
		t.Fatalf("set off: exit %d %s", r.code, r.stderr)
	}
	if r := runCLI(t, "principals", "anonymous", "--data", dir); r.code != 0 || strings.TrimSpace(r.stdout) != "off" {
		t.Fatalf("after setting off: exit %d %q", r.code, r.stdout)
	}
	if r := runCLI(t, "principals", "anonymous", "everyone", "--data", dir); r.code != 2 || !strings.Contains(r.stderr, "read-public") {
		t.Fatalf("an unknown policy: exit %d %q", r.code, r.stderr)
	}
	if r := runCLI(t, "principals", "anonymous", "off", "send", "--data", dir); r.code != 2 {
		t.Fatalf("two policies: exit %d", r.code)
	}
}

// On PostgreSQL a team's hubs share one database, which has no file lock: a change works while a hub
// runs, and the hub takes it at its next request: a key added by the CLI gets in, and once removed
// it is refused.
func TestPrincipalsCLIWhileTeamHubsRun(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	dir := t.TempDir()
	base := startServeURL(t, dir)
	database := hubtest.Database(t, dir)
	r := runCLI(t, "principals", "add", "teammate", "--database", database)
	if r.code != 0 || !strings.HasPrefix(lastLine(t, r.stdout), "ahk_") {
		t.Fatalf("add while the hub runs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	key := lastLine(t, r.stdout)
	call := func() int {
		req, _ := http.NewRequest(http.MethodPost, base+"/a2a", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("X-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := call(); code != http.StatusOK {
		t.Fatalf("the new key at the running hub: HTTP %d", code)
	}
	if r := runCLI(t, "principals", "list", "--database", database); r.code != 0 || !strings.Contains(r.stdout, "agent://teammate") {
		t.Fatalf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "principals", "remove", "teammate", "--database", database); r.code != 0 {
		t.Fatalf("remove while the hub runs: exit %d\n%s", r.code, r.stderr)
	}
	if code := call(); code != http.StatusUnauthorized {
		t.Fatalf("the removed key at the running hub: HTTP %d, want 401", code)
	}
}
