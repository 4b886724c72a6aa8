// Package channels is the hub's channels extension (see docs/channels.md): durable
// multi-agent channels with ordered message events, implicit direct channels, history pages and
// live streams with resume. It owns its tables in hub.db and serves its JSON-RPC methods through
// the server's Extension interface; every rule (membership, visibility, limits, ordering,
// idempotency) lives here, so the UI gateway gets the same answers as a remote agent.
package channels

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"sort"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Topic is the bus topic of channel changes; the event's Key is the channel id and its Data a
// *Change.
const Topic = "channel"

// Limits of the spec's section 8.
const (
	MaxNameLen           = 128       // characters
	MaxMetadataBytes     = 16 * 1024 // serialized JSON
	MaxParts             = 32
	MaxIdempotencyKeyLen = 128 // characters
	DefaultPageSize      = 50
	MaxPageSize          = 200
)

// DirectPrefix starts the id of every direct channel.
const DirectPrefix = "chan:direct:"

// Channel is the spec's Channel object.
type Channel struct {
	ID         string         `json:"id"`
	Name       string         `json:"name,omitempty"`
	Visibility string         `json:"visibility"`
	CreatedAt  int64          `json:"createdAt"`
	CreatedBy  string         `json:"createdBy"`
	Members    []Member       `json:"members"`
	Metadata   map[string]any `json:"metadata"`
	Version    int64          `json:"version"`
	Kind       string         `json:"kind"`
	// LastSequence is the sequence of the newest event (0: none yet), for a client to resume from.
	LastSequence int64 `json:"lastSequence"`
}

// Change is what the service publishes on the bus after a write is durable: a new event, the
// channel created, a member added or removed (their streams end), the channel updated or deleted
// (every stream ends). Concerns says whether a principal may hear of it.
type Change struct {
	Event *MessageEvent // a published event
	// EventJSON is Event as stored (JSON), for a stream to send without encoding it again.
	EventJSON json.RawMessage
	// Item, when set, is the stream item of the event, {"kind":"messageEvent","event":EventJSON},
	// made once for every stream that sends it (EventJSON is a part of it).
	Item json.RawMessage
	// result is Item as a server.RawResult in an interface, boxed once for every stream: a
	// slice put in an interface is an allocation, per stream and event if each stream did it.
	result  any
	Created bool   // a channel was created (a direct one: by its first publish)
	Added   string // the principal added to the channel, or whose role changed
	Removed string // the principal removed from the channel
	Updated bool   // name, visibility or metadata changed: streams check they may still read
	Deleted bool
	// WasPublic: the channel was public before an update or deletion; Members: its members when
	// it was deleted. With them, Concerns tells who could see the channel before the change.
	WasPublic bool
	Members   []string
}

// Service is the channels store and its rules.
type Service struct {
	db      *store.DB
	bus     *bus.Bus
	source  string
	log     *slog.Logger
	key     []byte // signs history page tokens
	limiter *limiter
	now     func() time.Time
	pub     *publishStmts
	// seqs is the newest sequence of each channel published to since Open, so a publish need not
	// update the channel's row for it (a quarter of a publish's time on the writer). Only publish's
	// and Delete's fns touch it, and they run on the store's writer goroutine, one at a time; a
	// publish records its sequence only once all its statements succeeded, and a batch that does
	// not commit clears it (OnAbort), so it never runs ahead of the table.
	seqs map[string]int64
	// batch is what the publishes of the writer's current transaction share (see batchOf); like
	// seqs, only fns on the writer goroutine touch it.
	batch *batch
	// changes are what the fns of the writer's current transaction changed, in the order they ran,
	// for the bus once the transaction commits (see announce). Writer goroutine only.
	changes []bus.Event
	// remote says whether an agent id names an agent the owner added that may join a channel as
	// remote://ID (see SetRemoteAgents); nil: none may.
	remote atomic.Pointer[func(context.Context, string) error]
	quota  *quota // per-principal limits on stored events (quota.go)
	// directory knows the hub's principals (see SetPrincipals); nil: any agent://NAME is taken.
	directory atomic.Pointer[Directory]
}

// write runs fn through the group-commit writer (in its own savepoint) for every change but a
// publish: it forgets the publishes' batch first, so that what fn changes (members, visibility, a
// deletion) is checked afresh by any publish after it in the same transaction.
func (s *Service) write(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.db.Tx(ctx, func(tx *sql.Tx) error {
		s.batch = nil
		return fn(tx)
	})
}

