package auth

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

const testIssuer = "http://127.0.0.1:47470"

// clock is a settable clock, so expiry is tested by moving time, not by waiting.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// openDB opens a fresh hub.db in a temporary directory.
func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// logBuffer collects a service's log, to check that no secret reaches it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type fixture struct {
	db    *store.DB
	svc   *Service
	clock *clock
	log   *logBuffer
}

// newFixture opens a Service over a fresh database with a settable clock and a captured log.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{db: openDB(t), clock: newClock(), log: &logBuffer{}}
	f.svc = f.open(t)
	return f
}

// open opens (again) a Service over the fixture's database.
func (f *fixture) open(t *testing.T) *Service {
	t.Helper()
	svc, err := Open(context.Background(), Config{DB: f.db, Issuer: testIssuer, Now: f.clock.Now,
		Logger: slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// add adds a principal and returns its key.
func (f *fixture) add(t *testing.T, name string) string {
	t.Helper()
	_, key, err := f.svc.Principals.Add(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// issue mints a token for agent://name.
func (f *fixture) issue(t *testing.T, name string, ttl time.Duration) string {
	t.Helper()
	tok, _, err := f.svc.Issue(context.Background(), Agent(name), ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// wantUnauthenticated fails unless err is an ErrUnauthenticated whose text contains want and none of
// the secrets.
func wantUnauthenticated(t *testing.T, what string, err error, want string, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want refused (%s)", what, want)
	}
	if !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("%s: error %q is not ErrUnauthenticated", what, err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte(want)) {
		t.Errorf("%s: error %q, want it to say %q", what, err, want)
	}
	for _, s := range secrets {
		if s != "" && bytes.Contains([]byte(err.Error()), []byte(s)) {
			t.Errorf("%s: error text %q contains the credential", what, err)
		}
	}
}
