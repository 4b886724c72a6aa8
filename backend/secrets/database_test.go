package secrets_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/secrets"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// newKeyFile writes a fresh random key the way the notes tell an operator to, and returns its path.
func newKeyFile(t *testing.T, name string) string {
	t.Helper()
	key := make([]byte, secrets.KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openDB opens a handle on target (a hub database: a SQLite file or a PostgreSQL URL).
func openDB(t *testing.T, target string) *store.DB {
	t.Helper()
	db, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openDBSecrets(t *testing.T, db *store.DB, keyFile string) secrets.Store {
	t.Helper()
	s, err := secrets.OpenWith(t.Context(), secrets.Config{Mode: "database", DB: db, KeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawRows reads every stored byte of both tables, as an attacker with the database would.
func rawRows(t *testing.T, db *store.DB) map[string][]byte {
	t.Helper()
	rows := map[string][]byte{}
	for _, q := range []string{
		`SELECT agent_id || '/' || scheme, sealed FROM agent_secrets`,
		`SELECT 'key-check', sealed FROM agent_secrets_key`,
	} {
		r, err := db.Reader.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var k string
			var v []byte
			if err := r.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			rows[k] = v
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return rows
}

func TestDatabaseSecretsRoundTripAndAreSealed(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "hub.db"))
	keyFile := newKeyFile(t, "secrets.key")
	db := openDB(t, target)
	s := openDBSecrets(t, db, keyFile)
	if !strings.Contains(s.Where(), "database") || !strings.Contains(s.Where(), keyFile) {
		t.Errorf("Where() = %q", s.Where())
	}
	if _, ok, err := s.Get("a1", "key"); ok || err != nil {
		t.Fatalf("Get on an empty store = %v, %v", ok, err)
	}
	key := secrets.Secret{APIKey: "apikey-value-7f3a9c"}
	oauth := secrets.Secret{ClientID: "client-id-42", ClientSecret: "client-secret-value-b81e"}
	token := secrets.Secret{Token: "bearer-token-value-5d2c"}
	for _, put := range []struct {
		agent, scheme string
		s             secrets.Secret
	}{{"a1", "key", key}, {"a1", "cc", oauth}, {"a2", "key", token}} {
		if err := s.Put(put.agent, put.scheme, put.s); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok, err := s.Get("a1", "cc"); err != nil || !ok || got != oauth {
		t.Errorf("Get(a1, cc) = %+v, %v, %v", got, ok, err)
	}

	rows := rawRows(t, db)
	if len(rows) != 4 { // three secrets and the key check
		t.Fatalf("stored rows: %d, want 4", len(rows))
	}
	keyBytes, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	for name, sealed := range rows {
		for _, clear := range []string{key.APIKey, oauth.ClientSecret, oauth.ClientID, token.Token, "apiKey", "token", "check"} {
			if bytes.Contains(sealed, []byte(clear)) {
				t.Errorf("row %s holds %q in the clear", name, clear)
			}
		}
		if bytes.Contains(sealed, keyBytes) || bytes.Contains(sealed, []byte(hex.EncodeToString(keyBytes))) {
			t.Errorf("row %s holds the key", name)
		}
	}

	if err := s.Delete("a1", "cc"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get("a1", "cc"); ok {
		t.Error("Delete left the secret")
	}
	if err := s.DeleteAgent("a2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("", "key", key); err == nil {
		t.Error("Put without an agent id succeeded")
	}

	// A new handle (a restart) reads what was saved, with the same key.
	db.Close()
	reopened := openDBSecrets(t, openDB(t, target), keyFile)
	if got, ok, err := reopened.Get("a1", "key"); err != nil || !ok || got != key {
		t.Errorf("after reopen Get(a1, key) = %+v, %v, %v", got, ok, err)
	}
	if _, ok, _ := reopened.Get("a2", "key"); ok {
		t.Error("DeleteAgent did not survive a reopen")
	}
	// Saving again replaces; an empty secret is a delete.
	if err := reopened.Put("a1", "key", token); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := reopened.Get("a1", "key"); got != token {
		t.Errorf("after a second Put Get = %+v", got)
	}
	if err := reopened.Put("a1", "key", secrets.Secret{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := reopened.Get("a1", "key"); ok {
		t.Error("putting an empty secret kept the old one")
	}
}

func TestDatabaseSecretsRefuseAnotherKeyAndChangeNothing(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "hub.db"))
	right, wrong := newKeyFile(t, "right.key"), newKeyFile(t, "wrong.key")
	db := openDB(t, target)
	s := openDBSecrets(t, db, right)
	saved := secrets.Secret{APIKey: "apikey-value-7f3a9c"}
	if err := s.Put("a1", "key", saved); err != nil {
		t.Fatal(err)
	}
	before := rawRows(t, db)

	other := openDB(t, target) // another replica, given the wrong key file
	_, err := secrets.OpenWith(t.Context(), secrets.Config{Mode: "database", DB: other, KeyFile: wrong})
	if !errors.Is(err, secrets.ErrWrongKey) {
		t.Fatalf("opening with another key = %v, want ErrWrongKey", err)
	}
	if !strings.Contains(err.Error(), wrong) {
		t.Errorf("the error does not name the key file: %v", err)
	}
	after := rawRows(t, db)
	if len(after) != len(before) {
		t.Fatalf("rows changed: %d before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if !bytes.Equal(after[k], v) {
			t.Errorf("row %s changed", k)
		}
	}
	if got, ok, err := s.Get("a1", "key"); err != nil || !ok || got != saved {
		t.Errorf("the right key's store after the refusal: %+v, %v, %v", got, ok, err)
	}
}

func TestDatabaseSecretsTamperedRowFails(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "hub.db"))
	keyFile := newKeyFile(t, "secrets.key")
	db := openDB(t, target)
	s := openDBSecrets(t, db, keyFile)
	for _, agent := range []string{"flipped", "truncated", "moved-from", "moved-to"} {
		if err := s.Put(agent, "key", secrets.Secret{APIKey: "apikey-of-" + agent}); err != nil {
			t.Fatal(err)
		}
	}
	rows := rawRows(t, db)
	flipped := bytes.Clone(rows["flipped/key"])
	flipped[len(flipped)-5] ^= 0x01
	changes := map[string][]byte{
		"flipped":   flipped,
		"truncated": rows["truncated/key"][:10],
		"moved-to":  rows["moved-from/key"], // a valid sealed value, but of another entry
	}
	for agent, sealed := range changes {
		err := db.Write(t.Context(), func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE agent_secrets SET sealed = ? WHERE agent_id = ? AND scheme = 'key'`, sealed, agent)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for agent := range changes {
		got, ok, err := s.Get(agent, "key")
		if !errors.Is(err, secrets.ErrDamaged) {
			t.Errorf("Get(%s) = %+v, %v, %v; want ErrDamaged", agent, got, ok, err)
			continue
		}
		if ok || !got.IsZero() {
			t.Errorf("Get(%s) returned a secret with its error: %+v, %v", agent, got, ok)
		}
		if !strings.Contains(err.Error(), agent) || !strings.Contains(err.Error(), keyFile) {
			t.Errorf("the error names neither the entry nor the key file: %v", err)
		}
		if strings.Contains(err.Error(), "apikey-of-") {
			t.Errorf("the error quotes a secret: %v", err)
		}
	}
	if got, ok, err := s.Get("moved-from", "key"); err != nil || !ok || got.APIKey != "apikey-of-moved-from" {
		t.Errorf("the untouched entry: %+v, %v, %v", got, ok, err)
	}
}

func TestSecretsKeyFileIsChecked(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return path
	}
	good := bytes.Repeat([]byte{0xA5}, secrets.KeySize)
	if key, err := secrets.ReadKeyFile(write("good", good, 0o600)); err != nil || !bytes.Equal(key, good) {
		t.Fatalf("a good key file: %x, %v", key, err)
	}
	if _, err := secrets.ReadKeyFile(write("owner-read-only", good, 0o400)); err != nil {
		t.Errorf("a 0400 key file was refused: %v", err)
	}
	bad := map[string]string{
		"short":       write("short", good[:31], 0o600),
		"long":        write("long", append(bytes.Clone(good), '\n'), 0o600),
		"hex":         write("hex", []byte(hex.EncodeToString(good)), 0o600),
		"empty":       write("empty", nil, 0o600),
		"group-read":  write("group-read", good, 0o640),
		"world-read":  write("world-read", good, 0o644),
		"missing":     filepath.Join(dir, "missing"),
		"a directory": dir,
	}
	for name, path := range bad {
		t.Run(name, func(t *testing.T) {
			_, err := secrets.ReadKeyFile(path)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("the error does not name the file: %v", err)
			}
		})
	}
	if _, err := secrets.ReadKeyFile(""); err == nil || !strings.Contains(err.Error(), "--secrets-key-file") {
		t.Errorf("no key file: %v", err)
	}

	// Through the store: a refused key file opens nothing, and the database is left without the tables.
	db := openDB(t, storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	for _, path := range []string{bad["world-read"], bad["short"], ""} {
		if _, err := secrets.OpenWith(t.Context(), secrets.Config{Mode: "database", DB: db, KeyFile: path}); err == nil {
			t.Errorf("OpenWith accepted key file %q", path)
		}
	}
	if _, err := db.Reader.Exec(`SELECT 1 FROM agent_secrets`); err == nil {
		t.Error("a refused key file still created the table")
	}
}

// Two replicas (two handles on one database, one key file) see each other's secrets at once: nothing
// is cached per process. They also open an empty database together, racing to record the key check.
func TestDatabaseSecretsAreSharedBetweenReplicas(t *testing.T) {
	target := storetest.Target(t, filepath.Join(t.TempDir(), "hub.db"))
	keyFile := newKeyFile(t, "secrets.key")
	dbs := []*store.DB{openDB(t, target), openDB(t, target)}
	stores := make([]secrets.Store, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range dbs {
		wg.Add(1)
		open := func() {
			defer wg.Done()
			stores[i], errs[i] = secrets.OpenWith(context.Background(), secrets.Config{Mode: "database", DB: dbs[i], KeyFile: keyFile})
		}
		if storetest.Postgres() {
			go open()
		} else {
			// One process owns a SQLite file (the hub's lock): its migrations have no lock against
			// another writer's, so the two open one after the other there.
			open()
		}
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	a, b := stores[0], stores[1]
	first := secrets.Secret{Token: "bearer-token-value-5d2c"}
	if err := a.Put("agent", "bearer", first); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := b.Get("agent", "bearer"); err != nil || !ok || got != first {
		t.Errorf("B reads A's secret: %+v, %v, %v", got, ok, err)
	}
	second := secrets.Secret{Token: "rotated-token-value-9e01"}
	if err := b.Put("agent", "bearer", second); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := a.Get("agent", "bearer"); err != nil || !ok || got != second {
		t.Errorf("A reads B's replacement: %+v, %v, %v", got, ok, err)
	}
	if err := b.DeleteAgent("agent"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Get("agent", "bearer"); ok || err != nil {
		t.Errorf("A still reads the secret B forgot: %v, %v", ok, err)
	}
}
