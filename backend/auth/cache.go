package auth

import (
	"context"
	"database/sql"
	"sync"
)

// cache remembers what the principals table answered (an API key's holder, a principal's key
// generation) for as long as auth_epoch has not moved. Triggers bump the counter on every change
// to a key, a generation or a revocation, whoever makes it: this hub, or `agenthub principals` in
// another process. Every request still reads the counter, one row by its primary key (a key lookup
// read its rows and cost two to three times as much), and finding it moved drops everything, so a
// key revoked anywhere stops working at the next request, as without the cache.
//
// Why a read then a hit is safe: the counter only grows, each change of the principals table bumps
// it in the same transaction, and an entry is read from the table after the counter it is filed
// under (a later read transaction sees at least what an earlier one saw). So an entry filed under
// the counter value a request reads reflects every change committed before that request.
// Only successful lookups are kept: an unknown key is looked up every time, as before.
type cache struct {
	epochStmt *sql.Stmt // SELECT n FROM auth_epoch, on the reader pool

	mu    sync.RWMutex
	epoch int64                  // what keys and gens were read under; 0: nothing yet
	keys  map[[32]byte]keyHolder // sha256 of an API key → its active holder
	gens  map[string]int64       // name of an active principal → its key generation
}

type keyHolder struct {
	name       string
	generation int64
}

func newCache(ctx context.Context, reader *sql.DB) (*cache, error) {
	st, err := reader.PrepareContext(ctx, `SELECT n FROM auth_epoch WHERE id = 1`)
	if err != nil {
		return nil, err
	}
	return &cache{epochStmt: st, keys: map[[32]byte]keyHolder{}, gens: map[string]int64{}}, nil
}

// current reads the counter. The read is not tied to the request's cancellation: it is one row,
// and a cancellable context makes the driver watch it from a goroutine of its own per query.
func (c *cache) current(ctx context.Context) (int64, error) {
	var n int64
	err := c.epochStmt.QueryRowContext(context.WithoutCancel(ctx)).Scan(&n)
	return n, err
}

func (c *cache) key(epoch int64, hash [32]byte) (keyHolder, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	h, ok := c.keys[hash]
	return h, ok && c.epoch == epoch
}

func (c *cache) generation(epoch int64, name string) (int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	g, ok := c.gens[name]
	return g, ok && c.epoch == epoch
}

// at makes epoch the cache's counter, dropping what was read under another one, and reports
// whether entries may be filed under it (not when the cache already moved past it).
func (c *cache) at(epoch int64) bool {
	switch {
	case c.epoch == epoch:
		return true
	case c.epoch > epoch:
		return false // a newer request already moved the cache: this lookup may be older
	}
	c.epoch = epoch
	clear(c.keys)
	clear(c.gens)
	return true
}

func (c *cache) putKey(epoch int64, hash [32]byte, h keyHolder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at(epoch) {
		c.keys[hash] = h
		c.gens[h.name] = h.generation
	}
}

func (c *cache) putGeneration(epoch int64, name string, gen int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at(epoch) {
		c.gens[name] = gen
	}
}
