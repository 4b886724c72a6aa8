package knowledge

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/boltdb/bolt"
	"github.com/cayleygraph/cayley/graph"
	cayleykv "github.com/cayleygraph/cayley/graph/kv"
	hbolt "github.com/hidal-go/hidalgo/kv/bolt"
)

// How the graph's bolt file is kept sound without an fsync per update.
//
// hub.db is the truth: an update is acknowledged once its statements and its change-log entries are
// committed there (synchronous=FULL). The graph only has to end up equal to the log. Its bolt file
// is therefore written without fsync (bolt's NoSync) and synced in the background (syncGraph, every
// syncEvery), which takes bolt's fsync off the acknowledged path. What that risks, and why each case
// is covered:
//
//   - The process dies (kill -9, a panic): the OS still has every page bolt wrote, and bolt commits
//     are atomic in the page cache (its meta page is written last), so the file is bolt's state after
//     some commit. The graph's position in the log (positionBucket) is written by a bolt commit after
//     those of the changes up to it, so it is never ahead of the graph; the changes after it are replayed on start, and
//     replay is idempotent (each quad is set to what its last change says, after looking whether the
//     graph has it). This is the same recovery as when every commit was synced.
//   - The OS dies (power loss, kernel crash): unsynced bolt pages may be lost in any order, and bolt
//     without fsync can then be structurally broken (a meta page on disk before its data pages, or
//     pages of a synced commit overwritten by a later unsynced one that reused them), not merely
//     behind. So before the first unsynced commit the marker file DirtyFile is written and fsynced
//     (with its directory), holding the kernel's boot id; it is removed only after a Sync with no
//     commit since (under the lock every graph commit takes) and a quiet markerIdle. On start a marker
//     whose boot id is this boot's means only the process died: replay suffices. A marker from another
//     boot, or one whose boot id cannot be compared, means the page cache may be gone: knowledge.bolt
//     is thrown away and rebuilt from kg_statements, which hold every statement (rebuildGraph). No
//     marker means every commit had been synced. A marker removal lost to a power cut only costs a
//     needless rebuild.
//
// Where the boot id cannot be read (systems other than Linux), a process crash and a reboot cannot be
// told apart, so the graph is opened with bolt's own fsync per commit, as before.

// DirtyFile, in the data dir, says knowledge.bolt has commits that may not be on disk (see above).
const DirtyFile = "knowledge.bolt.unsynced"

// boltFile is the bolt file in StoreDir: Cayley's kv store with its node buckets laid out by
// nodeKV (ids by hash, reference counts by id). Earlier versions kept other layouts in other
// files: Cayley's own in indexes.bolt (the name Cayley's bolt backend gives it), then the node
// buckets folded into one under the hash in graph.bolt. In such a data dir boltFile is missing, so
// Open rebuilds the graph from kg_statements, and the rebuild removes the old file with the rest
// of StoreDir.
const boltFile = "graph2.bolt"

const (
	// syncEvery is how often unsynced graph commits are synced. Only a process crash's replay (half
	// a second of changes at most) grows with it. Each sync makes the kernel write back, in the
	// syncing thread, every page dirtied since the last, and bolt rewrites the same freed pages over
	// and over: at 1M statements, 1,000 per update, one updater got 15.6-16.4k statements a second
	// syncing every 200 ms (24-27 us of kernel time per statement), 17.3-18.5k every 1 s and
	// 18.2-18.7k every 500 ms (19-21 us). A longer interval makes each sync a larger burst, and
	// hub.db's fsync seems to wait behind it: single updates at 1M went from 1,844-2,018 a second (200 ms) to
	// 1,071-1,681 (1 s) and 1,789 (500 ms).
	syncEvery  = 500 * time.Millisecond
	markerIdle = 5 * time.Second // how long the graph stays synced and quiet before DirtyFile goes
)

// bootID is the kernel's id of this boot (a test replaces it to play a reboot).
var bootID = func() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	id := strings.TrimSpace(string(b))
	if err == nil && id == "" {
		err = errors.New("empty boot id")
	}
	return id, err
}

// graphOptions are Cayley's options for the kv store: no_bloom saves ~300 MB of heap at 1M quads.
var graphOptions = graph.Options{"no_bloom": true}

