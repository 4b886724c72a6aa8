package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

func migrate(ctx context.Context, db *store.DB) error {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	return db.Migrate(ctx, "auth", sub)
}

var (
	// ErrExists means a principal of that name already exists.
	ErrExists = errors.New("a principal of that name already exists")
	// ErrNotFound means no active principal has that name.
	ErrNotFound = errors.New("no such principal")
)

// API keys are "ahk_" and 43 base64url characters: 256 random bits. The prefix makes a leaked key
// recognisable (secret scanners, logs); keyPrefixLen characters of it (48 random bits) are stored in the
// clear to find the row and to let the owner tell keys apart; the 208 bits left are still far beyond
// guessing.
const (
	keyTag       = "ahk_"
	keyRandBytes = 32
	keyLen       = len(keyTag) + 43
	keyPrefixLen = len(keyTag) + 8
)

// usedEvery throttles MarkUsed: last_used_at is for the owner's eyes ("used today"), not an audit
// trail, so one write a minute per principal is enough and a busy agent costs no write per request.
const usedEvery = time.Minute

// Topic is the bus topic of access changes: a principal added, rotated, removed or used (Key: its
// name), or the anonymous policy changed (Key: "").
const Topic = "access"

func (ps *Principals) changed(name string) {
	if ps.bus != nil {
		ps.bus.Publish(bus.Event{Topic: Topic, Key: name})
	}
}

// Info describes a principal, without its key.
type Info struct {
	Principal
	KeyPrefix  string    // the key's first characters, for display ("ahk_3fQ9a1Zx")
	CreatedAt  time.Time // when its current key was issued
	LastUsedAt time.Time // zero: never used (to the minute; see MarkUsed)
}

// Principals are the agents allowed to call the hub, in hub.db's principals table.
type Principals struct {
	db  *store.DB
	now func() time.Time
	bus *bus.Bus // nil: nobody to tell of changes (the CLI)

	mu     sync.Mutex
	marked map[string]time.Time // name → when last_used_at was last written

	// byPrefix finds a key's rows, prepared once on the reader pool: it runs for every key the
	// cache does not hold, and parsing it each time cost more than running it.
	byPrefix *sql.Stmt
	cache    *cache

	revocations *revocations // the credentials open streams hold (UntilRevoked)
	onRemove    atomic.Pointer[func(context.Context, Principal) error]
}

// OnRemove has fn called by every Remove once the principal is revoked, so the packages that granted
// it something (channel memberships) take it back: a name added again is someone else.
func (ps *Principals) OnRemove(fn func(ctx context.Context, p Principal) error) {
	ps.onRemove.Store(&fn)
}

