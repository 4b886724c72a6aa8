package channels

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

func prepareHistory(ctx context.Context, db *sql.DB, st *publishStmts) error {
	var err1, err2, err3, err4 error
	st.readAccess, err1 = db.PrepareContext(ctx, accessQuery)
	st.page, err2 = db.PrepareContext(ctx, pageQuery+` AND `+readableQuery+` ORDER BY sequence LIMIT ?`)
	st.backlog, err3 = db.PrepareContext(ctx, `SELECT sequence, event_json FROM channel_events WHERE channel_id = ? AND sequence > ? ORDER BY sequence LIMIT 200`)
	st.event, err4 = db.PrepareContext(ctx, `SELECT event_json FROM channel_events WHERE channel_id = ? AND sequence = ?`)
	return errors.Join(err1, err2, err3, err4)
}

const (
	// The placeholders are plain ? in order (not SQLite's numbered ?NNN, which PostgreSQL's
	// rewriting of ? to $1, $2, … does not know), so a value used twice is passed twice.
	pageQuery = `SELECT sequence, event_json FROM channel_events WHERE channel_id = ? AND sequence > ? AND timestamp >= ?`
	// readableQuery is access's answer as a condition (the channel, ? twice, is public, or the
	// caller, the third ?, is a member), for a page read with it: it does not depend on the row, so
	// SQLite runs it once.
	readableQuery = `EXISTS (SELECT 1 FROM channels c WHERE c.id = ? AND (c.visibility = 'public'
		OR EXISTS (SELECT 1 FROM channel_members m WHERE m.channel_id = ? AND m.principal_id = ?)))`
)

// HistoryParams are channels/history's params.
type HistoryParams struct {
	ChannelID      string   `json:"channelId"`
	PageSize       int      `json:"pageSize"`
	PageToken      string   `json:"pageToken"`
	SinceSequence  *int64   `json:"sinceSequence"`
	SinceTimestamp *int64   `json:"sinceTimestamp"`
	AuthorIDs      []string `json:"authorIds"`
}

// HistoryPage is channels/history's result. Events are MessageEvents as stored: a page is answered
// without decoding and encoding each one again.
type HistoryPage struct {
	Events        []json.RawMessage `json:"events"`
	NextPageToken string            `json:"nextPageToken,omitempty"`
	// encoded is the page as encode writes it, when History wrote it while reading the rows (Events
	// are then slices of it).
	encoded []byte
}

// History pages through a channel's events in sequence order: those after SinceSequence, or at or
// after SinceTimestamp, by AuthorIDs if given; a page token continues where the last page ended.
func (s *Service) History(ctx context.Context, p HistoryParams) (*HistoryPage, error) {
	who := caller(ctx)
	if p.ChannelID == "" {
		return nil, invalid("channelId is required")
	}
	if p.SinceSequence != nil && p.SinceTimestamp != nil {
		return nil, invalid("sinceSequence and sinceTimestamp are mutually exclusive")
	}
	size := p.PageSize
	switch {
	case size == 0:
		size = DefaultPageSize
	case size < 1:
		size = 1
	case size > MaxPageSize:
		size = MaxPageSize
	}
	var after, since int64
	authors := p.AuthorIDs
	if p.PageToken != "" {
		if p.SinceSequence != nil || p.SinceTimestamp != nil {
			return nil, invalid("a pageToken carries its own position: sinceSequence and sinceTimestamp go with the first page only")
		}
		cur, err := s.openCursor(p.PageToken)
		if err != nil || cur.Channel != p.ChannelID {
			return nil, invalid("pageToken is not a page token of this channel")
		}
		after, authors = cur.After, cur.Authors
	} else if p.SinceSequence != nil {
		after = *p.SinceSequence
	} else if p.SinceTimestamp != nil {
		since = *p.SinceTimestamp
	}
	if !s.limiter.allow(who.ID) {
		return nil, errorf(CodeRateLimit, "rate limit: too many publish and history calls from %s; retry shortly", who.ID)
	}
	// The reads are bounded (a page of at most 201 rows), so they run to their end even if the
	// client leaves: a cancellable context costs the driver a goroutine per query to watch it.
	rctx := context.WithoutCancel(ctx)
	var rows *sql.Rows
	var err error
	if len(authors) == 0 {
		// The common shape reads the page and the caller's access in one statement: rows come back
		// only if the caller may read the channel, and an empty answer is told apart below.
		rows, err = s.pub.page.QueryContext(rctx, p.ChannelID, after, since, p.ChannelID, p.ChannelID, who.ID, size+1)
	} else {
		if _, err := access(rctx, s.pub.readAccess, p.ChannelID, who); err != nil {
			return nil, err
		}
		query := pageQuery + ` AND author IN (?` + strings.Repeat(",?", len(authors)-1) + `) ORDER BY sequence LIMIT ?`
		args := []any{p.ChannelID, after, since}
		for _, a := range authors {
			args = append(args, a)
		}
		rows, err = s.db.Reader.QueryContext(rctx, query, append(args, size+1)...)
	}
	page, last, more, err := readPage(rows, err, size)
	if err != nil {
		return nil, err
	}
	if len(page.Events) == 0 && len(authors) == 0 {
		// No rows: the channel is empty past this point, or the caller may not read it.
		if _, err := access(rctx, s.pub.readAccess, p.ChannelID, who); err != nil {
			return nil, err
		}
	}
	if more {
		page.NextPageToken = s.sealCursor(cursor{Channel: p.ChannelID, After: last, Authors: authors})
	}
	page.encoded = page.end(page.encoded)
	return page, nil
}

