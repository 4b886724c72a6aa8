package channels

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
)

// On PostgreSQL the publishes of a writer transaction are stored together, in two statements
// whatever their number: each publish's fn only locks its channel's row (once per channel per
// transaction) and queues the publish (queuePublish); before the transaction commits
// (store.BeforeCommit), or before any other channels write of the same transaction, flush reads
// what all of them need at once (membership, the authors' usage, stored idempotency keys), decides
// each in queue order exactly as the checks on SQLite do, and stores the accepted ones, their audit
// rows and the channels' new last_seq in one statement. The writer's connection runs its statements
// one after another, each a round trip, while the hot channel's row is locked for every other
// writer and replica: one round trip per publish was what bounded publishes per second.

// pendingPublish is a publish queued in a transaction, and where its outcome goes.
type pendingPublish struct {
	who  auth.Principal
	key  string // "" without an idempotency key
	hash []byte
	ev   *MessageEvent // its ChannelID is the channel
	enc  eventJSON
	out  *publishOutcome
}

// publishOutcome is what flush decided for a publish: its event as stored, or why it was refused
// (an *idempotentRetry answers a retry with the event stored first). A refused publish writes
// nothing, so its write succeeded as far as the store is concerned; its caller reads this once the
// write returned nil.
type publishOutcome struct {
	decided bool
	ev      *MessageEvent
	json    []byte
	err     error
}

// errUndone answers a publish decided by a flush that the write after it undid (rolled back to that
// write's savepoint): it is stored nowhere.
var errUndone = errors.New("channels: the publish was undone with a write of its batch; retry")

// publishRead reads, for the queued publishes (arrays of channels, authors and keys, "" for none),
// who of them is a member, what the authors have stored, and the events stored under their keys.
const publishRead = `WITH p AS (SELECT DISTINCT channel, author, key FROM unnest(?::text[], ?::text[], ?::text[]) AS p(channel, author, key))
	SELECT 'm'::text, m.channel_id, m.principal_id, ''::text, 0::bigint, 0::bigint, NULL::bytea, NULL::bytea
		FROM channel_members m WHERE (m.channel_id, m.principal_id) IN (SELECT channel, author FROM p)
	UNION ALL
	SELECT 'u', '', u.principal_id, '', u.events, u.bytes, NULL, NULL
		FROM channel_usage u WHERE u.principal_id IN (SELECT author FROM p)
	UNION ALL
	SELECT 'k', e.channel_id, e.author, e.idempotency_key, 0, 0, e.event_json, e.request_hash
		FROM p JOIN channel_events e ON e.channel_id = p.channel AND e.author = p.author AND e.idempotency_key = p.key
		WHERE p.key <> '' AND e.idempotency_key IS NOT NULL`

// publishWrite stores the accepted publishes (arrays, in sequence order per channel), an audit row
// each, and each channel's new last_seq; it answers how many events it stored. The idempotency
// index still decides: a key stored meanwhile (there should be none, the channels' write lock is
// held) stores nothing, and the count tells.
const publishWrite = `WITH e AS (
		INSERT INTO channel_events(channel_id, sequence, id, timestamp, author, idempotency_key, request_hash, event_json)
		SELECT channel, seq, id, at, author, NULLIF(key, ''), hash, body
			FROM unnest(?::text[], ?::bigint[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::bytea[], ?::bytea[])
				AS n(channel, seq, id, at, author, key, hash, body)
		ON CONFLICT (channel_id, author, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
		RETURNING channel_id, sequence, id, timestamp, author),
	a AS (INSERT INTO channel_audit(at, channel_id, event_id, actor, action)
		SELECT timestamp, channel_id, id, author, 'publish' FROM e ORDER BY channel_id, sequence),
	l AS (UPDATE channels SET last_seq = l.seq FROM unnest(?::text[], ?::bigint[]) AS l(id, seq) WHERE channels.id = l.id)
	SELECT count(*) FROM e`

