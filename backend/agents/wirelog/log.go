package wirelog

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of new wire log entries; Key is the agent id, Data an Entry.
const Topic = "wire"

// Entry is one thing seen on the wire with a remote agent, with every secret masked ("•••").
type Entry struct {
	ID       int64             `json:"id"`
	AgentID  string            `json:"agentId"`
	CallID   string            `json:"callId"`
	At       time.Time         `json:"at"`
	Kind     string            `json:"kind"`             // request | response | event (one SSE event) | error (transport failure)
	Method   string            `json:"method,omitempty"` // JSON-RPC method of the call, or "token" for an OAuth2 token fetch
	URL      string            `json:"url,omitempty"`
	Status   int               `json:"status,omitempty"`   // HTTP status (response)
	Duration time.Duration     `json:"duration,omitempty"` // response and event: since the request
	Header   map[string]string `json:"header,omitempty"`
	Body     string            `json:"body,omitempty"` // truncated to 64 KiB with a "… (N bytes more)" note
}

// Recorder receives what a Tap sees: a Log, or a test's memory.
type Recorder interface{ Record(Entry) }

const (
	// wireKeep is how many entries the log keeps; older ones are pruned.
	wireKeep = 20000
	// wirePruneEvery is how many inserts pass between prunes, so pruning costs little per entry.
	wirePruneEvery = 500
	// wirePruneBatch bounds one DELETE, so the single writer is never held for long.
	wirePruneBatch = 1000
	// wireQueue is how many entries may wait for the writer; wireWait how long Record waits for room.
	wireQueue = 4096
	wireWait  = 50 * time.Millisecond
)

// Log stores wire entries in hub.db and publishes each on the bus. Entries are written by one
// goroutine, in the order they were recorded, so a call never waits for the disk.
type Log struct {
	db    *store.DB
	bus   *bus.Bus
	keep  int
	queue chan logItem
	done  chan struct{}

	mu     sync.RWMutex // guards closed against Record racing Close
	closed bool

	sinceprune int
}

// logItem is an entry to write, or (entry nil) a flush marker closed once everything before it is written.
type logItem struct {
	entry   *Entry
	flushed chan struct{}
}

// Open migrates the wire_log table and starts its writer; Close stops it.
func Open(ctx context.Context, db *store.DB, b *bus.Bus) (*Log, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "agents_wire", sub); err != nil {
		return nil, err
	}
	w := &Log{db: db, bus: b, keep: wireKeep, queue: make(chan logItem, wireQueue), done: make(chan struct{})}
	go w.run()
	return w, nil
}

// Record queues e for writing. It waits at most a few milliseconds for room, then drops the entry
// (and says so in the log, without its content): a slow disk must not slow the agent's stream.
func (w *Log) Record(e Entry) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return
	}
	item := logItem{entry: &e}
	select {
	case w.queue <- item:
		return
	default:
	}
	timer := time.NewTimer(wireWait)
	defer timer.Stop()
	select {
	case w.queue <- item:
	case <-timer.C:
		slog.Warn("wire log is behind; dropped an entry", "agent", e.AgentID, "kind", e.Kind, "method", e.Method)
	}
}

// Flush waits until every entry recorded before it is written.
func (w *Log) Flush(ctx context.Context) error {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return nil
	}
	marker := make(chan struct{})
	select {
	case w.queue <- logItem{flushed: marker}:
		w.mu.RUnlock()
	case <-ctx.Done():
		w.mu.RUnlock()
		return ctx.Err()
	}
	select {
	case <-marker:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued and stops the writer. Later entries are dropped.
func (w *Log) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	close(w.queue)
	w.mu.Unlock()
	<-w.done
	return nil
}

func (w *Log) run() {
	defer close(w.done)
	for item := range w.queue {
		batch := []logItem{item}
	more:
		for len(batch) < 256 {
			select {
			case next, ok := <-w.queue:
				if !ok {
					break more
				}
				batch = append(batch, next)
			default:
				break more
			}
		}
		w.write(batch)
	}
}

