package agents

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of registry changes; Key is the agent id.
const Topic = "agent"

// Card paths under a base URL, newest first: v0.3 and v1.0 serve agent-card.json, the v0.1 draft
// agent.json, both under /.well-known/; some servers (AgentVault) serve agent-card.json at the base.
var cardPaths = []string{"/.well-known/agent-card.json", "/.well-known/agent.json", "/agent-card.json"}

// MaxCardBytes bounds a fetched card; real cards are a few kilobytes.
const MaxCardBytes = 1 << 20

var (
	// ErrNotFound means no registered agent has that id.
	ErrNotFound = errors.New("no such agent")
	// ErrBadURL means the URL given is not an absolute http(s) URL.
	ErrBadURL = errors.New("not an http or https URL")
	// ErrNoCard means no agent card could be read from the URL.
	ErrNoCard = errors.New("no agent card found")
	// ErrCardRedirected means the card's URL redirects to another origin (a *RedirectError says
	// where); the owner adds that URL instead, knowingly.
	ErrCardRedirected = errors.New("the agent card is on another host")
)

// Remote is a registered agent.
type Remote struct {
	ID         string
	AddedURL   string
	CardURL    string
	Card       json.RawMessage
	Name       string
	AddedAt    time.Time
	FetchedAt  time.Time // when Card was fetched
	CheckedAt  time.Time // the last attempt to fetch it
	FetchError string    // why the last attempt failed; "" when it succeeded (the agent is reachable)
	Trust      Trust     // what its card's signatures say, and the key pinned for it
	// Binding is the binding the owner chose to talk to it over ("" leaves it to the hub; see
	// SetBinding); the hub still falls back to the card's others when it cannot be reached.
	Binding Binding
}

// Registry keeps the agents the owner added, in SQLite.
type Registry struct {
	db   *store.DB
	http *http.Client
	bus  *bus.Bus
	now  func() time.Time
}

// OpenRegistry migrates the registry's table and returns it. client fetches cards (nil: a client
// with a 10 s timeout), following redirects within the card URL's origin only; changes are
// published on b.
func OpenRegistry(ctx context.Context, db *store.DB, client *http.Client, b *bus.Bus) (*Registry, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "agents", sub); err != nil {
		return nil, err
	}
	c := http.Client{Timeout: 10 * time.Second}
	if client != nil {
		c = *client
	}
	c.CheckRedirect = credentials.SameOriginRedirects
	return &Registry{db: db, http: &c, bus: b, now: time.Now}, nil
}

// Add resolves the agent's card from rawURL (a base URL, or the card's own URL) and registers it. An
// agent already registered under the same card URL is refreshed and returned.
func (r *Registry) Add(ctx context.Context, rawURL string) (Remote, error) {
	cardURL, card, err := r.resolve(ctx, rawURL)
	if err != nil {
		return Remote{}, err
	}
	// Adding an agent again checks its card against the key pinned when it was first added.
	var pinned Trust
	if old, err := r.byCardURL(ctx, cardURL); err == nil {
		pinned = old.Trust
	} else if !errors.Is(err, sql.ErrNoRows) {
		return Remote{}, err
	}
	trust := r.assess(ctx, card, cardURL, pinned)
	now := r.now()
	rem := Remote{ID: uuid.NewString(), AddedURL: strings.TrimSpace(rawURL), CardURL: cardURL, Card: card, Name: nameOf(card),
		AddedAt: now, FetchedAt: now, CheckedAt: now}
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO remote_agents(id, added_url, card_url, card_json, name, added_at, fetched_at, checked_at, fetch_error,
				sig_state, sig_detail, pinned_key, pinned_jwk, pending_key, pending_jwk)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?)
			ON CONFLICT(card_url) DO UPDATE SET card_json = excluded.card_json, name = excluded.name,
				fetched_at = excluded.fetched_at, checked_at = excluded.checked_at, fetch_error = '',
				sig_state = excluded.sig_state, sig_detail = excluded.sig_detail, pinned_key = excluded.pinned_key,
				pinned_jwk = excluded.pinned_jwk, pending_key = excluded.pending_key, pending_jwk = excluded.pending_jwk`,
			rem.ID, rem.AddedURL, rem.CardURL, []byte(card), rem.Name, now.UnixNano(), now.UnixNano(), now.UnixNano(),
			trust.State, trust.Detail, trust.PinnedKey, trust.PinnedJWK, trust.PendingKey, trust.PendingJWK)
		return err
	})
	if err != nil {
		return Remote{}, err
	}
	got, err := r.byCardURL(ctx, cardURL)
	if err == nil {
		r.publish(got.ID)
	}
	return got, err
}

// Refresh fetches the agent's card again. When that fails the agent keeps its last card and the
// failure is recorded (the UI shows it as unreachable); the error is returned too.
func (r *Registry) Refresh(ctx context.Context, id string) (Remote, error) {
	rem, err := r.Get(ctx, id)
	if err != nil {
		return Remote{}, err
	}
	now := r.now().UnixNano()
	card, fetchErr := r.fetch(ctx, rem.CardURL)
	if fetchErr != nil {
		_, err = r.db.Writer.ExecContext(ctx, `UPDATE remote_agents SET checked_at = ?, fetch_error = ? WHERE id = ?`, now, fetchErr.Error(), id)
	} else {
		t := r.assess(ctx, card, rem.CardURL, rem.Trust)
		_, err = r.db.Writer.ExecContext(ctx, `UPDATE remote_agents SET card_json = ?, name = ?, fetched_at = ?, checked_at = ?, fetch_error = '',
				sig_state = ?, sig_detail = ?, pinned_key = ?, pinned_jwk = ?, pending_key = ?, pending_jwk = ? WHERE id = ?`,
			[]byte(card), nameOf(card), now, now, t.State, t.Detail, t.PinnedKey, t.PinnedJWK, t.PendingKey, t.PendingJWK, id)
	}
	if err != nil {
		return Remote{}, err
	}
	r.publish(id)
	rem, err = r.Get(ctx, id)
	if err != nil {
		return Remote{}, err
	}
	return rem, fetchErr
}

// Remove forgets the agent.
func (r *Registry) Remove(ctx context.Context, id string) error {
	res, err := r.db.Writer.ExecContext(ctx, `DELETE FROM remote_agents WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	r.publish(id)
	return nil
}