// announce records, in a writer fn that is about to succeed, a change for the bus: it is published
// when the transaction commits, by the writer, in the order the fns ran. So every subscriber hears
// a channel's events in sequence order and after changes that came before them (a removal before
// the events stored after it), and an event is never heard before it is durable.
func (s *Service) announce(channelID string, c *Change) {
	e := bus.Event{Topic: Topic, Source: s.source, Key: channelID, Data: c}
	if c.Event != nil {
		e.Seq = c.Event.Sequence
	}
	s.changes = append(s.changes, e)
}

// announceCommitted publishes the changes of the transaction that just committed (store.OnCommit).
func (s *Service) announceCommitted() {
	for _, e := range s.changes {
		s.bus.Publish(e)
	}
	clear(s.changes) // do not pin the events
	s.changes = s.changes[:0]
}

const accessQuery = `SELECT c.visibility, m.role FROM channels c
		LEFT JOIN channel_members m ON m.channel_id = c.id AND m.principal_id = ? WHERE c.id = ?`

// Open migrates the channels tables in db and returns the service; changes are published on b
// with source as their Source.
func Open(ctx context.Context, db *store.DB, b *bus.Bus, source string, log *slog.Logger) (*Service, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "channels", sub); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Service{db: db, bus: b, source: source, log: log, limiter: newLimiter(DefaultRate, DefaultBurst), now: time.Now,
		seqs: map[string]int64{}}
	db.OnAbort(func() { clear(s.seqs); s.batch, s.changes = nil, nil })
	db.OnCommit(s.announceCommitted)
	if s.key, err = s.tokenKey(ctx); err != nil {
		return nil, err
	}
	if s.pub, err = preparePublish(ctx, db.Writer); err != nil {
		return nil, fmt.Errorf("channels: prepare publish: %w", err)
	}
	if err := prepareHistory(ctx, db.Reader, s.pub); err != nil {
		return nil, fmt.Errorf("channels: prepare history: %w", err)
	}
	if s.quota, err = newQuota(ctx, db.Writer); err != nil {
		return nil, fmt.Errorf("channels: prepare quota: %w", err)
	}
	return s, nil
}

// SetRateLimit sets how many publish and history calls per second each principal may make, with
// a burst of that many at once.
func (s *Service) SetRateLimit(perSecond float64, burst int) { s.limiter.set(perSecond, burst) }

// tokenKey is the hub's random key for page tokens, made on first open and kept in the table so
// tokens survive a restart, and a token of another hub is refused.
func (s *Service) tokenKey(ctx context.Context) ([]byte, error) {
	var key []byte
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT value FROM channel_settings WHERE name = 'page_token_key'`).Scan(&key)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO channel_settings(name, value) VALUES ('page_token_key', ?)`, key)
		return err
	})
	return key, err
}

func (s *Service) millis() int64 { return s.now().UnixMilli() }

// DirectID is the id of the direct channel between a and b: sha256 of the two ids sorted and
// joined by a comma, its first 24 hex digits.
func DirectID(a, b string) string {
	ids := []string{a, b}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(ids[0] + "," + ids[1]))
	return DirectPrefix + hex.EncodeToString(sum[:])[:24]
}

// caller is the principal ctx acts for; anonymous callers may only read public channels.
func caller(ctx context.Context) auth.Principal {
	p, _ := auth.PrincipalFrom(ctx)
	return p
}

func mustWrite(p auth.Principal) error {
	if p.Kind == auth.KindAnonymous {
		return errorf(CodePermissionDenied, "permission denied: callers without a key may only read public channels")
	}
	return nil
}

// --- reading a channel under the caller's rights ---

// queryer is what both a transaction and the reader pool offer.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

type channelRow struct {
	Channel
	direct   bool
	callerIs string // the caller's role, "" if not a member
}

// load reads channel id and the caller's role. A channel the caller may not see (missing, or
// private and the caller not a member) is ChannelNotFound, decided before anything of its events
// is read (lastSequence), so that answer costs the same for a channel that exists as for one that
// does not, and its time does not tell a non-member which ids exist.
func load(ctx context.Context, q queryer, id string, who auth.Principal) (*channelRow, error) {
	c, err := loadVisible(ctx, q, id, who)
	if err != nil {
		return nil, err
	}
	if c.LastSequence, err = lastSequence(ctx, q, id); err != nil {
		return nil, err
	}
	return c, nil
}