// initialMmapSize is how much of the bolt file is mapped from the start. Bolt remaps the file when a
// commit grows it past the mapping, and the remap waits for every open read transaction; Cayley's
// iterators open a second read transaction inside a first (the second hop of a path inside the
// first), and that second one waits behind the pending remap: every read and write of the graph then
// hangs. Mapping 4 GiB up front (address space, not memory: pages are read in as they are used) means
// no remap until the file passes 4 GiB, about ten million statements. On Windows bolt would grow the
// file to the mapping's size, so there it keeps its default and the hazard.
var initialMmapSize = func() int {
	if runtime.GOOS == "windows" || strconv.IntSize == 32 {
		return 0
	}
	return 4 << 30
}()

// openGraph opens (creating it when missing) the bolt store in dir. nosync leaves the fsync of its
// commits to Sync.
func openGraph(dir string, nosync bool) (graph.QuadStore, *bolt.DB, bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, false, err
	}
	// Opened here, not by hbolt.Open, which creates the file 0644: the graph is as private as
	// hub.db. A file an earlier version created 0644 is narrowed too.
	path := filepath.Join(dir, boltFile)
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{InitialMmapSize: initialMmapSize})
	if err != nil {
		return nil, nil, false, fmt.Errorf("open %s: %w", dir, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		bdb.Close()
		return nil, nil, false, err
	}
	kv := hbolt.New(bdb)
	bdb.NoSync, bdb.NoGrowSync = nosync, nosync
	cached := newLogCacheKV(nodeKV{kv})
	created := true
	if err := cayleykv.Init(cached, graphOptions); errors.Is(err, graph.ErrDatabaseExists) {
		created = false
	} else if err != nil {
		kv.Close()
		return nil, nil, false, fmt.Errorf("init %s: %w", dir, err)
	}
	qs, err := cayleykv.New(cached, graphOptions)
	if err != nil {
		kv.Close()
		return nil, nil, false, fmt.Errorf("open %s: %w", dir, err)
	}
	return newNamedStore(qs), bdb, created, nil
}

// readMarker says whether the marker left by the last run is there, and whether it means
// knowledge.bolt may be damaged (it is from another boot, or this boot's id cannot be read).
func readMarker(marker string) (exists, rebuild bool, err error) {
	b, err := os.ReadFile(marker)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	boot, err := bootID()
	return true, err != nil || strings.TrimSpace(string(b)) != boot, nil
}

// markUnsynced makes the marker durable before a commit that will not be synced at once. Called
// with s.mu held (every graph commit holds it).
func (s *Service) markUnsynced() error {
	if !s.nosync || s.markerOn {
		return nil
	}
	if err := writeSynced(s.marker, []byte(s.boot+"\n")); err != nil {
		return fmt.Errorf("knowledge: write %s: %w", s.marker, err)
	}
	s.markerOn = true
	return nil
}

// writeSynced writes a file and fsyncs it and its directory, so it exists after a power loss.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// syncLoop syncs the graph every syncEvery until stop is closed.
func (s *Service) syncLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(syncEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := s.syncGraph(context.Background(), false); err != nil {
				s.log.Error("knowledge graph sync failed; it will be tried again", "err", err)
			}
		}
	}
}

