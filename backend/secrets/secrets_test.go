package secrets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenthub/agenthub/backend/secrets"
)

func fileStore(t *testing.T, dir string) secrets.Store {
	t.Helper()
	s, err := secrets.Open(dir, "file")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSecretFileIsPrivateAndRoundTrips(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s := fileStore(t, dir)
	if want := "file " + filepath.Join(dir, "secrets.json"); s.Where() != want {
		t.Errorf("Where() = %q, want %q", s.Where(), want)
	}
	if _, ok, err := s.Get("a1", "key"); ok || err != nil {
		t.Fatalf("Get on an empty store = %v, %v", ok, err)
	}
	key := secrets.Secret{APIKey: "k-123"}
	oauth := secrets.Secret{ClientID: "id", ClientSecret: "sec"}
	for _, put := range []struct {
		agent, scheme string
		s             secrets.Secret
	}{{"a1", "key", key}, {"a1", "cc", oauth}, {"a2", "key", secrets.Secret{Token: "t"}}} {
		if err := s.Put(put.agent, put.scheme, put.s); err != nil {
			t.Fatal(err)
		}
	}

	info, err := os.Stat(filepath.Join(dir, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("secrets file mode = %v, want 0600", info.Mode().Perm())
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode = %v, want 0700", info.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".secrets-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}

	if got, ok, err := s.Get("a1", "cc"); err != nil || !ok || got != oauth {
		t.Errorf("Get(a1, cc) = %+v, %v, %v", got, ok, err)
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

	reopened := fileStore(t, dir)
	if got, ok, _ := reopened.Get("a1", "key"); !ok || got != key {
		t.Errorf("after reopen Get(a1, key) = %+v, %v", got, ok)
	}
	if _, ok, _ := reopened.Get("a2", "key"); ok {
		t.Error("DeleteAgent did not survive a reopen")
	}
	// An empty secret is a delete, so the owner clearing a field leaves nothing behind.
	if err := reopened.Put("a1", "key", secrets.Secret{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := reopened.Get("a1", "key"); ok {
		t.Error("putting an empty secret kept the old one")
	}
	if err := reopened.Put("", "key", key); err == nil {
		t.Error("Put without an agent id succeeded")
	}
}

func TestSecretFileTightensLoosePermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "secrets.json")
	if err := os.WriteFile(path, []byte(`{"version": 1, "agents": {"a": {"k": {"token": "t"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := fileStore(t, dir)
	if got, ok, _ := s.Get("a", "k"); !ok || got.Token != "t" {
		t.Errorf("Get = %+v, %v", got, ok)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if info, _ := os.Stat(p); info.Mode().Perm() != want {
			t.Errorf("%s mode = %v, want %v", p, info.Mode().Perm(), want)
		}
	}
}

func TestSecretFileRefusesACorruptFileAndLeavesItAlone(t *testing.T) {
	for name, doc := range map[string]string{
		"truncated":     `{"version": 1, "agents": {"a": {"k": {"apiKey": "super-secret-value`,
		"wrong types":   `{"version": 1, "agents": {"a": ["super-secret-value"]}}`,
		"wrong version": `{"version": 9, "agents": {}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "secrets.json")
			if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := secrets.Open(dir, "file")
			if err == nil {
				t.Fatal("a corrupt secrets file was accepted")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("the error does not name the file: %v", err)
			}
			if strings.Contains(err.Error(), "super-secret-value") {
				t.Errorf("the error quotes the file's secrets: %v", err)
			}
			if after, _ := os.ReadFile(path); string(after) != doc {
				t.Errorf("the corrupt file was changed to %q", after)
			}
		})
	}
}

func TestOpenSecretsRejectsAnUnknownModeAndAMissingDataDir(t *testing.T) {
	if _, err := secrets.Open(t.TempDir(), "vault"); err == nil || !strings.Contains(err.Error(), "vault") {
		t.Errorf("OpenSecrets(vault) = %v", err)
	}
	if _, err := secrets.Open("", "file"); err == nil {
		t.Error(`OpenSecrets("", file) used the working directory`)
	}
}
