package channels

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
)

// publishStmts are the statements of the publish path, prepared once on the writer connection and
// used inside each write transaction (tx.StmtContext): parsing them on every publish was half of the
// writer's time, and the writer is what bounds publishes per second.
type publishStmts struct {
	// SQLite: access, the newest sequence (lastSeq), the event and its audit row, one statement each.
	// PostgreSQL: lastSeq locks the channel's row; read and write decide and store all the queued
	// publishes of a transaction (publish_batch.go).
	access, idempotent, lastSeq, insertEvent, audit, read, write *sql.Stmt
	// On the reader pool, for channels/history and streams: the caller's access, a page without an
	// author filter (the common shape), a stream's backlog, and one event (another replica's).
	readAccess, page, backlog, event *sql.Stmt
}

func preparePublish(ctx context.Context, db *sql.DB, postgres bool) (*publishStmts, error) {
	var st publishStmts
	var errs []error
	p := func(dst **sql.Stmt, query string) {
		s, err := db.PrepareContext(ctx, query)
		*dst = s
		errs = append(errs, err)
	}
	p(&st.idempotent, `SELECT event_json, request_hash FROM channel_events WHERE channel_id = ? AND author = ? AND idempotency_key = ?`)
	if postgres {
		// The channel's newest sequence and its visibility, and its row's lock for the rest of the
		// transaction: the first publish of a transaction to a channel takes it (see publish).
		p(&st.lastSeq, `SELECT last_seq, visibility FROM channels WHERE id = ? FOR UPDATE`)
		p(&st.read, publishRead)
		p(&st.write, publishWrite)
		return &st, errors.Join(errs...)
	}
	// access is what load and requireMember decide for a publish, in one query: the channel's
	// visibility and the caller's role (NULL: not a member).
	p(&st.access, accessQuery)
	// A channel's newest sequence when seqs does not know it yet.
	p(&st.lastSeq, `SELECT COALESCE(MAX(sequence), 0) FROM channel_events WHERE channel_id = ?`)
	// An idempotency key already stored stores nothing (and is read back): the unique index decides,
	// never a read before the insert.
	p(&st.insertEvent, `INSERT INTO channel_events(channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (channel_id, author, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`)
	p(&st.audit, `INSERT INTO channel_audit(at, channel_id, event_id, actor, action) VALUES (?, ?, ?, ?, ?)`)
	return &st, errors.Join(errs...)
}

// batch is the state the publishes of one writer transaction share. The group-commit writer runs
// the fns of concurrent callers one after another in one transaction, so a publish that finds the
// batch of its own transaction reuses the statements already bound to it and what the publishes
// before it learnt. Any other write of this package (write) flushes the publishes queued before it
// (PostgreSQL) and forgets the batch first, so a membership or visibility change in the same
// transaction is seen by the publishes after it and not by those before (and, on PostgreSQL, a
// channel's row is read again).
type batch struct {
	tx                                                           *sql.Tx
	access, idempotent, lastSeq, insertEvent, audit, read, write *sql.Stmt
	// members are the known members of a channel in this transaction: on SQLite their access is
	// not checked again; on both, a direct channel they published to exists.
	members map[memberKey]bool
	// locked is, on PostgreSQL, each channel this transaction published to, its newest sequence
	// (counted on by flush) and its visibility: its row is locked by this transaction since, so
	// nobody else changes them. Only a publish that succeeded records it: one that failed may have
	// been rolled back to its savepoint (see store.DB.Write), the row's lock with it; the next
	// publish then locks the row again.
	locked map[string]lockedChannel
	// pending are, on PostgreSQL, the publishes queued for flush, in the order their fns ran.
	pending []*pendingPublish
}

// lockedChannel is what a transaction that holds a channel's row knows of it (batch.locked).
type lockedChannel struct {
	last       int64
	visibility string
}

type memberKey struct{ channel, principal string }

