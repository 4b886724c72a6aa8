package tasks

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// Two replicas of the hub on one PostgreSQL database: each its own store.Open of the URL (its own
// writer connection and notes listener) and its own task store and bus, as two processes would have.

type replica struct {
	db  *store.DB
	s   *Store
	bus *bus.Bus
}

// replicas opens two replicas on a new database, the second one listening for the first's notes.
func replicas(t *testing.T, lease time.Duration) (a, b *replica) {
	t.Helper()
	if !storetest.Postgres() {
		t.Skip("several replicas share a PostgreSQL database only: a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
	url := storetest.Target(t, "")
	open := func() *replica {
		db, err := store.Open(url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		r := &replica{db: db, bus: bus.New()}
		if r.s, err = OpenWith(t.Context(), db, r.bus, "test", Options{Lease: lease}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.s.Close)
		return r
	}
	a, b = open(), open()
	for _, r := range []*replica{a, b} {
		select {
		case <-r.db.Listening():
		case <-time.After(20 * time.Second): // a hang guard only
			t.Fatal("the notes listener did not start")
		}
	}
	return a, b
}

func replicaTask(id string) *a2a.Task {
	return &a2a.Task{ID: a2a.TaskID(id), ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hi "+id))}}
}

// setState writes the task in state on r's store after version prev, as a2a-go would.
func setState(t *testing.T, r *replica, task *a2a.Task, state a2a.TaskState, prev taskstore.TaskVersion) (taskstore.TaskVersion, error) {
	t.Helper()
	next := *task
	next.Status = a2a.TaskStatus{State: state}
	return r.s.Update(t.Context(), &taskstore.UpdateRequest{Task: &next, Event: a2a.NewStatusUpdateEvent(&next, state, nil), PrevVersion: prev})
}

// TestReplicasRefuseStaleWrites: the database decides a conflict. Replica B wrote the task last at
// version 2 and still has that head cached; A moves it to 3; B's write after 2 is refused with
// a2a-go's concurrency error, and B's write after what it reads back goes through.
func TestReplicasRefuseStaleWrites(t *testing.T) {
	a, b := replicas(t, 0)
	ctx := t.Context()
	task := replicaTask("t")
	if _, err := b.s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	if v, err := setState(t, b, task, a2a.TaskStateWorking, 1); err != nil || v != 2 {
		t.Fatalf("B's update: %d, %v", v, err)
	}
	if v, err := setState(t, a, task, a2a.TaskStateWorking, 2); err != nil || v != 3 {
		t.Fatalf("A's update after B's: %d, %v", v, err)
	}
	if _, err := setState(t, b, task, a2a.TaskStateCompleted, 2); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Fatalf("B's stale update: %v, want %v", err, taskstore.ErrConcurrentModification)
	}
	// A stale write a replica thinks is current (A's head says 3, B wrote 4) is refused too.
	stored, err := b.s.Get(ctx, "t")
	if err != nil || stored.Version != 3 {
		t.Fatalf("B reads %+v, %v; want version 3", stored, err)
	}
	if v, err := setState(t, b, task, a2a.TaskStateWorking, 3); err != nil || v != 4 {
		t.Fatalf("B's update after what it read: %d, %v", v, err)
	}
	if _, err := setState(t, a, task, a2a.TaskStateCompleted, 3); !errors.Is(err, taskstore.ErrConcurrentModification) {
		t.Fatalf("A's stale update: %v, want %v", err, taskstore.ErrConcurrentModification)
	}
	log, err := a.s.Log(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for _, l := range log {
		seqs = append(seqs, l.Seq)
	}
	if !slices.Equal(seqs, []int64{1, 2, 3, 4}) {
		t.Fatalf("the log holds seqs %v: a refused write left something", seqs)
	}
}

// TestReplicasSeeEachOthersWrites: what A acknowledged, B's Get and List answer at once, whatever B
// cached of the task from its own earlier write.
func TestReplicasSeeEachOthersWrites(t *testing.T) {
	a, b := replicas(t, 0)
	ctx := t.Context()
	task := replicaTask("t")
	if _, err := b.s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	if _, err := b.s.Get(ctx, "t"); err != nil { // B has the task as it wrote it
		t.Fatal(err)
	}
	if _, err := setState(t, a, task, a2a.TaskStateWorking, 1); err != nil {
		t.Fatal(err)
	}
	got, err := b.s.Get(ctx, "t")
	if err != nil || got.Version != 2 || got.Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("B's Get after A's write: %+v, %v", got, err)
	}
	if _, err := a.s.Create(ctx, replicaTask("u")); err != nil {
		t.Fatal(err)
	}
	list, err := b.s.List(ctx, &a2a.ListTasksRequest{Status: a2a.TaskStateWorking})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != "t" {
		t.Fatalf("B lists working tasks: %+v, %v", list, err)
	}
	list, err = b.s.List(ctx, &a2a.ListTasksRequest{})
	if err != nil || list.TotalSize != 2 {
		t.Fatalf("B lists all tasks: %+v, %v", list, err)
	}
}

// TestReplicasStreamEachOthersEvents: a subscriber on B's bus, and a stream opened on B, follow a task
// that runs on A (with one write of B's in between): every event once, in the log's order.
func TestReplicasStreamEachOthersEvents(t *testing.T) {
	a, b := replicas(t, 0)
	ctx := t.Context()
	sub := b.bus.Subscribe(func(e bus.Event) bool { return e.Topic == Topic && e.Key == "t" }, 100)
	defer sub.Close()
	task := replicaTask("t")
	if _, err := a.s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	streamed := make(chan []int64, 1)
	opened := make(chan struct{})
	go func() {
		var seqs []int64
		first := true
		for l, err := range b.s.Stream(ctx, "t") {
			if err != nil {
				t.Error(err)
				break
			}
			if first {
				close(opened)
				first = false
			}
			seqs = append(seqs, l.Seq)
		}
		streamed <- seqs
	}()
	<-opened // the stream on B is live: what follows reaches it through the notes
	v := taskstore.TaskVersion(1)
	var err error
	if v, err = setState(t, a, task, a2a.TaskStateWorking, v); err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"one", "two", "three"} {
		w := a
		if i == 1 {
			w = b // a write of B's between A's
		}
		art := a2a.NewArtifactEvent(task, a2a.NewTextPart(text))
		next, err := WithArtifact(task, art)
		if err != nil {
			t.Fatal(err)
		}
		next.Status = a2a.TaskStatus{State: a2a.TaskStateWorking}
		if v, err = w.s.Update(ctx, &taskstore.UpdateRequest{Task: next, Event: art, PrevVersion: v}); err != nil {
			t.Fatal(err)
		}
		task = next
	}
	// An artifact that also completes the task: two entries in one write (the artifact, the status).
	art := a2a.NewArtifactEvent(task, a2a.NewTextPart("last"))
	done, err := WithArtifact(task, art)
	if err != nil {
		t.Fatal(err)
	}
	done.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted}
	if _, err = a.s.Update(ctx, &taskstore.UpdateRequest{Task: done, Event: art, PrevVersion: v}); err != nil {
		t.Fatal(err)
	}

	log, err := a.s.Log(ctx, "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, l := range log {
		want = append(want, l.Seq)
	}
	if len(want) != 7 { // the task, working, three artifacts, the last artifact and completed
		t.Fatalf("the log has %d entries, want 7", len(want))
	}
	var got []int64
	for len(got) < len(want) {
		select {
		case e := <-sub.C:
			l := e.Data.(*Logged)
			if l.Seq != e.Seq || l.Event == nil {
				t.Fatalf("bus event %+v carries %+v", e, l)
			}
			got = append(got, e.Seq)
		case <-sub.Lagged:
			t.Fatal("the subscriber lagged with room for 100 events")
		case <-time.After(20 * time.Second): // a hang guard only
			t.Fatalf("B's bus carried seqs %v, the log has %v", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("B's bus carried seqs %v, the log has %v", got, want)
	}
	select {
	case seqs := <-streamed:
		if !slices.Equal(seqs, want) { // no message entries in this log: the stream has them all
			t.Fatalf("B's stream gave seqs %v, the log has %v", seqs, want)
		}
	case <-time.After(20 * time.Second): // a hang guard only
		t.Fatal("B's stream did not end with the completed task")
	}
	select {
	case e := <-sub.C:
		t.Fatalf("B's bus carried seq %d again", e.Seq)
	default:
	}
}

// TestReplicasSeeEachOthersPushConfigs: a push config saved on A is what B's write hook and B's List
// see for the task.
func TestReplicasSeeEachOthersPushConfigs(t *testing.T) {
	a, b := replicas(t, 0)
	ctx := t.Context()
	hook := &configsSeen{}
	b.s.SetWriteHook(hook)
	task := replicaTask("t")
	if _, err := b.s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	pushA, pushB := NewPushConfigs(a.db), NewPushConfigs(b.db)
	if got, err := pushB.List(ctx, "t"); err != nil || len(got) != 0 {
		t.Fatalf("B lists %v, %v before any config", got, err)
	}
	if _, err := pushA.Save(ctx, "t", &a2a.PushConfig{ID: "c", URL: "https://example.com/hook"}); err != nil {
		t.Fatal(err)
	}
	if got, err := pushB.List(ctx, "t"); err != nil || len(got) != 1 || got[0].ID != "c" {
		t.Fatalf("B lists %v, %v after A saved a config", got, err)
	}
	if _, err := setState(t, b, task, a2a.TaskStateWorking, 1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(hook.counts, []int{0, 1}) {
		t.Fatalf("B's write hook saw %v configs per write, want [0 1]", hook.counts)
	}
}

type configsSeen struct{ counts []int }

func (h *configsSeen) OnTaskWrite(_ context.Context, _ *sql.Tx, w *Write) error {
	h.counts = append(h.counts, len(w.PushConfigs))
	return nil
}

// stored reads the task on r, failing the test on error.
func stored(t *testing.T, r *replica, id a2a.TaskID) *taskstore.StoredTask {
	t.Helper()
	got, err := r.s.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// waitFor polls the task on r until ok, with a hang guard only.
func waitFor(t *testing.T, r *replica, id a2a.TaskID, what string, ok func(*taskstore.StoredTask) bool) *taskstore.StoredTask {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := stored(t, r, id)
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s never %s: %s", id, what, got.Task.Status.State)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReplicaThatDiesLosesItsTasks: A runs a task and dies: its store is closed, its leases left as
// they are and its liveness lock gone, as a kill -9 leaves them once PostgreSQL ended its session.
// B's Recover takes the task over at once and fails it, naming A.
func TestReplicaThatDiesLosesItsTasks(t *testing.T) {
	a, b := replicas(t, time.Minute) // a lease far longer than the test: the session's end decides
	ctx := t.Context()
	task := replicaTask("t")
	if _, err := a.s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	if _, err := setState(t, a, task, a2a.TaskStateWorking, 1); err != nil {
		t.Fatal(err)
	}
	a.s.Close()
	resumed, failed, err := b.s.Recover(ctx, nil)
	if err != nil || resumed != 0 || failed != 1 {
		t.Fatalf("B's Recover: resumed %d, failed %d, %v; want the dead replica's task failed", resumed, failed, err)
	}
	got := stored(t, b, "t")
	if got.Task.Status.State != a2a.TaskStateFailed || got.Task.Status.Message == nil ||
		!strings.Contains(got.Task.Status.Message.Parts[0].Text(), "hub replica "+a.s.replica+", which ran it, is gone") {
		t.Fatalf("the dead replica's task: %s %+v, want failed naming %s", got.Task.Status.State, got.Task.Status.Message, a.s.replica)
	}
}

// TestReplicaThatStopsRenewingLosesItsTasks: A stops renewing its leases while its session lives on
// (a hung process, a replica cut off from the database: its liveness lock held, here by the test).
// B's Recover leaves the task alone while the lease runs; B's sweep fails it once it expired.
func TestReplicaThatStopsRenewingLosesItsTasks(t *testing.T) {
	const lease = 3 * time.Second
	a, b := replicas(t, lease)
	ctx := t.Context()
	task := replicaTask("t")
	if _, err := a.s.Create(ctx, task); err != nil {
		t.Fatal(err)
	}
	a.s.Close() // no more renewals, and its lock's session ends …
	conn, err := b.db.Reader.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var held bool // … but the lock is held again, as if A's session still lived
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(?, ?)`, int32(leaseLockClass), a.s.leaseKey).Scan(&held); err != nil || !held {
		t.Fatalf("taking A's liveness lock: %v, %v", held, err)
	}
	var expired bool
	if err := b.db.Reader.QueryRowContext(ctx, `SELECT lease_until < now() FROM tasks WHERE id = 't'`).Scan(&expired); err != nil {
		t.Fatal(err)
	}
	resumed, failed, err := b.s.Recover(ctx, nil)
	if err != nil || resumed != 0 || (failed != 0) != expired {
		t.Fatalf("B's Recover with A's lease expired=%v: resumed %d, failed %d, %v", expired, resumed, failed, err)
	}
	if !expired && stored(t, b, "t").Task.Status.State != a2a.TaskStateSubmitted {
		t.Fatal("B's Recover failed a task whose lease runs")
	}
	got := waitFor(t, b, "t", "failed by B's sweep", func(st *taskstore.StoredTask) bool { return st.Task.Status.State == a2a.TaskStateFailed })
	if msg := got.Task.Status.Message; msg == nil || !strings.Contains(msg.Parts[0].Text(), "hub replica "+a.s.replica+", which ran it, stopped renewing its lease") {
		t.Fatalf("the lost task's message: %+v", msg)
	}
}

// TestLiveReplicasKeepTheirTasks: A's tasks are not B's to take, at B's start or in its sweeps, for
// as long as A renews its leases, however many leases that lasts.
func TestLiveReplicasKeepTheirTasks(t *testing.T) {
	const lease = 900 * time.Millisecond
	a, b := replicas(t, lease)
	ctx := t.Context()
	for _, id := range []string{"submitted", "working"} {
		if _, err := a.s.Create(ctx, replicaTask(id)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := setState(t, a, replicaTask("working"), a2a.TaskStateWorking, 1); err != nil {
		t.Fatal(err)
	}
	resumed, failed, err := b.s.Recover(ctx, nil)
	if err != nil || resumed+failed != 0 {
		t.Fatalf("B's Recover with A alive: resumed %d, failed %d, %v", resumed, failed, err)
	}
	// A renews its leases for three leases' time: the earliest lease ends three leases after the
	// latest one first taken (B's sweep runs meanwhile, every third of a lease).
	var first time.Time
	if err := a.db.Reader.QueryRowContext(ctx, `SELECT MAX(lease_until) FROM tasks`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard only
	for {
		var earliest time.Time
		if err := a.db.Reader.QueryRowContext(ctx, `SELECT MIN(lease_until) FROM tasks`).Scan(&earliest); err != nil {
			t.Fatal(err)
		}
		if earliest.After(first.Add(3 * lease)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("A's leases end at %v at the earliest, first at %v", earliest, first)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if resumed, failed, err := b.s.sweep(ctx, nil, false); err != nil || resumed+failed != 0 {
		t.Fatalf("B's sweep with A alive: resumed %d, failed %d, %v", resumed, failed, err)
	}
	for id, want := range map[a2a.TaskID]a2a.TaskState{"submitted": a2a.TaskStateSubmitted, "working": a2a.TaskStateWorking} {
		if got := stored(t, b, id); got.Task.Status.State != want {
			t.Fatalf("A's %s task is %s", id, got.Task.Status.State)
		}
	}
}
