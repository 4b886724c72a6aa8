// Package storetest gives tests a hub database on the engine the test run asks for: a SQLite file by
// default, or, with AGENTHUB_TEST_DATABASE=postgres, a fresh database in a throwaway PostgreSQL
// cluster that the test binary starts itself (initdb and postgres from Debian's postgresql package,
// in a temp dir, as an unprivileged user when the tests run as root). AGENTHUB_TEST_DATABASE may also
// be the URL of a running server, in which each test gets a database of its own.
//
// The same tests run against both engines: a test opens store.Open(storetest.Target(t, path)) instead
// of the file at path. (This package does not import store, so store's own tests can use it.)
package storetest

import (
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for creating databases
)

// Env is the variable that picks the engine of a test run.
const Env = "AGENTHUB_TEST_DATABASE"

// Postgres reports whether this test run puts hub databases in PostgreSQL.
func Postgres() bool { return os.Getenv(Env) != "" }

// Target is where a test's hub database goes: sqlitePath itself on SQLite, or the URL of a PostgreSQL
// database: a new, empty one for a path not seen before (or ""), the same one again for a path seen
// before, so a test that reopens its file finds what it stored.
func Target(t testing.TB, sqlitePath string) string {
	t.Helper()
	if !Postgres() {
		return sqlitePath
	}
	if sqlitePath != "" {
		if u, ok := byPath.Load(sqlitePath); ok {
			return u.(string)
		}
	}
	u, err := NewDatabase()
	if err != nil {
		t.Fatalf("postgres for tests: %v", err)
	}
	if sqlitePath != "" {
		got, _ := byPath.LoadOrStore(sqlitePath, u)
		return got.(string)
	}
	return u
}

var byPath sync.Map // SQLite path -> its PostgreSQL database's URL

var (
	once    sync.Once
	server  string // URL of the cluster's maintenance database
	onceErr error
	counter atomic.Int64

	clusters atomic.Int64 // started by this process
)

// NewDatabase creates an empty database in the test run's PostgreSQL and returns its URL.
func NewDatabase() (string, error) {
	once.Do(func() { server, onceErr = start() })
	if onceErr != nil {
		return "", onceErr
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1))
	return createDatabase(server, name)
}

// createDatabase creates the database name on the server whose maintenance database is at admin, and
// returns its URL.
func createDatabase(adminURL, name string) (string, error) {
	admin, err := sql.Open("pgx", adminURL)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	u, _ := url.Parse(adminURL)
	u.Path = "/" + name
	return u.String(), nil
}

// start finds the server to use: the URL in Env, or a cluster of its own.
func start() (string, error) {
	v := os.Getenv(Env)
	if strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://") {
		return v, nil
	}
	if v != "postgres" {
		return "", fmt.Errorf("%s=%q: want postgres or a postgres:// URL", Env, v)
	}
	c, err := StartCluster()
	if err != nil {
		return "", err
	}
	return c.URL("postgres"), nil
}

// Cluster is a throwaway PostgreSQL server: its data dir is a temp dir, it listens on a free
// loopback port, trusts local connections, and goes away with the test process.
type Cluster struct {
	Dir  string
	Port int
	bin  string
	cmd  *exec.Cmd
	done chan struct{}
	cred *syscall.Credential
}

// URL is the address of database db in the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://agenthub@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

// BinDir is where the PostgreSQL server's programs are: Debian keeps them out of PATH, under
// /usr/lib/postgresql/<version>/bin (the newest one is taken).
func BinDir() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[j]))))
		return vi > vj
	})
	if len(found) > 0 {
		return filepath.Dir(found[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL's initdb not found (install Debian's postgresql package: build/setup-debian.sh does)")
}

// StartCluster creates and starts a new cluster. PostgreSQL refuses to run as root, so a test run as
// root starts it as the postgres user of Debian's package (or nobody).
func StartCluster() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	parent := filepath.Join(os.TempDir(), "agenthub-pgtest")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	os.Chmod(parent, 0o755)
	sweep(parent)
	// A test may start a cluster of its own (to stop and start it) beside the run's shared one.
	name := strconv.Itoa(os.Getpid())
	if n := clusters.Add(1); n > 1 {
		name += "-" + strconv.FormatInt(n, 10)
	}
	dir := filepath.Join(parent, name)
	os.RemoveAll(dir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin, done: make(chan struct{})}
	if os.Geteuid() == 0 {
		if c.cred, err = unprivileged(); err != nil {
			return nil, err
		}
		if err := os.Chown(dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			return nil, err
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "agenthub",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	if err := c.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// Start runs the cluster's server (again, after Stop) on its port, chosen free on first start.
func (c *Cluster) Start() error {
	if c.Port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		c.Port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	c.done = make(chan struct{})
	started := make(chan error, 1)
	// The server gets SIGINT (a fast shutdown) when the test process dies, however it dies: the
	// parent-death signal is tied to the thread that started it, so that thread is kept for it.
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(filepath.Join(c.bin, "postgres"), "-D", filepath.Join(c.Dir, "data"),
			"-c", "listen_addresses=127.0.0.1", "-c", "port="+strconv.Itoa(c.Port),
			"-c", "unix_socket_directories="+c.Dir, "-c", "max_connections=600",
			"-c", "shared_buffers=128MB", "-c", "fsync=on", "-c", "synchronous_commit=on")
		log, err := os.OpenFile(filepath.Join(c.Dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			started <- err
			return
		}
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred, Pdeathsig: syscall.SIGINT}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		c.cmd = cmd
		started <- nil
		cmd.Wait()
		log.Close()
		close(c.done)
		// The thread stays locked: its exit would signal nothing now, but keep it simple.
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		db, err := sql.Open("pgx", c.URL("postgres"))
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			return nil
		}
		select {
		case <-c.done:
			out, _ := os.ReadFile(filepath.Join(c.Dir, "server.log"))
			return fmt.Errorf("postgres exited: %s", out)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections in 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// CreateDatabase creates an empty database named name in the cluster and returns its URL.
func (c *Cluster) CreateDatabase(name string) (string, error) {
	return createDatabase(c.URL("postgres"), name)
}

// Stop shuts the server down (fast: open sessions are ended) and waits for it.
func (c *Cluster) Stop() {
	if c.cmd == nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGINT)
	c.Thaw() // a frozen server takes the signal once it runs again
	<-c.done
	c.cmd = nil
}

// Freeze stops the server's processes (SIGSTOP) without closing anything: its connections stay
// open and the kernel still accepts new ones, but nothing answers, as with a hung host. Thaw
// resumes them.
func (c *Cluster) Freeze() error { return c.signalAll(syscall.SIGSTOP) }

// Thaw resumes a frozen server.
func (c *Cluster) Thaw() error { return c.signalAll(syscall.SIGCONT) }

// signalAll signals the postmaster and its children (the sessions and background workers).
func (c *Cluster) signalAll(sig syscall.Signal) error {
	if c.cmd == nil {
		return fmt.Errorf("the cluster is not running")
	}
	pids := []int{c.cmd.Process.Pid}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis.
		i := strings.LastIndexByte(string(b), ')')
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(c.cmd.Process.Pid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil {
			return err
		}
	}
	return nil
}

// Remove stops the server and deletes its files.
func (c *Cluster) Remove() {
	c.Stop()
	os.RemoveAll(c.Dir)
}

// unprivileged is the user a root test run starts PostgreSQL as.
func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
	}
	return nil, fmt.Errorf("no unprivileged user (postgres or nobody) to run PostgreSQL as")
}

// sweep removes the clusters of test processes that are gone.
func sweep(parent string) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		pidText, _, _ := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}
