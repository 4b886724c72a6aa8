// Package hubtest gives tests that start a whole hub its storage on the engine of the test run
// (backend/store/storetest): hub.db in the data dir on SQLite, or a PostgreSQL database of its own,
// the same one each time a hub starts over the same data dir (a restart finds what it stored).
package hubtest

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// Database is the Config.Database of a hub over dataDir in this test run: "" on SQLite (hub.db in
// dataDir), else the data dir's own PostgreSQL database (storetest gives the same one for the same
// hub.db path, so a restart finds what it stored).
func Database(t testing.TB, dataDir string) string {
	t.Helper()
	if !storetest.Postgres() {
		return ""
	}
	if dataDir == "" {
		return storetest.Target(t, "")
	}
	return storetest.Target(t, hub.HubDBPath(dataDir))
}

// Target is what store.Open takes for the hub's database over dataDir: hub.db's path, or its URL.
func Target(t testing.TB, dataDir string) string {
	t.Helper()
	if u := Database(t, dataDir); u != "" {
		return u
	}
	return hub.HubDBPath(dataDir)
}

// Storage returns cfg with its storage set for this test run (see Database). On PostgreSQL the
// remote agents' credentials are kept in the database too, under a key file in the data dir (as
// every replica of a team hub must: the keyring and the file are per machine).
func Storage(t testing.TB, cfg hub.Config) hub.Config {
	t.Helper()
	if cfg.Database == "" {
		cfg.Database = Database(t, cfg.DataDir)
	}
	if cfg.Database != "" && cfg.SecretsKeyFile == "" {
		cfg.Secrets, cfg.SecretsKeyFile = "database", KeyFile(t, cfg.DataDir)
	}
	return cfg
}

// KeyFile is a secrets key file for the hub over dataDir (made once, in the data dir: dataDir's
// hubs all use the same key). With no data dir, a new one in a temp dir.
func KeyFile(t testing.TB, dataDir string) string {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	path := filepath.Join(dataDir, "test-secrets.key")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	key := make([]byte, 32)
	rand.Read(key)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ServeFlags are the `agenthub serve` flags that put a hub over dataDir on this run's storage.
func ServeFlags(t testing.TB, dataDir string) []string {
	t.Helper()
	if u := Database(t, dataDir); u != "" {
		return []string{"--database", u, "--secrets", "database", "--secrets-key-file", KeyFile(t, dataDir)}
	}
	return nil
}

// DemoTarget is what store.Open takes for the demo agent's database over dataDir: demo-agent.db's
// path, or the data dir's PostgreSQL database with the demo agent's schema.
func DemoTarget(t testing.TB, dataDir string) string {
	t.Helper()
	if u := Database(t, dataDir); u != "" {
		return store.WithSchema(u, "demo")
	}
	return filepath.Join(dataDir, "demo-agent.db")
}
