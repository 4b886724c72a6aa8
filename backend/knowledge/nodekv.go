package knowledge

import (
	"context"
	"errors"

	"github.com/hidal-go/hidalgo/kv"
)

// nodeBucket is the one bolt bucket that holds what Cayley's kv store keeps in its node buckets.
var nodeBucket = []byte("nodes")

// nodeKV is the bolt store under Cayley with Cayley's node buckets folded into nodeBucket.
//
// Cayley's kv store keeps, for each node, its id in bucket v<h0><h1> and its reference count in
// bucket n<h0><h1>, both under the node's hash h: 131,072 buckets, each a few entries, which bolt
// inlines as values of its root bucket. Adding a statement then rewrites, per node, two root leaf
// pages (one per bucket), and each bucket touched costs a seek in the 131k-key root to open it, one
// more to create-if-missing it on every write, and its re-encoding into the root at commit: at 1M
// statements about a third of the graph's CPU. Here the key k of bucket <kind><i><j> is stored in
// nodeBucket as <i><j> k <kind>: one ordinary bucket, where a node's id and reference count are
// neighbours (Cayley's hash starts with <i><j>, so they sort by hash) and a statement's write of
// both lands on one page. Everything else passes through unchanged.
//
// Cayley v0.7.7 never scans its node buckets (it reads them by key), so a scan of one, or of the
// whole store, is refused with an error rather than answered from the folded layout.
type nodeKV struct{ kv.KV }

func (s nodeKV) Tx(rw bool) (kv.Tx, error) {
	tx, err := s.KV.Tx(rw)
	if err != nil {
		return nil, err
	}
	return nodeTx{tx}, nil
}

// isNodeBucket says whether b names one of Cayley's node buckets: v or n, then two bytes.
func isNodeBucket(b []byte) bool { return len(b) == 3 && (b[0] == 'v' || b[0] == 'n') }

// foldKey is k's place in the folded layout (k itself when k is not in a node bucket).
func foldKey(k kv.Key) kv.Key {
	if len(k) == 0 || !isNodeBucket(k[0]) {
		return k
	}
	if len(k) == 1 || len(k) == 2 && len(k[1]) == 0 {
		return kv.Key{nodeBucket, nil} // the bucket itself (Cayley's "upfront" creation)
	}
	b := k[0]
	name := make([]byte, 0, len(k[1])+3)
	name = append(append(append(name, b[1], b[2]), k[1]...), b[0])
	return append(kv.Key{nodeBucket, name}, k[2:]...)
}

type nodeTx struct{ kv.Tx }

func (tx nodeTx) Get(ctx context.Context, k kv.Key) (kv.Value, error) {
	return tx.Tx.Get(ctx, foldKey(k))
}

func (tx nodeTx) GetBatch(ctx context.Context, keys []kv.Key) ([]kv.Value, error) {
	folded := make([]kv.Key, len(keys))
	for i, k := range keys {
		folded[i] = foldKey(k)
	}
	return tx.Tx.GetBatch(ctx, folded)
}

func (tx nodeTx) Put(k kv.Key, v kv.Value) error { return tx.Tx.Put(foldKey(k), v) }

func (tx nodeTx) Del(k kv.Key) error { return tx.Tx.Del(foldKey(k)) }

// errNodeScan refuses a scan that would see the folded layout.
var errNodeScan = errors.New("knowledge graph: scanning Cayley's node buckets (or the whole store) is not supported")

func (tx nodeTx) Scan(pref kv.Key) kv.Iterator {
	if len(pref) == 0 || isNodeBucket(pref[0]) || string(pref[0]) == string(nodeBucket) {
		return errIterator{errNodeScan}
	}
	return tx.Tx.Scan(pref)
}

// errIterator is an iterator that has nothing and fails with err.
type errIterator struct{ err error }

func (errIterator) Next(context.Context) bool { return false }
func (errIterator) Key() kv.Key               { return nil }
func (errIterator) Val() kv.Value             { return nil }
func (it errIterator) Err() error             { return it.err }
func (errIterator) Close() error              { return nil }
