// Package push sends A2A push notifications out of the hub: a durable outbox in hub.db, filled in the
// same transaction as the task event it reports (tasks.WriteHook), and delivered in order per push
// config, each POST signed with a JWT of the hub's key, retried with backoff and jitter until it
// succeeds or a bounded time has passed. Payloads are in the dialect of the method that set the config
// (v1.0, v0.3 or the v0.1 draft); v0.1 webhooks first answer the draft's validationToken challenge.
// Targets are checked when a config is set and again on every connection (see target.go).
package push

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2apush "github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/agenthub/agenthub/backend/a2a01"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of delivery outcomes; Source is the outbox's source, Key the task id and
// Data an *Event.
const Topic = "push"

// Defaults of Config.
const (
	DefaultRetryBase   = time.Second
	DefaultRetryMax    = 5 * time.Minute
	DefaultGiveUpAfter = 24 * time.Hour
	DefaultTimeout     = 30 * time.Second
	DefaultParallel    = 4
	DefaultLease       = 30 * time.Second
	// KeepFinished is how long delivered, failed and canceled notifications are kept (for Status).
	KeepFinished = 30 * 24 * time.Hour
	// TokenTTL is the life of a notification's JWT: receivers should refuse older ones (the seed's
	// replay advice is five minutes). Every attempt is signed afresh.
	TokenTTL = 5 * time.Minute
)

// Signer signs JWT claims with the hub's key (auth.Service).
type Signer interface {
	SignClaims(jwt.Claims) (string, error)
}

// Config configures Open.
type Config struct {
	DB *store.DB
	// Configs is where push configs are read at delivery time (tasks.PushConfigs, possibly guarded).
	Configs a2apush.ConfigStore
	// Bus wakes delivery on task events of Source, and carries delivery outcomes (Topic).
	Bus    *bus.Bus
	Source string
	Logger *slog.Logger
	// RetryBase is the first retry's delay; each retry doubles it up to RetryMax, with jitter.
	RetryBase, RetryMax time.Duration
	// GiveUpAfter is how long after it was recorded a notification is retried before it fails.
	GiveUpAfter time.Duration
	// Timeout bounds one HTTP attempt (challenge or POST).
	Timeout time.Duration
	// Parallel is how many configs are delivered to at once (each config's own notifications go
	// one at a time, in order).
	Parallel int
	// Lease is how long a replica's claim on a notification lasts without renewal (PostgreSQL, where
	// several replicas share the outbox): it is renewed every third of it while the attempt runs, and
	// a replica that dies holding it delays that config's deliveries by at most this long.
	Lease time.Duration
	Now   func() time.Time
}

// Outbox records notifications and delivers them.
type Outbox struct {
	cfg    Config
	owner  string // this replica's id in leased_by: random on PostgreSQL, "" on SQLite (never leased)
	signer Signer
	issuer string
	local  *http.Client // for configs set by a loopback caller
	remote *http.Client // for everyone else: public addresses only

	kick   chan struct{}
	idle   time.Duration // idleWait; tests of the wake-ups make it very long
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	inflight map[lane]int64 // the notification being attempted, by config

	// recorded holds the tasks whose write recorded notifications, until that write's event reaches
	// the bus (after its commit) and wakes delivery: events of tasks without push configs (nearly all)
	// no longer make delivery query the outbox.
	recordedMu sync.Mutex
	recorded   map[string]struct{}
	wakes      atomic.Int64 // task events that woke delivery (for tests)
	passes     atomic.Int64 // dispatch passes done (for tests)
}

type lane struct{ task, config string }

