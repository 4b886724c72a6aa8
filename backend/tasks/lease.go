package tasks

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/store"
)

// Execution leases, PostgreSQL only. An execution runs in the replica that took the send, and only
// there; if that replica dies (kill -9, a lost machine) its submitted and working tasks would stay so
// for ever. So every task write on PostgreSQL records its replica as the task's holder (leased_by,
// lease_key) with the lease's start and expiry (leased_at, lease_until, on the database's clock),
// and each replica renews the leases of its unfinished tasks every third of the lease while it
// lives. A task is lost when its lease expired, or at once when its holder's session is gone: each
// replica holds an advisory lock (leaseLockClass, lease_key) on a connection of its own for its
// whole life, and PostgreSQL drops it with the process. That second test only counts for a lease
// taken or renewed since the database last started: after a restart of the database every lock is
// gone until its replica takes it again, and a replica renews only while it holds its lock. Recover
// at start and a sweep every third of the lease on every replica take the lost tasks over (FOR
// UPDATE SKIP LOCKED, so two sweeps never take the same one), hand them to the Resumer, and fail the
// others saying which replica was lost.
//
// On SQLite one process owns the file: Recover at start fails or resumes every unfinished task, as
// it always did, and none of this runs.

// leaseLockClass is the first key of the replicas' liveness locks ("task" in ASCII).
const leaseLockClass = 0x7461736b

// replicaName names this store's replica in the leases it takes and in the message of a task it
// lost: the host, the process and a random part (a process may open the store twice in tests).
func replicaName() string {
	host, _ := os.Hostname()
	b := make([]byte, 3)
	rand.Read(b)
	return fmt.Sprintf("%s/%d/%x", host, os.Getpid(), b)
}

// newLeaseKey is a random positive int4 for this replica's liveness lock.
func newLeaseKey() int32 {
	var b [4]byte
	rand.Read(b[:])
	return int32(binary.BigEndian.Uint32(b[:]) & 0x7fffffff)
}

// liveness is the connection that holds this replica's liveness lock.
type liveness struct {
	mu   sync.Mutex
	conn *sql.Conn
	done bool // Close was called: the lock is not taken again
}

