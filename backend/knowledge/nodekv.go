package knowledge

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hidal-go/hidalgo/kv"
)

// The two bolt buckets that hold what Cayley's kv store keeps in its node buckets.
var (
	nodeBucket = []byte("nodes") // a node's hash → its id (Cayley's value, a uvarint)
	refBucket  = []byte("refs")  // a node's id, 8 bytes big-endian → its reference count (Cayley's value)
)

// nodeKV is the bolt store under Cayley with Cayley's node buckets laid out for writing.
//
// Cayley's kv store keeps, for each node, its id in bucket v<h0><h1> and its reference count in
// bucket n<h0><h1>, both under the node's hash h: 131,072 buckets of a few entries, which bolt
// inlines as values of its root bucket. Every statement added bumps the reference count of each of
// its nodes, so under hashes every node it names rewrites a page chosen at random: at 1M statements
// a batch of 1,000 new statements rewrote 2.35 pages per statement, most of the graph's CPU
// (reading each page into Go objects, splitting and writing it back, faulting it in again).
//
// Here the ids stay under the hash, in nodeBucket (a node is found by its value, so that lookup is
// by hash), but the reference counts are kept under the node's id, in refBucket. Ids are given out
// in sequence, so the nodes a batch creates have their counts side by side on a few pages, and so
// do nodes created together and named together later (the entities of one import, a document's
// terms). Only a new node's id still lands on a page of its own; an existing node's is only read.
// To find a count by hash, the id is looked up: a transaction remembers the ids it has read or
// written (Cayley always resolves a node before it touches its count, in the same transaction).
//
// Cayley v0.7.7 never scans its node buckets (it reads them by key), so a scan of one, or of the
// whole store, is refused with an error rather than answered from this layout.
type nodeKV struct{ kv.KV }

func (s nodeKV) Tx(rw bool) (kv.Tx, error) {
	tx, err := s.KV.Tx(rw)
	if err != nil {
		return nil, err
	}
	return &nodeTx{Tx: tx}, nil
}

// isNodeBucket says whether b names one of Cayley's node buckets: v or n, then two bytes.
func isNodeBucket(b []byte) bool { return len(b) == 3 && (b[0] == 'v' || b[0] == 'n') }

// nodeKey says whether k is a key of one of Cayley's node buckets (and which: 'v' or 'n'), and
// gives its hash; a key naming only the bucket (Cayley's creation of its buckets) has none.
func nodeKey(k kv.Key) (kind byte, hash []byte, ok bool) {
	if len(k) == 0 || !isNodeBucket(k[0]) {
		return 0, nil, false
	}
	if len(k) >= 2 {
		hash = k[1]
	}
	return k[0][0], hash, true
}

// bucketOf is where this layout keeps what Cayley keeps in node bucket kind.
func bucketOf(kind byte) []byte {
	if kind == 'n' {
		return refBucket
	}
	return nodeBucket
}

// refKey is the key of the reference count of node id in refBucket.
func refKey(id uint64) kv.Key {
	return kv.Key{refBucket, binary.BigEndian.AppendUint64(make([]byte, 0, 8), id)}
}

// nodeID reads an id as Cayley writes it in its v buckets.
func nodeID(v []byte) (uint64, error) {
	id, n := binary.Uvarint(v)
	if n <= 0 || id == 0 {
		return 0, fmt.Errorf("knowledge graph: malformed node id %x", v)
	}
	return id, nil
}

type nodeTx struct {
	kv.Tx
	ids map[string]uint64 // node hash → id, as this transaction has read or written them
}

// remember notes that the node with this hash has the id v (as Cayley writes it), and returns it.
func (tx *nodeTx) remember(hash, v []byte) (uint64, error) {
	id, err := nodeID(v)
	if err != nil {
		return 0, err
	}
	if tx.ids == nil {
		tx.ids = make(map[string]uint64)
	}
	tx.ids[string(hash)] = id
	return id, nil
}

// idsOf gives the id of each node hash (0 for a node that has none), from what this transaction
// remembers, then from nodeBucket in one batch.
func (tx *nodeTx) idsOf(ctx context.Context, hashes [][]byte) ([]uint64, error) {
	ids := make([]uint64, len(hashes))
	var miss []kv.Key
	var at []int
	for i, h := range hashes {
		if id, ok := tx.ids[string(h)]; ok {
			ids[i] = id
			continue
		}
		miss, at = append(miss, kv.Key{nodeBucket, h}), append(at, i)
	}
	if len(miss) == 0 {
		return ids, nil
	}
	vs, err := tx.Tx.GetBatch(ctx, miss)
	if err != nil {
		return nil, err
	}
	for j, v := range vs {
		if v == nil {
			continue
		}
		id, err := tx.remember(hashes[at[j]], v)
		if err != nil {
			return nil, err
		}
		ids[at[j]] = id
	}
	return ids, nil
}