// Known says whether agent://name is an active principal.
func (ps *Principals) Known(ctx context.Context, name string) (bool, error) {
	_, err := ps.generation(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// AddedAt maps each active principal's id to when its name was last added: grants older than that
// were made to an earlier holder of the name.
func (ps *Principals) AddedAt(ctx context.Context) (map[string]time.Time, error) {
	rows, err := ps.db.Reader.QueryContext(ctx, `SELECT name, added_at FROM principals WHERE revoked_at = 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var name string
		var at time.Time
		if err := rows.Scan(&name, nanoTime{&at}); err != nil {
			return nil, err
		}
		out[Agent(name).ID] = at
	}
	return out, rows.Err()
}

// OpenPrincipals migrates the auth tables and returns the principals kept there.
func OpenPrincipals(ctx context.Context, db *store.DB) (*Principals, error) {
	if err := migrate(ctx, db); err != nil {
		return nil, err
	}
	byPrefix, err := db.Reader.PrepareContext(ctx, `SELECT name, key_hash, generation FROM principals
		WHERE key_prefix = ? AND revoked_at = 0`)
	if err != nil {
		return nil, fmt.Errorf("prepare the key lookup: %w", err)
	}
	c, err := newCache(ctx, db.Reader)
	if err != nil {
		return nil, fmt.Errorf("prepare the auth epoch read: %w", err)
	}
	ps := &Principals{db: db, now: time.Now, marked: map[string]time.Time{}, byPrefix: byPrefix, cache: c}
	ps.revocations = newRevocations(ps)
	return ps, nil
}

// newKey makes an API key and what is stored of it.
func newKey() (key, prefix string, hash []byte) {
	b := make([]byte, keyRandBytes)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	key = keyTag + base64.RawURLEncoding.EncodeToString(b)
	h := hashKey(key)
	return key, key[:keyPrefixLen], h[:]
}

// hashKey is the stored form of a key. A fast hash is enough here: slow, salted hashes (bcrypt,
// argon2) exist to make guessing low-entropy passwords expensive, but these keys are 256 random bits,
// which no amount of guessing reaches, and every request would pay the slow hash. A plain SHA-256 still
// means a copy of hub.db does not hand out working keys.
func hashKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// Add creates agent://name and returns its API key. The key is returned only here: it is not stored.
// A removed name can be added again; it gets a new key.
func (ps *Principals) Add(ctx context.Context, name string) (Info, string, error) {
	if err := ValidName(name); err != nil {
		return Info{}, "", err
	}
	key, prefix, hash := newKey()
	now := ps.now()
	err := ps.db.Tx(ctx, func(tx *sql.Tx) error {
		var revokedAt int64
		err := tx.QueryRowContext(ctx, `SELECT revoked_at FROM principals WHERE name = ?`, name).Scan(&revokedAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, `INSERT INTO principals (name, key_hash, key_prefix, created_at, added_at) VALUES (?, ?, ?, ?, ?)`,
				name, hash, prefix, now.UnixNano(), now.UnixNano())
			return err
		case err != nil:
			return err
		case revokedAt == 0:
			return ErrExists
		}
		// A new generation, so tokens minted for the earlier holder of the name stay dead.
		_, err = tx.ExecContext(ctx, `UPDATE principals SET key_hash = ?, key_prefix = ?, generation = generation + 1,
			created_at = ?, added_at = ?, last_used_at = 0, revoked_at = 0 WHERE name = ?`, hash, prefix, now.UnixNano(), now.UnixNano(), name)
		return err
	})
	if err != nil {
		return Info{}, "", fmt.Errorf("add %s: %w", name, err)
	}
	ps.forgetMarked(name)
	ps.changed(name)
	return Info{Principal: Agent(name), KeyPrefix: prefix, CreatedAt: now}, key, nil
}

// Rotate gives agent://name a new key; the old key, and every token minted with it, stop working at once.
func (ps *Principals) Rotate(ctx context.Context, name string) (Info, string, error) {
	if err := ValidName(name); err != nil {
		return Info{}, "", err
	}
	key, prefix, hash := newKey()
	now := ps.now()
	res, err := ps.db.Writer.ExecContext(ctx, `UPDATE principals SET key_hash = ?, key_prefix = ?, generation = generation + 1,
		created_at = ? WHERE name = ? AND revoked_at = 0`, hash, prefix, now.UnixNano(), name)
	if err := affectedOne(res, err); err != nil {
		return Info{}, "", fmt.Errorf("rotate %s: %w", name, err)
	}
	ps.revocations.sweep(name) // the old key's open streams end now, not at their next request
	ps.changed(name)
	var info Info
	if err := ps.db.Writer.QueryRowContext(ctx, `SELECT last_used_at FROM principals WHERE name = ?`, name).Scan(nanoTime{&info.LastUsedAt}); err != nil {
		return Info{}, "", err
	}
	info.Principal, info.KeyPrefix, info.CreatedAt = Agent(name), prefix, now
	return info, key, nil
}

// Remove revokes agent://name: its key and tokens stop working at once. The row stays (revoked), so
// records naming the principal keep their meaning.
func (ps *Principals) Remove(ctx context.Context, name string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	res, err := ps.db.Writer.ExecContext(ctx, `UPDATE principals SET key_hash = ?, generation = generation + 1,
		revoked_at = ? WHERE name = ? AND revoked_at = 0`, []byte{}, ps.now().UnixNano(), name)
	if err := affectedOne(res, err); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	ps.revocations.sweep(name) // its open streams end now, not at their next request
	ps.forgetMarked(name)
	if fn := ps.onRemove.Load(); fn != nil {
		// What the principal was granted elsewhere (channel memberships) goes with it, before a
		// new holder of the name can be added. A failure here is mended at the hub's next start
		// (AddedAt), as is a removal by the CLI while the hub is stopped.
		if err := (*fn)(ctx, Agent(name)); err != nil {
			return fmt.Errorf("remove %s: it no longer works, but what it was granted stays until the hub restarts: %w", name, err)
		}
	}
	ps.changed(name)
	return nil
}

func affectedOne(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// List is the active principals, by name.
func (ps *Principals) List(ctx context.Context) ([]Info, error) {
	return ListPrincipals(ctx, ps.db.Reader)
}

// ListPrincipals is the active principals in db, by name. It only reads, so a tool may call it on a
// database that a running hub owns (store.OpenReadOnly).
func ListPrincipals(ctx context.Context, db *sql.DB) ([]Info, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, key_prefix, created_at, last_used_at FROM principals
		WHERE revoked_at = 0 ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Info{}
	for rows.Next() {
		var i Info
		var name string
		if err := rows.Scan(&name, &i.KeyPrefix, nanoTime{&i.CreatedAt}, nanoTime{&i.LastUsedAt}); err != nil {
			return nil, err
		}
		i.Principal = Agent(name)
		out = append(out, i)
	}
	return out, rows.Err()
}

// Authenticate is the principal holding key. Any failure is an ErrUnauthenticated that says nothing
// about the key.
func (ps *Principals) Authenticate(ctx context.Context, key string) (Principal, error) {
	name, _, err := ps.authenticate(ctx, key)
	if err != nil {
		return Principal{}, err
	}
	return Agent(name), nil
}

var errUnknownKey = unauthenticated("unknown API key")

// authenticate is Authenticate that also returns the key's generation.
func (ps *Principals) authenticate(ctx context.Context, key string) (name string, generation int64, err error) {
	if len(key) != keyLen || !strings.HasPrefix(key, keyTag) {
		return "", 0, errUnknownKey
	}
	epoch, err := ps.cache.current(ctx)
	if err != nil {
		return "", 0, err
	}
	// The cache is keyed by the key's hash: a hit means the whole key matched a key the table held
	// (and still holds, see cache), and the map's lookup time depends on the hash, not on the key.
	want := hashKey(key)
	if h, ok := ps.cache.key(epoch, want); ok {
		return h.name, h.generation, nil
	}
	// The row is found by the clear prefix, then the whole key is checked against the stored hash in
	// constant time, so response times say nothing about how much of a guess was right.
	rows, err := ps.byPrefix.QueryContext(ctx, key[:keyPrefixLen])
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		var hash []byte
		var gen int64
		if err := rows.Scan(&n, &hash, &gen); err != nil {
			return "", 0, err
		}
		if subtle.ConstantTimeCompare(hash, want[:]) == 1 {
			name, generation = n, gen
		}
	}
	if err := rows.Err(); err != nil {
		return "", 0, err
	}
	if name == "" {
		return "", 0, errUnknownKey
	}
	ps.cache.putKey(epoch, want, keyHolder{name, generation})
	return name, generation, nil
}

// generation is the current key generation of an active principal, or ErrNotFound.
func (ps *Principals) generation(ctx context.Context, name string) (int64, error) {
	epoch, err := ps.cache.current(ctx)
	if err != nil {
		return 0, err
	}
	if gen, ok := ps.cache.generation(epoch, name); ok {
		return gen, nil
	}
	var gen int64
	err = ps.db.Reader.QueryRowContext(ctx, `SELECT generation FROM principals WHERE name = ? AND revoked_at = 0`, name).Scan(&gen)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	ps.cache.putGeneration(epoch, name, gen)
	return gen, nil
}

// MarkUsed records that agent://name was just used. It writes at most once a minute per principal,
// so calling it on every request is cheap.
func (ps *Principals) MarkUsed(ctx context.Context, name string) error {
	now := ps.now()
	ps.mu.Lock()
	last, ok := ps.marked[name]
	if ok && now.Sub(last) < usedEvery {
		ps.mu.Unlock()
		return nil
	}
	ps.marked[name] = now // claimed before the write, so concurrent callers do not all write
	ps.mu.Unlock()
	_, err := ps.db.Writer.ExecContext(ctx, `UPDATE principals SET last_used_at = ? WHERE name = ? AND revoked_at = 0`, now.UnixNano(), name)
	if err != nil {
		ps.forgetMarked(name) // try again next time
		return err
	}
	ps.changed(name) // "last used" moved; at most once a minute per principal, like the write
	return nil
}

func (ps *Principals) forgetMarked(name string) {
	ps.mu.Lock()
	delete(ps.marked, name)
	ps.mu.Unlock()
}

// nanoTime scans unix nanoseconds (0: the zero time) into a time.Time.
type nanoTime struct{ t *time.Time }

func (n nanoTime) Scan(v any) error {
	ns, ok := v.(int64)
	if !ok {
		return fmt.Errorf("time column holds %T", v)
	}
	if ns == 0 {
		*n.t = time.Time{}
	} else {
		*n.t = time.Unix(0, ns)
	}
	return nil
}
