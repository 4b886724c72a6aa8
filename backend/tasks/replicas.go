package tasks

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/bus"
)

// Several replicas on one PostgreSQL database. Every task write announces, in its own transaction,
// which entries it added to the task's log (noteTopic: "first last taskID"). Each other replica
// follows the topic: it drops the task's cached head (heads: only a guess on PostgreSQL, the
// UPDATE's version condition decides) and publishes the new entries on its local bus, read back from
// the log. Get and List read the tables on PostgreSQL, so they need no note. So whatever listens on the bus here (streams,
// resubscribe, the UI, push) hears of a task that runs on another replica the way it hears of one
// that runs here: streams only take the bus as a wake-up and read the log themselves.
//
// relay keeps the bus in step with the log, per task: the last seq published here, by a write of
// this replica (relayOwn) or a note of another (onNote), so each entry goes on the bus once and in
// order, whichever comes first.

// noteTopic is the topic of the task stores' notes.
const noteTopic = "tasks"

type relay struct {
	mu    sync.Mutex
	upTo  map[a2a.TaskID]int64 // the last seq of the task published on this replica's bus
	heard time.Time            // when the listener last heard a note or connected
}

// relayTasks bounds relay.upTo: when full it starts over (a task it forgot starts again from the
// entries its next write adds).
const relayTasks = 4096

// note is the pg_notify arguments (channel, message) that tell the other replicas, when the write
// commits, which entries it added to the task's log: the task write's own statement sends it.
func (s *Store) note(id a2a.TaskID, entries []*Logged) (channel, msg string, err error) {
	first, last := int64(0), int64(-1) // no entries: a range that holds none
	if len(entries) > 0 {
		first, last = entries[0].Seq, entries[len(entries)-1].Seq
	}
	return s.db.Note(noteTopic, fmt.Sprintf("%d %d %s", first, last, id))
}

// follow starts following the other replicas' writes (PostgreSQL).
func (s *Store) follow() {
	s.db.Follow(noteTopic, s.onNote, s.resync)
}

// onNote is another replica's write of a task: entries first..last were added to its log. It runs
// on the listener's goroutine, one note at a time in commit order.
func (s *Store) onNote(payload string) {
	var first, last int64
	var id string
	parts := strings.SplitN(payload, " ", 3)
	if len(parts) != 3 {
		s.log.Warn("tasks: a malformed note from another replica", "note", payload)
		return
	}
	if _, err := fmt.Sscan(parts[0], &first); err != nil {
		return
	}
	if _, err := fmt.Sscan(parts[1], &last); err != nil {
		return
	}
	id = parts[2]
	task := a2a.TaskID(id)
	s.heads.drop(task)
	s.relay.mu.Lock()
	defer s.relay.mu.Unlock()
	s.relay.heard = time.Now()
	after, known := s.relay.upTo[task]
	if !known {
		after = first - 1
	}
	if after >= last {
		return // published already (this replica read the log past it)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	entries, err := s.Log(ctx, task, after)
	if err != nil {
		// The next note or resync of the task catches up from upTo, which did not move.
		s.log.Warn("tasks: reading another replica's task events", "task", id, "err", err)
		return
	}
	s.publishLocked(task, entries)
}

// relayOwn publishes the entries this replica just wrote, those the relay has not published yet,
// after those of other replicas' writes before them. (For a task this replica has not published
// anything of lately, its own entries are a start: a note still on its way about earlier entries
// is then skipped, and only a stream's wake-up, which reads the log, carries them.)
func (s *Store) relayOwn(entries []*Logged) {
	if len(entries) == 0 {
		return
	}
	id := entries[0].TaskID
	s.relay.mu.Lock()
	defer s.relay.mu.Unlock()
	if after, known := s.relay.upTo[id]; known && entries[0].Seq > after+1 {
		// Other replicas wrote the task in between and their notes are not here yet: those
		// entries are committed (this write came after them), so they go first, read from the log.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		missed, err := s.Log(ctx, id, after)
		cancel()
		if err == nil {
			entries = missed
		}
	}
	s.publishLocked(id, entries)
}

// publishLocked puts the task's entries after upTo on the bus, in order. relay.mu is held.
func (s *Store) publishLocked(id a2a.TaskID, entries []*Logged) {
	after, known := s.relay.upTo[id]
	for _, l := range entries {
		if known && l.Seq <= after {
			continue
		}
		after, known = l.Seq, true
		if l.Event == nil {
			continue // unreadable: streams skip it too
		}
		if s.bus != nil {
			s.bus.Publish(bus.Event{Topic: Topic, Source: s.source, Key: string(id), Seq: l.Seq, Data: l})
		}
	}
	if !known {
		return
	}
	if _, had := s.relay.upTo[id]; !had && len(s.relay.upTo) >= relayTasks || s.relay.upTo == nil {
		s.relay.upTo = make(map[a2a.TaskID]int64)
	}
	s.relay.upTo[id] = after
}

// resyncMargin is how far before the last note heard a resync looks: the other replicas' clocks
// (created_at and updated_at are theirs) may be behind this one's.
const resyncMargin = time.Minute

// resync runs after each (re)connection of the listener: the notes of writes committed while it was
// away are lost, so it reads the tasks written since it last heard one and publishes what the bus
// has not carried. At the first connection there is nothing to catch up: nothing here listened yet.
func (s *Store) resync() {
	s.relay.mu.Lock()
	defer s.relay.mu.Unlock()
	since := s.relay.heard
	s.relay.heard = time.Now()
	if since.IsZero() {
		return
	}
	cutoff := since.Add(-resyncMargin).UnixNano()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := s.db.Reader.QueryContext(ctx, `SELECT id FROM tasks WHERE updated_at >= ? ORDER BY updated_at`, cutoff)
	if err != nil {
		s.log.Warn("tasks: catching up with other replicas' writes", "err", err)
		return
	}
	var ids []a2a.TaskID
	for rows.Next() {
		var id string
		if rows.Scan(&id) == nil {
			ids = append(ids, a2a.TaskID(id))
		}
	}
	rows.Close()
	for _, id := range ids {
		s.heads.drop(id)
		after, known := s.relay.upTo[id]
		var entries []*Logged
		if known {
			entries, err = s.Log(ctx, id, after)
		} else {
			// Not followed here lately: what was written since the cutoff.
			err = s.readLog(ctx, id, 0, `SELECT seq, version, kind, final, event_json, created_at FROM task_events
				WHERE task_id = ? AND seq > ? AND created_at >= `+fmt.Sprint(cutoff)+` ORDER BY seq`, func(l *Logged, _ int) bool {
				entries = append(entries, l)
				return true
			})
		}
		if err != nil {
			s.log.Warn("tasks: catching up with other replicas' writes", "task", id, "err", err)
			continue
		}
		s.publishLocked(id, entries)
	}
}