func (tx *nodeTx) Get(ctx context.Context, k kv.Key) (kv.Value, error) {
	return getOne(ctx, tx.GetBatch, k)
}

// GetBatch reads every key but the reference counts in one batch, then the counts by id.
func (tx *nodeTx) GetBatch(ctx context.Context, keys []kv.Key) ([]kv.Value, error) {
	out := make([]kv.Value, len(keys))
	var direct []kv.Key
	var directAt, refsAt []int
	var refHashes [][]byte
	for i, k := range keys {
		kind, hash, ok := nodeKey(k)
		switch {
		case !ok:
			direct, directAt = append(direct, k), append(directAt, i)
		case len(k) != 2:
			// A bucket, or a key below a node's key: Cayley's node buckets hold neither.
		case kind == 'n':
			refsAt, refHashes = append(refsAt, i), append(refHashes, hash)
		default:
			direct, directAt = append(direct, kv.Key{nodeBucket, hash}), append(directAt, i)
		}
	}
	if len(direct) > 0 {
		vs, err := tx.Tx.GetBatch(ctx, direct)
		if err != nil {
			return nil, err
		}
		for j, v := range vs {
			i := directAt[j]
			out[i] = v
			if kind, hash, ok := nodeKey(keys[i]); ok && kind == 'v' && v != nil {
				if _, err := tx.remember(hash, v); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(refsAt) > 0 {
		ids, err := tx.idsOf(ctx, refHashes)
		if err != nil {
			return nil, err
		}
		var byID []kv.Key
		var byIDAt []int
		for j, id := range ids {
			if id != 0 {
				byID, byIDAt = append(byID, refKey(id)), append(byIDAt, refsAt[j])
			}
		}
		if len(byID) > 0 {
			vs, err := tx.Tx.GetBatch(ctx, byID)
			if err != nil {
				return nil, err
			}
			for j, v := range vs {
				out[byIDAt[j]] = v
			}
		}
	}
	return out, nil
}

// errNoNodeID refuses a reference count for a node that has no id: Cayley gives a node its id
// before it counts its references, and deletes the count before the id.
var errNoNodeID = errors.New("knowledge graph: reference count of a node without an id")

func (tx *nodeTx) Put(k kv.Key, v kv.Value) error {
	kind, hash, ok := nodeKey(k)
	switch {
	case !ok:
		return tx.Tx.Put(k, v)
	case hash == nil && len(k) <= 2:
		return tx.Tx.Put(kv.Key{bucketOf(kind), nil}, v) // the bucket itself (Cayley's "upfront" creation)
	case len(k) != 2:
		return fmt.Errorf("knowledge graph: unexpected key %q in Cayley's node buckets", k)
	case kind == 'v':
		if _, err := tx.remember(hash, v); err != nil {
			return err
		}
		return tx.Tx.Put(kv.Key{nodeBucket, hash}, v)
	}
	ids, err := tx.idsOf(context.Background(), [][]byte{hash})
	if err != nil {
		return err
	}
	if ids[0] == 0 {
		return errNoNodeID
	}
	return tx.Tx.Put(refKey(ids[0]), v)
}

func (tx *nodeTx) Del(k kv.Key) error {
	kind, hash, ok := nodeKey(k)
	if !ok {
		return tx.Tx.Del(k)
	}
	if len(k) != 2 {
		return fmt.Errorf("knowledge graph: unexpected deletion of %q in Cayley's node buckets", k)
	}
	// A count is found by its node's id; deleting the id looks it up too, so that it is remembered
	// for a count deleted after it in this transaction (Cayley deletes the count first).
	ids, err := tx.idsOf(context.Background(), [][]byte{hash})
	if err != nil || ids[0] == 0 {
		return err // nothing to delete
	}
	if kind == 'v' {
		return tx.Tx.Del(kv.Key{nodeBucket, hash})
	}
	return tx.Tx.Del(refKey(ids[0]))
}

// errNodeScan refuses a scan that would see this layout.
var errNodeScan = errors.New("knowledge graph: scanning Cayley's node buckets (or the whole store) is not supported")

func (tx *nodeTx) Scan(pref kv.Key) kv.Iterator {
	if len(pref) == 0 || isNodeBucket(pref[0]) || string(pref[0]) == string(nodeBucket) || string(pref[0]) == string(refBucket) {
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