// batchOf is the batch of transaction tx, started if tx is a new transaction. It runs on the
// writer goroutine. The statements are bound without the caller's context: they serve the other
// publishes of the transaction too, which a caller that goes away must not fail.
func (s *Service) batchOf(tx *sql.Tx) *batch {
	if s.batch != nil && s.batch.tx == tx {
		return s.batch
	}
	ctx := context.Background()
	bind := func(st *sql.Stmt) *sql.Stmt {
		if st == nil {
			return nil // not this engine's
		}
		return tx.StmtContext(ctx, st)
	}
	s.batch = &batch{tx: tx, access: bind(s.pub.access), idempotent: bind(s.pub.idempotent),
		lastSeq: bind(s.pub.lastSeq), insertEvent: bind(s.pub.insertEvent), audit: bind(s.pub.audit),
		read: bind(s.pub.read), write: bind(s.pub.write), members: map[memberKey]bool{}, locked: map[string]lockedChannel{}}
	if s.db.Postgres() {
		s.db.BeforeCommit(tx, s.flush) // the publishes queued last (publish_batch.go)
	}
	return s.batch
}

// PublishParams are channels/publish's params.
type PublishParams struct {
	ChannelID string `json:"channelId"`
	// RecipientID names the other party of a direct channel: the channel chan:direct:… of the
	// caller and the recipient is created on first publish. ChannelID may then be omitted; if
	// given, it must be that direct channel's id.
	RecipientID    string            `json:"recipientId"`
	Parts          []json.RawMessage `json:"parts"`
	ArtifactRefs   []string          `json:"artifactRefs"`
	IdempotencyKey string            `json:"idempotencyKey"`
	Metadata       map[string]any    `json:"metadata"`
}

// requestHash is the digest of what a publish carries, in a canonical form (object keys sorted), so
// a retry with the same content under the same idempotency key matches whatever its key order.
func requestHash(p PublishParams) ([]byte, error) {
	canon := func(v any) (any, error) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var out any
		err = json.Unmarshal(raw, &out)
		return out, err
	}
	parts, err := canon(p.Parts)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(map[string]any{"parts": parts, "artifactRefs": p.ArtifactRefs, "metadata": p.Metadata})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(doc)
	return sum[:], nil
}

// Publish stores a message event in the channel with the next sequence, and publishes it on the
// bus once it is durable. A repeated idempotency key returns the original event.
func (s *Service) Publish(ctx context.Context, p PublishParams) (*MessageEvent, error) {
	ev, _, err := s.publish(ctx, p)
	return ev, err
}

