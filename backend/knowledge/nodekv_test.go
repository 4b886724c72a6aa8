package knowledge

import (
	"bytes"
	"context"
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

// TestFoldKey: a key of Cayley's node buckets lands in nodeBucket, a node's id and reference count
// next to each other; every other key stays where it is.
func TestFoldKey(t *testing.T) {
	h := []byte{7, 9, 1, 2, 3}
	id, refs := foldKey(kv.Key{{'v', 7, 9}, h}), foldKey(kv.Key{{'n', 7, 9}, h})
	if len(id) != 2 || !bytes.Equal(id[0], nodeBucket) || !bytes.Equal(id[1], []byte{7, 9, 7, 9, 1, 2, 3, 'v'}) {
		t.Fatalf("id key folded to %q", id)
	}
	if !bytes.Equal(refs[1], []byte{7, 9, 7, 9, 1, 2, 3, 'n'}) {
		t.Fatalf("reference count key folded to %q", refs)
	}
	// Nothing of another node sorts between them.
	other := foldKey(kv.Key{{'n', 7, 9}, []byte{7, 9, 1, 2, 3, 0}})
	if lo, hi := min(string(id[1]), string(refs[1])), max(string(id[1]), string(refs[1])); string(other[1]) > lo && string(other[1]) < hi {
		t.Fatalf("%q sorts between %q and %q", other[1], id[1], refs[1])
	}
	for _, k := range []kv.Key{{[]byte("log"), {0, 0, 0, 0, 0, 0, 0, 1}}, {[]byte("sp"), h}, {[]byte("meta"), []byte("size")}, {[]byte("vx"), h}} {
		if got := foldKey(k); got.Compare(k) != 0 {
			t.Fatalf("%q folded to %q", k, got)
		}
	}
	if got := foldKey(kv.Key{{'v', 1, 2}}); len(got) != 2 || !bytes.Equal(got[0], nodeBucket) || got[1] != nil {
		t.Fatalf("a node bucket itself folded to %q", got)
	}
}

// TestGraphFileHasNodeBucketsFolded: the graph's bolt file has nodeBucket and none of Cayley's
// 131,072 node buckets, and a scan that would see them is refused, not answered wrongly.
func TestGraphFileHasNodeBucketsFolded(t *testing.T) {
	dir := t.TempDir()
	s := openIn(t, dir, openHubDB(t, dir))
	someHistory(t, s)
	assertGraphIsTable(t, s)
	s.Close()
	db, err := bolt.Open(filepath.Join(dir, StoreDir, boltFile), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(nodeBucket) == nil {
			t.Error("no node bucket")
		}
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if isNodeBucket(name) {
				t.Errorf("Cayley's node bucket %q in the file", name)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	store := nodeKV{hbolt.New(db)}
	tx, err := store.Tx(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for _, pref := range []kv.Key{nil, {{'v', 1, 2}}, {nodeBucket}} {
		it := tx.Scan(pref)
		if it.Next(context.Background()) || !errors.Is(it.Err(), errNodeScan) {
			t.Fatalf("scan of %q: not refused (%v)", pref, it.Err())
		}
	}
	it := tx.Scan(kv.Key{logBucket})
	n := 0
	for it.Next(context.Background()) {
		n++
	}
	if it.Err() != nil || n < 100 {
		t.Fatalf("scan of the log: %d entries, %v", n, it.Err())
	}
}

// TestGraphOfEarlierLayoutIsRebuilt: a data dir whose graph is in the layout of an earlier version
// (Cayley's own, in indexes.bolt) gets its graph rebuilt from kg_statements in the folded layout,
// and the old file is gone.
func TestGraphOfEarlierLayoutIsRebuilt(t *testing.T) {
	const oldBoltFile = "indexes.bolt"
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