// loadVisible is load without the channel's last sequence. It asks first whether the caller may see
// the channel, in one indexed query that costs the same whether the channel is missing or private
// to others; only then does it read the channel's metadata and members.
func loadVisible(ctx context.Context, q queryer, id string, who auth.Principal) (*channelRow, error) {
	var visibility string
	var role sql.NullString
	err := q.QueryRowContext(ctx, accessQuery, who.ID, id).Scan(&visibility, &role)
	switch {
	case errors.Is(err, sql.ErrNoRows), err == nil && !role.Valid && visibility != "public":
		return nil, notFound(id)
	case err != nil:
		return nil, err
	}
	var c channelRow
	var meta []byte
	var direct int
	err = q.QueryRowContext(ctx, `SELECT id, name, visibility, direct, created_at, created_by, metadata, version
		FROM channels WHERE id = ?`, id).Scan(&c.ID, &c.Name, &c.Visibility, &direct, &c.CreatedAt, &c.CreatedBy, &meta, &c.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, err
	}
	c.direct, c.Kind = direct == 1, "channel"
	if err := json.Unmarshal(meta, &c.Metadata); err != nil {
		return nil, fmt.Errorf("channel %s: stored metadata: %w", id, err)
	}
	rows, err := q.QueryContext(ctx, `SELECT principal_id, role, joined_at FROM channel_members WHERE channel_id = ? ORDER BY joined_at, principal_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	c.Members = []Member{}
	for rows.Next() {
		var m Member
		if err := rows.Scan(&m.PrincipalID, &m.Role, &m.JoinedAt); err != nil {
			return nil, err
		}
		c.Members = append(c.Members, m)
		if m.PrincipalID == who.ID {
			c.callerIs = m.Role
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if c.callerIs == "" && c.Visibility != "public" {
		return nil, notFound(id)
	}
	return &c, nil
}

// requireMember refuses a caller who reads a public channel but is not in it.
func (c *channelRow) requireMember() error {
	if c.callerIs == "" {
		return errorf(CodePermissionDenied, "permission denied: only members of %s may do this", c.ID)
	}
	return nil
}

// requireOwner refuses any caller but an owner of the channel.
func (c *channelRow) requireOwner() error {
	if c.direct {
		return errorf(CodePermissionDenied, "permission denied: a direct channel has exactly its two members and no owner")
	}
	if c.callerIs != RoleOwner {
		return errorf(CodePermissionDenied, "permission denied: only an owner of %s may do this", c.ID)
	}
	return nil
}

func audit(ctx context.Context, tx *sql.Tx, at int64, channelID, eventID, actor, action string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO channel_audit(at, channel_id, event_id, actor, action) VALUES (?, ?, ?, ?, ?)`,
		at, channelID, eventID, actor, action)
	return err
}

// AuditEntry is one audit row.
type AuditEntry struct {
	At        int64  `json:"at"`
	ChannelID string `json:"channelId"`
	EventID   string `json:"eventId,omitempty"`
	Actor     string `json:"actor"`
	Action    string `json:"action"`
}

