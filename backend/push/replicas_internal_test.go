package push

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// claimsSigner "signs" by writing the claims as JSON, so the webhook can read which notification
// (jti) came from which replica (iss).
type claimsSigner struct{}

func (claimsSigner) SignClaims(c jwt.Claims) (string, error) {
	b, err := json.Marshal(c)
	return string(b), err
}

// replica is one hub process over the shared database: its own handle (own writer connection, own
// notes listener) and its own outbox.
type replica struct {
	name    string
	db      *store.DB
	outbox  *Outbox
	tasks   *tasks.Store // the replica the test writes tasks through has one
	configs a2aConfigs
}

type a2aConfigs interface {
	Save(ctx context.Context, taskID a2a.TaskID, c *a2a.PushConfig) (*a2a.PushConfig, error)
}

func openReplica(t *testing.T, name, url string, writes bool, cfg Config) *replica {
	t.Helper()
	db, err := store.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := bus.New()
	r := &replica{name: name, db: db}
	if writes {
		if r.tasks, err = tasks.Open(t.Context(), db, b, "t"); err != nil {
			t.Fatal(err)
		}
	}
	configs := tasks.NewPushConfigs(db)
	cfg.DB, cfg.Configs, cfg.Bus, cfg.Source = db, configs, b, "t"
	if cfg.RetryMax == 0 {
		cfg.RetryMax = 20 * time.Millisecond
	}
	if r.outbox, err = Open(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	r.outbox.idle = time.Hour // only notes, task events and finished attempts wake a dispatcher
	t.Cleanup(r.outbox.Close)
	if writes {
		r.tasks.SetWriteHook(r.outbox)
	}
	r.configs = r.outbox.Guard(configs)
	return r
}

func (r *replica) start() { r.outbox.Start(claimsSigner{}, r.name) }

// record creates a task with push configs to the webhook's paths and writes updates more status
// events, each a notification to each config.
func (r *replica) record(t *testing.T, id a2a.TaskID, hook string, paths []string, updates int) {
	t.Helper()
	ctx := WithLocalCaller(t.Context(), true) // the webhook is on loopback
	for _, p := range paths {
		if _, err := r.configs.Save(ctx, id, &a2a.PushConfig{ID: p, URL: hook + "/" + p}); err != nil {
			t.Fatal(err)
		}
	}
	task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	v, err := r.tasks.Create(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	for i := range updates {
		task.Status.State = a2a.TaskStateWorking
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(fmt.Sprintf("step %d", i)))
		if v, err = r.tasks.Update(ctx, &taskstore.UpdateRequest{Task: task, PrevVersion: v,
			Event: a2a.NewStatusUpdateEvent(task, a2a.TaskStateWorking, msg)}); err != nil {
			t.Fatal(err)
		}
	}
}

// arrival is one notification a webhook accepted.
type arrival struct {
	path, jti, iss string
	at             time.Time
}

// sink is a webhook that accepts every notification; gate, when set, runs before each answer.
type sink struct {
	*httptest.Server
	gate func(a arrival)

	mu  sync.Mutex
	got []arrival
}

func newSink(t *testing.T, gate func(arrival)) *sink {
	s := &sink{gate: gate}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		var c Claims
		if err := json.Unmarshal([]byte(r.Header.Get(SignatureHeader)), &c); err != nil {
			t.Errorf("claims %q: %v", r.Header.Get(SignatureHeader), err)
		}
		a := arrival{path: strings.TrimPrefix(r.URL.Path, "/"), jti: c.ID, iss: c.Issuer, at: time.Now()}
		if s.gate != nil {
			s.gate(a)
		}
		s.mu.Lock()
		s.got = append(s.got, a)
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sink) arrivals() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]arrival(nil), s.got...)
}

// waitUntil polls cond; the deadline only guards against a hang.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// outboxRow is what the outbox says of a notification.
type outboxRow struct {
	id              int64
	task, config    string
	state, leasedBy string
	leaseUntil      int64
}

func outboxRows(t *testing.T, db *store.DB) map[string]outboxRow {
	t.Helper()
	rows, err := db.Reader.Query(`SELECT notification_id, id, task_id, config_id, state, leased_by, lease_until FROM push_outbox`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]outboxRow{}
	for rows.Next() {
		var jti string
		var r outboxRow
		if err := rows.Scan(&jti, &r.id, &r.task, &r.config, &r.state, &r.leasedBy, &r.leaseUntil); err != nil {
			t.Fatal(err)
		}
		out[jti] = r
	}
	return out
}