// readPage reads rows of (sequence, event_json), at most size of them, writing the page's JSON as
// it goes (each event copied once, straight from the driver's buffer): last is the sequence of the
// last event on the page, more whether a row came after it. The page's encoding is left open for
// end, which adds the page token.
func readPage(rows *sql.Rows, err error, size int) (page *HistoryPage, last int64, more bool, err2 error) {
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	out := append(make([]byte, 0, 1024+size*320), `{"events":[`...)
	var spans [][2]int
	for rows.Next() {
		if len(spans) == size {
			more = true
			break
		}
		var seq int64
		var raw sql.RawBytes // valid until the next Next: appended at once
		if err := rows.Scan(&seq, &raw); err != nil {
			return nil, 0, false, err
		}
		if len(spans) > 0 {
			out = append(out, ',')
		}
		spans = append(spans, [2]int{len(out), len(out) + len(raw)})
		out = append(out, raw...)
		last = seq
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, err
	}
	page = &HistoryPage{Events: make([]json.RawMessage, len(spans)), encoded: out}
	for i, sp := range spans {
		page.Events[i] = out[sp[0]:sp[1]:sp[1]]
	}
	return page, last, more, nil
}

// encode is json.Marshal(p), written from the events as stored (JSON as json.Marshal wrote it):
// a page of 50 events is answered without encoding, or even compacting, each one again.
func (p *HistoryPage) encode() []byte {
	if p.encoded != nil {
		return p.encoded
	}
	size := len(`{"events":[],"nextPageToken":""}`) + len(p.NextPageToken)
	for _, ev := range p.Events {
		size += len(ev) + 1
	}
	out := append(make([]byte, 0, size), `{"events":[`...)
	for i, ev := range p.Events {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, ev...)
	}
	return p.end(out)
}

// end closes a page's JSON whose events are written: the array, then the page token if any.
func (p *HistoryPage) end(out []byte) []byte {
	out = append(out, ']')
	if p.NextPageToken != "" {
		token, _ := json.Marshal(p.NextPageToken) // a string always marshals
		out = append(append(out, `,"nextPageToken":`...), token...)
	}
	return append(out, '}')
}

// storedEvent is an event as stored: its sequence, and the MessageEvent's JSON.
type storedEvent struct {
	Sequence int64
	JSON     json.RawMessage
}

// scanStored reads rows of (sequence, event_json).
func scanStored(rows *sql.Rows, err error) ([]storedEvent, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var events []storedEvent
	for rows.Next() {
		var seq int64
		var raw []byte // a TEXT value too (rows written as SQL text)
		if err := rows.Scan(&seq, &raw); err != nil {
			return nil, err
		}
		events = append(events, storedEvent{seq, raw})
	}
	return events, rows.Err()
}

func (s *Service) readEvents(ctx context.Context, query string, args ...any) ([]*MessageEvent, error) {
	stored, err := scanStored(s.db.Reader.QueryContext(ctx, query, args...))
	if err != nil {
		return nil, err
	}
	events := make([]*MessageEvent, 0, len(stored))
	for _, st := range stored {
		ev := &MessageEvent{}
		if err := json.Unmarshal(st.JSON, ev); err != nil {
			return nil, fmt.Errorf("stored channel event: %w", err)
		}
		events = append(events, ev)
	}
	return events, nil
}

// EventsAfter are up to limit events of a channel after sequence after, in order, read without a
// caller's rights: for the hub's own work (the channel bridge catching up), never for a request.
func (s *Service) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]*MessageEvent, error) {
	return s.readEvents(ctx, `SELECT sequence, event_json FROM channel_events WHERE channel_id = ? AND sequence > ? ORDER BY sequence LIMIT ?`, id, after, limit)
}