// Audit lists the audit rows of a channel, oldest first (for the owner's UI).
func (s *Service) Audit(ctx context.Context, channelID string) ([]AuditEntry, error) {
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT at, channel_id, event_id, actor, action FROM channel_audit WHERE channel_id = ? ORDER BY id`, channelID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var a AuditEntry
		if err := rows.Scan(&a.At, &a.ChannelID, &a.EventID, &a.Actor, &a.Action); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// --- validation ---

func checkName(name string) error {
	if utf8.RuneCountInString(name) > MaxNameLen {
		return errorf(CodeLimitExceeded, "limit exceeded: a channel name is at most %d characters", MaxNameLen)
	}
	return nil
}

func checkMetadata(m map[string]any) ([]byte, error) {
	if m == nil {
		m = map[string]any{}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, invalid("metadata: %v", err)
	}
	if len(raw) > MaxMetadataBytes {
		return nil, errorf(CodeLimitExceeded, "limit exceeded: metadata is at most %d bytes serialized, this is %d", MaxMetadataBytes, len(raw))
	}
	return raw, nil
}

func checkVisibility(v string) (string, error) {
	switch v {
	case "":
		return "private", nil
	case "private", "public":
		return v, nil
	}
	return "", invalid(`visibility is "private" or "public"`)
}

// --- create, get, list, update, delete ---

// CreateParams are channels/create's params.
type CreateParams struct {
	Name       string         `json:"name"`
	Visibility string         `json:"visibility"`
	Metadata   map[string]any `json:"metadata"`
	// Members are principals added as members beside the caller, who is the owner.
	Members []string `json:"members"`
}

// Create makes a channel owned by the caller.
func (s *Service) Create(ctx context.Context, p CreateParams) (*Channel, error) {
	who := caller(ctx)
	if err := mustWrite(who); err != nil {
		return nil, err
	}
	if err := checkName(p.Name); err != nil {
		return nil, err
	}
	vis, err := checkVisibility(p.Visibility)
	if err != nil {
		return nil, err
	}
	meta, err := checkMetadata(p.Metadata)
	if err != nil {
		return nil, err
	}
	for _, m := range p.Members {
		if _, err := s.checkMember(ctx, who, m); err != nil {
			return nil, err
		}
	}
	id, now := uuid.NewString(), s.millis()
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO channels(id, name, visibility, direct, created_at, created_by, metadata, version)
			VALUES (?, ?, ?, 0, ?, ?, ?, 1)`, id, p.Name, vis, now, who.ID, meta); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, 'owner', ?)`, id, who.ID, now); err != nil {
			return err
		}
		for _, m := range p.Members {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, 'member', ?)`, id, m, now); err != nil {
				return err
			}
		}
		if err := audit(ctx, tx, now, id, "", who.ID, "create"); err != nil {
			return err
		}
		s.announce(id, &Change{Created: true})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, id)
}

// Get reads a channel the caller may see.
func (s *Service) Get(ctx context.Context, id string) (*Channel, error) {
	c, err := load(ctx, s.db.Reader, id, caller(ctx))
	if err != nil {
		return nil, err
	}
	return &c.Channel, nil
}

// List is every channel the caller is a member of, and every public one; never a direct channel.
func (s *Service) List(ctx context.Context) ([]*Channel, error) {
	who := caller(ctx)
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT id FROM channels c WHERE direct = 0 AND (visibility = 'public'
		OR EXISTS (SELECT 1 FROM channel_members m WHERE m.channel_id = c.id AND m.principal_id = ?)) ORDER BY created_at, id`, who.ID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := []*Channel{}
	for _, id := range ids {
		c, err := load(ctx, s.db.Reader, id, who)
		var e *Error
		if errors.As(err, &e) && e.Code == CodeChannelNotFound {
			continue // deleted or left since the query
		}
		if err != nil {
			return nil, err
		}
		out = append(out, &c.Channel)
	}
	return out, nil
}

// MetadataPatch sets and removes metadata keys.
type MetadataPatch struct {
	Set    map[string]any `json:"set"`
	Remove []string       `json:"remove"`
}

// UpdateParams are channels/update's params.
type UpdateParams struct {
	ChannelID       string         `json:"channelId"`
	ExpectedVersion *int64         `json:"expectedVersion"`
	Name            *string        `json:"name"`
	Visibility      string         `json:"visibility"`
	MetadataPatch   *MetadataPatch `json:"metadataPatch"`
}

// Update changes a channel's name, visibility or metadata, if it is still at ExpectedVersion.
func (s *Service) Update(ctx context.Context, p UpdateParams) (*Channel, error) {
	who := caller(ctx)
	if p.ChannelID == "" {
		return nil, invalid("channelId is required")
	}
	if p.ExpectedVersion == nil {
		return nil, invalid("expectedVersion is required")
	}
	if p.Name != nil {
		if err := checkName(*p.Name); err != nil {
			return nil, err
		}
	}
	if p.Visibility != "" {
		if _, err := checkVisibility(p.Visibility); err != nil {
			return nil, err
		}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		c, err := load(ctx, tx, p.ChannelID, who)
		if err != nil {
			return err
		}
		if err := c.requireOwner(); err != nil {
			return err
		}
		wasPublic := c.Visibility == "public"
		if c.Version != *p.ExpectedVersion {
			return errorf(CodeConflict, "conflict: channel %s is at version %d, not %d", c.ID, c.Version, *p.ExpectedVersion)
		}
		name, vis, meta := c.Name, c.Visibility, c.Metadata
		if p.Name != nil {
			name = *p.Name
		}
		if p.Visibility != "" {
			vis = p.Visibility
		}
		if meta == nil {
			meta = map[string]any{}
		}
		if p.MetadataPatch != nil {
			for _, k := range p.MetadataPatch.Remove {
				delete(meta, k)
			}
			for k, v := range p.MetadataPatch.Set {
				meta[k] = v
			}
		}
		raw, err := checkMetadata(meta)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE channels SET name = ?, visibility = ?, metadata = ?, version = version + 1 WHERE id = ?`,
			name, vis, raw, c.ID); err != nil {
			return err
		}
		if err := audit(ctx, tx, s.millis(), c.ID, "", who.ID, "update"); err != nil {
			return err
		}
		s.announce(c.ID, &Change{Updated: true, WasPublic: wasPublic})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, p.ChannelID)
}

