package agents

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed wiremigrations/*.sql
var wireMigrations embed.FS

// WireTopic is the bus topic of new wire log entries; Key is the agent id, Data a WireEntry.
const WireTopic = "wire"

// WireEntry is one thing seen on the wire with a remote agent, with every secret masked ("•••").
type WireEntry struct {
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

// Wire receives what NewHTTPClient sees.
type Wire interface{ Record(WireEntry) }

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

// WireLog stores wire entries in hub.db and publishes each on the bus. Entries are written by one
// goroutine, in the order they were recorded, so a call never waits for the disk.
type WireLog struct {
	db    *store.DB
	bus   *bus.Bus
	keep  int
	queue chan wireLogItem
	done  chan struct{}

	mu     sync.RWMutex // guards closed against Record racing Close
	closed bool

	sinceprune int
}

// wireLogItem is an entry to write, or (entry nil) a flush marker closed once everything before it is written.
type wireLogItem struct {
	entry   *WireEntry
	flushed chan struct{}
}

// OpenWireLog migrates the wire_log table and starts its writer; Close stops it.
func OpenWireLog(ctx context.Context, db *store.DB, b *bus.Bus) (*WireLog, error) {
	sub, err := fs.Sub(wireMigrations, "wiremigrations")
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, "agents_wire", sub); err != nil {
		return nil, err
	}
	w := &WireLog{db: db, bus: b, keep: wireKeep, queue: make(chan wireLogItem, wireQueue), done: make(chan struct{})}
	go w.run()
	return w, nil
}

// Record queues e for writing. It waits at most a few milliseconds for room, then drops the entry
// (and says so in the log, without its content): a slow disk must not slow the agent's stream.
func (w *WireLog) Record(e WireEntry) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return
	}
	item := wireLogItem{entry: &e}
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
func (w *WireLog) Flush(ctx context.Context) error {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return nil
	}
	marker := make(chan struct{})
	select {
	case w.queue <- wireLogItem{flushed: marker}:
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
func (w *WireLog) Close() error {
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

func (w *WireLog) run() {
	defer close(w.done)
	for item := range w.queue {
		batch := []wireLogItem{item}
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
func (w *WireLog) write(batch []wireLogItem) {
	ctx := context.Background()
	var written []WireEntry
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
			res, err := tx.ExecContext(ctx, `INSERT INTO wire_log(agent_id, call_id, at, kind, method, url, status, duration, header, body)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				e.AgentID, e.CallID, e.At.UnixNano(), e.Kind, e.Method, e.URL, e.Status, int64(e.Duration), string(header), e.Body)
			if err != nil {
				return err
			}
			if e.ID, err = res.LastInsertId(); err != nil {
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
			w.bus.Publish(bus.Event{Topic: WireTopic, Key: e.AgentID, Seq: e.ID, Data: e})
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
func (w *WireLog) prune(ctx context.Context) error {
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
func (w *WireLog) List(ctx context.Context, agentID string, beforeID int64, limit int) ([]WireEntry, error) {
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
	out := []WireEntry{}
	for rows.Next() {
		var e WireEntry
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
func (w *WireLog) DeleteAgent(ctx context.Context, agentID string) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	_, err := w.db.Writer.ExecContext(ctx, `DELETE FROM wire_log WHERE agent_id = ?`, agentID)
	return err
}

// maxWireBody bounds a recorded body; wireSlack more is captured so a secret straddling the cut is
// still masked whole before the cut is made.
const (
	maxWireBody = 64 << 10
	wireSlack   = 4 << 10
)

// wireTap sends requests and records them, their responses and each event of a stream.
type wireTap struct {
	agentID string
	wire    Wire
	base    http.RoundTripper
}

func (p *wireTap) record(e WireEntry) {
	if p.wire == nil {
		return
	}
	e.AgentID = p.agentID
	if e.At.IsZero() {
		e.At = time.Now()
	}
	p.wire.Record(e)
}

// failed records a call that got no response.
func (p *wireTap) failed(callID, method string, req *http.Request, start time.Time, err error, m *masker) {
	p.record(WireEntry{CallID: callID, Kind: "error", Method: method, URL: m.url(req.URL), Duration: time.Since(start), Body: m.text(err.Error())})
}

// do records req, sends it, and wraps the response body so its content is recorded as it is read:
// a plain body once, when finished or closed; a stream event by event.
func (p *wireTap) do(req *http.Request, body []byte, callID, method string, m *masker) (*http.Response, error) {
	start := time.Now()
	if p.wire != nil {
		captured := body[:min(len(body), maxWireBody+wireSlack)]
		p.record(WireEntry{CallID: callID, At: start, Kind: "request", Method: method, URL: m.url(req.URL),
			Header: m.header(req.Header), Body: clipBody(m.text(string(captured)), int64(len(body)-len(captured)), maxWireBody)})
	}
	resp, err := p.base.RoundTrip(req)
	if err != nil {
		p.failed(callID, method, req, start, err, m)
		return nil, err
	}
	if p.wire == nil {
		return resp, nil
	}
	head := WireEntry{CallID: callID, Kind: "response", Method: method, URL: m.url(req.URL), Status: resp.StatusCode,
		Duration: time.Since(start), Header: m.header(resp.Header)}
	if wireMediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		p.record(head)
		resp.Body = &eventTee{rc: resp.Body, done: func(event []byte, more int64) {
			p.record(WireEntry{CallID: callID, Kind: "event", Method: method, Duration: time.Since(start),
				Body: clipBody(m.text(string(event)), more, maxWireBody)})
		}}
		return resp, nil
	}
	resp.Body = &bodyTee{rc: resp.Body, done: func(captured []byte, more int64) {
		head.At, head.Body = time.Now(), clipBody(m.text(string(captured)), more, maxWireBody)
		p.record(head)
	}}
	return resp, nil
}

func wireMediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// bodyTee captures the start of a body and reports it once, at EOF or Close, whichever comes first.
type bodyTee struct {
	rc       io.ReadCloser
	mu       sync.Mutex
	captured []byte
	total    int64
	once     sync.Once
	done     func(captured []byte, more int64)
}

func (b *bodyTee) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	b.total += int64(n)
	if room := maxWireBody + wireSlack - len(b.captured); room > 0 {
		b.captured = append(b.captured, p[:min(n, room)]...)
	}
	b.mu.Unlock()
	if err != nil {
		b.finish()
	}
	return n, err
}

func (b *bodyTee) Close() error {
	b.finish()
	return b.rc.Close()
}

func (b *bodyTee) finish() {
	b.once.Do(func() {
		b.mu.Lock()
		captured, more := b.captured, b.total-int64(len(b.captured))
		b.mu.Unlock()
		b.done(captured, more)
	})
}

// eventTee splits an SSE stream into events (separated by a blank line) and reports each as it
// completes; an event's text is capped, the rest only counted.
type eventTee struct {
	rc      io.ReadCloser
	mu      sync.Mutex
	line    []byte // the current line, up to a newline
	event   []byte // the lines of the current event
	dropped int64
	closed  bool
	done    func(event []byte, more int64)
}

func (e *eventTee) Read(p []byte) (int, error) {
	n, err := e.rc.Read(p)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range p[:n] {
		if c != '\n' {
			if len(e.line) < maxWireBody+wireSlack {
				e.line = append(e.line, c)
			} else {
				e.dropped++
			}
			continue
		}
		line := bytes.TrimSuffix(e.line, []byte("\r"))
		e.line = e.line[:0]
		if len(line) == 0 {
			e.emit()
			continue
		}
		e.keep(line)
		if len(e.event) < maxWireBody+wireSlack {
			e.event = append(e.event, '\n')
		}
	}
	if err != nil {
		e.end()
	}
	return n, err
}

func (e *eventTee) keep(b []byte) {
	room := maxWireBody + wireSlack - len(e.event)
	take := min(max(room, 0), len(b))
	e.event = append(e.event, b[:take]...)
	e.dropped += int64(len(b) - take)
}

func (e *eventTee) emit() {
	if len(e.event) == 0 && e.dropped == 0 {
		return
	}
	e.done(bytes.TrimSuffix(e.event, []byte("\n")), e.dropped)
	e.event, e.dropped = nil, 0
}

// end reports an event the stream stopped in the middle of.
func (e *eventTee) end() {
	if e.closed {
		return
	}
	e.closed = true
	if len(e.line) > 0 {
		e.keep(e.line)
		e.line = nil
	}
	e.emit()
}

func (e *eventTee) Close() error {
	e.mu.Lock()
	e.end()
	e.mu.Unlock()
	return e.rc.Close()
}

// clipBody cuts s to limit bytes (at a character boundary) and notes how much was left out.
func clipBody(s string, more int64, limit int) string {
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		more += int64(len(s) - cut)
		s = s[:cut]
	}
	if more > 0 {
		s += fmt.Sprintf("… (%d bytes more)", more)
	}
	return s
}

// drainRequestBody reads the request body whole, so it can be recorded and sent again; RoundTrip must
// close it in every case.
func drainRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, fmt.Errorf("read the request body: %w", err)
	}
	return body, nil
}

// jsonrpcMethodOf names the JSON-RPC method(s) of a request body; "" when it is not JSON-RPC.
func jsonrpcMethodOf(body []byte) string {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return ""
	}
	names := make([]string, 0, len(batch))
	for _, b := range batch {
		names = append(names, b.Method)
	}
	return strings.Join(names, ",")
}
