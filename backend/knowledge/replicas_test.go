package knowledge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// Several replicas of a hub on one PostgreSQL database: each replica here is a store.Open of the
// same database, its own bus and a Service with its own data dir (its own graph).

func needPostgres(t *testing.T) {
	t.Helper()
	if !storetest.Postgres() {
		t.Skip("several replicas share a PostgreSQL database: a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
}

// replica is one hub process's knowledge graph.
type replica struct {
	db  *store.DB
	bus *bus.Bus
	s   *Service
	dir string
	sub *bus.Subscription // every change this replica's graph published
}

// openReplica opens a replica on target with its data dir (a new one when dir is "").
func openReplica(t *testing.T, target, dir string, seed []Statement) *replica {
	t.Helper()
	db, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return openReplicaOn(t, db, dir, seed)
}

func openReplicaOn(t *testing.T, db *store.DB, dir string, seed []Statement) *replica {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	r := &replica{db: db, bus: bus.New(), dir: dir}
	r.sub = r.bus.Subscribe(func(e bus.Event) bool { return e.Topic == Topic }, 100_000)
	s, err := Open(t.Context(), Options{DB: db, Bus: r.bus, Source: "hub", Dir: dir, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	t.Cleanup(func() {
		if r.s != nil { // not closed by the test
			r.s.Close()
		}
	})
	return r
}

func listening(t *testing.T, db *store.DB) {
	t.Helper()
	select {
	case <-db.Listening():
	case <-time.After(20 * time.Second):
		t.Fatal("the notes' listener never connected")
	}
}

// published waits until the replica's graph has published change seq on its bus, and returns every
// change it published until then.
func (r *replica) published(t *testing.T, seq int64) []int64 {
	t.Helper()
	var got []int64
	guard := time.After(20 * time.Second) // a hang guard only
	for len(got) == 0 || got[len(got)-1] < seq {
		select {
		case e := <-r.sub.C:
			got = append(got, e.Seq)
		case <-r.sub.Lagged:
			t.Fatal("the test's bus subscription lagged")
		case <-guard:
			t.Fatalf("the replica published changes %v, never %d", got, seq)
		}
	}
	return got
}

func link(s, o string) Patch {
	return Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: s}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: o}}}
}

// gizmoObjects asks the replica's graph (Gizmo reads the graph, not the tables) for ex:a's objects.
func gizmoObjects(t *testing.T, s *Service, minChangeID string) ([]string, *QueryResult) {
	t.Helper()
	res, err := s.Query(t.Context(), QueryParams{QueryLanguage: "gizmo", Query: `g.V("<ex:a>").Out("<ex:p>").All()`, MinChangeID: minChangeID})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Data.([]any) {
		out = append(out, fmt.Sprint(r.(map[string]any)["id"]))
	}
	slices.Sort(out)
	return out, res
}