func pendingCount(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.Reader.QueryRow(`SELECT COUNT(*) FROM push_outbox WHERE state = 'pending'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkOnceInOrder checks that every notification of the outbox reached the webhook exactly once,
// and those of each (task, config) in the order they were recorded.
func checkOnceInOrder(t *testing.T, got []arrival, rows map[string]outboxRow) {
	t.Helper()
	seen := map[string]bool{}
	last := map[string]int64{}
	for _, a := range got {
		r, ok := rows[a.jti]
		if !ok {
			t.Fatalf("the webhook got notification %q, which the outbox does not have", a.jti)
		}
		if seen[a.jti] {
			t.Errorf("notification %d (%s/%s) delivered twice", r.id, r.task, r.config)
		}
		seen[a.jti] = true
		if a.path != r.config {
			t.Errorf("notification %d of config %s reached /%s", r.id, r.config, a.path)
		}
		lane := r.task + "/" + r.config
		if r.id < last[lane] {
			t.Errorf("%s: notification %d arrived after %d", lane, r.id, last[lane])
		}
		last[lane] = r.id
	}
	for jti, r := range rows {
		if !seen[jti] || r.state != StateDelivered {
			t.Errorf("notification %d (%s/%s): state %s, reached the webhook: %v", r.id, r.task, r.config, r.state, seen[jti])
		}
	}
}

func multiReplica(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several replicas share a PostgreSQL database only: a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
}

// Two replicas deliver from one outbox at once: every notification reaches the webhook once, each
// config's in the order recorded. The webhook holds every request until both replicas have sent one,
// so the two really deliver side by side.
func TestReplicasDeliverEachNotificationOnceInOrder(t *testing.T) {
	multiReplica(t)
	url := storetest.Target(t, "")
	a := openReplica(t, "A", url, true, Config{Parallel: 2})
	b := openReplica(t, "B", url, false, Config{Parallel: 2})

	both := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	senders := map[string]bool{}
	hook := newSink(t, func(a arrival) {
		mu.Lock()
		senders[a.iss] = true
		if len(senders) == 2 {
			once.Do(func() { close(both) })
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(30 * time.Second): // a hang guard: the test fails below
		}
	})

	// Recorded before either delivers, so both find plenty to claim.
	const taskCount, updates = 4, 5
	for i := range taskCount {
		a.record(t, a2a.TaskID(fmt.Sprintf("task-%d", i)), hook.URL, []string{"x", "y"}, updates)
	}
	rows := outboxRows(t, a.db)
	if want := taskCount * 2 * (updates + 1); len(rows) != want { // + 1: the task's creation
		t.Fatalf("%d notifications recorded, want %d", len(rows), want)
	}
	a.start()
	b.start()
	waitUntil(t, "every notification delivered", func() bool { return pendingCount(t, a.db) == 0 })
	select {
	case <-both:
	default:
		t.Fatalf("only %v delivered: the other replica never claimed a notification", senders)
	}
	checkOnceInOrder(t, hook.arrivals(), outboxRows(t, a.db))
}

// A replica that dies holding a lease (it claimed the first notification of a config and was never
// heard of again) delays that config until the lease runs out; then another replica delivers all of
// it, in order. No idle timer is involved: the other replica waits for the lease's end.
func TestReplicaTakesOverAnExpiredLease(t *testing.T) {
	multiReplica(t)
	url := storetest.Target(t, "")
	hook := newSink(t, nil)
	dead := openReplica(t, "dead", url, true, Config{Lease: time.Second})
	dead.record(t, "t", hook.URL, []string{"x"}, 2)
	heads, err := dead.outbox.claim(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 1 {
		t.Fatalf("claimed %d notifications of one config, want its first only", len(heads))
	}
	lease := outboxRows(t, dead.db)[heads[0].notificationID]
	if lease.leasedBy != dead.outbox.owner || lease.leaseUntil == 0 {
		t.Fatalf("the claimed notification reads %+v", lease)
	}
	dead.outbox.Close()
	dead.db.Close() // gone without releasing anything

	live := openReplica(t, "live", url, false, Config{})
	live.start()
	waitUntil(t, "the other replica to deliver", func() bool { return pendingCount(t, live.db) == 0 })
	got := hook.arrivals()
	checkOnceInOrder(t, got, outboxRows(t, live.db))
	for _, a := range got {
		if a.iss != "live" {
			t.Errorf("notification %s delivered by %q", a.jti, a.iss)
		}
		if a.at.UnixNano() < lease.leaseUntil {
			t.Errorf("notification %s delivered at %v, before the dead replica's lease ran out at %v", a.jti, a.at, time.Unix(0, lease.leaseUntil))
		}
	}
}

// A notification recorded on one replica wakes the other's dispatcher through a note: the recording
// replica does not deliver, and the other's idle timer is an hour.
func TestNoteWakesTheOtherReplicasDispatcher(t *testing.T) {
	multiReplica(t)
	url := storetest.Target(t, "")
	hook := newSink(t, nil)
	writer := openReplica(t, "writer", url, true, Config{}) // never started: it only records
	deliverer := openReplica(t, "deliverer", url, false, Config{})
	deliverer.start()
	<-deliverer.db.Listening()
	// Its first look at the outbox found nothing: from here it sleeps until woken.
	waitUntil(t, "the dispatcher's first look", func() bool { return deliverer.outbox.passes.Load() > 0 })
	writer.record(t, "t", hook.URL, []string{"x"}, 1)
	waitUntil(t, "the other replica to deliver", func() bool { return pendingCount(t, writer.db) == 0 })
	checkOnceInOrder(t, hook.arrivals(), outboxRows(t, writer.db))
}