// Open migrates the outbox tables. Install the outbox as the task store's write hook before tasks are
// written, and Start it once the hub's signing key and base URL are known.
func Open(ctx context.Context, cfg Config) (*Outbox, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := cfg.DB.Migrate(ctx, "push", sub); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultRetryBase
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = DefaultRetryMax
	}
	cfg.RetryBase = min(cfg.RetryBase, cfg.RetryMax)
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = DefaultGiveUpAfter
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	// Finished notifications stay a while for the status query, not forever.
	if _, err := cfg.DB.Writer.ExecContext(ctx, `DELETE FROM push_outbox WHERE state != 'pending' AND updated_at < ?`,
		cfg.Now().Add(-KeepFinished).UnixNano()); err != nil {
		return nil, err
	}
	o := &Outbox{cfg: cfg, local: newClient(cfg.Timeout, true), remote: newClient(cfg.Timeout, false),
		kick: make(chan struct{}, 1), idle: idleWait, inflight: map[lane]int64{}, recorded: map[string]struct{}{}}
	if cfg.DB.Postgres() {
		o.owner = uuid.NewString()
	}
	// Another replica recorded notifications (or reconnected, and may have missed notes): look now
	// rather than at the idle timer.
	cfg.DB.Follow(noteTopic, func(string) { o.Kick() }, o.Kick)
	return o, nil
}

// noteTopic is the note announced to the other replicas when a write records notifications; its
// payload is the task id.
const noteTopic = "push.recorded"

// notification is one payload for one config.
type notification struct {
	seq  int64
	body []byte
}