// write inserts a batch in one transaction, then publishes the entries and releases flush markers.
func (w *Log) write(batch []logItem) {
	ctx := context.Background()
	var written []Entry
	err := w.db.Tx(ctx, func(tx *sql.Tx) error {
		written = written[:0]
		for _, item := range batch {
			if item.entry == nil {
				continue
			}
			e := *item.entry
			header := []byte("{}")
			if len(e.Header) > 0 {
				var err error
				if header, err = json.Marshal(e.Header); err != nil {
					return err
				}
			}
			// RETURNING, which both engines read the same: PostgreSQL's driver has no LastInsertId.
			if err := tx.QueryRowContext(ctx, `INSERT INTO wire_log(agent_id, call_id, at, kind, method, url, status, duration, header, body)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				e.AgentID, e.CallID, e.At.UnixNano(), e.Kind, e.Method, e.URL, e.Status, int64(e.Duration), string(header), e.Body).Scan(&e.ID); err != nil {
				return err
			}
			written = append(written, e)
		}
		return nil
	})
	if err != nil {
		slog.Error("wire log: could not store entries; dropped them", "entries", len(batch), "err", err)
		written = nil
	}
	for _, e := range written {
		if w.bus != nil {
			w.bus.Publish(bus.Event{Topic: Topic, Key: e.AgentID, Seq: e.ID, Data: e})
		}
	}
	w.sinceprune += len(written)
	if w.sinceprune >= wirePruneEvery || w.sinceprune >= w.keep {
		w.sinceprune = 0
		if err := w.prune(ctx); err != nil {
			slog.Error("wire log: could not prune old entries", "err", err)
		}
	}
	for _, item := range batch {
		if item.flushed != nil {
			close(item.flushed)
		}
	}
}

// prune deletes everything older than the newest keep entries, a batch at a time.
func (w *Log) prune(ctx context.Context) error {
	var cutoff int64
	err := w.db.Writer.QueryRowContext(ctx, `SELECT id FROM wire_log ORDER BY id DESC LIMIT 1 OFFSET ?`, w.keep).Scan(&cutoff)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	for {
		res, err := w.db.Writer.ExecContext(ctx,
			`DELETE FROM wire_log WHERE id IN (SELECT id FROM wire_log WHERE id <= ? ORDER BY id LIMIT ?)`, cutoff, wirePruneBatch)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n < wirePruneBatch {
			return nil
		}
	}
}

// List returns an agent's entries newest first, older than beforeID (0: from the newest). An empty
// agentID lists every agent's. limit is capped at 1000 (and defaults to 100).
func (w *Log) List(ctx context.Context, agentID string, beforeID int64, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	q := `SELECT id, agent_id, call_id, at, kind, method, url, status, duration, header, body FROM wire_log
		WHERE agent_id = ? AND id < ? ORDER BY id DESC LIMIT ?`
	args := []any{agentID, beforeID, limit}
	if agentID == "" {
		q = `SELECT id, agent_id, call_id, at, kind, method, url, status, duration, header, body FROM wire_log
			WHERE id < ? ORDER BY id DESC LIMIT ?`
		args = args[1:]
	}
	rows, err := w.db.Reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		var e Entry
		var at, dur int64
		var header string
		if err := rows.Scan(&e.ID, &e.AgentID, &e.CallID, &at, &e.Kind, &e.Method, &e.URL, &e.Status, &dur, &header, &e.Body); err != nil {
			return nil, err
		}
		e.At, e.Duration = time.Unix(0, at), time.Duration(dur)
		if err := json.Unmarshal([]byte(header), &e.Header); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// DeleteAgent forgets an agent's entries, including any still queued.
func (w *Log) DeleteAgent(ctx context.Context, agentID string) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	_, err := w.db.Writer.ExecContext(ctx, `DELETE FROM wire_log WHERE agent_id = ?`, agentID)
	return err
}
