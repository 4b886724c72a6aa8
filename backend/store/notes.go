package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgxlisten"
)

// Several hub replicas may share one PostgreSQL database. Each keeps things in memory beside the
// tables (the bus that wakes streams, caches, the graph index), so each must hear what the others
// committed. A feature package announces a change inside the write that makes it (Announce: a
// PostgreSQL NOTIFY, delivered to the other replicas when, and only if, the transaction commits),
// and follows its topic (Follow) to read the change back from the tables and act on it locally.
//
// Notes are hints, not the truth: PostgreSQL drops them for a replica that is not connected, so
// after every (re)connection a follower's resync runs, and it reads what it may have missed from the
// tables. On SQLite there is only ever one process: Announce does nothing and Follow never calls.

// MaxNote is the largest payload Announce takes: PostgreSQL's NOTIFY takes under 8,000 bytes, and
// the note's header shares them.
const MaxNote = 7000

// ErrNoteTooLarge is returned by Announce for a payload over MaxNote: announce an id to read back.
var ErrNoteTooLarge = errors.New("note too large: announce an id and read the rest from the tables")

// notes is the PostgreSQL side: this replica's id, the followers by topic, and the listening
// connection's state.
type notes struct {
	replica string // random per open: a replica ignores its own notes (it acted on them already)
	channel string // the NOTIFY channel: one per schema, so the hub and the demo agent stay apart
	connect func(context.Context) (*pgx.Conn, error)

	mu        sync.Mutex
	followers map[string][]follower
	started   bool
	cancel    context.CancelFunc
	stopped   chan struct{}
	connected chan struct{} // closed at the first successful LISTEN, for tests and Listening
}

type follower struct {
	fn     func(payload string)
	resync func()
}

func newNotes(cfg *pgx.ConnConfig) *notes {
	id := make([]byte, 6)
	rand.Read(id)
	channel := "agenthub"
	if s := cfg.RuntimeParams["search_path"]; s != "" {
		channel += "." + s
	}
	return &notes{replica: hex.EncodeToString(id), channel: channel, followers: map[string][]follower{},
		connected: make(chan struct{}),
		connect:   func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cfg.Copy()) }}
}

// Announce tells the other replicas on db's database, once tx commits, that topic changed; payload
// (at most MaxNote bytes) says what, typically an id and a sequence to read back. It does nothing on
// SQLite.
func (db *DB) Announce(tx *sql.Tx, topic, payload string) error {
	if db.notes == nil {
		return nil
	}
	_, msg, err := db.Note(topic, payload)
	if err != nil {
		return err
	}
	for _, l := range db.lanes {
		if l.batch.Load() == tx { // tx is this lane's batch, and Announce runs on its goroutine
			l.pending = append(l.pending, msg)
			return nil
		}
	}
	_, err = tx.Exec(`SELECT pg_notify(?, ?)`, db.notes.channel, msg)
	return err
}

// Note is what Announce sends for topic and payload: pg_notify(channel, msg). A write that runs one
// statement anyway may send its note in it instead (a round trip less when its batch has no other
// note), as NOTIFY takes effect, as Announce's, only if its transaction commits. On SQLite it returns
// empty strings: there is no one to tell.
func (db *DB) Note(topic, payload string) (channel, msg string, err error) {
	if db.notes == nil {
		return "", "", nil
	}
	if strings.ContainsRune(topic, ' ') {
		return "", "", fmt.Errorf("note topic %q: no spaces (the note's header is space-separated)", topic)
	}
	if len(payload) > MaxNote {
		return "", "", ErrNoteTooLarge
	}
	return db.notes.channel, db.notes.replica + " " + topic + " " + payload, nil
}

// announced is how many notes the lane's batch holds (a write's mark, to drop its own if it is undone).
func (l *lane) announced() int { return len(l.pending) }