// Delete removes a channel, its members and its events.
func (s *Service) Delete(ctx context.Context, id string) error {
	who := caller(ctx)
	return s.write(ctx, func(tx *sql.Tx) error {
		c, err := load(ctx, tx, id, who)
		if err != nil {
			return err
		}
		if err := c.requireOwner(); err != nil {
			return err
		}
		gone := &Change{Deleted: true, WasPublic: c.Visibility == "public"}
		for _, m := range c.Members {
			gone.Members = append(gone.Members, m.PrincipalID)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM channels WHERE id = ?`, id); err != nil {
			return err
		}
		if err := audit(ctx, tx, s.millis(), id, "", who.ID, "delete"); err != nil {
			return err
		}
		delete(s.seqs, id)
		s.announce(id, gone)
		return nil
	})
}

// mayPublish refuses a publish by who to channel id with the answers load and requireMember give:
// a channel the caller may not see is ChannelNotFound, a public one they are not in PermissionDenied.
func mayPublish(ctx context.Context, st *sql.Stmt, id string, who auth.Principal) error {
	member, err := access(ctx, st, id, who)
	if err == nil && !member {
		return errorf(CodePermissionDenied, "permission denied: only members of %s may do this", id)
	}
	return err
}

// access reads, in one query, what load decides: a channel the caller may not see (missing, or
// private and the caller not a member) is ChannelNotFound; member says whether the caller is in it.
func access(ctx context.Context, st *sql.Stmt, id string, who auth.Principal) (member bool, err error) {
	var visibility string
	var role sql.NullString
	err = st.QueryRowContext(ctx, who.ID, id).Scan(&visibility, &role)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, notFound(id)
	case err != nil:
		return false, err
	case !role.Valid && visibility != "public":
		return false, notFound(id)
	}
	return role.Valid, nil
}

// ensureDirect creates the direct channel of a and b if it does not exist yet, and says whether it
// did.
func (s *Service) ensureDirect(ctx context.Context, tx *sql.Tx, id, a, b string, now int64) (bool, error) {
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO channels(id, name, visibility, direct, created_at, created_by, metadata, version)
		VALUES (?, '', 'private', 1, ?, ?, '{}', 1)`, id, now, a)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	for _, m := range []string{a, b} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO channel_members(channel_id, principal_id, role, joined_at) VALUES (?, ?, 'member', ?)`, id, m, now); err != nil {
			return false, err
		}
	}
	return true, audit(ctx, tx, now, id, "", a, "createDirect")
}

// Readable says whether principal may read channel id now (it is a member, or the channel is
// public), in one prepared query: cheap enough to ask for every event a watcher hears of.
func (s *Service) Readable(ctx context.Context, id, principal string) bool {
	_, err := access(ctx, s.pub.readAccess, id, auth.Principal{ID: principal})
	return err == nil
}

// Concerns says whether principal may hear of change c to channel id: an event or a creation of a
// channel it may read, and any other change of a channel it could read before or can read after.
// Nothing about a private channel the principal is not in (and was not in) is ever its concern.
func (s *Service) Concerns(ctx context.Context, id string, c *Change, principal string) bool {
	switch {
	case c.Removed == principal || c.Added == principal:
		return true
	case c.Deleted:
		return c.WasPublic || slices.Contains(c.Members, principal)
	case c.Updated && c.WasPublic:
		return true
	}
	return s.Readable(ctx, id, principal)
}