// OnTaskWrite records, inside the task write's transaction, a notification per push config of the
// task: in v1.0 one per stream event (a StreamResponse, as a2a-go sends), in v0.3 and v0.1 one per
// write carrying the whole task in the config's dialect (as those versions send). Messages alone
// (history) notify nobody.
func (o *Outbox) OnTaskWrite(ctx context.Context, tx *sql.Tx, w *tasks.Write) error {
	if len(w.PushConfigs) == 0 {
		return nil
	}
	o.recordedMu.Lock()
	o.recorded[string(w.Task.ID)] = struct{}{} // a write that rolls back leaves one spurious wake-up
	o.recordedMu.Unlock()
	now := o.cfg.Now().UnixNano()
	for _, c := range w.PushConfigs {
		ns, err := payloads(w, c.Dialect)
		if err != nil {
			return err
		}
		for _, n := range ns {
			if _, err := tx.ExecContext(ctx, `INSERT INTO push_outbox (notification_id, task_id, config_id, dialect, event_seq, payload,
				state, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
				uuid.NewString(), w.Task.ID, c.Config.ID, string(c.Dialect), n.seq, n.body, now, now, now); err != nil {
				return fmt.Errorf("push outbox: %w", err)
			}
		}
	}
	// The other replicas' dispatchers wake on this once it commits (this one wakes on the task event).
	return o.cfg.DB.Announce(tx, noteTopic, string(w.Task.ID))
}

// takeRecorded reports whether a write of the task recorded notifications since the last wake-up.
func (o *Outbox) takeRecorded(task string) bool {
	o.recordedMu.Lock()
	defer o.recordedMu.Unlock()
	_, ok := o.recorded[task]
	delete(o.recorded, task)
	return ok
}

func payloads(w *tasks.Write, d tasks.Dialect) ([]notification, error) {
	var out []notification
	var last int64
	for _, e := range w.Entries {
		if e.Kind == "message" {
			continue
		}
		last = e.Seq
		if d == tasks.DialectV1 {
			body, err := json.Marshal(a2a.StreamResponse{Event: e.Event})
			if err != nil {
				return nil, err
			}
			out = append(out, notification{seq: e.Seq, body: body})
		}
	}
	if d == tasks.DialectV1 || last == 0 {
		return out, nil
	}
	var task any = a2av0.FromV1Task(w.Task)
	if d == tasks.DialectV01 {
		task = a2a01.FromV1Task(w.Task)
	}
	body, err := json.Marshal(task)
	if err != nil {
		return nil, err
	}
	return []notification{{seq: last, body: body}}, nil
}

// Start begins delivering, signing with signer as issuer (the hub's base URL), until Close.
func (o *Outbox) Start(signer Signer, issuer string) {
	o.signer, o.issuer = signer, issuer
	ctx, cancel := context.WithCancel(context.Background())
	o.cancel = cancel
	o.wg.Add(1)
	go o.run(ctx)
}

// Close stops delivering and waits for attempts in flight; an interrupted attempt stays pending.
func (o *Outbox) Close() {
	if o.cancel != nil {
		o.cancel()
		o.wg.Wait()
	}
}

// Kick makes the outbox look for due notifications now.
func (o *Outbox) Kick() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// idleWait bounds a wait with nothing due, as a safety net: writes and completed attempts kick.
const idleWait = time.Minute

func (o *Outbox) run(ctx context.Context) {
	defer o.wg.Done()
	var wake <-chan bus.Event
	var lagged <-chan struct{}
	if o.cfg.Bus != nil {
		sub := o.cfg.Bus.Subscribe(func(e bus.Event) bool {
			if e.Topic == tasks.Topic && e.Source == o.cfg.Source && o.takeRecorded(e.Key) {
				o.wakes.Add(1)
				return true
			}
			return false
		}, 1)
		defer sub.Close()
		wake, lagged = sub.C, sub.Lagged
	}
	for {
		wait, err := o.dispatch(ctx)
		o.passes.Add(1)
		if err != nil && ctx.Err() == nil {
			o.cfg.Logger.Error("push outbox", "err", err)
			wait = o.cfg.RetryBase
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-o.kick:
		case <-wake:
		case <-lagged:
		case <-t.C:
		}
		t.Stop()
	}
}

// head is the first pending notification of a config: the only one of it that may be attempted.
type head struct {
	id             int64
	notificationID string
	lane           lane
	dialect        tasks.Dialect
	seq            int64
	payload        []byte
	attempts       int
	next, created  time.Time
}

// dispatch starts an attempt for every due head whose config has none in flight, as slots allow,
// and says how long to wait before the next head is due. On SQLite this process is the only one
// delivering: it reads the heads and keeps its attempts apart in memory. On PostgreSQL other
// replicas deliver from the same outbox: each head is claimed with a lease first (claim).
func (o *Outbox) dispatch(ctx context.Context) (time.Duration, error) {
	if o.owner != "" {
		return o.dispatchClaimed(ctx)
	}
	rows, err := o.cfg.DB.Reader.QueryContext(ctx, `SELECT o.id, o.notification_id, o.task_id, o.config_id, o.dialect, o.event_seq,
		o.attempts, o.next_attempt_at, o.created_at FROM push_outbox o
		WHERE o.state = 'pending' AND o.id = (SELECT MIN(p.id) FROM push_outbox p
			WHERE p.task_id = o.task_id AND p.config_id = o.config_id AND p.state = 'pending')
		ORDER BY o.next_attempt_at, o.id`)
	if err != nil {
		return 0, err
	}
	heads, err := scanHeads(rows)
	if err != nil {
		return 0, err
	}
	now := o.cfg.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, h := range heads {
		if _, busy := o.inflight[h.lane]; busy {
			continue
		}
		if h.next.After(now) {
			return h.next.Sub(now), nil
		}
		if len(o.inflight) >= o.cfg.Parallel {
			return o.idle, nil // a finishing attempt kicks
		}
		o.begin(ctx, h)
	}
	return o.idle, nil
}

// begin starts the attempt of h; o.mu is held.
func (o *Outbox) begin(ctx context.Context, h *head) {
	o.inflight[h.lane] = h.id
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		if o.owner != "" {
			o.attemptLeased(ctx, h)
		} else {
			o.attempt(ctx, h)
		}
		o.mu.Lock()
		delete(o.inflight, h.lane)
		o.mu.Unlock()
		o.Kick()
	}()
}

func scanHeads(rows *sql.Rows) ([]*head, error) {
	defer rows.Close()
	var heads []*head
	for rows.Next() {
		h := &head{}
		var d string
		var next, created int64
		if err := rows.Scan(&h.id, &h.notificationID, &h.lane.task, &h.lane.config, &d, &h.seq, &h.attempts, &next, &created); err != nil {
			return nil, err
		}
		h.dialect, h.next, h.created = tasks.Dialect(d), time.Unix(0, next), time.Unix(0, created)
		heads = append(heads, h)
	}
	return heads, rows.Err()
}

// dispatchClaimed is dispatch on PostgreSQL: it claims as many due heads as it has free slots and
// attempts them, then says how long until the next head is due or a lease on one expires.
func (o *Outbox) dispatchClaimed(ctx context.Context) (time.Duration, error) {
	o.mu.Lock()
	free := o.cfg.Parallel - len(o.inflight)
	o.mu.Unlock()
	if free > 0 {
		heads, err := o.claim(ctx, free)
		if err != nil {
			return 0, err
		}
		var later []*head
		o.mu.Lock()
		for _, h := range heads {
			switch id, busy := o.inflight[h.lane]; {
			case !busy:
				o.begin(ctx, h)
			case id != h.id:
				// The config's attempt in flight has recorded its outcome but not yet ended: it
				// kicks when it does, and the next one is claimed then.
				later = append(later, h)
			}
			// Else the notification's lease had run out while its attempt still went on (it is
			// renewed as it goes, so rarely): that attempt goes on under the lease taken here.
		}
		free = o.cfg.Parallel - len(o.inflight)
		o.mu.Unlock()
		for _, h := range later {
			o.release(ctx, h)
		}
	}
	if free <= 0 {
		return o.idle, nil // a finishing attempt kicks
	}
	// The first head that is not this replica's to attempt now: due later, or leased by another
	// replica (which may die: then its lease is what to wait for).
	now := o.cfg.Now().UnixNano()
	var next sql.NullInt64
	if err := o.cfg.DB.Reader.QueryRowContext(ctx, `SELECT MIN(GREATEST(o.next_attempt_at, o.lease_until)) FROM push_outbox o
		WHERE o.state = 'pending' AND NOT (o.leased_by = ? AND o.lease_until > ?)
		AND o.id = (SELECT MIN(p.id) FROM push_outbox p WHERE p.task_id = o.task_id AND p.config_id = o.config_id AND p.state = 'pending')`,
		o.owner, now).Scan(&next); err != nil {
		return 0, err
	}
	if !next.Valid {
		return o.idle, nil
	}
	// A head due already was being claimed by another replica as this one looked (SKIP LOCKED):
	// look again shortly, to see whether it took it.
	return max(time.Duration(next.Int64-now), claimRetry), nil
}

// claimRetry is the wait before looking again at a head another replica's claim held locked.
const claimRetry = 50 * time.Millisecond

// claim leases up to n due heads to this replica, in the order they are due. A head is the first
// pending notification of its (task, config), so a config's notifications are claimed one at a
// time, in order; a head leased by a live replica is left alone, one whose lease ran out is taken.
// Rows another replica is claiming at the same moment are skipped, not waited for.
func (o *Outbox) claim(ctx context.Context, n int) ([]*head, error) {
	now := o.cfg.Now()
	rows, err := o.cfg.DB.Writer.QueryContext(ctx, `UPDATE push_outbox SET leased_by = ?, lease_until = ? WHERE id IN (
			SELECT o.id FROM push_outbox o
			WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND o.lease_until <= ?
			AND o.id = (SELECT MIN(p.id) FROM push_outbox p WHERE p.task_id = o.task_id AND p.config_id = o.config_id AND p.state = 'pending')
			ORDER BY o.next_attempt_at, o.id LIMIT ? FOR UPDATE OF o SKIP LOCKED)
		RETURNING id, notification_id, task_id, config_id, dialect, event_seq, attempts, next_attempt_at, created_at`,
		o.owner, now.Add(o.cfg.Lease).UnixNano(), now.UnixNano(), now.UnixNano(), n)
	if err != nil {
		return nil, fmt.Errorf("claiming notifications: %w", err)
	}
	heads, err := scanHeads(rows)
	if err != nil {
		return nil, fmt.Errorf("claiming notifications: %w", err)
	}
	// RETURNING comes in no particular order.
	slices.SortFunc(heads, func(a, b *head) int {
		return cmp.Or(a.next.Compare(b.next), cmp.Compare(a.id, b.id))
	})
	return heads, nil
}

// attemptLeased is attempt under h's lease: renewed every third of Lease while the attempt runs,
// the attempt stopped if the lease was lost (another replica took the notification after this one
// stalled), and released at the end if no outcome was recorded, so another replica may go on at once.
func (o *Outbox) attemptLeased(ctx context.Context, h *head) {
	actx, cancel := context.WithCancel(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		t := time.NewTicker(o.cfg.Lease / 3)
		defer t.Stop()
		for {
			select {
			case <-actx.Done():
				return
			case <-t.C:
			}
			res, err := o.cfg.DB.Writer.ExecContext(actx, `UPDATE push_outbox SET lease_until = ?
				WHERE id = ? AND leased_by = ? AND state = 'pending'`, o.cfg.Now().Add(o.cfg.Lease).UnixNano(), h.id, o.owner)
			if err != nil {
				if actx.Err() == nil {
					o.cfg.Logger.Warn("push outbox: renewing a lease", "err", err)
				}
				continue // the lease may still hold; the outcome is recorded only if it does
			}
			if n, _ := res.RowsAffected(); n == 0 {
				cancel() // lost: whoever holds it now delivers
				return
			}
		}
	}()
	o.attempt(actx, h)
	cancel()
	<-renewed
	o.release(ctx, h)
}

// release gives up this replica's lease on h if it still holds it (no outcome was recorded).
func (o *Outbox) release(ctx context.Context, h *head) {
	if _, err := o.cfg.DB.Writer.ExecContext(context.WithoutCancel(ctx), `UPDATE push_outbox SET leased_by = '', lease_until = 0
		WHERE id = ? AND leased_by = ? AND state = 'pending'`, h.id, o.owner); err != nil {
		o.cfg.Logger.Warn("push outbox: releasing a lease", "err", err) // it expires
	}
}

// errLeaseLost is an outcome not recorded because another replica took the notification over.
var errLeaseLost = errors.New("the notification's lease passed to another replica")

// Event is a delivery outcome, published on the bus under Topic.
type Event struct {
	TaskID         string
	ConfigID       string
	NotificationID string
	EventSeq       int64
	State          string // delivered | retrying | failed | canceled
	Attempts       int
	HTTPStatus     int    // of the last attempt; 0 when there was no HTTP answer
	Error          string // why the last attempt failed
	NextAttemptAt  time.Time
}

// Delivery states of a notification.
const (
	StatePending   = "pending"
	StateDelivered = "delivered"
	StateFailed    = "failed"
	StateCanceled  = "canceled"
	stateRetrying  = "retrying" // an Event's state only: still pending after a failed attempt
)

func (o *Outbox) publish(e *Event) {
	if o.cfg.Bus != nil {
		o.cfg.Bus.Publish(bus.Event{Topic: Topic, Source: o.cfg.Source, Key: e.TaskID, Data: e})
	}
}

// attempt makes one delivery attempt of h and records its outcome.
func (o *Outbox) attempt(ctx context.Context, h *head) {
	// The head was read before this lane's previous attempt may have finished: only a notification
	// still pending and due is attempted, so none is sent twice nor retried before its time.
	err := o.cfg.DB.Reader.QueryRowContext(ctx, `SELECT payload, attempts FROM push_outbox WHERE id = ? AND state = 'pending'
		AND next_attempt_at <= ?`, h.id, o.cfg.Now().UnixNano()).Scan(&h.payload, &h.attempts)
	if errors.Is(err, sql.ErrNoRows) {
		return
	}
	if err != nil {
		o.cfg.Logger.Error("push outbox: reading a notification", "err", err)
		return
	}
	ev := &Event{TaskID: h.lane.task, ConfigID: h.lane.config, NotificationID: h.notificationID, EventSeq: h.seq, Attempts: h.attempts + 1}
	cfg, err := o.cfg.Configs.Get(ctx, a2a.TaskID(h.lane.task), h.lane.config)
	if errors.Is(err, a2apush.ErrPushConfigNotFound) {
		// The config was deleted: what it still had queued is not wanted any more.
		n, err := o.cancelLane(ctx, h.lane)
		if err == nil && n > 0 {
			ev.State, ev.Attempts, ev.Error = StateCanceled, h.attempts, "the push config was deleted"
			o.publish(ev)
		}
		return
	}
	if err != nil {
		o.cfg.Logger.Error("push outbox: reading the push config", "task", h.lane.task, "config", h.lane.config, "err", err)
		return
	}
	target, err := o.target(ctx, h.lane, cfg.URL)
	if err != nil {
		o.cfg.Logger.Error("push outbox: reading the push target", "err", err)
		return
	}
	status, err := o.deliver(ctx, h, cfg, target)
	if ctx.Err() != nil {
		return // shutting down: the attempt did not count and the notification stays pending
	}
	ev.HTTPStatus = status
	if err == nil {
		if err := o.markDelivered(h); err != nil {
			if !errors.Is(err, errLeaseLost) {
				o.cfg.Logger.Error("push outbox: recording a delivery", "err", err)
			}
			return
		}
		ev.State = StateDelivered
		o.publish(ev)
		return
	}
	ev.Error = err.Error()
	now := o.cfg.Now()
	var permanent *permanentError
	if errors.As(err, &permanent) || !now.Before(h.created.Add(o.cfg.GiveUpAfter)) {
		n, ferr := o.failLane(h, now, status, ev.Error, permanent != nil)
		if ferr != nil {
			if !errors.Is(ferr, errLeaseLost) {
				o.cfg.Logger.Error("push outbox: recording a failure", "err", ferr)
			}
			return
		}
		o.cfg.Logger.Warn("push notification given up", "task", h.lane.task, "config", h.lane.config,
			"attempts", ev.Attempts, "notifications", n, "err", ev.Error)
		ev.State = StateFailed
		o.publish(ev)
		return
	}
	ev.NextAttemptAt = now.Add(o.backoff(ev.Attempts))
	res, err := o.cfg.DB.Writer.ExecContext(context.WithoutCancel(ctx), `UPDATE push_outbox SET attempts = ?, next_attempt_at = ?,
		updated_at = ?, last_status = ?, last_error = ?, leased_by = '', lease_until = 0 WHERE id = ? AND leased_by = ? AND state = 'pending'`,
		ev.Attempts, ev.NextAttemptAt.UnixNano(), now.UnixNano(), status, ev.Error, h.id, o.owner)
	if err == nil {
		err = held(res)
	}
	if err != nil {
		if !errors.Is(err, errLeaseLost) {
			o.cfg.Logger.Error("push outbox: recording a retry", "err", err)
		}
		return
	}
	o.cfg.Logger.Info("push notification will be retried", "task", h.lane.task, "config", h.lane.config,
		"attempts", ev.Attempts, "next", ev.NextAttemptAt.Sub(now).Round(time.Millisecond), "err", ev.Error)
	ev.State = stateRetrying
	o.publish(ev)
}

// An outcome is recorded only while this replica holds the notification's lease (leased_by is
// this replica's id; on SQLite both are always ""): one that lost it leaves the notification to the
// replica that took it over.
func (o *Outbox) markDelivered(h *head) error {
	now := o.cfg.Now().UnixNano()
	res, err := o.cfg.DB.Writer.Exec(`UPDATE push_outbox SET state = 'delivered', payload = NULL, attempts = attempts + 1,
		updated_at = ?, last_status = 0, last_error = '', leased_by = '', lease_until = 0
		WHERE id = ? AND leased_by = ? AND state = 'pending'`, now, h.id, o.owner)
	if err != nil {
		return err
	}
	return held(res)
}

// held is errLeaseLost when an outcome's UPDATE changed no row.
func held(res sql.Result) error {
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = errLeaseLost
	}
	return err
}

// failLane fails h and, with it, every later notification of its config that is as stale (past its
// own give-up time), or all of them when the failure is permanent: a dead webhook is not then tried
// once per queued notification. It returns how many failed.
func (o *Outbox) failLane(h *head, now time.Time, status int, msg string, all bool) (int64, error) {
	cutoff := now.Add(-o.cfg.GiveUpAfter).UnixNano()
	if all {
		cutoff = now.UnixNano() + 1
	}
	var n int64
	err := o.cfg.DB.Tx(context.Background(), func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE push_outbox SET state = 'failed', attempts = attempts + 1, updated_at = ?, last_status = ?,
			last_error = ?, leased_by = '', lease_until = 0 WHERE id = ? AND leased_by = ? AND state = 'pending'`,
			now.UnixNano(), status, msg, h.id, o.owner)
		if err != nil {
			return err
		}
		if err := held(res); err != nil {
			return err
		}
		res, err = tx.Exec(`UPDATE push_outbox SET state = 'failed', updated_at = ?, last_status = ?, last_error = ?
			WHERE task_id = ? AND config_id = ? AND state = 'pending' AND created_at < ?`,
			now.UnixNano(), status, "given up with an earlier notification: "+msg, h.lane.task, h.lane.config, cutoff)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n + 1, err
}

func (o *Outbox) cancelLane(ctx context.Context, l lane) (int64, error) {
	res, err := o.cfg.DB.Writer.ExecContext(ctx, `UPDATE push_outbox SET state = 'canceled', updated_at = ?,
		last_error = 'the push config was deleted' WHERE task_id = ? AND config_id = ? AND state = 'pending'`,
		o.cfg.Now().UnixNano(), l.task, l.config)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// GiveUpAfter is how long a notification is retried before it fails.
func (o *Outbox) GiveUpAfter() time.Duration { return o.cfg.GiveUpAfter }

// Status is how delivery to one push config of a task stands.
type Status struct {
	ConfigID                             string
	Delivered, Pending, Failed, Canceled int
	// Of the next pending notification: attempts so far and when the next is due.
	Attempts      int
	NextAttemptAt time.Time
	// The most recent failed attempt (of a pending or failed notification): when, its HTTP status
	// (0 when there was no HTTP answer) and why. Of notifications given up together, the one that
	// was attempted (the others say they went with it).
	LastFailureAt time.Time
	LastStatus    int
	LastError     string
}

// Status is the delivery status of each push config the task has notifications for, by config id.
func (o *Outbox) Status(ctx context.Context, taskID a2a.TaskID) ([]Status, error) {
	rows, err := o.cfg.DB.Reader.QueryContext(ctx, `SELECT config_id,
		SUM(CASE WHEN state = 'delivered' THEN 1 ELSE 0 END), SUM(CASE WHEN state = 'pending' THEN 1 ELSE 0 END),
		SUM(CASE WHEN state = 'failed' THEN 1 ELSE 0 END), SUM(CASE WHEN state = 'canceled' THEN 1 ELSE 0 END)
		FROM push_outbox WHERE task_id = ? GROUP BY config_id ORDER BY MIN(id)`, taskID)
	if err != nil {
		return nil, err
	}
	var out []Status
	for rows.Next() {
		var s Status
		if err := rows.Scan(&s.ConfigID, &s.Delivered, &s.Pending, &s.Failed, &s.Canceled); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		s := &out[i]
		var next int64
		err := o.cfg.DB.Reader.QueryRowContext(ctx, `SELECT attempts, next_attempt_at FROM push_outbox
			WHERE task_id = ? AND config_id = ? AND state = 'pending' ORDER BY id LIMIT 1`, taskID, s.ConfigID).Scan(&s.Attempts, &next)
		if err == nil {
			s.NextAttemptAt = time.Unix(0, next)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		var at int64
		err = o.cfg.DB.Reader.QueryRowContext(ctx, `SELECT updated_at, last_status, last_error FROM push_outbox
			WHERE task_id = ? AND config_id = ? AND state IN ('pending', 'failed') AND last_error != ''
			ORDER BY updated_at DESC, attempts DESC, id DESC LIMIT 1`, taskID, s.ConfigID).Scan(&at, &s.LastStatus, &s.LastError)
		if err == nil {
			s.LastFailureAt = time.Unix(0, at)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	return out, nil
}
