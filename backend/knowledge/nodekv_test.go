package knowledge

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/boltdb/bolt"
	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
	"github.com/hidal-go/hidalgo/kv"
	hbolt "github.com/hidal-go/hidalgo/kv/bolt"
)

// TestGraphFileKeepsReferenceCountsByID: the graph's bolt file has none of Cayley's 131,072 node
// buckets, but nodeBucket (each node's id by its hash) and refBucket (its reference count by id);
// after adds, a replace that drops a literal node and a removal, every node has exactly one count,
// and it is the number of times the graph's quads name it, as Cayley counts. A scan that would see
// the layout is refused, not answered wrongly.
func TestGraphFileKeepsReferenceCountsByID(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	someHistory(t, s)
	assertGraphIsTable(t, s)
	want := map[string]uint64{} // node hash → how many times the graph's quads name it
	it := s.qs.QuadsAllIterator()
	for it.Next(context.Background()) {
		q := s.qs.Quad(it.Result())
		for _, d := range quad.Directions {
			if v := q.Get(d); v != nil {
				h := quad.HashOf(v)
				want[string(h)]++
			}
		}
	}
	it.Close()
	s.Close()

	db, err := bolt.Open(filepath.Join(dir, StoreDir, boltFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, counts := map[string]uint64{}, map[uint64]uint64{}
	err = db.View(func(tx *bolt.Tx) error {
		if err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if isNodeBucket(name) {
				t.Errorf("Cayley's node bucket %q in the file", name)
			}
			return nil
		}); err != nil {
			return err
		}
		nodes, refs := tx.Bucket(nodeBucket), tx.Bucket(refBucket)
		if nodes == nil || refs == nil {
			t.Fatal("no node or reference bucket")
		}
		if err := nodes.ForEach(func(h, v []byte) error {
			id, err := nodeID(v)
			ids[string(h)] = id
			return err
		}); err != nil {
			return err
		}
		return refs.ForEach(func(k, v []byte) error {
			n, _ := binary.Uvarint(v)
			counts[binary.BigEndian.Uint64(k)] = n
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(want) || len(counts) != len(want) {
		t.Fatalf("%d nodes with an id, %d with a count; the graph names %d", len(ids), len(counts), len(want))
	}
	for h, n := range want {
		id, ok := ids[h]
		if !ok {
			t.Fatalf("node %x has no id", h)
		}
		if counts[id] != n {
			t.Fatalf("node %x (id %d): count %d, named %d times", h, id, counts[id], n)
		}
	}

	store := nodeKV{hbolt.New(db)}
	tx, err := store.Tx(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for _, pref := range []kv.Key{nil, {{'v', 1, 2}}, {{'n', 1, 2}}, {nodeBucket}, {refBucket}} {
		it := tx.Scan(pref)
		if it.Next(context.Background()) || !errors.Is(it.Err(), errNodeScan) {
			t.Fatalf("scan of %q: not refused (%v)", pref, it.Err())
		}
	}
	it2 := tx.Scan(kv.Key{logBucket})
	n := 0
	for it2.Next(context.Background()) {
		n++
	}
	if it2.Err() != nil || n < 100 {
		t.Fatalf("scan of the log: %d entries, %v", n, it2.Err())
	}
}

// TestReferenceCountOfNodeWithoutIDIsRefused: a count is kept by the node's id, so one for a node
// this layout has no id for is an error, not a count filed under a wrong or zero id.
func TestReferenceCountOfNodeWithoutIDIsRefused(t *testing.T) {
	db, err := hbolt.Open(filepath.Join(t.TempDir(), "g.bolt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := nodeKV{db}.Tx(true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for _, b := range []byte{'v', 'n'} {
		if err := kv.CreateBucket(t.Context(), tx, kv.Key{{b, 1, 2}}); err != nil {
			t.Fatal(err)
		}
	}
	h := []byte{1, 2, 3}
	if err := tx.Put(kv.Key{{'n', 1, 2}, h}, []byte{1}); !errors.Is(err, errNoNodeID) {
		t.Fatalf("count of a node without id: %v", err)
	}
	if err := tx.Put(kv.Key{{'v', 1, 2}, h}, binary.AppendUvarint(nil, 300)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Put(kv.Key{{'n', 1, 2}, h}, []byte{2}); err != nil {
		t.Fatal(err)
	}
	if v, err := tx.Get(t.Context(), refKey(300)); err != nil || !bytes.Equal(v, []byte{2}) {
		t.Fatalf("count under id 300: %v %v", v, err)
	}
	// Deleted as Cayley does it, count first; then the count is gone with its id.
	for _, b := range []byte{'n', 'v'} {
		if err := tx.Del(kv.Key{{b, 1, 2}, h}); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := tx.GetBatch(t.Context(), []kv.Key{{{'v', 1, 2}, h}, {{'n', 1, 2}, h}})
	if err != nil || vs[0] != nil || vs[1] != nil {
		t.Fatalf("after deletion: %v %v", vs, err)
	}
}

// TestGraphOfEarlierLayoutIsRebuilt: a data dir whose graph is in the file of an earlier version
// (indexes.bolt, Cayley's own layout; graph.bolt, node buckets folded under the hash) gets its graph
// rebuilt from kg_statements in this layout, and the old file is gone.
func TestGraphOfEarlierLayoutIsRebuilt(t *testing.T) {
	for _, oldBoltFile := range []string{"indexes.bolt", "graph.bolt"} {
		t.Run(oldBoltFile, func(t *testing.T) { graphOfEarlierLayoutIsRebuilt(t, oldBoltFile) })
	}
}

func graphOfEarlierLayoutIsRebuilt(t *testing.T, oldBoltFile string) {
	dir := t.TempDir()
	db := openHubDB(t, dir)
	s := openIn(t, dir, db)
	someHistory(t, s)
	s.Close()
	// The earlier version's file, holding a quad kg_statements does not: it must not be read.
	store := filepath.Join(dir, StoreDir)
	if err := os.RemoveAll(store); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(store, 0o700); err != nil {
		t.Fatal(err)
	}
	old, err := hbolt.Open(filepath.Join(store, oldBoltFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cayleykv.Init(old, graphOptions); err != nil {
		t.Fatal(err)
	}
	qs, err := cayleykv.New(old, graphOptions)
	if err != nil {
		t.Fatal(err)
	}
	if err := qs.ApplyDeltas([]graph.Delta{{Quad: quad.MakeIRI("ex:stale", "ex:p", "ex:o", ""), Action: graph.Add}}, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	qs.Close()

	s = openIn(t, dir, db)
	defer s.Close()
	assertGraphIsTable(t, s)
	if _, err := os.Stat(filepath.Join(store, oldBoltFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the earlier layout's file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, DirtyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker after the rebuild: %v", err)
	}
}
