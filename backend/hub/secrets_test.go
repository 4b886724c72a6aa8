package hub_test

import (
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// With its tables in PostgreSQL the hub keeps secrets only in the database, and refuses to start
// without the key file or with a per-machine mode. The checks come before anything is opened, so
// an unreachable URL is enough to see them.
func TestHubOnPostgresNeedsDatabaseSecretsAndAKeyFile(t *testing.T) {
	const unreachable = "postgres://agenthub@127.0.0.1:1/agenthub"
	for _, c := range []struct {
		secrets, keyFile, want string
	}{
		{"", "", "--secrets-key-file"},
		{"auto", "", "--secrets-key-file"},
		{"database", "", "--secrets-key-file"},
		{"file", "/nonexistent.key", "--secrets database"},
		{"keyring", "/nonexistent.key", "--secrets database"},
	} {
		_, err := hub.Start(t.Context(), hub.Config{DataDir: t.TempDir(), Database: unreachable, Addr: "127.0.0.1:0",
			NoDemo: true, Version: "test", Logger: slog.New(slog.DiscardHandler), Secrets: c.secrets, SecretsKeyFile: c.keyFile})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("secrets %q, key file %q: Start = %v, want an error naming %s", c.secrets, c.keyFile, err, c.want)
		}
	}
}

// A hub in database mode keeps the credentials it saves in its database, sealed: another handle on
// that database with the same key file (another replica) reads them. On PostgreSQL the hub runs with
// Database set and the mode left to its default; on SQLite the mode is asked for.
func TestHubKeepsSecretsInItsDatabase(t *testing.T) {
	dir := t.TempDir()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "secrets.key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := hub.Config{DataDir: dir, Addr: "127.0.0.1:0", NoDemo: true, Version: "test",
		Logger: slog.New(slog.DiscardHandler), SecretsKeyFile: keyFile}
	target := hub.HubDBPath(dir)
	if storetest.Postgres() {
		target = storetest.Target(t, target)
		cfg.Database = target
	} else {
		cfg.Secrets = "database"
	}
	h, err := hub.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	if where := h.Clients.Secrets().Where(); !strings.Contains(where, "database") {
		t.Fatalf("secrets kept in %q", where)
	}
	// What the hub keeps goes to the database; its own client's key (this run's owner key, its own
	// per replica) stays in its memory, so replicas starting one after the other don't overwrite it.
	saved := credentials.Secret{APIKey: "ahk_remote-agent-key"}
	if err := h.Clients.Secrets().Put("remote-agent", "apiKey", saved); err != nil {
		t.Fatal(err)
	}

	db, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := credentials.OpenSecretsWith(t.Context(), credentials.SecretsConfig{Mode: "database", DB: db, KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := other.Get("remote-agent", "apiKey"); err != nil || !ok || got != saved {
		t.Errorf("another handle reads %+v, %v, %v", got, ok, err)
	}
	if got, ok, err := other.Get(hub.HubID, "apiKey"); err != nil || ok {
		t.Errorf("the hub's own key is in the shared store: %+v, %v, %v", got, ok, err)
	}
	if got, ok, _ := h.Clients.Secrets().Get(hub.HubID, "apiKey"); !ok || got.APIKey != h.Agent.Auth.OwnerKey() {
		t.Errorf("the hub's client has not its run's owner key: %v", ok)
	}
	if _, err := os.Stat(filepath.Join(dir, "secrets.json")); !os.IsNotExist(err) {
		t.Errorf("a secrets file was written in the data dir: %v", err)
	}
}