// unannounce drops the notes queued in the lane's batch since mark n: their write was undone.
func (l *lane) unannounce(n int) {
	if n <= len(l.pending) {
		l.pending = l.pending[:n]
	}
}

// flushNotes sends the lane's batch's queued notes, in the order they were announced, in one statement.
func (db *DB) flushNotes(l *lane, tx *sql.Tx) error {
	if db.notes == nil {
		return nil
	}
	l.batch.CompareAndSwap(tx, nil)
	if len(l.pending) == 0 {
		return nil
	}
	_, err := tx.Exec(`SELECT pg_notify(?, msg) FROM (SELECT msg FROM unnest(?::text[]) WITH ORDINALITY AS n(msg, i) ORDER BY i) AS ordered`,
		db.notes.channel, l.pending)
	l.pending = l.pending[:0]
	return err
}

// Follow calls fn with the payload of each note another replica announces on topic, one at a time in
// the order they committed, on the listening goroutine (fn should not block for long); and resync
// after each (re)connection of the listener, the first included, since notes announced while it was
// not connected are gone. Nothing is called on SQLite. Listening starts with the first Follow.
func (db *DB) Follow(topic string, fn func(payload string), resync func()) {
	n := db.notes
	if n == nil {
		return
	}
	if resync == nil {
		resync = func() {}
	}
	n.mu.Lock()
	n.followers[topic] = append(n.followers[topic], follower{fn, resync})
	start := !n.started
	n.started = true
	n.mu.Unlock()
	if start {
		ctx, cancel := context.WithCancel(context.Background())
		n.cancel, n.stopped = cancel, make(chan struct{})
		go n.listen(ctx, slog.Default())
	}
}

// Listening returns a channel closed once the listener's first LISTEN is in place (never on SQLite):
// from then on, notes committed by other replicas reach the followers.
func (db *DB) Listening() <-chan struct{} {
	if db.notes == nil {
		return nil
	}
	return db.notes.connected
}

func (n *notes) listen(ctx context.Context, log *slog.Logger) {
	defer close(n.stopped)
	var once sync.Once
	l := &pgxlisten.Listener{
		Connect: n.connect,
		// A second: a replica cut off from the database is behind until it is back.
		ReconnectDelay: time.Second,
		LogError: func(ctx context.Context, err error) {
			if ctx.Err() == nil {
				log.Warn("listening for other replicas' changes", "err", err)
			}
		},
	}
	l.Handle(n.channel, noteHandler{n: n, connected: func() { once.Do(func() { close(n.connected) }) }})
	l.Listen(ctx)
}

// noteHandler dispatches the notes of the channel to the followers of their topic.
type noteHandler struct {
	n         *notes
	connected func()
}

func (h noteHandler) HandleNotification(_ context.Context, note *pgconn.Notification, _ *pgx.Conn) error {
	replica, rest, ok := strings.Cut(note.Payload, " ")
	if !ok {
		return fmt.Errorf("malformed note %q", note.Payload)
	}
	if replica == h.n.replica {
		return nil
	}
	topic, payload, _ := strings.Cut(rest, " ")
	h.n.mu.Lock()
	fs := h.n.followers[topic]
	h.n.mu.Unlock()
	for _, f := range fs {
		f.fn(payload)
	}
	return nil
}

// HandleBacklog runs after each LISTEN is in place: every follower resyncs from the tables.
func (h noteHandler) HandleBacklog(context.Context, string, *pgx.Conn) error {
	h.n.mu.Lock()
	var all []follower
	for _, fs := range h.n.followers {
		all = append(all, fs...)
	}
	h.n.mu.Unlock()
	for _, f := range all {
		f.resync()
	}
	h.connected()
	return nil
}

// stop ends the listener, if it runs, and waits for it.
func (n *notes) stop() {
	n.mu.Lock()
	cancel, stopped := n.cancel, n.stopped
	n.mu.Unlock()
	if cancel != nil {
		cancel()
		<-stopped
	}
}
