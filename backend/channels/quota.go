package channels

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/agenthub/agenthub/backend/auth"
)

// Default per-principal quotas on what a principal stores in channels, over all channels: far
// beyond what a person's agents write (a million messages, a gigabyte), a stop for a key that
// tries to fill the disk. There is no configuration file for channels; SetQuota changes them.
// The owner (the person at the desktop) has none.
const (
	DefaultQuotaEvents = 1_000_000
	DefaultQuotaBytes  = 1 << 30 // of events as stored (their JSON)
)

// quota holds the limits; usage is read from channel_usage, kept by triggers (migration 00003).
type quota struct {
	events, bytes atomic.Int64
	usage         *sql.Stmt // on the writer: a principal's stored events and bytes
}

func newQuota(ctx context.Context, writer *sql.DB) (*quota, error) {
	st, err := writer.PrepareContext(ctx, `SELECT events, bytes FROM channel_usage WHERE principal_id = ?`)
	if err != nil {
		return nil, err
	}
	q := &quota{usage: st}
	q.events.Store(DefaultQuotaEvents)
	q.bytes.Store(DefaultQuotaBytes)
	return q, nil
}

// SetQuota sets how many events, and how many bytes of them, each principal may store in channels.
func (s *Service) SetQuota(events, bytes int64) {
	s.quota.events.Store(events)
	s.quota.bytes.Store(bytes)
}

// QuotaError is a publish refused by its author's quota: -32023 LimitExceeded, with data naming the
// quota ("events" or "bytes"), its limit, what the author has stored and what the publish adds.
type QuotaError struct {
	Quota     string `json:"quota"`
	Limit     int64  `json:"limit"`
	Used      int64  `json:"used"`
	Requested int64  `json:"requested"`
	Principal string `json:"principalId"`
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("limit exceeded: %s has stored %d of its quota of %d channel %s; this publish needs %d more",
		e.Principal, e.Used, e.Limit, e.Quota, e.Requested)
}

// RPCCode is LimitExceeded.
func (e *QuotaError) RPCCode() int { return CodeLimitExceeded }

// RPCData says which quota, its limit and the use.
func (e *QuotaError) RPCData() any { return e }

// check refuses, within the publish's transaction tx, an event of size bytes that would take
// who's stored events or bytes past the quota. It runs before anything is written. (SQLite: on
// PostgreSQL the publish's one statement reads the usage and applies the limits, see publishPostgres,
// and overQuota says why it refused.)
func (q *quota) check(ctx context.Context, tx *sql.Tx, who auth.Principal, size int) error {
	if who.Kind == auth.KindOwner {
		return nil
	}
	var events, bytes int64
	err := tx.StmtContext(ctx, q.usage).QueryRowContext(ctx, who.ID).Scan(&events, &bytes)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return overQuota(who, q.events.Load(), q.bytes.Load(), events, bytes, size)
}

// overQuota refuses an event of size bytes by who, who has stored events events of bytes bytes,
// under the quotas maxEvents and maxBytes.
func overQuota(who auth.Principal, maxEvents, maxBytes, events, bytes int64, size int) error {
	if who.Kind == auth.KindOwner {
		return nil
	}
	if limit := maxEvents; events+1 > limit {
		return &QuotaError{Quota: "events", Limit: limit, Used: events, Requested: 1, Principal: who.ID}
	}
	if limit := maxBytes; bytes+int64(size) > limit {
		return &QuotaError{Quota: "bytes", Limit: limit, Used: bytes, Requested: int64(size), Principal: who.ID}
	}
	return nil
}