// publish is Publish, also returning the event as stored (JSON), for an answer that need not
// encode it again.
func (s *Service) publish(ctx context.Context, p PublishParams) (*MessageEvent, json.RawMessage, error) {
	who := caller(ctx)
	if err := mustWrite(who); err != nil {
		return nil, nil, err
	}
	if !s.limiter.allow(who.ID) {
		return nil, nil, errorf(CodeRateLimit, "rate limit: too many publish and history calls from %s; retry shortly", who.ID)
	}
	direct := false
	if p.RecipientID == "" && isDirect(p.ChannelID) {
		// A direct channel named by its id, as the spec derives it, is created by its first
		// publish too: the recipient is the principal that makes that id with the caller.
		peer, err := s.directPeer(ctx, who, p.ChannelID)
		if err != nil {
			return nil, nil, err
		}
		p.RecipientID = peer
	}
	if p.RecipientID != "" {
		peer, err := checkPrincipal(p.RecipientID)
		if err != nil {
			return nil, nil, err
		}
		if err := s.checkKnown(ctx, peer); err != nil {
			return nil, nil, err
		}
		if peer.ID == who.ID {
			return nil, nil, invalid("a direct channel is between two different principals")
		}
		if peer.Kind == auth.KindRemote {
			return nil, nil, invalid("an added agent (%s) has no direct channel: the owner adds it to a channel", peer.ID)
		}
		id := DirectID(who.ID, peer.ID)
		if p.ChannelID != "" && p.ChannelID != id {
			return nil, nil, invalid("channelId %s is not the direct channel with %s (%s)", p.ChannelID, peer.ID, id)
		}
		p.ChannelID, direct = id, true
	}
	if p.ChannelID == "" {
		return nil, nil, invalid("channelId (or recipientId for a direct channel) is required")
	}
	if len(p.Parts) == 0 {
		return nil, nil, invalid("parts must hold at least one part")
	}
	if len(p.Parts) > MaxParts {
		return nil, nil, errorf(CodeLimitExceeded, "limit exceeded: at most %d parts per publish, this has %d", MaxParts, len(p.Parts))
	}
	for i, part := range p.Parts {
		if len(part) == 0 || part[0] != '{' || !json.Valid(part) {
			return nil, nil, invalid("parts[%d] is not an object", i)
		}
	}
	if utf8.RuneCountInString(p.IdempotencyKey) > MaxIdempotencyKeyLen {
		return nil, nil, errorf(CodeLimitExceeded, "limit exceeded: an idempotency key is at most %d characters", MaxIdempotencyKeyLen)
	}
	if p.Metadata != nil {
		if _, err := checkMetadata(p.Metadata); err != nil {
			return nil, nil, err
		}
	}
	// The request's digest tells a retry from another message under the same idempotency key; a
	// publish without a key can never be compared, so it stores none (and skips the canonical
	// encoding, a tenth of a publish's CPU).
	hash := []byte{}
	if p.IdempotencyKey != "" {
		var err error
		if hash, err = requestHash(p); err != nil {
			return nil, nil, invalid("%v", err)
		}
	}
	// The event is made and encoded before the writer, which only fills in its sequence and
	// timestamp: encoding it there was a tenth of the writer's time per publish. A fn that runs
	// again (its batch broken by another write) stores the same event.
	ev := &MessageEvent{ID: uuid.NewString(), ChannelID: p.ChannelID, Author: who.ID, Parts: p.Parts,
		ArtifactRefs: p.ArtifactRefs, Metadata: p.Metadata, IdempotencyKey: p.IdempotencyKey, Kind: "messageEvent"}
	enc, err := encodeEvent(ev)
	if err != nil {
		return nil, nil, invalid("%v", err)
	}
	if size := enc.widest(); size > MaxEventJSON {
		return nil, nil, errorf(CodeLimitExceeded, "limit exceeded: this event would be %d bytes of JSON, more than the %d one event may be", size, MaxEventJSON)
	}
	var out *MessageEvent // ev, or the original event of an idempotent retry
	var outJSON []byte
	var key any // NULL without an idempotency key
	if p.IdempotencyKey != "" {
		key = p.IdempotencyKey
	}
	var outcome publishOutcome // PostgreSQL: what flush decided (publish_batch.go)
	queued := &pendingPublish{who: who, key: p.IdempotencyKey, hash: hash, ev: ev, enc: enc, out: &outcome}
	// Lean: a publish that fails before it changes anything (no access, its quota, an idempotent
	// retry) costs its batch nothing; one that fails after takes the batch down, and the writer runs
	// the others again without it.
	write := func(tx *sql.Tx) error {
		// Once the writer runs it, the publish goes to its end whatever its caller does: a
		// statement interrupted midway would take the whole batch's transaction down with it.
		ctx := context.WithoutCancel(ctx)
		b := s.batchOf(tx)
		if s.db.Postgres() {
			return s.queuePublish(ctx, tx, b, queued, direct, p.RecipientID)
		}
		created := false // the direct channel, by this publish
		now := s.millis()
		id := p.ChannelID
		member := memberKey{id, who.ID}
		if direct && !b.members[member] {
			var err error
			if created, err = s.ensureDirect(ctx, tx, id, who.ID, p.RecipientID, now); err != nil {
				return err
			}
		}
		// unchanged marks an error returned before this publish changed anything: on PostgreSQL the
		// writer runs a batch without savepoints and trusts that mark. (A row lock taken is no change.)
		unchanged := func(err error) error {
			if err == nil || created {
				return err
			}
			return store.NothingWritten(err)
		}
		var seq int64
		var item itemJSON
		var raw []byte
		{
			// b.members holds who published in this transaction already: their access was checked.
			if !b.members[member] {
				if err := mayPublish(ctx, b.access, id, who); err != nil {
					return unchanged(err)
				}
			}
			// One process owns a SQLite file: the sequence is the last one this process stored,
			// read once from the table. Updating the channel's row for it instead was a quarter of
			// a publish's time on the writer.
			var known bool
			if seq, known = s.seqs[id]; !known {
				if err := b.lastSeq.QueryRowContext(ctx, id).Scan(&seq); err != nil {
					return unchanged(err)
				}
			}
			seq++
			item = enc.item(seq, now)
			raw = item.event()
			if err := s.quota.check(ctx, tx, who, len(raw)); err != nil {
				if p.IdempotencyKey != "" {
					// A retry of an event already stored adds nothing: it is answered, not refused.
					if hit := s.stored(ctx, b, id, who.ID, p.IdempotencyKey, hash); hit != nil {
						return unchanged(hit)
					}
				}
				return unchanged(err)
			}
			res, err := b.insertEvent.ExecContext(ctx, id, seq, ev.ID, now, who.ID, key, hash, raw)
			if err != nil {
				return err
			}
			if key != nil {
				if n, err := res.RowsAffected(); err != nil {
					return err
				} else if n == 0 {
					return unchanged(s.conflicted(ctx, b, id, who.ID, p.IdempotencyKey, hash))
				}
			}
			if _, err := b.audit.ExecContext(ctx, now, id, ev.ID, who.ID, "publish"); err != nil {
				return err
			}
		}
		ev.Sequence, ev.Timestamp = seq, now
		n := len(s.changes)
		if created {
			if err := s.announce(tx, id, &Change{Created: true}); err != nil {
				return s.unannounce(n, err)
			}
		}
		if err := s.announce(tx, id, &Change{Event: ev, EventJSON: raw, Item: json.RawMessage(item), result: server.RawResult(item)}); err != nil {
			return s.unannounce(n, err)
		}
		s.seqs[id] = seq
		b.members[member] = true
		out, outJSON = ev, raw
		return nil
	}
	err = s.db.WriteLean(ctx, s.serializing(write)) // a deadlock's victim runs again in the store
	if err == nil && s.db.Postgres() {
		// The write stored the batch; what it decided for this publish is in its outcome.
		if !outcome.decided {
			err = fmt.Errorf("channels: publish to %s: its batch committed without deciding it", p.ChannelID)
		} else {
			out, outJSON, err = outcome.ev, outcome.json, outcome.err
		}
	}
	var retry *idempotentRetry
	if errors.As(err, &retry) {
		return retry.event, retry.json, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return out, outJSON, nil
}

// idempotentRetry ends a publish whose idempotency key is stored already with the same content:
// the answer is the event stored first, and the publish stores nothing.
type idempotentRetry struct {
	event *MessageEvent
	json  []byte
}

func (r *idempotentRetry) Error() string { return "idempotent retry of event " + r.event.ID }

// stored reads the event author stored in channel id under an idempotency key: nil if there is
// none, an *idempotentRetry if its content hashes to hash, else the conflict (or the read's error).
func (s *Service) stored(ctx context.Context, b *batch, id, author, key string, hash []byte) error {
	var raw, storedHash []byte
	err := b.idempotent.QueryRowContext(ctx, id, author, key).Scan(&raw, &storedHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return storedAnswer(key, hash, raw, storedHash)
}

// conflicted is the answer to a publish whose insert found its idempotency key stored already (by
// another replica, perhaps at this very moment: the insert waited for it): the first event.
func (s *Service) conflicted(ctx context.Context, b *batch, id, author, key string, hash []byte) error {
	if hit := s.stored(ctx, b, id, author, key, hash); hit != nil {
		return hit
	}
	return fmt.Errorf("idempotency key %q: the insert conflicted, the stored event is gone", key)
}
