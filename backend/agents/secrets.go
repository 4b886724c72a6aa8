package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

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

// values lists the secret parts, the ones that must never show in a log. The client ID is an
// identifier, not a secret, so it stays readable for debugging.
func (s Secret) values() []string { return []string{s.APIKey, s.Token, s.ClientSecret} }

// covers reports whether the secret has what the scheme needs.
func (s Secret) covers(sc Scheme) bool {
	switch sc.Kind {
	case SchemeAPIKey:
		return s.APIKey != ""
	case SchemeBearer:
		return s.Token != ""
	case SchemeOAuth2:
		return s.ClientID != "" && s.ClientSecret != ""
	}
	return false
}

// Secrets keeps credentials out of SQLite and logs: in the OS keyring when it answers, else in a
// JSON file readable only by the user.
type Secrets interface {
	Get(agentID, scheme string) (Secret, bool, error)
	Put(agentID, scheme string, s Secret) error // an empty Secret deletes
	Delete(agentID, scheme string) error
	DeleteAgent(agentID string) error
	Where() string // "keyring" or "file <path>"
}

// keyringService names AgentHub's items in the OS keyring.
const keyringService = "agenthub"

// keyringProbeTimeout bounds the start-up probe: a Secret Service that does not answer (no D-Bus
// session, a locked keyring waiting for a prompt) must not hang the hub.
const keyringProbeTimeout = 3 * time.Second

// OpenSecrets opens the credential store. mode "file" always uses dataDir/secrets.json; "keyring"
// uses the OS keyring and fails if it does not answer; "auto" (or "") uses the keyring when a probe
// answers quickly and the file otherwise.
func OpenSecrets(dataDir, mode string) (Secrets, error) {
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
		return nil, fmt.Errorf("unknown secrets mode %q: use file, keyring or auto", mode)
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

// maskedValue replaces every secret in what is recorded.
const maskedValue = "•••"

// masker hides secrets in recorded text: the known secret values in every encoding they travel in
// (raw, URL-encoded, JSON-escaped), credential headers, API-key query parameters, and the fields
// that carry credentials in token requests and responses, whose values may not be known yet.
type masker struct {
	values  []string
	headers map[string]bool
	query   []*regexp.Regexp
}

var (
	secretJSONField = regexp.MustCompile(`("(?i:access_token|refresh_token|id_token|client_secret|api_?key|password|token|credentials)"\s*:\s*)"(?:[^"\\]|\\.)*"`)
	secretFormField = regexp.MustCompile(`((?:^|[&?\s])(?i:access_token|refresh_token|id_token|client_secret|client_assertion|password)=)[^&\s"]*`)
)

// alwaysMasked are the headers that carry credentials whatever the card says.
var alwaysMasked = map[string]bool{"Authorization": true, "Proxy-Authorization": true, "Cookie": true,
	"Set-Cookie": true, "X-Api-Key": true}

func newMasker(secrets, headerNames, queryNames []string) *masker {
	m := &masker{headers: map[string]bool{}}
	seen := map[string]bool{"": true}
	for _, s := range secrets {
		for _, v := range []string{s, url.QueryEscape(s), url.PathEscape(s), jsonEscaped(s, true), jsonEscaped(s, false)} {
			if !seen[v] {
				seen[v] = true
				m.values = append(m.values, v)
			}
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	slices.SortFunc(m.values, func(a, b string) int { return len(b) - len(a) })
	for _, h := range headerNames {
		m.headers[http.CanonicalHeaderKey(h)] = true
	}
	for _, q := range queryNames {
		m.query = append(m.query, queryParamPattern(q))
	}
	return m
}

// queryParamPatterns caches a pattern per API-key query parameter: a masker is made per request.
var queryParamPatterns sync.Map

func queryParamPattern(name string) *regexp.Regexp {
	if re, ok := queryParamPatterns.Load(name); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`([?&]` + regexp.QuoteMeta(url.QueryEscape(name)) + `=)[^&#]*`)
	queryParamPatterns.Store(name, re)
	return re
}

// jsonEscaped is s as it appears inside a JSON string, with or without HTML-safe escapes
// (Go's encoder writes & as \u0026 by default; most others do not).
func jsonEscaped(s string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(s)
	quoted := strings.TrimSuffix(b.String(), "\n")
	return quoted[1 : len(quoted)-1]
}

func (m *masker) text(s string) string {
	for _, v := range m.values {
		s = strings.ReplaceAll(s, v, maskedValue)
	}
	s = secretJSONField.ReplaceAllString(s, `${1}"`+maskedValue+`"`)
	return secretFormField.ReplaceAllString(s, `${1}`+maskedValue)
}

func (m *masker) url(u *url.URL) string {
	s := u.Redacted()
	for _, re := range m.query {
		s = re.ReplaceAllString(s, `${1}`+maskedValue)
	}
	return m.text(s)
}

func (m *masker) header(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		k = http.CanonicalHeaderKey(k)
		masked := make([]string, len(vs))
		for i, v := range vs {
			switch {
			case k == "Authorization" || k == "Proxy-Authorization":
				if scheme, _, ok := strings.Cut(v, " "); ok {
					masked[i] = scheme + " " + maskedValue // the scheme helps debugging and is no secret
				} else {
					masked[i] = maskedValue
				}
			case k == "Cookie" || k == "Set-Cookie":
				masked[i] = m.text(maskCookies(v, k == "Set-Cookie"))
			case alwaysMasked[k] || m.headers[k]:
				masked[i] = maskedValue
			default:
				masked[i] = m.text(v)
			}
		}
		out[k] = strings.Join(masked, ", ")
	}
	return out
}

// maskCookies keeps cookie names (and a Set-Cookie's attributes) and hides the values.
func maskCookies(v string, setCookie bool) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		if setCookie && i > 0 {
			continue
		}
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=" + maskedValue
		} else {
			parts[i] = maskedValue
		}
	}
	return strings.Join(parts, ";")
}