// TestReplicasReadEachOthersUpdates: an update answered by replica A is in the answer of a query
// that replica B starts afterwards, with no wait by the caller (the query brings B's graph up to
// the log first), also when the caller names the change it saw; and B's graph follows A's updates
// by itself, publishing them on B's bus, so a subscription on B hears them.
func TestReplicasReadEachOthersUpdates(t *testing.T) {
	needPostgres(t)
	target := storetest.Target(t, "")
	a, b := openReplica(t, target, "", nil), openReplica(t, target, "", nil)
	listening(t, b.db)
	owner := auth.WithPrincipal(t.Context(), auth.Owner)

	res, err := a.s.Update(owner, []Patch{link("ex:a", "ex:one")}, "")
	if err != nil {
		t.Fatal(err)
	}
	got, q := gizmoObjects(t, b.s, "")
	if !slices.Equal(got, []string{"<ex:one>"}) || q.QueryMetadata["changeId"] != res.ChangeID {
		t.Fatalf("B's query after A's update: %v at change %v, want [<ex:one>] at %s", got, q.QueryMetadata["changeId"], res.ChangeID)
	}
	res, err = a.s.Update(owner, []Patch{link("ex:a", "ex:two")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := gizmoObjects(t, b.s, res.ChangeID); !slices.Equal(got, []string{"<ex:one>", "<ex:two>"}) {
		t.Fatalf("B's query with minChangeId %s: %v", res.ChangeID, got)
	}
	// A change id past the log's end is not waited for (the query would hang): the graph is
	// brought up to the log's last change.
	if got, q := gizmoObjects(t, b.s, "999999999"); len(got) != 2 || q.QueryMetadata["changeId"] != res.ChangeID {
		t.Fatalf("B's query with a change id past the log: %v at change %v", got, q.QueryMetadata["changeId"])
	}
	if _, err := b.s.Query(t.Context(), QueryParams{Query: `{ node(id: "ex:a") { id } }`, MinChangeID: "twelve"}); err == nil || err.(*Error).Code != CodeInvalidParams {
		t.Fatalf("minChangeId twelve: %v", err)
	}

	// A subscription on B, then an update on A, and nothing else on B: the note brings B's graph
	// up to it and B's bus carries it to the subscription.
	run, err := b.s.openSubscribe(t.Context(), json.RawMessage(`{"subscriptionQuery":"subscription { changes(subject: \"ex:a\") { op changeId } }"}`))
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan ChangeEvent, 10)
	ctx, cancel := context.WithCancel(t.Context())
	streamDone := make(chan error, 1)
	go func() {
		streamDone <- run(ctx, func(v any) error { events <- v.(ChangeEvent); return nil })
	}()
	defer func() { cancel(); <-streamDone }()
	res, err = a.s.Update(owner, []Patch{link("ex:a", "ex:three")}, "")
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := strconv.ParseInt(res.ChangeID, 10, 64)
	b.published(t, seq)
	select {
	case e := <-events:
		if e.ChangeID != res.ChangeID || e.Statement.Object.ID != "ex:three" {
			t.Fatalf("B's subscription got %+v, want change %s (ex:three)", e, res.ChangeID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("B's subscription never heard A's update")
	}
}

// TestReplicasConvergeUnderConcurrentUpdates: updates from both replicas at once, on the same
// statements (so order matters): each replica's graph ends as the statements table says, and
// each published every change of the log once, in the log's order (a change numbered before
// another that commits after it would be skipped by a reader already past it).
func TestReplicasConvergeUnderConcurrentUpdates(t *testing.T) {
	needPostgres(t)
	target := storetest.Target(t, "")
	a, b := openReplica(t, target, "", nil), openReplica(t, target, "", nil)
	listening(t, a.db)
	listening(t, b.db)
	owner := auth.WithPrincipal(t.Context(), auth.Owner)
	const workers, each = 4, 25
	var wg sync.WaitGroup
	for _, r := range []*replica{a, b} {
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					st := link("ex:a", fmt.Sprintf("ex:o%d", (w+i)%5)).Statement
					var err error
					switch (w + i) % 3 {
					case 0:
						_, err = r.s.Update(owner, []Patch{{Op: OpAdd, Statement: st}, link(fmt.Sprintf("ex:n%d", i), "ex:a")}, "")
					case 1:
						_, err = r.s.Update(owner, []Patch{{Op: OpReplace, Statement: st}}, "")
					case 2:
						_, err = r.s.Update(owner, []Patch{{Op: OpRemove, Statement: st}}, "")
						var kerr *Error
						if errors.As(err, &kerr) && kerr.Code == CodeUpdateError {
							err = nil // not there (any more): a conflict, refused whole
						}
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	rows, err := a.db.Reader.QueryContext(t.Context(), `SELECT seq FROM kg_changes ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	var log []int64
	for rows.Next() {
		var seq int64
		rows.Scan(&seq)
		log = append(log, seq)
	}
	rows.Close()
	for _, r := range []*replica{a, b} {
		gizmoObjects(t, r.s, "") // brings the graph up to the log
		if got := r.published(t, log[len(log)-1]); !slices.Equal(got, log) {
			t.Fatalf("a replica published changes %v, the log holds %v", got, log)
		}
		if g, tb := graphQuads(t, r.s), tableQuads(t, r.s); !slices.Equal(g, tb) {
			t.Fatalf("a replica's graph %v, the statements %v", g, tb)
		}
	}
}

// TestReplicaCatchesUpMissedNotesOnResync: a note lost while a replica's listener was away (here
// every note to B is lost) is made up for after the listener reconnects (the database restarts):
// B reads the log's last change and brings its graph up to it, publishing what it missed.
func TestReplicaCatchesUpMissedNotesOnResync(t *testing.T) {
	needPostgres(t)
	c, err := storetest.StartCluster() // its own cluster, to restart
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Remove)
	// Every note to B is lost, and so is B's first resync; the one after the restart is not.
	var restarted atomic.Bool
	t.Cleanup(func() { lost = nil }) // after the replicas' databases close (cleanups run in reverse)
	dbB, err := store.Open(c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dbB.Close() })
	lost = func(s *Service, resync bool) bool { return s.db == dbB && (!resync || !restarted.Load()) }
	a := openReplica(t, c.URL("postgres"), "", nil)
	b := openReplicaOn(t, dbB, "", nil)
	listening(t, b.db) // B's first resync has run (and was lost): from now on only the restart's counts

	res, err := a.s.apply(t.Context(), "hub", []Patch{link("ex:a", "ex:missed")}, "")
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := strconv.ParseInt(res.ChangeID, 10, 64)
	b.s.mu.Lock()
	applied := b.s.applied
	b.s.mu.Unlock()
	if applied >= seq {
		t.Fatalf("B's graph is at change %d before the restart, although it heard no note", applied)
	}
	restarted.Store(true)
	c.Stop()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	b.published(t, seq)
	if got := objects(t, b.s); !slices.Equal(got, []string{"<ex:missed>"}) {
		t.Fatalf("B's graph after the resync: %v", got)
	}
}

// TestReplicaRestartReplaysFromItsOwnPosition: each replica's graph keeps its own position in the
// log. B stops; A goes on (and records its own, further position); B starts again and replays,
// from where its graph was, every change it missed.
func TestReplicaRestartReplaysFromItsOwnPosition(t *testing.T) {
	needPostgres(t)
	target := storetest.Target(t, "")
	a := openReplica(t, target, "", nil)
	dbB, err := store.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	b := openReplicaOn(t, dbB, "", nil)
	if _, err := a.s.apply(t.Context(), "hub", []Patch{link("ex:a", "ex:before")}, ""); err != nil {
		t.Fatal(err)
	}
	gizmoObjects(t, b.s, "")
	if err := b.s.Close(); err != nil {
		t.Fatal(err)
	}
	b.s.Close() // a hub's Stop may close it twice
	b.s = nil
	dbB.Close()
	bPos := filePosition(t, b.dir, -1)

	for _, o := range []string{"ex:while1", "ex:while2"} {
		if _, err := a.s.apply(t.Context(), "hub", []Patch{link("ex:a", o)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.s.syncGraph(t.Context(), true); err != nil { // A records its position
		t.Fatal(err)
	}
	last, err := lastChangeSeq(t.Context(), a.db.Reader)
	if err != nil || last <= bPos {
		t.Fatalf("the log ends at %d (%v), B's graph was at %d", last, err, bPos)
	}

	b = openReplica(t, target, b.dir, nil)
	// Open replays before it returns: what B's graph holds now is the replay's doing.
	if got := objects(t, b.s); !slices.Equal(got, []string{"<ex:before>", "<ex:while1>", "<ex:while2>"}) {
		t.Fatalf("B's graph after its restart: %v", got)
	}
	if err := b.s.syncGraph(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	b.s.mu.Lock()
	recorded := b.s.recorded
	b.s.mu.Unlock()
	if recorded != last {
		t.Fatalf("B's graph recorded position %d, the log's last change is %d", recorded, last)
	}
}

// TestReplicasStartingTogetherSeedOnce: two replicas started at once on a new database seed the
// graph once (one set of changes in the log), and both graphs hold it.
func TestReplicasStartingTogetherSeedOnce(t *testing.T) {
	needPostgres(t)
	target := storetest.Target(t, "")
	var seed []Statement
	for i := range 20 {
		seed = append(seed, link(fmt.Sprintf("ex:s%d", i), "ex:a").Statement)
	}
	dbs := make([]*store.DB, 2)
	for i := range dbs {
		db, err := store.Open(target)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	// The tables first: migrations run one replica after the other (a lock), which would keep
	// the two starts apart.
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	if err := dbs[0].Migrate(t.Context(), "knowledge", sub); err != nil {
		t.Fatal(err)
	}
	ss, errs, dirs := make([]*Service, 2), make([]error, 2), []string{t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	for i := range ss {
		wg.Go(func() {
			ss[i], errs[i] = Open(t.Context(), Options{DB: dbs[i], Source: "hub", Dir: dirs[i], Seed: seed})
		})
	}
	wg.Wait()
	for i, s := range ss {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		defer s.Close()
	}
	var n int
	if err := dbs[0].Reader.QueryRowContext(t.Context(), `SELECT count(*) FROM kg_changes`).Scan(&n); err != nil || n != len(seed) {
		t.Fatalf("the log holds %d changes (%v), want the seed's %d once", n, err, len(seed))
	}
	for _, s := range ss {
		gizmoObjects(t, s, "")
		if g, tb := graphQuads(t, s), tableQuads(t, s); len(g) != len(seed) || !slices.Equal(g, tb) {
			t.Fatalf("a replica's graph %v, the statements %v", g, tb)
		}
	}
}
