package knowledge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/boltdb/bolt"

	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// hubTarget is dir/hub.db on the test run's engine: storetest gives the same database each time
// for one path, so a test that opens it again (a restart) opens the same PostgreSQL database.
func hubTarget(t testing.TB, dir string) string {
	t.Helper()
	return storetest.Target(t, filepath.Join(dir, "hub.db"))
}

// openHubDB opens dir/hub.db, closed when the test ends (after the test's own defers).
func openHubDB(t testing.TB, dir string) *store.DB {
	t.Helper()
	db, err := store.Open(hubTarget(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openIn opens the service over db with dir as its data dir.
func openIn(t *testing.T, dir string, db *store.DB) *Service {
	t.Helper()
	s, err := Open(t.Context(), Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// someHistory adds, replaces and removes statements, so kg_statements is not simply the log's adds.
func someHistory(t *testing.T, s *Service) {
	t.Helper()
	st := func(sub, pred string, o Object) Statement {
		return Statement{Subject: Subject{ID: sub}, Predicate: Predicate{ID: pred}, Object: o}
	}
	var ps []Patch
	for i := range 50 {
		ps = append(ps, Patch{Op: OpAdd, Statement: st(fmt.Sprintf("ex:n%d", i), "ex:knows", Object{ID: fmt.Sprintf("ex:n%d", (i*7)%50)})},
			Patch{Op: OpAdd, Statement: st(fmt.Sprintf("ex:n%d", i), RDFSLabel, Object{Value: fmt.Sprintf("node %d", i)})})
	}
	ps = append(ps, Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: "ex:n1"}, Predicate: Predicate{ID: "ex:in"}, Object: Object{ID: "ex:n2"}, Graph: "ex:g"}})
	for _, batch := range [][]Patch{ps,
		{{Op: OpReplace, Statement: st("ex:n3", RDFSLabel, Object{Value: 3.5})}},
		{{Op: OpRemove, Statement: st("ex:n4", "ex:knows", Object{ID: "ex:n28"})}},
		{{Op: OpReplace, Statement: st("ex:n5", "ex:score", Object{Value: true})}},
	} {
		if _, err := s.apply(t.Context(), "hub", batch, "test"); err != nil {
			t.Fatal(err)
		}
	}
}

// graphQuads are every quad in the Cayley store, as N-Quads lines, sorted.
func graphQuads(t *testing.T, s *Service) []string {
	t.Helper()
	it := s.qs.QuadsAllIterator()
	defer it.Close()
	var out []string
	for it.Next(context.Background()) {
		out = append(out, s.qs.Quad(it.Result()).String())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// tableQuads are the statements of kg_statements as quads, sorted.
func tableQuads(t *testing.T, s *Service) []string {
	t.Helper()
	rows, err := selectRows(t.Context(), s.db.Reader, `SELECT `+rowColumns+` FROM kg_statements`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Stmt.quadOf().String())
	}
	slices.Sort(out)
	return out
}

func assertGraphIsTable(t *testing.T, s *Service) {
	t.Helper()
	g, tb := graphQuads(t, s), tableQuads(t, s)
	if len(tb) < 50 || !slices.Equal(g, tb) {
		t.Fatalf("graph (%d quads) and kg_statements (%d) differ:\ngraph %v\ntable %v", len(g), len(tb), g, tb)
	}
}

func playBoot(t *testing.T, id string, err error) {
	old := bootID
	bootID = func() (string, error) { return id, err }
	t.Cleanup(func() { bootID = old })
}

// TestUnsyncedGraphMarkerLifecycle: graph commits are not fsynced on the update's path, so the
// marker holding this boot's id is on disk while any may be unsynced, and a clean Close (which
// syncs) removes it.
func TestUnsyncedGraphMarkerLifecycle(t *testing.T) {
	playBoot(t, "boot-1", nil)
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	if !s.nosync {
		t.Fatal("the graph is synced per commit although the boot id is readable")
	}
	someHistory(t, s)
	if b, err := os.ReadFile(filepath.Join(dir, DirtyFile)); err != nil || strings.TrimSpace(string(b)) != "boot-1" {
		t.Fatalf("marker after unsynced commits: %q, %v", b, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirtyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker after a clean close: %v", err)
	}
	applied := filePosition(t, dir, -1)
	last, _ := lastChangeSeq(t.Context(), db.Reader)
	if applied != last {
		t.Fatalf("the graph's position %d after close, last change %d", applied, last)
	}
}

// filePosition is the position recorded in the bolt file of the closed graph in dir (-1: none);
// with set >= 0 it first records set instead.
func filePosition(t *testing.T, dir string, set int64) int64 {
	t.Helper()
	bdb, err := bolt.Open(filepath.Join(dir, StoreDir, boltFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	if set >= 0 {
		if err := writePosition(bdb, set); err != nil {
			t.Fatal(err)
		}
	}
	seq, ok, err := readPosition(bdb)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return -1
	}
	return seq
}

// TestMarkerFromAnotherBootRebuildsGraph: the system stopped (power loss) while graph commits were
// unsynced, so the bolt file may be broken: the next start, in another boot, throws it away and
// builds the graph again from kg_statements. Here the file is garbage, which bolt cannot open.
func TestMarkerFromAnotherBootRebuildsGraph(t *testing.T) {
	playBoot(t, "boot-1", nil)
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	want := tableQuads(t, s)
	s.Close()
	// The power loss: the marker survived, the bolt file did not.
	if err := os.WriteFile(filepath.Join(dir, DirtyFile), []byte("boot-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, StoreDir, boltFile), []byte(strings.Repeat("torn page ", 2000)), 0o600); err != nil {
		t.Fatal(err)
	}

	playBoot(t, "boot-2", nil)
	s = openIn(t, dir, db)
	defer s.Close()
	assertGraphIsTable(t, s)
	if got := tableQuads(t, s); !slices.Equal(got, want) {
		t.Fatalf("kg_statements changed by the rebuild")
	}
	if _, err := os.Stat(filepath.Join(dir, DirtyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker after the rebuild: %v", err)
	}
	// The rebuilt graph takes updates as before.
	if _, err := s.apply(t.Context(), "hub", []Patch{{Op: OpRemove, Statement: Statement{Subject: Subject{ID: "ex:n1"},
		Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: "ex:n7"}}}}, ""); err != nil {
		t.Fatal(err)
	}
	assertGraphIsTable(t, s)
}

// TestMarkerWithUnreadableBootIDRebuildsGraph: where the boot id cannot be read, a marker cannot
// tell a process crash from a reboot, so the graph is rebuilt; and the graph then keeps bolt's own
// fsync per commit (no marker is written).
func TestMarkerWithUnreadableBootIDRebuildsGraph(t *testing.T) {
	playBoot(t, "boot-1", nil)
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	s.Close()
	os.WriteFile(filepath.Join(dir, DirtyFile), []byte("boot-1\n"), 0o600)
	os.Remove(filepath.Join(dir, StoreDir, boltFile))

	playBoot(t, "", errors.New("no boot id here"))
	s = openIn(t, dir, db)
	defer s.Close()
	assertGraphIsTable(t, s)
	if s.nosync {
		t.Fatal("graph commits are left unsynced without a boot id")
	}
	if _, err := s.apply(t.Context(), "hub", []Patch{{Op: OpAdd, Statement: Statement{Subject: Subject{ID: "ex:x"},
		Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:y"}}}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirtyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker written although every commit is synced: %v", err)
	}
}

// TestDeletedGraphIsRebuilt: a data dir whose knowledge.bolt is gone (no marker) gets the graph of
// its statements back, not an empty one that replays only the log after its position.
func TestDeletedGraphIsRebuilt(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	s.Close()
	if err := os.RemoveAll(filepath.Join(dir, StoreDir)); err != nil {
		t.Fatal(err)
	}
	s = openIn(t, dir, db)
	defer s.Close()
	assertGraphIsTable(t, s)
}

// TestMarkerFromThisBootReplaysWithoutRebuild: only the process died (same boot): the page cache
// holds every commit, so the bolt file is kept and the log after its position is replayed.
func TestMarkerFromThisBootReplaysWithoutRebuild(t *testing.T) {
	playBoot(t, "boot-1", nil)
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	// The crash: one update logged but not applied, the last graph commits not synced, no Close.
	if _, _, err := s.commit(t.Context(), "hub", []Patch{{Op: OpAdd, Statement: Statement{Subject: Subject{ID: "ex:late"},
		Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: "ex:n1"}}}}, "", nil); err != nil {
		t.Fatal(err)
	}
	s.stopSync()
	s.qs.Close()
	before, err := os.Stat(filepath.Join(dir, StoreDir, boltFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirtyFile)); err != nil {
		t.Fatalf("no marker while commits were unsynced: %v", err)
	}

	s = openIn(t, dir, db)
	defer s.Close()
	after, err := os.Stat(filepath.Join(dir, StoreDir, boltFile))
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("the bolt file was replaced (rebuilt) after a crash of this boot (%v)", err)
	}
	assertGraphIsTable(t, s)
	if _, err := os.Stat(filepath.Join(dir, DirtyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker after replay and sync: %v", err)
	}
}

// TestReplayOfWholeLogIsIdempotent: replaying every change over a graph that already holds them
// all (its position lost, as when a crash came before it was first recorded) leaves the graph as
// kg_statements says, twice in a row.
func TestReplayOfWholeLogIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	s.Close()
	for range 2 {
		filePosition(t, dir, 0)
		s = openIn(t, dir, db)
		assertGraphIsTable(t, s)
		s.Close()
	}
}

// TestRebuildCutShortIsDoneAgain: a rebuild stopped half-way (here by a cancelled context after
// the new file was created) leaves the marker, so the next start rebuilds again instead of taking
// the half-built file for the graph.
func TestRebuildCutShortIsDoneAgain(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	s.Close() // the graph's position: the last change
	s = openIn(t, dir, db)
	s.stopSync()
	s.qs.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.rebuildGraph(ctx, filepath.Join(dir, StoreDir), "test"); err == nil {
		t.Fatal("rebuild with a cancelled context succeeded")
	}
	s.qs.Close()

	s = openIn(t, dir, db)
	defer s.Close()
	assertGraphIsTable(t, s)
}

// TestGraphFileIsPrivate: the bolt file is created 0600, as the README promises, and one an
// earlier version created 0644 is made 0600 when opened.
func TestGraphFileIsPrivate(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	path := filepath.Join(dir, StoreDir, boltFile)
	assertMode := func(when string) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Fatalf("%s: %s is %o, want 600", when, boltFile, m)
		}
	}
	s := openIn(t, dir, db)
	s.Close()
	assertMode("created")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s = openIn(t, dir, db)
	s.Close()
	assertMode("reopened")
}

// TestGraphOfEarlierVersionTakesItsPositionFromTheDatabase: a graph written before the position
// was kept in its file (one process owned the database, which kept the position in kg_state)
// starts from kg_state's and has its own in the file from then on.
func TestGraphOfEarlierVersionTakesItsPositionFromTheDatabase(t *testing.T) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	s.Close()
	last, err := lastChangeSeq(t.Context(), db.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// The earlier version's data dir: no position in the file, the one in kg_state.
	bdb, err := bolt.Open(filepath.Join(dir, StoreDir, boltFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(positionBucket) }); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	if err := writeState(t.Context(), db.Writer, "applied_seq", last); err != nil {
		t.Fatal(err)
	}
	s = openIn(t, dir, db)
	assertGraphIsTable(t, s)
	s.Close()
	if got := filePosition(t, dir, -1); got != last {
		t.Fatalf("the graph's file records position %d after a start, want kg_state's %d", got, last)
	}
}
