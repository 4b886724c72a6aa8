package knowledge

import (
	"bytes"
	"context"
	"sync"

	"github.com/hidal-go/hidalgo/kv"
)

// logCacheSize is how many entries of Cayley's log one generation of a logCacheKV holds (it keeps
// two): ~64k quads and nodes, ~10 MB.
const logCacheSize = 1 << 16

// logBucket is the bucket where Cayley's kv store keeps its log: every quad and node, by id, as a
// protobuf "primitive". Its quad iterators read each quad from there.
var logBucket = []byte("log")

// logCacheKV is the bolt store under Cayley with the entries of its log bucket cached.
//
// A 2-hop query reads every out-edge of every node it passes: a lookup in the index bucket, then
// one bolt seek per quad in the log bucket (after the node value cache, most of its time). The
// log entries are cached here by key, as bolt returned them. Soundness: every change to the store
// goes through a write transaction of this KV; a committed one drops the log keys it put or
// deleted from the cache (under mu) before its Commit returns, so before ApplyDeltas, and the
// update that ran it, do. A read transaction adds what it read only if no write transaction
// committed since it began (gen): otherwise it could have read the log as it was before that
// commit, after the commit dropped the key. Write transactions read bolt itself.
type logCacheKV struct {
	kv.KV

	mu        sync.RWMutex
	gen       uint64 // write transactions committed
	cur, prev map[string][]byte
}

func newLogCacheKV(db kv.KV) *logCacheKV {
	return &logCacheKV{KV: db, cur: make(map[string][]byte)}
}

func isLogKey(k kv.Key) bool { return len(k) == 2 && bytes.Equal(k[0], logBucket) }

func (c *logCacheKV) Tx(rw bool) (kv.Tx, error) {
	c.mu.RLock()
	gen := c.gen
	c.mu.RUnlock()
	tx, err := c.KV.Tx(rw)
	if err != nil {
		return nil, err
	}
	if rw {
		return &logWriteTx{Tx: tx, c: c}, nil
	}
	return &logReadTx{Tx: tx, c: c, gen: gen}, nil
}

func (c *logCacheKV) get(k []byte) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.cur[string(k)]
	if !ok {
		v, ok = c.prev[string(k)]
	}
	return v, ok
}

// put caches the entries read by a transaction begun at gen, unless a write committed since.
func (c *logCacheKV) put(gen uint64, keys []kv.Key, vals []kv.Value) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	for i, k := range keys {
		if vals[i] == nil {
			continue
		}
		if len(c.cur) >= logCacheSize {
			c.prev, c.cur = c.cur, make(map[string][]byte, logCacheSize)
		}
		c.cur[string(k[1])] = bytes.Clone(vals[i])
	}
}

// logReadTx serves log entries from the cache, and caches those it reads from bolt.
type logReadTx struct {
	kv.Tx
	c   *logCacheKV
	gen uint64
}

func (tx *logReadTx) Get(ctx context.Context, k kv.Key) (kv.Value, error) {
	return getOne(ctx, tx.GetBatch, k)
}

// getOne is a kv.Tx's Get of k answered by its GetBatch, for a transaction whose GetBatch does the
// work.
func getOne(ctx context.Context, getBatch func(context.Context, []kv.Key) ([]kv.Value, error), k kv.Key) (kv.Value, error) {
	vs, err := getBatch(ctx, []kv.Key{k})
	if err != nil {
		return nil, err
	}
	if vs[0] == nil {
		return nil, kv.ErrNotFound
	}
	return vs[0], nil
}

func (tx *logReadTx) GetBatch(ctx context.Context, keys []kv.Key) ([]kv.Value, error) {
	out, miss, at := fromCache(keys, func(k kv.Key) (kv.Value, bool) {
		if !isLogKey(k) {
			return nil, false
		}
		return tx.c.get(k[1])
	})
	if len(miss) == 0 {
		return out, nil
	}
	vs, err := tx.Tx.GetBatch(ctx, miss)
	if err != nil {
		return nil, err
	}
	var logKeys []kv.Key
	var logVals []kv.Value
	for j, v := range vs {
		out[at[j]] = v
		if isLogKey(miss[j]) {
			logKeys, logVals = append(logKeys, miss[j]), append(logVals, v)
		}
	}
	if len(logKeys) > 0 {
		tx.c.put(tx.gen, logKeys, logVals)
	}
	return out, nil
}

// logWriteTx notes the log keys it changes, and drops them from the cache when it commits.
type logWriteTx struct {
	kv.Tx
	c       *logCacheKV
	touched [][]byte
}

func (tx *logWriteTx) Put(k kv.Key, v kv.Value) error {
	if isLogKey(k) {
		tx.touched = append(tx.touched, bytes.Clone(k[1]))
	}
	return tx.Tx.Put(k, v)
}

func (tx *logWriteTx) Del(k kv.Key) error {
	if isLogKey(k) {
		tx.touched = append(tx.touched, bytes.Clone(k[1]))
	}
	return tx.Tx.Del(k)
}

func (tx *logWriteTx) Commit(ctx context.Context) error {
	err := tx.Tx.Commit(ctx)
	// Also after a failed commit: bolt may have written part of it (the cache then only costs a read).
	tx.c.mu.Lock()
	tx.c.gen++
	for _, k := range tx.touched {
		delete(tx.c.cur, string(k))
		delete(tx.c.prev, string(k))
	}
	tx.c.mu.Unlock()
	tx.touched = nil
	return err
}
