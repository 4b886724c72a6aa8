package channels

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
)

// Several hub replicas may share one PostgreSQL database. Each change a replica commits (an event,
// a channel created, updated or deleted, a member added or removed) is announced to the others in
// its own transaction (announce, store.Announce); each replica turns the notes it hears into the
// same Changes on its own bus (heard), reading events back from the table, so its streams, the
// bridge and the UI hear of every replica's changes. Notes are lost while a replica's listener is
// away: after each reconnection it tells its streams to catch up from the table (resync).

// noteTopic is the channels' topic among the notes between replicas.
const noteTopic = "channels"

// ResyncTopic is the bus topic that tells whoever follows channels that changes may have been
// missed (the listener for other replicas' notes reconnected, or a note could not be read back):
// read what is stored again. Its Key is the channel concerned, or "" for all of them. Streams catch
// up from the table and check again that their caller may read the channel.
const ResyncTopic = "channel.resync"

// note is what one note says of a change: the channel and the Change's fields, an event by its
// sequence only (the replicas read it from the table).
type note struct {
	Channel   string   `json:"c"`
	Sequence  int64    `json:"s,omitempty"`
	Created   bool     `json:"cr,omitempty"`
	Added     string   `json:"a,omitempty"`
	Removed   string   `json:"r,omitempty"`
	Updated   bool     `json:"u,omitempty"`
	Deleted   bool     `json:"d,omitempty"`
	WasPublic bool     `json:"p,omitempty"`
	Members   []string `json:"m,omitempty"`
	// Event is the event as stored when it fits in a note with room to spare: the other replicas
	// then pass it on without reading it back (a query each, one after another on the listening
	// goroutine: most of a burst's delivery time across replicas). A note is sent only if its
	// transaction commits, so what it carries is what is stored.
	Event json.RawMessage `json:"e,omitempty"`
}

// inlineEvent is the largest event a note carries itself (the rest of the note, its header and
// JSON escaping stay well within store.MaxNote).
const inlineEvent = store.MaxNote / 2

// notesOf is change c of channel id as notes: one, or for a deleted channel with more members than
// one note holds, several, each with some of the members (each is the deletion for those members).
func notesOf(id string, c *Change) []string {
	n := note{Channel: id, Created: c.Created, Added: c.Added, Removed: c.Removed, Updated: c.Updated,
		Deleted: c.Deleted, WasPublic: c.WasPublic}
	if c.Event != nil {
		n.Sequence = c.Event.Sequence
		if len(c.EventJSON) <= inlineEvent {
			n.Event = c.EventJSON
		}
	}
	var out []string
	members := c.Members
	for {
		n.Members = nil
		size := 0
		for len(members) > 0 && size+len(members[0]) < store.MaxNote/2 {
			n.Members = append(n.Members, members[0])
			size += len(members[0]) + 3 // its quotes and comma; JSON escaping is bounded by the half left
			members = members[1:]
		}
		raw, _ := json.Marshal(n) // strings, bools and an int always marshal
		out = append(out, string(raw))
		if len(members) == 0 {
			return out
		}
	}
}

// heard turns another replica's note into a Change on this replica's bus (store.Follow's fn, on
// the listening goroutine): an event is read back from the table, so what the bus carries is what
// is stored. Notes come in the order their transactions committed, which for one channel is the
// order of its sequences (a publish holds the channel row's lock until it commits).
func (s *Service) heard(payload string) {
	var n note
	if err := json.Unmarshal([]byte(payload), &n); err != nil || n.Channel == "" {
		s.log.Warn("channels: a note from another replica that this one does not read", "note", payload, "err", err)
		return
	}
	c := &Change{Created: n.Created, Added: n.Added, Removed: n.Removed, Updated: n.Updated, Deleted: n.Deleted,
		WasPublic: n.WasPublic, Members: n.Members}
	if n.Sequence > 0 {
		var ev *MessageEvent
		var raw json.RawMessage
		var err error
		if len(n.Event) > 0 {
			raw, ev = n.Event, &MessageEvent{}
			err = json.Unmarshal(raw, ev)
		} else {
			ev, raw, err = s.storedEvent(context.Background(), n.Channel, n.Sequence)
		}
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return // deleted since: its deletion's note follows
		case err != nil:
			// The streams of the channel read what they missed from the table when they can.
			s.log.Warn("channels: cannot read another replica's event", "channel", n.Channel, "sequence", n.Sequence, "err", err)
			s.bus.Publish(bus.Event{Topic: ResyncTopic, Source: s.source, Key: n.Channel})
			return
		}
		item := make([]byte, 0, len(streamItemHead)+len(raw)+len(streamItemTail))
		item = append(append(append(item, streamItemHead...), raw...), streamItemTail...)
		c.Event, c.EventJSON, c.Item, c.result = ev, raw, item, server.RawResult(item)
	}
	s.bus.Publish(bus.Event{Topic: Topic, Source: s.source, Key: n.Channel, Seq: n.Sequence, Data: c})
}

// storedEvent reads event seq of channel id.
func (s *Service) storedEvent(ctx context.Context, id string, seq int64) (*MessageEvent, json.RawMessage, error) {
	var raw []byte
	if err := s.pub.event.QueryRowContext(ctx, id, seq).Scan(&raw); err != nil {
		return nil, nil, err
	}
	ev := &MessageEvent{}
	if err := json.Unmarshal(raw, ev); err != nil {
		return nil, nil, err
	}
	return ev, raw, nil
}

// resync runs after each (re)connection of the listener (store.Follow's resync): notes announced
// while it was away are lost, so every stream of this replica catches up from the table and checks
// its caller's access again.
func (s *Service) resync() {
	s.bus.Publish(bus.Event{Topic: ResyncTopic, Source: s.source})
}

// writesLock is the PostgreSQL advisory lock that the channels' writes of a transaction take (the
// ASCII of "channels").
const writesLock = 0x6368616e6e656c73

// serialize takes, on PostgreSQL, the channels' write lock for the rest of tx, once per
// transaction, before the transaction's first channels write locks any row: so the channels writes
// of the replicas' batches run one batch after another. A batch holds the row locks of all its
// writes until it commits, and two batches taking rows in different orders (a channel's row for its
// sequence, an author's usage row for the quota) would wait for each other until PostgreSQL broke
// the deadlock after its deadlock_timeout (a second by default). A hub's channels write far less
// than one writer can take, so one batch at a time costs them nothing that matters.
func (s *Service) serialize(ctx context.Context, tx *sql.Tx) error {
	if !s.db.Postgres() || s.serialized == tx {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(writesLock)); err != nil {
		return err
	}
	s.serialized = tx
	return nil
}

// serializing is write, taking the channels' write lock first (see serialize); a write that fails
// rolls back its savepoint, and the lock with it if that write took it.
func (s *Service) serializing(write func(*sql.Tx) error) func(*sql.Tx) error {
	return func(tx *sql.Tx) error {
		held := s.serialized == tx
		err := s.serialize(context.Background(), tx)
		if err == nil {
			err = write(tx)
		}
		if err != nil && !held {
			s.serialized = nil
		}
		return err
	}
}