// queuePublish is a publish's fn on PostgreSQL (see above): it creates the direct channel if this
// is its first publish, makes sure the transaction holds the channel's row (locked, its last
// sequence and visibility read), and queues the publish for flush. Its outcome is in q.out once
// the transaction committed.
func (s *Service) queuePublish(ctx context.Context, tx *sql.Tx, b *batch, q *pendingPublish, direct bool, recipient string) error {
	*q.out = publishOutcome{} // a rerun of the batch decides again
	id := q.ev.ChannelID
	member := memberKey{id, q.who.ID}
	created := false
	if direct && !b.members[member] {
		// Creating a channel is a channels write: the publishes queued before it are decided first.
		if err := s.flush(tx); err != nil {
			return err
		}
		var err error
		if created, err = s.ensureDirect(ctx, tx, id, q.who.ID, recipient, s.millis()); err != nil {
			return err
		}
		if created {
			if err := s.announce(tx, id, &Change{Created: true}); err != nil {
				return err
			}
		}
	}
	// The first publish of a transaction to a channel locks its row, which the transaction then
	// holds until it commits, and reads its last sequence and visibility; flush counts on from
	// there. A membership change, update or deletion (which lock the row too) commits either before,
	// which flush sees, or after this transaction; and a channel's sequences commit in order, which
	// the other replicas' streams rely on.
	if _, locked := b.locked[id]; !locked {
		var ch lockedChannel
		err := b.lastSeq.QueryRowContext(ctx, id).Scan(&ch.last, &ch.visibility)
		switch {
		case errors.Is(err, sql.ErrNoRows) && !created:
			return store.NothingWritten(notFound(id))
		case err != nil:
			return err // a failed statement: the batch runs again without this publish
		}
		b.locked[id] = ch
	}
	b.members[member] = true // the direct channel exists
	b.pending = append(b.pending, q)
	if created {
		// A publish refused in the channel it created takes the creation with it (its error
		// breaks the batch, which runs again without it), as on SQLite: decide it now.
		if err := s.flush(tx); err != nil {
			return err
		}
		return q.out.err
	}
	return nil
}

// flush decides and stores the publishes queued in tx (see above), in queue order, and announces
// the stored events in sequence order. It runs on the writer goroutine.
func (s *Service) flush(tx *sql.Tx) error {
	_, err := s.flushed(tx)
	return err
}

