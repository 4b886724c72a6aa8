package channels

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of channel changes; the event's Key is the channel id and its Data a
// *Change.
const Topic = "channel"

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
	// seqs is, on SQLite, the newest sequence of each channel published to since Open, so a publish
	// need not update the channel's row for it (a quarter of a publish's time on the writer); on
	// PostgreSQL, where other replicas publish too, the row's last_seq is the sequence. Only publish's
	// and Delete's fns touch it, and they run on the store's writer goroutine, one at a time; a
	// publish records its sequence only once all its statements succeeded, and a batch that does
	// not commit clears it (OnAbort), so it never runs ahead of the table.
	seqs map[string]int64
	// serialized is the writer's transaction that holds the channels' write lock (PostgreSQL, see
	// serialize). Writer goroutine only.
	serialized *sql.Tx
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
	db.OnAbort(func() { clear(s.seqs); s.batch, s.changes, s.serialized = nil, nil, nil })
	db.OnCommit(s.announceCommitted)
	if s.key, err = s.tokenKey(ctx); err != nil {
		return nil, err
	}
	if s.pub, err = preparePublish(ctx, db.Writer, db.Postgres()); err != nil {
		return nil, fmt.Errorf("channels: prepare publish: %w", err)
	}
	if err := prepareHistory(ctx, db.Reader, s.pub); err != nil {
		return nil, fmt.Errorf("channels: prepare history: %w", err)
	}
	if s.quota, err = newQuota(ctx, db.Writer); err != nil {
		return nil, fmt.Errorf("channels: prepare quota: %w", err)
	}
	// Other replicas' changes reach this one's bus (nothing happens on SQLite).
	db.Follow(noteTopic, s.heard, s.resync)
	return s, nil
}

// write runs fn through the group-commit writer (in its own savepoint) for every change but a
// publish: it first stores the publishes queued before it in the transaction (PostgreSQL, see
// flush), so they are decided on the state before fn, and forgets the publishes' batch, so that
// what fn changes (members, visibility, a deletion) is checked afresh by any publish after it.
func (s *Service) write(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.db.Tx(ctx, s.serializing(func(tx *sql.Tx) error {
		n := len(s.changes)
		flushed, err := s.flushed(tx)
		if err == nil {
			s.batch = nil
			err = fn(tx)
		}
		if err != nil {
			// What flush stored is undone with fn (its savepoint, or the batch that runs again
			// without it, where those publishes are queued and decided again).
			for _, q := range flushed {
				*q.out = publishOutcome{decided: true, err: errUndone}
			}
		}
		return s.unannounce(n, err)
	}))
}

// announce records, in a writer fn that is about to succeed, a change for the bus: it is published
// when the transaction commits, by the writer, in the order the fns ran. So every subscriber hears
// a channel's events in sequence order and after changes that came before them (a removal before
// the events stored after it), and an event is never heard before it is durable. On PostgreSQL it
// also announces the change to the other replicas in tx (replicas.go), who hear it once tx commits.
func (s *Service) announce(tx *sql.Tx, channelID string, c *Change) error {
	if s.db.Postgres() {
		for _, payload := range notesOf(channelID, c) {
			if err := s.db.Announce(tx, noteTopic, payload); err != nil {
				return err
			}
		}
	}
	e := bus.Event{Topic: Topic, Source: s.source, Key: channelID, Data: c}
	if c.Event != nil {
		e.Seq = c.Event.Sequence
	}
	s.changes = append(s.changes, e)
	return nil
}

// unannounce returns a fn's error err and, when there is one, forgets the changes that fn announced
// (those after the first n): its savepoint is rolled back, so they must not reach the bus.
func (s *Service) unannounce(n int, err error) error {
	if err != nil && len(s.changes) > n {
		clear(s.changes[n:])
		s.changes = s.changes[:n]
	}
	return err
}

// announceCommitted publishes the changes of the transaction that just committed (store.OnCommit).
func (s *Service) announceCommitted() {
	s.serialized = nil
	for _, e := range s.changes {
		s.bus.Publish(e)
	}
	clear(s.changes) // do not pin the events
	s.changes = s.changes[:0]
}

func (s *Service) millis() int64 { return s.now().UnixMilli() }

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
