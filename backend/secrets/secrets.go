// Package secrets keeps the owner's credentials for remote agents out of the hub's tables in the
// clear and out of logs: in the OS keyring (Secret Service on Linux) when it answers, else in a JSON
// file readable only by the user, or (mode database, for a hub whose replicas share one database) in
// the hub's database sealed under a key from a file (database.go). Which scheme a secret is for, and
// how it is applied, is backend/agents' business.
package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/agenthub/agenthub/backend/store"
	"github.com/google/uuid"
	"github.com/zalando/go-keyring"
)

// Secret holds what the owner typed for one scheme; only the fields the scheme needs are set.
type Secret struct {
	APIKey       string `json:"apiKey,omitempty"`
	Token        string `json:"token,omitempty"`
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
}

// IsZero reports whether nothing is set.
func (s Secret) IsZero() bool { return s == Secret{} }

// Values lists the secret parts, the ones that must never show in a log. The client ID is an
// identifier, not a secret, so it stays readable for debugging.
func (s Secret) Values() []string { return []string{s.APIKey, s.Token, s.ClientSecret} }

// Store keeps credentials out of SQLite and logs: in the OS keyring when it answers, else in a
// JSON file readable only by the user.
type Store interface {
	Get(agentID, scheme string) (Secret, bool, error)
	Put(agentID, scheme string, s Secret) error // an empty Secret deletes
	Delete(agentID, scheme string) error
	DeleteAgent(agentID string) error
	Where() string // "keyring", "file <path>" or "database (key file <path>)"
}

// keyringService names AgentHub's items in the OS keyring.
const keyringService = "agenthub"

// keyringProbeTimeout bounds the start-up probe: a Secret Service that does not answer (no D-Bus
// session, a locked keyring waiting for a prompt) must not hang the hub.
const keyringProbeTimeout = 3 * time.Second

// Config says where OpenWith keeps the secrets.
type Config struct {
	DataDir string    // for mode file (and auto)
	Mode    string    // auto (or ""), keyring, file or database
	DB      *store.DB // for mode database: the hub's database
	KeyFile string    // for mode database: the key's file (see ReadKeyFile)
}

// Open opens the credential store of the desktop modes (see OpenWith).
func Open(dataDir, mode string) (Store, error) {
	return OpenWith(context.Background(), Config{DataDir: dataDir, Mode: mode})
}

// OpenWith opens the credential store. Mode "file" always uses DataDir/secrets.json; "keyring"
// uses the OS keyring and fails if it does not answer; "auto" (or "") uses the keyring when a probe
// answers quickly and the file otherwise; "database" keeps them sealed in DB under the key in KeyFile.
func OpenWith(ctx context.Context, cfg Config) (Store, error) {
	dataDir, mode := cfg.DataDir, cfg.Mode
	if mode == "database" {
		return openDBSecrets(ctx, cfg.DB, cfg.KeyFile)
	}
	if dataDir == "" && mode != "keyring" {
		return nil, errors.New("the secrets store needs a data directory")
	}
	switch mode {
	case "file":
		return openFileSecrets(filepath.Join(dataDir, "secrets.json"))
	case "keyring":
		if err := probeKeyring(); err != nil {
			return nil, fmt.Errorf("the OS keyring is not available: %w", err)
		}
		return &keyringSecrets{}, nil
	case "auto", "":
		if probeKeyring() == nil {
			return &keyringSecrets{}, nil
		}
		return openFileSecrets(filepath.Join(dataDir, "secrets.json"))
	default:
		return nil, fmt.Errorf("unknown secrets mode %q: use auto, keyring, file or database", mode)
	}
}

// probeKeyring asks for an item that does not exist: a working keyring says "not found".
func probeKeyring() error {
	done := make(chan error, 1)
	go func() {
		_, err := keyring.Get(keyringService, "probe-"+uuid.NewString())
		done <- err
	}()
	select {
	case err := <-done:
		if errors.Is(err, keyring.ErrNotFound) {
			return nil
		}
		if err == nil {
			return errors.New("the probe found an item that should not exist")
		}
		return err
	case <-time.After(keyringProbeTimeout):
		return fmt.Errorf("no answer within %s", keyringProbeTimeout)
	}
}

// secretBook is every secret of every agent: agent id → scheme name → secret.
type secretBook map[string]map[string]Secret

func (b secretBook) get(agentID, scheme string) (Secret, bool) {
	s, ok := b[agentID][scheme]
	return s, ok
}

func (b secretBook) put(agentID, scheme string, s Secret) {
	if s.IsZero() {
		b.delete(agentID, scheme)
		return
	}
	if b[agentID] == nil {
		b[agentID] = map[string]Secret{}
	}
	b[agentID][scheme] = s
}

func (b secretBook) delete(agentID, scheme string) {
	delete(b[agentID], scheme)
	if len(b[agentID]) == 0 {
		delete(b, agentID)
	}
}

func checkKey(agentID, scheme string) error {
	if agentID == "" || scheme == "" {
		return errors.New("a secret needs an agent id and a scheme name")
	}
	return nil
}