// holdLock makes sure this replica's liveness lock is held: it checks the connection that holds it
// and, if it broke (the database restarted), takes a new one and the lock again.
func (s *Store) holdLock(ctx context.Context) error {
	s.alive.mu.Lock()
	defer s.alive.mu.Unlock()
	if s.alive.done {
		return errors.New("the task store is closed")
	}
	if c := s.alive.conn; c != nil {
		if err := c.PingContext(ctx); err == nil {
			return nil
		}
		c.Raw(func(any) error { return driver.ErrBadConn }) // the session is gone: do not reuse it
		c.Close()
		s.alive.conn = nil
	}
	c, err := s.db.Reader.Conn(ctx)
	if err != nil {
		return err
	}
	var got bool
	if err := c.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(?, ?)`, int32(leaseLockClass), s.leaseKey).Scan(&got); err != nil || !got {
		c.Close()
		if err == nil {
			err = errors.New("the liveness lock is still held by this replica's previous session")
		}
		return err
	}
	s.alive.conn = c
	return nil
}

// dropLock releases the liveness lock and ends its session: the replica is going away. The unlock
// comes first because the server drops a closed session's locks a moment after the close, and
// another replica sweeping then should already find this one gone.
func (s *Store) dropLock() {
	s.alive.mu.Lock()
	defer s.alive.mu.Unlock()
	if c := s.alive.conn; c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c.ExecContext(ctx, `SELECT pg_advisory_unlock(?, ?)`, int32(leaseLockClass), s.leaseKey) // best effort: the close drops it anyway
		cancel()
		c.Raw(func(any) error { return driver.ErrBadConn })
		c.Close()
		s.alive.conn = nil
	}
}

// renewLeases runs for the store's life on PostgreSQL: every second it checks the liveness lock, and
// every third of the lease it extends the leases this replica holds on its unfinished tasks. It ends
// once the database is closed (the session of the lock with it).
func (s *Store) renewLeases() {
	tick := min(time.Second, s.lease/3)
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	for range t.C {
		ctx, cancel := context.WithTimeout(context.Background(), s.lease)
		if s.stopped() {
			cancel()
			return
		}
		err := s.holdLock(ctx)
		if err != nil {
			if s.closed(ctx) {
				cancel()
				s.dropLock()
				return
			}
			s.log.Warn("tasks: holding this replica's liveness lock", "replica", s.replica, "err", err)
		}
		// Renewed only while the lock is held: a lease renewed since the database started says its
		// holder's lock is in place.
		if err == nil && time.Since(last) >= s.lease/3-tick/2 {
			last = time.Now()
			err := s.db.Write(ctx, func(tx *sql.Tx) error {
				_, err := tx.Exec(`UPDATE tasks SET leased_at = now(), lease_until = now() + make_interval(secs => ?)
					WHERE leased_by = ? AND state IN (?, ?)`,
					s.lease.Seconds(), s.replica, string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking))
				return err
			})
			if errors.Is(err, store.ErrClosed) {
				cancel()
				s.dropLock()
				return
			}
			if err != nil {
				s.log.Warn("tasks: renewing this replica's execution leases", "replica", s.replica, "err", err)
			}
		}
		cancel()
	}
}

// closed reports whether the database was closed (the store's life is over).
func (s *Store) closed(ctx context.Context) bool {
	return errors.Is(s.db.Write(ctx, func(*sql.Tx) error { return nil }), store.ErrClosed)
}

// lost is a task whose holder is gone, as the sweep took it over.
type lost struct {
	id      a2a.TaskID
	version taskstore.TaskVersion
	holder  string // "" for a task written before leases (or on SQLite)
	expired bool   // its lease ran out (else its holder's session is gone)
}

// takeLost takes over, in one write, up to 100 unfinished tasks whose holder is gone: their lease
// expired, or was taken since the database started and their holder's liveness lock is not held, or
// they have no lease; at start (own), also those this replica's store wrote itself, since nothing
// runs them yet. Rows another replica's sweep is taking are skipped.
func (s *Store) takeLost(ctx context.Context, own bool) ([]lost, error) {
	var out []lost
	err := s.db.Write(ctx, func(tx *sql.Tx) error {
		ctx := context.WithoutCancel(ctx) // an interrupted statement would roll back the whole batch
		out = out[:0]
		// live: the liveness locks held now, read once (pg_locks copies the lock table at each read).
		rows, err := tx.QueryContext(ctx, `WITH live AS (
				SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
					AND classid = `+strconv.Itoa(leaseLockClass)+`
					AND database = (SELECT oid FROM pg_database WHERE datname = current_database())),
			lost AS (
				SELECT id, leased_by, lease_until < now() AS expired FROM tasks
				WHERE state IN (?, ?) AND (lease_until IS NULL OR lease_until < now() OR leased_by = ?
					OR (leased_at > pg_postmaster_start_time() AND lease_key::oid NOT IN (SELECT objid FROM live)))
				ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED)
			UPDATE tasks t SET leased_by = ?, lease_key = ?, leased_at = now(), lease_until = now() + make_interval(secs => ?)
			FROM lost WHERE t.id = lost.id
			RETURNING t.id, t.version, COALESCE(lost.leased_by, ''), COALESCE(lost.expired, true)`,
			string(a2a.TaskStateSubmitted), string(a2a.TaskStateWorking), ownName(s, own),
			s.replica, s.leaseKey, s.lease.Seconds())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l lost
			if err := rows.Scan(&l.id, &l.version, &l.holder, &l.expired); err != nil {
				return err
			}
			out = append(out, l)
		}
		return rows.Err()
	})
	return out, err
}

// ownName is what takeLost compares leased_by with for "this replica's own tasks": its name at
// start, else nothing a lease names.
func ownName(s *Store, own bool) string {
	if own {
		return s.replica
	}
	return ""
}

// sweep takes over the tasks whose holder is gone (takeLost) and hands each to r; what r does not
// resume is failed with a message naming the lost replica. A task its holder wrote since it was
// taken (the holder was slow, not dead) is left to it: the failing write names the version taken.
func (s *Store) sweep(ctx context.Context, r Resumer, own bool) (resumed, failed int, err error) {
	for {
		batch, err := s.takeLost(ctx, own)
		if err != nil || len(batch) == 0 {
			return resumed, failed, err
		}
		for _, l := range batch {
			row, err := s.Row(ctx, l.id)
			if err != nil {
				return resumed, failed, err
			}
			if row.Version != l.version {
				continue // written since: its holder is alive after all
			}
			if row.Unreadable != "" {
				if err := s.failUnreadable(ctx, row); err != nil && !errors.Is(err, taskstore.ErrConcurrentModification) {
					return resumed, failed, err
				}
				failed++
				continue
			}
			t := row.Task
			if r != nil && r.Resume(ctx, t) {
				resumed++ // this replica holds it now, and renews its lease
				continue
			}
			// The same opening as at a restart on SQLite: to the client it is one event, the agent
			// lost the execution; the rest says which replica, and how it was found gone.
			text := "The agent restarted while this task was running, so it was stopped. Send the request again to retry."
			switch {
			case l.holder != "" && l.holder != s.replica && l.expired:
				text = fmt.Sprintf("The agent restarted while this task was running (hub replica %s, which ran it, stopped renewing its lease: it died or lost the database), so it was stopped. Send the request again to retry.", l.holder)
			case l.holder != "" && l.holder != s.replica:
				text = fmt.Sprintf("The agent restarted while this task was running (hub replica %s, which ran it, is gone: its database session ended), so it was stopped. Send the request again to retry.", l.holder)
			}
			msg := a2a.NewMessageForTask(a2a.MessageRoleAgent, t, a2a.NewTextPart(text))
			ev := a2a.NewStatusUpdateEvent(t, a2a.TaskStateFailed, msg)
			now := s.now().UTC()
			ev.Status.Timestamp = &now
			_, err = s.Update(ctx, &taskstore.UpdateRequest{Task: WithStatus(t, ev), Event: ev, PrevVersion: l.version})
			if errors.Is(err, taskstore.ErrConcurrentModification) {
				continue
			}
			if err != nil {
				return resumed, failed, err
			}
			failed++
		}
		own = false // what this replica took above is its own now: only others' are left
	}
}

// sweepEvery runs sweep every third of the lease for the store's life, on PostgreSQL.
func (s *Store) sweepEvery(r Resumer) {
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for range t.C {
		if s.stopped() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.lease)
		resumed, failed, err := s.sweep(ctx, r, false)
		cancel()
		if errors.Is(err, store.ErrClosed) {
			return
		}
		if err != nil {
			s.log.Warn("tasks: sweeping the tasks of lost replicas", "replica", s.replica, "err", err)
		}
		if resumed+failed > 0 {
			s.log.Info("took over the tasks of a lost replica", "source", s.source, "resumed", resumed, "failed", failed)
		}
	}
}

// Close ends what the store runs beside its callers on PostgreSQL (the renewals and the sweep) and
// releases its liveness lock, at once: to the other replicas this one is gone, and its unfinished
// tasks are theirs to take over. It leaves the leases as they are, as a process that dies would. The database stays open; closing it ends all of this too, within a
// second.
func (s *Store) Close() {
	s.alive.mu.Lock()
	s.alive.done = true
	s.alive.mu.Unlock()
	s.dropLock()
}

// stopped reports whether Close was called.
func (s *Store) stopped() bool {
	s.alive.mu.Lock()
	defer s.alive.mu.Unlock()
	return s.alive.done
}