// flushed is flush, also returning the publishes it decided.
func (s *Service) flushed(tx *sql.Tx) ([]*pendingPublish, error) {
	b := s.batch
	if b == nil || b.tx != tx || len(b.pending) == 0 {
		return nil, nil
	}
	ctx := context.Background()
	pending := b.pending
	b.pending = nil
	chans, authors, keys := make([]string, len(pending)), make([]string, len(pending)), make([]string, len(pending))
	for i, q := range pending {
		chans[i], authors[i], keys[i] = q.ev.ChannelID, q.who.ID, q.key
	}
	type usage struct{ events, bytes int64 }
	type storedKey struct{ channel, author, key string }
	type storedEvent struct{ raw, hash []byte }
	members, used, stored := map[memberKey]bool{}, map[string]usage{}, map[storedKey]storedEvent{}
	rows, err := b.read.QueryContext(ctx, chans, authors, keys)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var kind, channel, author, key string
		var u usage
		var se storedEvent
		if err := rows.Scan(&kind, &channel, &author, &key, &u.events, &u.bytes, &se.raw, &se.hash); err != nil {
			rows.Close()
			return nil, err
		}
		switch kind {
		case "m":
			members[memberKey{channel, author}] = true
		case "u":
			used[author] = u
		case "k":
			stored[storedKey{channel, author, key}] = se
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// Each publish is decided on what the ones before it in the queue stored, with the answers the
	// checks on SQLite give, in the same order: the channel's access, then an idempotency key
	// stored already (a retry is answered with the first event, another message under it is a
	// conflict), then the author's quota.
	now := s.millis()
	maxEvents, maxBytes := s.quota.events.Load(), s.quota.bytes.Load()
	var (
		wChan, wID, wAuthor, wKey []string
		wSeq, wAt                 []int64
		wHash, wBody              [][]byte
		accepted                  []*pendingPublish
		items                     []itemJSON
	)
	for _, q := range pending {
		id := q.ev.ChannelID
		ch := b.locked[id]
		if !members[memberKey{id, q.who.ID}] {
			if ch.visibility != "public" {
				*q.out = publishOutcome{decided: true, err: notFound(id)} // a private channel is not there for a non-member
			} else {
				*q.out = publishOutcome{decided: true, err: memberOnly(id, false, nil)}
			}
			continue
		}
		if q.key != "" {
			if se, ok := stored[storedKey{id, q.who.ID, q.key}]; ok {
				*q.out = publishOutcome{decided: true, err: storedAnswer(q.key, q.hash, se.raw, se.hash)}
				continue
			}
		}
		seq := ch.last + 1
		item := q.enc.item(seq, now)
		raw := item.event()
		u := used[q.who.ID]
		if err := overQuota(q.who, maxEvents, maxBytes, u.events, u.bytes, len(raw)); err != nil {
			*q.out = publishOutcome{decided: true, err: err}
			continue
		}
		used[q.who.ID] = usage{u.events + 1, u.bytes + int64(len(raw))}
		if q.key != "" {
			stored[storedKey{id, q.who.ID, q.key}] = storedEvent{raw, q.hash}
		}
		ch.last = seq
		b.locked[id] = ch
		q.ev.Sequence, q.ev.Timestamp = seq, now
		*q.out = publishOutcome{decided: true, ev: q.ev, json: raw}
		wChan, wSeq, wID, wAt = append(wChan, id), append(wSeq, seq), append(wID, q.ev.ID), append(wAt, now)
		wAuthor, wKey, wHash, wBody = append(wAuthor, q.who.ID), append(wKey, q.key), append(wHash, q.hash), append(wBody, raw)
		accepted, items = append(accepted, q), append(items, item)
	}
	if len(accepted) == 0 {
		return pending, nil // nothing to store
	}
	var lastChan []string
	var lastSeq []int64
	for _, id := range wChan {
		if !slices.Contains(lastChan, id) {
			lastChan, lastSeq = append(lastChan, id), append(lastSeq, b.locked[id].last)
		}
	}
	var n int
	err = b.write.QueryRowContext(ctx, wChan, wSeq, wID, wAt, wAuthor, wKey, wHash, wBody, lastChan, lastSeq).Scan(&n)
	if err != nil {
		return nil, err
	}
	if n != len(accepted) {
		return nil, fmt.Errorf("channels: %d of %d publishes stored: an idempotency key was stored meanwhile", n, len(accepted))
	}
	for i, q := range accepted {
		if err := s.announce(tx, q.ev.ChannelID, &Change{Event: q.ev, EventJSON: q.out.json, Item: json.RawMessage(items[i]),
			result: server.RawResult(items[i])}); err != nil {
			return nil, err
		}
	}
	return pending, nil
}

// storedAnswer is the answer to a publish under idempotency key key with request hash hash, whose
// author stored raw (with storedHash) under that key already: an *idempotentRetry with that event
// if the content is the same, else the conflict.
func storedAnswer(key string, hash, raw, storedHash []byte) error {
	if string(storedHash) != string(hash) {
		return errorf(CodeConflict, "conflict: idempotency key %q was used for a different message", key)
	}
	ev := &MessageEvent{}
	if err := json.Unmarshal(raw, ev); err != nil {
		return fmt.Errorf("stored channel event: %w", err)
	}
	return &idempotentRetry{event: ev, json: raw}
}