// fileSecrets keeps the book in one JSON file, rewritten whole (temp file + rename) on each change
// so a crash leaves either the old or the new file, never half of one.
type fileSecrets struct {
	path string
	mu   sync.Mutex
	book secretBook
}

type secretsFile struct {
	Version int        `json:"version"`
	Agents  secretBook `json:"agents"`
}

func openFileSecrets(path string) (*fileSecrets, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the secrets directory: %w", err)
	}
	if err := restrict(dir, 0o700); err != nil {
		return nil, err
	}
	f := &fileSecrets{path: path, book: secretBook{}}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return f, nil
	case err != nil:
		return nil, fmt.Errorf("read the secrets file: %w", err)
	}
	if err := restrict(path, 0o600); err != nil {
		return nil, err
	}
	var doc secretsFile
	if err := json.Unmarshal(data, &doc); err != nil {
		// Never start afresh over it: that would silently lose every credential.
		return nil, fmt.Errorf("the secrets file %s is damaged (%v); AgentHub left it untouched: repair or remove it", path, jsonProblem(err))
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("the secrets file %s has version %d; this AgentHub reads version 1", path, doc.Version)
	}
	if doc.Agents != nil {
		f.book = doc.Agents
	}
	return f, nil
}

// jsonProblem describes a JSON error without quoting the document (which holds secrets).
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("unexpected %s at byte %d", typ.Value, typ.Offset)
	default:
		return "not the expected JSON document"
	}
}

// restrict tightens permissions that let other users read secrets (a no-op where modes mean nothing).
func restrict(path string, mode os.FileMode) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if info.Mode().Perm()&^mode != 0 {
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("restrict %s to its owner: %w", path, err)
		}
	}
	return nil
}

func (f *fileSecrets) Where() string { return "file " + f.path }

func (f *fileSecrets) Get(agentID, scheme string) (Secret, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.book.get(agentID, scheme)
	return s, ok, nil
}

func (f *fileSecrets) Put(agentID, scheme string, s Secret) error {
	if err := checkKey(agentID, scheme); err != nil {
		return err
	}
	return f.change(func(b secretBook) { b.put(agentID, scheme, s) })
}

func (f *fileSecrets) Delete(agentID, scheme string) error {
	return f.change(func(b secretBook) { b.delete(agentID, scheme) })
}

func (f *fileSecrets) DeleteAgent(agentID string) error {
	return f.change(func(b secretBook) { delete(b, agentID) })
}

// change applies fn to a copy and keeps it only once the file is written.
func (f *fileSecrets) change(fn func(secretBook)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := secretBook{}
	for id, schemes := range f.book {
		next[id] = map[string]Secret{}
		for name, s := range schemes {
			next[id][name] = s
		}
	}
	fn(next)
	if err := f.write(next); err != nil {
		return err
	}
	f.book = next
	return nil
}

func (f *fileSecrets) write(book secretBook) error {
	data, err := json.MarshalIndent(secretsFile{Version: 1, Agents: book}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.path)
	tmp, err := os.CreateTemp(dir, ".secrets-*.tmp") // created 0600
	if err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("replace the secrets file: %w", err)
	}
	if d, err := os.Open(dir); err == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	return nil
}

// keyringSecrets keeps one keyring item per agent, holding its schemes' secrets as JSON, so that
// forgetting an agent is one delete (keyrings cannot list items by prefix).
type keyringSecrets struct{ mu sync.Mutex }

func (k *keyringSecrets) Where() string { return "keyring" }

func (k *keyringSecrets) load(agentID string) (map[string]Secret, error) {
	raw, err := keyring.Get(keyringService, agentID)
	if errors.Is(err, keyring.ErrNotFound) {
		return map[string]Secret{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the keyring: %w", err)
	}
	m := map[string]Secret{}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return nil, fmt.Errorf("the keyring item for agent %s is damaged (%s)", agentID, jsonProblem(err))
	}
	return m, nil
}

func (k *keyringSecrets) Get(agentID, scheme string) (Secret, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	m, err := k.load(agentID)
	if err != nil {
		return Secret{}, false, err
	}
	s, ok := m[scheme]
	return s, ok, nil
}

func (k *keyringSecrets) Put(agentID, scheme string, s Secret) error {
	if err := checkKey(agentID, scheme); err != nil {
		return err
	}
	return k.change(agentID, func(m map[string]Secret) {
		if s.IsZero() {
			delete(m, scheme)
		} else {
			m[scheme] = s
		}
	})
}

func (k *keyringSecrets) Delete(agentID, scheme string) error {
	return k.change(agentID, func(m map[string]Secret) { delete(m, scheme) })
}

func (k *keyringSecrets) DeleteAgent(agentID string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := keyring.Delete(keyringService, agentID); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("delete from the keyring: %w", err)
	}
	return nil
}

func (k *keyringSecrets) change(agentID string, fn func(map[string]Secret)) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	m, err := k.load(agentID)
	if err != nil {
		return err
	}
	fn(m)
	if len(m) == 0 {
		if err := keyring.Delete(keyringService, agentID); err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("delete from the keyring: %w", err)
		}
		return nil
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := keyring.Set(keyringService, agentID, string(data)); err != nil {
		return fmt.Errorf("write to the keyring: %w", err)
	}
	return nil
}