// SetBinding records the binding the owner chose for the agent: JSONRPC, HTTPJSON or GRPC, or
// Automatic to leave it to the hub. One the card does not offer is refused (ErrBindingNotOffered).
func (r *Registry) SetBinding(ctx context.Context, id string, b Binding) (Remote, error) {
	rem, err := r.Get(ctx, id)
	if err != nil {
		return Remote{}, err
	}
	if b != Automatic && !slices.Contains(Bindings(rem.Card), b) {
		return Remote{}, fmt.Errorf("%w: %s does not offer %s", ErrBindingNotOffered, rem.Name, b.Name())
	}
	stored := string(b)
	if b == JSONRPC {
		stored = "JSONRPC" // the zero Binding is JSON-RPC; '' in the column is Automatic
	}
	if err := r.db.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE remote_agents SET binding = ? WHERE id = ?`, stored, id)
		return err
	}); err != nil {
		return Remote{}, err
	}
	r.publish(id)
	return r.Get(ctx, id)
}

// storedBinding reads the binding column (see SetBinding).
func storedBinding(s string) Binding {
	switch s {
	case "":
		return Automatic
	case "JSONRPC":
		return JSONRPC
	}
	return Binding(s)
}

const remoteColumns = `id, added_url, card_url, card_json, name, added_at, fetched_at, checked_at, fetch_error,
	sig_state, sig_detail, pinned_key, pinned_jwk, pending_key, pending_jwk, trust_ack, binding`

func scanRemote(row interface{ Scan(...any) error }) (Remote, error) {
	var rem Remote
	var card []byte
	var added, fetched, checked int64
	var ack, binding string
	t := &rem.Trust
	if err := row.Scan(&rem.ID, &rem.AddedURL, &rem.CardURL, &card, &rem.Name, &added, &fetched, &checked, &rem.FetchError,
		&t.State, &t.Detail, &t.PinnedKey, &t.PinnedJWK, &t.PendingKey, &t.PendingJWK, &ack, &binding); err != nil {
		return Remote{}, err
	}
	rem.Binding = storedBinding(binding)
	t.ForeignHosts = foreignHosts(card, rem.CardURL)
	rem.Card = card
	t.Confirmed = ack != "" && ack == cardHash(card)
	rem.AddedAt, rem.FetchedAt, rem.CheckedAt = time.Unix(0, added), time.Unix(0, fetched), time.Unix(0, checked)
	return rem, nil
}

// Get returns one registered agent, or ErrNotFound.
func (r *Registry) Get(ctx context.Context, id string) (Remote, error) {
	rem, err := scanRemote(r.db.Reader.QueryRowContext(ctx, `SELECT `+remoteColumns+` FROM remote_agents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Remote{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return rem, err
}

func (r *Registry) byCardURL(ctx context.Context, cardURL string) (Remote, error) {
	return scanRemote(r.db.Reader.QueryRowContext(ctx, `SELECT `+remoteColumns+` FROM remote_agents WHERE card_url = ?`, cardURL))
}

// List returns every registered agent, in the order they were added.
func (r *Registry) List(ctx context.Context) ([]Remote, error) {
	rows, err := r.db.Reader.QueryContext(ctx, `SELECT `+remoteColumns+` FROM remote_agents ORDER BY added_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Remote
	for rows.Next() {
		rem, err := scanRemote(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, rem)
	}
	return out, rows.Err()
}

func (r *Registry) publish(id string) {
	if r.bus != nil {
		r.bus.Publish(bus.Event{Topic: Topic, Key: id})
	}
}

// FetchCard resolves an agent's card as Add does (rawURL is a base URL or the card's own URL) without
// registering it: for a one-off caller such as agenthub scenario run. client nil: as OpenRegistry.
func FetchCard(ctx context.Context, client *http.Client, rawURL string) (cardURL string, card json.RawMessage, err error) {
	c := http.Client{Timeout: 10 * time.Second}
	if client != nil {
		c = *client
	}
	c.CheckRedirect = credentials.SameOriginRedirects
	return (&Registry{http: &c}).resolve(ctx, rawURL)
}

// resolve finds the card: rawURL itself when it names a .json document, else the well-known paths
// under it, newest first. The error says every place that was tried.
func (r *Registry) resolve(ctx context.Context, rawURL string) (string, json.RawMessage, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("%w: %q", ErrBadURL, rawURL)
	}
	u.Fragment, u.RawFragment = "", ""
	var candidates []string
	if strings.HasSuffix(u.Path, ".json") {
		candidates = []string{u.String()}
	} else {
		base := strings.TrimSuffix(u.Path, "/")
		for _, p := range cardPaths {
			c := *u
			c.Path, c.RawPath, c.RawQuery = base+p, "", ""
			candidates = append(candidates, c.String())
		}
	}
	var tried []string
	for _, c := range candidates {
		card, err := r.fetch(ctx, c)
		if err == nil {
			return c, card, nil
		}
		if errors.Is(err, ErrCardRedirected) {
			return "", nil, err // the origin itself says its card is elsewhere
		}
		tried = append(tried, err.Error())
	}
	return "", nil, fmt.Errorf("%w at %s: %s", ErrNoCard, rawURL, strings.Join(tried, "; "))
}

// fetch reads one card document: an HTTP 200 with a JSON object of at most MaxCardBytes.
func (r *Registry) fetch(ctx context.Context, cardURL string) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cardURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.http.Do(req)
	var redirect *credentials.RedirectError
	if errors.As(err, &redirect) {
		// Also ErrNoCard: there is no card at the URL the owner gave.
		return nil, fmt.Errorf("%w here, %w: %s redirects to %s, which was not followed; to use the agent there, add that URL instead",
			ErrNoCard, ErrCardRedirected, cardURL, redirect.To)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cardURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", cardURL, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cardURL, err)
	}
	if len(body) > MaxCardBytes {
		return nil, fmt.Errorf("%s: the card is larger than %d bytes", cardURL, MaxCardBytes)
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %v", cardURL, err)
	}
	if _, ok := obj["name"]; !ok {
		return nil, fmt.Errorf("%s: a JSON object without a name is not an agent card", cardURL)
	}
	return body, nil
}

func nameOf(card json.RawMessage) string {
	var c struct {
		Name string `json:"name"`
	}
	json.Unmarshal(card, &c)
	if c.Name == "" {
		return "(unnamed agent)"
	}
	return c.Name
}

// Pin registers an agent running in this process (the hub itself, the demo agent) under a fixed id,
// with the card it serves, so the owner can chat with it like any agent, out of the box. No network
// I/O: the card is the one the agent serves at cardURL. Its port may differ from the last run's, so
// the row is rewritten every time. A row the owner added by hand for the same card URL (before it was
// pinned) is removed, so the agent is listed once; its id is returned so what referred to it (the
// conversations) can be moved to id. Adding the agent's URL later finds the pinned row. The card is
// this process's own, so its signature is not checked (the state is TrustUnchecked).
func (r *Registry) Pin(ctx context.Context, id, cardURL string, card json.RawMessage) (displaced string, err error) {
	now := r.now().UnixNano()
	err = r.db.Tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM remote_agents WHERE card_url = ? AND id <> ?`, cardURL, id).Scan(&displaced)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if displaced != "" {
			if _, err := tx.ExecContext(ctx, `DELETE FROM remote_agents WHERE id = ?`, displaced); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO remote_agents(id, added_url, card_url, card_json, name, added_at, fetched_at, checked_at, fetch_error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, '')
			ON CONFLICT(id) DO UPDATE SET added_url = excluded.added_url, card_url = excluded.card_url, card_json = excluded.card_json,
				name = excluded.name, fetched_at = excluded.fetched_at, checked_at = excluded.checked_at, fetch_error = '',
				sig_state = '', sig_detail = '', pending_key = '', pending_jwk = '', trust_ack = ''`,
			id, cardURL, cardURL, []byte(card), nameOf(card), now, now, now)
		return err
	})
	if err != nil {
		return "", err
	}
	r.publish(id)
	return displaced, nil
}