// syncGraph records in the bolt file how far the graph is in the log, makes the graph's commits
// durable, and removes the marker once nothing is unsynced (at once when final, else after
// markerIdle of quiet). Only this (and Close and Open, while nothing else runs) writes synced and
// recorded.
func (s *Service) syncGraph(ctx context.Context, final bool) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	seq := s.applied
	var err error
	if seq != s.recorded {
		// Under s.mu, so after every graph commit up to seq: the file never says it holds more
		// than it does. The position is a commit like the graph's: unsynced, it needs the marker.
		if err = s.markUnsynced(); err == nil {
			err = writePosition(s.bolt, seq)
			s.releaseMapped() // as after the graph's own commits
		}
		if err == nil {
			s.recorded = seq
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if seq != s.synced {
		// Every commit up to seq has completed (s.applied is set after the commit, under s.mu),
		// so its pages are in the file; Sync (fdatasync) puts them on disk. A commit running
		// meanwhile may reach the disk in part, but bolt writes a commit into pages that the last
		// complete commit's meta page does not refer to, and its own meta page last.
		if err := s.bolt.Sync(); err != nil {
			return err
		}
		s.mu.Lock()
		s.synced = seq
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.markerOn && s.applied == s.synced && (final || time.Since(s.lastCommit) >= markerIdle) {
		// No commit since the Sync (they all take s.mu): the file on disk is the graph.
		if err := os.Remove(s.marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		s.markerOn = false
	}
	return nil
}

// releaseMapped drops the pages of the bolt file from the process's mapping after a graph commit
// (mapping_linux.go says what that does and does not do). Called with s.mu held, or while nothing
// else runs (Open). A failure costs only memory, so it is logged.
func (s *Service) releaseMapped() {
	if err := releaseMapped(s.bolt); err != nil && !s.releaseFailed {
		s.releaseFailed = true
		s.log.Warn("knowledge graph: releasing the bolt file's mapped pages failed", "err", err)
	}
}

// rebuildGraph replaces the graph in dir with the statements of kg_statements, read in one
// snapshot with the last change logged, which becomes the graph's position: nothing needs replaying
// after.
// The marker stays until the new file is synced, so a crash meanwhile rebuilds again. why is
// logged.
func (s *Service) rebuildGraph(ctx context.Context, dir, why string) error {
	// Until the new file is complete and synced, a start must rebuild again: the marker says so
	// (its text is no boot id), also when the rebuild is for a deleted knowledge.bolt.
	if err := writeSynced(s.marker, []byte("rebuilding\n")); err != nil {
		return err
	}
	s.markerOn = true
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	qs, bdb, _, err := openGraph(dir, s.nosync)
	if err != nil {
		return err
	}
	s.qs, s.bolt = qs, bdb
	// The last change and the statements are read in one snapshot: SQLite's read transaction is
	// one; PostgreSQL's default (read committed) takes a snapshot per statement.
	opts := &sql.TxOptions{ReadOnly: true}
	if s.db.Postgres() {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.db.Reader.BeginTx(ctx, opts)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	last, err := lastChangeSeq(ctx, tx)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+rowColumns+` FROM kg_statements ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	ds := make([]graph.Delta, 0, rebuildBatch)
	n := 0
	flush := func() error {
		if len(ds) == 0 {
			return nil
		}
		err := qs.ApplyDeltas(ds, graph.IgnoreOpts{}) // kg_statements has each quad once
		s.releaseMapped()
		n += len(ds)
		ds = ds[:0]
		return err
	}
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return err
		}
		ds = append(ds, graph.Delta{Quad: r.Stmt.quadOf(), Action: graph.Add})
		if len(ds) == rebuildBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	if err := writePosition(bdb, last); err != nil {
		return err
	}
	if err := bdb.Sync(); err != nil {
		return err
	}
	s.applied, s.synced, s.recorded = last, last, last
	if err := os.Remove(s.marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	s.markerOn = false
	s.log.Warn("knowledge graph rebuilt from the hub's database: "+why, "statements", n, "seq", last)
	return nil
}

// rebuildBatch is how many statements a rebuild puts in one graph commit: the size of an update's
// commits (graphTxMax), for the same reason. A rebuild of 1M statements (an upgrade from graph.bolt)
// peaked at 385 MiB (VmHWM) with 10,000 a commit and took 19 s; with 1,000, 214 MiB and 28 s.
const rebuildBatch = graphTxMax

// The graph's position in the change log (the last change it holds) is kept in the bolt file, in a
// bucket of its own beside Cayley's: each replica of a hub on PostgreSQL has its own graph over the
// one log, so the position belongs to the graph, not to the database (which earlier versions kept it
// in: kg_state.applied_seq, read once when the file has no position yet).
var (
	positionBucket = []byte("agenthub")
	positionKey    = []byte("applied_seq")
)

// readPosition is the position recorded in bdb; ok is false when none is.
func readPosition(bdb *bolt.DB) (seq int64, ok bool, err error) {
	err = bdb.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket(positionBucket); b != nil {
			if v := b.Get(positionKey); len(v) == 8 {
				seq, ok = int64(binary.BigEndian.Uint64(v)), true
			}
		}
		return nil
	})
	return seq, ok, err
}

// writePosition records seq as the graph's position in bdb, in a commit of its own (synced by bolt
// unless bdb is NoSync).
func writePosition(bdb *bolt.DB, seq int64) error {
	return bdb.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(positionBucket)
		if err != nil {
			return err
		}
		return b.Put(positionKey, binary.BigEndian.AppendUint64(nil, uint64(seq)))
	})
}
