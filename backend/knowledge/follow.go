package knowledge

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Several replicas of a hub may share one PostgreSQL database, each with its own graph (the bolt
// file in its data dir) over the one change log. An update announces its last change when it
// commits (commitOnce); every other replica hears it and brings its graph up to that change from
// the log, as a start replays it, and publishes the changes on its own bus, so its subscriptions
// hear them. Notes sent while a replica's listener is disconnected are lost: after each
// (re)connection the replica reads the log's last change and catches up to it. A query also makes
// the graph catch up first (Query), so it never depends on a note's timing. On SQLite there is one
// process: nothing is followed.

// follow starts following the other replicas' updates (a no-op on SQLite: Follow never calls).
func (s *Service) follow() {
	if !s.db.Postgres() {
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go s.followLoop(stop, done)
	var once sync.Once // Close may be called more than once
	s.stopFollow = func() { once.Do(func() { close(stop); <-done }) }
	// Both only note what to do and wake followLoop: they run on the notes' listener, which they
	// must not hold up, and may run after Close (Follow cannot be undone), when nothing reads wake.
	s.db.Follow(Topic, func(payload string) {
		if seq, err := strconv.ParseInt(payload, 10, 64); err == nil && (lost == nil || !lost(s, false)) {
			s.want(seq)
		}
	}, func() {
		if lost == nil || !lost(s, true) {
			s.resync.Store(true)
			s.wakeUp()
		}
	})
}

// lost, when set (by a test), plays a note (or, with resync, a resync) as lost when it says so.
var lost func(s *Service, resync bool) bool

// want asks followLoop to bring the graph up to change seq (which is committed).
func (s *Service) want(seq int64) {
	for w := s.wanted.Load(); w < seq && !s.wanted.CompareAndSwap(w, seq); w = s.wanted.Load() {
	}
	s.wakeUp()
}

func (s *Service) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// followRetry is how long followLoop waits to try again after a failed read of the log or apply.
const followRetry = time.Second

// followLoop brings the graph up to what want asked for, one apply at a time, until stop closes.
func (s *Service) followLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ctx := context.Background() // an apply under way finishes: Close waits for it
	for {
		select {
		case <-stop:
			return
		case <-s.wake:
		}
		if s.resync.Swap(false) {
			last, err := lastChangeSeq(ctx, s.db.Reader)
			if err != nil {
				s.log.Warn("knowledge: reading the log's last change to catch up with other replicas", "err", err)
				s.resync.Store(true)
				time.AfterFunc(followRetry, s.wakeUp)
				continue
			}
			s.want(last)
		}
		if err := s.graphUpTo(ctx, s.wanted.Load()); err != nil {
			time.AfterFunc(followRetry, s.wakeUp) // graphUpTo logged it
		}
	}
}
