// Package knowledge is the hub's knowledge graph and the A2A knowledge-graph extension's methods
// (knowledge/query, knowledge/update, knowledge/subscribe).
//
// Storage: the triples live in a Cayley kv/bolt store in the data dir (knowledge.bolt/), opened
// with no_bloom: it is Cayley's only persistent pure-Go backend, node-centric reads take well under
// a millisecond at 1M quads, and no_bloom saves ~300 MB of heap and the ~1 s open-time scan. The
// statements' metadata (certainty, provenance, source, justification, times) and the change log
// live in hub.db. An update is written to hub.db first (statements and log in one transaction: the
// log is the truth), then applied to the graph, whose bolt file is synced in the background
// (graphstore.go); the bolt file records how far in the log the graph is. On start the changes
// after it are replayed. Replay is idempotent (an add or remove sets a quad's presence), so a
// process crash at any point leaves graph and log in agreement after the next start; after a
// system crash with graph commits unsynced, the graph is rebuilt from kg_statements.
package knowledge

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"embed"

	"github.com/boltdb/bolt"
	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/graphql-go/graphql"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Topic is the bus topic of knowledge-graph changes; an event's Seq is its change's sequence
// number and Data the Change.
const Topic = "knowledge"

// StoreDir is the Cayley store's directory name in the data dir.
const StoreDir = "knowledge.bolt"

// Options open a Service.
type Options struct {
	DB     *store.DB
	Bus    *bus.Bus
	Source string // the agent publishing on the bus ("hub")
	Dir    string // the data dir: StoreDir and RulesFile live here
	Logger *slog.Logger
	// Seed, when the graph has never been seeded, is added once by the hub itself (no rules).
	Seed []Statement
}

// Service is one knowledge graph.
type Service struct {
	db     *store.DB
	qs     graph.QuadStore
	bus    *bus.Bus
	source string
	log    *slog.Logger
	rules  Rules
	schema graphql.Schema
	st     *stmts
	gizmo  gizmoSlots // the Gizmo scripts in flight (gizmolimits.go)

	mu sync.Mutex // one update at a time: the log order is the graph's order and the bus's
	// applied is the last change in the graph (under mu), synced the last one known to be on disk
	// in the bolt file, recorded the last one written as its position in the file (under syncMu).
	applied, synced, recorded int64
	lastCommit                time.Time // of the graph, under mu

	// The bolt file's durability (graphstore.go): nosync leaves its fsync to syncGraph, and marker
	// (DirtyFile, holding boot) exists while markerOn: commits may not be on disk.
	bolt          *bolt.DB
	releaseFailed bool // releaseMapped has failed once (logged once), under mu
	nosync        bool
	boot          string
	marker        string
	markerOn      bool // under mu
	syncMu        sync.Mutex
	stopSync      func()

	// committed are the changes of updates committed to hub.db and not yet taken for the graph, by
	// their first sequence number (see catchUp).
	committedMu sync.Mutex
	committed   map[int64][]Change

	// For updates answered before the graph has them (see update): acked is the last change of an
	// answered update; progress is closed (and replaced) each time the graph moves on (shown is
	// then s.applied) or a graph write fails (graphFailures counts them), under progressMu, not mu,
	// so that who waits for an update is released as soon as the graph holds it, while the same
	// apply goes on with later updates; background counts the graph writes running for answered
	// updates, which Close waits for.
	acked         atomic.Int64
	progressMu    sync.Mutex
	progress      chan struct{}
	shown         int64
	graphFailures int
	background    sync.WaitGroup

	// Other replicas' updates (on PostgreSQL, see follow.go): wanted is the last change the graph
	// is to be brought up to (from a note, a resync or a query), wake starts followLoop on it, and
	// resync makes it read the log's last change first.
	wanted     atomic.Int64
	wake       chan struct{}
	resync     atomic.Bool
	stopFollow func()
}

// Open migrates the tables, opens the graph, brings it up to date with the log and seeds it once.
func Open(ctx context.Context, o Options) (*Service, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	if err := o.DB.Migrate(ctx, "knowledge", sub); err != nil {
		return nil, err
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if _, err := migrateTerms(ctx, o.DB, logger); err != nil {
		return nil, fmt.Errorf("knowledge: migrate terms: %w", err)
	}
	rules, err := LoadRules(filepath.Join(o.Dir, RulesFile))
	if err != nil {
		return nil, fmt.Errorf("knowledge rules: %w", err)
	}
	s := &Service{db: o.DB, bus: o.Bus, source: o.Source, log: o.Logger, rules: rules,
		marker: filepath.Join(o.Dir, DirtyFile), committed: map[int64][]Change{},
		progress: make(chan struct{}), gizmo: newGizmoSlots(), wake: make(chan struct{}, 1), stopFollow: func() {}}
	if s.log == nil {
		s.log = slog.Default()
	}
	var bootErr error
	s.boot, bootErr = bootID()
	s.nosync = bootErr == nil // see graphstore.go
	var rebuild bool
	if s.markerOn, rebuild, err = readMarker(s.marker); err != nil {
		return nil, err
	}
	why := "the system stopped with graph commits not yet on disk"
	dir := filepath.Join(o.Dir, StoreDir)
	var created bool
	if !rebuild {
		if s.qs, s.bolt, created, err = openGraph(dir, s.nosync); err != nil {
			return nil, err
		}
	}
	fail := func(err error) (*Service, error) {
		if s.qs != nil {
			s.qs.Close()
		}
		return nil, err
	}
	if s.st, err = prepareStmts(ctx, o.DB); err != nil {
		return fail(fmt.Errorf("knowledge: prepare: %w", err))
	}
	if !created && !rebuild {
		// A graph file of an earlier form of terms (terms.go) holds quads no statement has now.
		v, err := readGraphTerms(s.bolt)
		if err != nil {
			return fail(err)
		}
		if rebuild = v < termsVersion; rebuild {
			s.qs.Close()
			s.qs = nil
			why = "its terms were in an earlier version's form (CURIEs, language tags as datatypes)"
		}
	}
	if created && !rebuild {
		// A new bolt file beside a log that has changes (knowledge.bolt was deleted, or is an
		// earlier version's, see boltFile): the log's start may be gone, so the graph is built
		// from the statements rather than replayed.
		last, err := lastChangeSeq(ctx, o.DB.Reader)
		if err != nil {
			return fail(err)
		}
		if rebuild = last > 0; rebuild {
			s.qs.Close()
			s.qs = nil
			why = "its file was missing (deleted, or from a version that kept the graph in another layout)"
			if o.DB.Postgres() { // the usual case there: a replica's first start on the team's database
				why = "this data dir had no graph file yet (a replica's first start on a shared database, or the file was deleted)"
			}
		}
	}
	if rebuild {
		if err := s.rebuildGraph(ctx, dir, why); err != nil {
			return fail(fmt.Errorf("knowledge rebuild: %w", err))
		}
	}
	if err := writeGraphTerms(s.bolt); err != nil {
		return fail(err)
	}
	if s.schema, err = newSchema(s); err != nil {
		return fail(err)
	}
	if err := s.replay(ctx, created); err != nil {
		return fail(fmt.Errorf("knowledge replay: %w", err))
	}
	stop, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.stopSync = func() { once.Do(func() { close(stop); <-done }) }
	go s.syncLoop(stop, done)
	if err := s.seed(ctx, o.Seed); err != nil {
		s.stopSync()
		return fail(fmt.Errorf("knowledge seed: %w", err))
	}
	s.follow()
	return s, nil
}

// Close stops following other replicas and the background sync, syncs the graph, records how far
// it is, and closes it.
func (s *Service) Close() error {
	s.stopFollow()
	s.background.Wait()
	s.stopSync()
	err := s.syncGraph(context.Background(), true)
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(err, s.qs.Close())
}

// Rules are the alignment rules in force.
func (s *Service) Rules() Rules { return s.rules }

// replay applies the logged changes the graph may not have yet: those after the position recorded
// in its bolt file.
func (s *Service) replay(ctx context.Context, created bool) error {
	applied, ok, err := readPosition(s.bolt)
	if err != nil {
		return err
	}
	s.applied, s.synced, s.recorded = applied, applied, applied
	if !ok && !created {
		// A graph of an earlier version, whose position is kg_state's (one process owned the
		// database then); it is written into the file at the next sync.
		if s.applied, err = readState(ctx, s.db.Reader, "applied_seq"); err != nil {
			return err
		}
		s.synced, s.recorded = s.applied, -1
	}
	defer s.showProgress(false)
	for {
		cs, err := changesAfter(ctx, s.db.Reader, s.applied, 1000)
		if err != nil {
			return err
		}
		if len(cs) == 0 {
			return s.syncGraph(ctx, true) // also removes a marker left by a crash of this boot
		}
		if err := s.applyToGraph(ctx, cs); err != nil {
			return err
		}
		s.log.Info("knowledge graph brought up to date from the change log", "changes", len(cs), "seq", s.applied)
	}
}

// applyToGraph makes the graph reflect changes (in log order) in one bolt transaction, then
// records the last one as applied. Only each quad's last change counts: the log says whether a
// statement is there after it.
func (s *Service) applyToGraph(ctx context.Context, cs []Change) error {
	last, first := map[key]Change{}, map[key]Change{}
	var order []key
	for _, c := range cs {
		k := c.Statement.key()
		if _, seen := last[k]; !seen {
			order = append(order, k)
			first[k] = c
		}
		last[k] = c
	}
	// Only real changes go to Cayley: its kv store miscounts node references when one batch mixes
	// the removal of a missing quad with real changes of the same nodes (a replayed "replace" then
	// lost the new value), so replay never leans on IgnoreMissing/IgnoreDup. For the same reason
	// removals and additions go in two batches, removals first: in one batch, a removal that left a
	// node without quads deleted it under an added quad of that node (a replace of a predicate with
	// two values lost its new value, and adding it later failed with "quad exists").
	var removes, adds []graph.Delta
	for _, k := range order {
		c := last[k]
		q := c.Statement.quadOf()
		has, err := s.inGraph(ctx, first[k], q)
		if err != nil {
			return err
		}
		switch {
		case c.Op == OpRemove && has:
			removes = append(removes, graph.Delta{Quad: q, Action: graph.Delete})
		case c.Op != OpRemove && !has:
			adds = append(adds, graph.Delta{Quad: q, Action: graph.Add})
		}
	}
	if len(removes)+len(adds) > 0 {
		if err := s.markUnsynced(); err != nil {
			return err
		}
	}
	for _, ds := range [][]graph.Delta{removes, adds} {
		for len(ds) > 0 {
			n := min(len(ds), graphTxMax)
			if err := s.qs.ApplyDeltas(ds[:n], graph.IgnoreOpts{}); err != nil {
				return err
			}
			s.releaseMapped()
			ds = ds[n:]
		}
	}
	// The position is written to the bolt file by syncGraph.
	s.applied = cs[len(cs)-1].Seq
	s.lastCommit = time.Now()
	return nil
}

// inGraph says whether the graph holds q, the quad of c's statement, before c (the first of its
// statement in a batch that follows s.applied). The graph holds what the log says up to s.applied,
// which is what kg_statements held before c: when the update that made c knows that, the graph is
// not searched (the lookups were a tenth of the CPU of loading 200k statements). A change read back
// from the log (replay, another update's) does not know, and the graph is asked. Were the graph
// not what the log says (a failed apply leaves s.applied behind, so the next apply reads its changes
// back from the log), Cayley refuses an add of a quad it has or a removal of one it has not, and
// the changes are applied again from the log.
func (s *Service) inGraph(ctx context.Context, c Change, q quad.Quad) (bool, error) {
	switch c.before {
	case beforePresent:
		return true, nil
	case beforeAbsent:
		return false, nil
	}
	return s.hasQuad(ctx, q)
}

// graphTxMax bounds the quads of one graph commit. bolt holds every page a commit touches as Go
// objects until it is written, so the heap grows with the commit: loading 300k statements 10,000 per
// update peaked at 234-241 MiB (VmHWM) in one commit per update, 161-164 MiB with 1,000 (for 8-13%
// more CPU). 1,000 is the default maxPatchSize, so an update of the default size is one commit.
// A crash between two commits of one update is replayed like any other (see graphstore.go).
const graphTxMax = 1000

// hasQuad says whether the graph holds q (same subject, predicate, object and graph). It compares
// the node ids the iterator's quads already carry with those of q's values, so no quad is decoded
// (decoding every quad of the subject was a third of applying an update at 1M statements).
func (s *Service) hasQuad(ctx context.Context, q quad.Quad) (bool, error) {
	ref, err := s.quadRef(ctx, q)
	return ref != nil, err
}

// Patch operations.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
)

// Patch is KnowledgeGraphPatch.
type Patch struct {
	Op        string    `json:"op"`
	Statement Statement `json:"statement"`
}

// UpdateResult is KnowledgeUpdateResponseResult, with the last change's id for subscribers.
type UpdateResult struct {
	Success             bool     `json:"success"`
	StatementsAffected  int      `json:"statementsAffected"`
	AffectedIDs         []string `json:"affectedIds"`
	VerificationStatus  string   `json:"verificationStatus"`
	VerificationDetails string   `json:"verificationDetails"`
	ChangeID            string   `json:"changeId,omitempty"`
}

// Verification statuses.
const (
	StatusVerified = "Verified"
	StatusRejected = "Rejected - Alignment Violation"
	StatusConflict = "Rejected - Conflict"
)

// Update applies patches for the caller in ctx, all or nothing, after checking the rules.
func (s *Service) Update(ctx context.Context, patches []Patch, justification string) (*UpdateResult, error) {
	p, _ := auth.PrincipalFrom(ctx)
	if len(patches) == 0 {
		return nil, errorf(CodeInvalidParams, "mutations must not be empty", nil)
	}
	if len(justification) > MaxJustificationBytes {
		return nil, tooLarge("", &FieldTooLarge{"justification", len(justification), MaxJustificationBytes})
	}
	prefixes := prefixesOf(ctx)
	if err := prefixes.check(); err != nil {
		return nil, errorf(CodeInvalidParams, err.Error(), nil)
	}
	for i := range patches {
		if err := patches[i].check(prefixes); err != nil {
			var big *FieldTooLarge
			if errors.As(err, &big) {
				return nil, tooLarge(fmt.Sprintf("mutations[%d].", i), big)
			}
			return nil, errorf(CodeInvalidParams, fmt.Sprintf("mutations[%d]: %v", i, err), nil)
		}
	}
	if why := s.rules.check(p.ID, patches); why != "" {
		return nil, errorf(CodeAlignmentError, "alignment violation: "+why,
			map[string]any{"verificationStatus": StatusRejected, "verificationDetails": why})
	}
	return s.update(ctx, p.ID, patches, justification, false, s.rules.quotaOf(p.ID), "")
}

// tooLarge is the refusal of a field past its limit (at a mutation, prefix).
func tooLarge(prefix string, e *FieldTooLarge) *Error {
	return errorf(CodeInvalidParams, prefix+e.Error(), map[string]any{"field": prefix + e.Field, "size": e.Size, "limit": e.Limit})
}

func (p *Patch) check(prefixes Prefixes) error {
	switch p.Op {
	case OpAdd, OpRemove, OpReplace:
	default:
		return fmt.Errorf("op must be add, remove or replace")
	}
	if err := p.Statement.canonicalize(prefixes); err != nil {
		return err
	}
	return p.Statement.check()
}

// apply is update, returning once the graph has applied the patches too.
func (s *Service) apply(ctx context.Context, source string, patches []Patch, justification string) (*UpdateResult, error) {
	return s.update(ctx, source, patches, justification, true, nil, "")
}

// update writes the patches and their changes to hub.db in one transaction, then brings the graph
// up to that change and publishes. The hub.db write is not under s.mu: concurrent updates share the
// group-commit writer's commits (its serial order is the log's order), and whoever takes s.mu first
// applies every change logged up to its own in one bolt transaction, so concurrent updates share
// the graph's commits too. The graph and the bus still see the changes in log order.
//
// Unless graphToo, the update is answered once hub.db has it and the graph has every change before
// it, and the graph applies its own changes meanwhile: an updater's next request is written to
// hub.db while the graph applies this one (the two run on two cores). A query waits for the graph
// to hold every update answered before it started (waitGraph), so a client reads its own writes.
func (s *Service) update(ctx context.Context, source string, patches []Patch, justification string, graphToo bool, q *quota, claim string) (*UpdateResult, error) {
	changes, ids, err := s.commitOnce(ctx, source, patches, justification, q, claim)
	if err != nil {
		return nil, err
	}
	first, last := changes[0].Seq, changes[len(changes)-1].Seq
	s.committedMu.Lock()
	s.committed[first] = changes
	s.committedMu.Unlock()
	if graphToo {
		s.graphUpTo(ctx, last)
	} else {
		s.background.Add(1)
		go func() {
			defer s.background.Done()
			if beforeBackgroundGraph != nil {
				beforeBackgroundGraph()
			}
			s.graphUpTo(context.WithoutCancel(ctx), last)
		}()
		s.waitGraph(ctx, first-1)
	}
	for acked := s.acked.Load(); acked < last && !s.acked.CompareAndSwap(acked, last); acked = s.acked.Load() {
	}
	return &UpdateResult{Success: true, StatementsAffected: len(changes), AffectedIDs: ids,
		VerificationStatus: StatusVerified, VerificationDetails: "checked against the hub's alignment rules",
		ChangeID: fmt.Sprint(last)}, nil
}

// beforeBackgroundGraph, when set (by a test), runs before the graph applies an answered update.
var beforeBackgroundGraph func()

// graphUpTo brings the graph up to change last. The log is committed: the update stands even if
// the graph falls behind now (it stays at s.applied, so the next update or the next start applies
// these again from the log), so a failure is logged, and releases who waits for the graph.
func (s *Service) graphUpTo(ctx context.Context, last int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.catchUp(ctx, last)
	if err != nil {
		s.log.Error("knowledge graph write failed; it will be applied again from the log", "err", err)
		s.showProgress(true)
	}
	return err
}

// showProgress releases who waits for the graph (waitGraph): it holds s.applied now, or a write
// failed. Called with s.mu held, or while nothing else runs (Open).
func (s *Service) showProgress(failed bool) {
	s.progressMu.Lock()
	defer s.progressMu.Unlock()
	s.shown = s.applied
	if failed {
		s.graphFailures++
	}
	close(s.progress)
	s.progress = make(chan struct{})
}

// waitGraph returns once the graph has applied change seq, a graph write has failed meanwhile, or
// ctx is done, with the last change the graph holds then.
func (s *Service) waitGraph(ctx context.Context, seq int64) (shown int64) {
	s.progressMu.Lock()
	defer s.progressMu.Unlock()
	failures := s.graphFailures
	for s.shown < seq && s.graphFailures == failures && ctx.Err() == nil {
		progress := s.progress
		s.progressMu.Unlock()
		select {
		case <-progress:
		case <-ctx.Done():
		}
		s.progressMu.Lock()
	}
	return s.shown
}

// catchUp brings the graph up to change last and publishes what it applied, in log order. The
// changes of other updates committed before or since (their callers wait for s.mu now) go in the
// same graph commits, taken from what those updates registered in s.committed: read back from the
// log, each would be decoded again and its presence in the graph looked up. A gap before last (an
// update committed but not registered yet, or a failed apply) is read from the log.
//
// Updates are applied in runs that fit one graph commit (graphTxMax; an update larger than that is
// a run of its own), and who waits for the graph is released after each run. Small concurrent
// updates still share a commit, and an updater waiting for the update before its own is answered
// once the graph holds that one, not once the same apply has also done its own: its next request
// is then written to hub.db while the graph applies this one. With one apply for all and a release
// at its end, two updaters of 1,000 statements waited for both, and the graph sat idle while both
// wrote their next (8.8-9.3k statements a second at 1M, below one updater's 9.4-14.6k).
func (s *Service) catchUp(ctx context.Context, last int64) error {
	s.dropCommitted(s.applied)
	for s.applied < last {
		run, err := s.nextRun(ctx, last)
		if err != nil {
			return err
		}
		if len(run) == 0 {
			// The log has no change up to last after s.applied: numbers that refused updates
			// took (PostgreSQL's sequence leaves gaps), or a change id a query was given.
			s.applied = last
			s.showProgress(false)
			return nil
		}
		if err := s.applyToGraph(ctx, run); err != nil {
			return err
		}
		for _, c := range run {
			if s.bus != nil {
				s.bus.Publish(bus.Event{Topic: Topic, Source: s.source, Key: "graph", Seq: c.Seq, Data: c})
			}
		}
		s.showProgress(false)
		if afterGraphRun != nil {
			afterGraphRun(s.applied)
		}
	}
	return nil
}

// afterGraphRun, when set (by a test), runs after each run of catchUp is applied and shown.
var afterGraphRun func(applied int64)

// nextRun takes the changes after s.applied for the next graph apply (see catchUp): the registered
// updates that follow, while they fit one commit (the first is always taken), or, where an update
// up to last is not registered, the changes up to last from the log.
func (s *Service) nextRun(ctx context.Context, last int64) ([]Change, error) {
	var run []Change
	for next := s.applied + 1; ; {
		s.committedMu.Lock()
		cs := s.committed[next]
		take := cs != nil && (len(run) == 0 || len(run)+len(cs) <= graphTxMax)
		if take {
			delete(s.committed, next)
		}
		s.committedMu.Unlock()
		if take {
			run = append(run, cs...)
			next = cs[len(cs)-1].Seq + 1
			continue
		}
		if len(run) > 0 || next > last {
			return run, nil
		}
		logged, err := s.logged(ctx, next-1, last)
		if err != nil {
			return nil, err
		}
		s.dropCommitted(last)
		return logged, nil
	}
}

// dropCommitted forgets the registered changes up to seq (applied, or taken from the log).
func (s *Service) dropCommitted(seq int64) {
	s.committedMu.Lock()
	defer s.committedMu.Unlock()
	for first, cs := range s.committed {
		if cs[len(cs)-1].Seq <= seq {
			delete(s.committed, first)
		}
	}
}

// logged reads the changes after `after` up to and including upTo from the log.
func (s *Service) logged(ctx context.Context, after, upTo int64) ([]Change, error) {
	var out []Change
	for after < upTo {
		cs, err := changesAfter(ctx, s.db.Reader, after, int(min(upTo-after, 5000)))
		if err != nil {
			return nil, err
		}
		if len(cs) == 0 {
			break
		}
		for _, c := range cs {
			if c.Seq <= upTo {
				out = append(out, c)
			}
		}
		after = cs[len(cs)-1].Seq
	}
	return out, nil
}

// commit writes the patches to kg_statements and their changes to kg_changes in one transaction
// and returns the changes and the ids of the resources they touched. With a quota, an update that
// would take source's statements past it is refused (and nothing of it written).
func (s *Service) commit(ctx context.Context, source string, patches []Patch, justification string, q *quota) ([]Change, []string, error) {
	return s.commitOnce(ctx, source, patches, justification, q, "")
}

// errClaimed is commitOnce's refusal of an update whose claim is already taken.
var errClaimed = errors.New("knowledge: already done")

// commitOnce is commit, which, given a claim, also sets that kg_state flag in the same transaction,
// and writes nothing (errClaimed) if it is already set: of two replicas starting together, one seeds.
func (s *Service) commitOnce(ctx context.Context, source string, patches []Patch, justification string, q *quota, claim string) ([]Change, []string, error) {
	now := time.Now()
	var changes []Change
	affected := map[string]bool{}
	var ids []string
	touch := func(st Statement) {
		for _, id := range []string{st.Subject.ID, st.Object.ID} {
			if id != "" && !affected[id] {
				affected[id] = true
				ids = append(ids, id)
			}
		}
	}
	var change *sql.Stmt // the transaction's appendChange statement
	logChange := func(op string, st Statement, enc encoded, before presence) error {
		seq, err := appendChange(ctx, change, s.st.changeReturns, op, enc, source, now)
		if err == nil {
			changes = append(changes, Change{Seq: seq, Op: op, Statement: st, Source: source, At: now, before: before})
			touch(st)
		}
		return err
	}
	logRemoval := func(r *row) error {
		enc, err := encode(r.Stmt, nil)
		if err != nil {
			return err
		}
		return logChange(OpRemove, r.Stmt, enc, beforePresent)
	}
	// The provenance given to the statements that have none, encoded once for all of them.
	defaultProv := map[string]any{"sourceAgentId": source, "timestamp": now.UTC().Format(time.RFC3339Nano)}
	defaultProvJSON, err := json.Marshal(defaultProv)
	if err != nil {
		return nil, nil, err
	}
	err = s.db.Tx(ctx, func(tx execTx) error {
		changes, ids, affected = nil, nil, map[string]bool{} // the writer may run this again
		if s.db.Postgres() {
			// The log's order must be its commit order: a reader that has read change n must
			// never see a change below n commit later. With one writer per replica, two
			// replicas' transactions could take 11 and 12 and commit 12 first; this lock, held
			// to the commit, lets one writing transaction at a time take numbers.
			// Not cancelled by ctx: a statement interrupted mid-way rolls back the writer's whole batch.
			if _, err := tx.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_xact_lock(hashtext('kg_changes'), hashtext(current_schema()))`); err != nil {
				return err
			}
		}
		if claim != "" {
			res, err := tx.ExecContext(ctx, `INSERT INTO kg_state (name, value) VALUES (?, 1) ON CONFLICT (name) DO NOTHING`, claim)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return cmp.Or(err, errClaimed)
			}
		}
		change = tx.StmtContext(ctx, s.st.change)
		find, insert, update := tx.StmtContext(ctx, s.st.findTx), tx.StmtContext(ctx, s.st.insert), tx.StmtContext(ctx, s.st.update)
		// Prepared once, not parsed per update: an unprepared upsert of the usage row was 40 µs of a
		// single update's CPU (most of what a statement costs the SQLite driver).
		readUsage := func() (usage, error) { return scanUsage(tx.StmtContext(ctx, s.st.usage).QueryRowContext(ctx, source)) }
		var used, inserted usage // inserted: the rows this update inserts, counted once at its end
		if q != nil {
			var err error
			if used, err = readUsage(); err != nil {
				return err
			}
		}
		// The hub's own writes (the sample graph, an import through the UI as the hub) are not a
		// principal's: the editors rule is for callers of knowledge/update.
		author := func(i int, r *row) error {
			if source == s.source {
				return nil
			}
			return s.rules.othersStatement(source, r.Source, i, r.Stmt)
		}
		for i, pt := range patches {
			st := pt.Statement
			if st.Certainty == nil && pt.Op != OpRemove {
				one := 1.0
				st.Certainty = &one
			}
			var prov json.RawMessage
			if st.Provenance == nil && pt.Op != OpRemove {
				st.Provenance, prov = defaultProv, defaultProvJSON
			}
			switch pt.Op {
			case OpRemove:
				r, err := findRow(ctx, find, st.key())
				if err != nil {
					return err
				}
				if r == nil {
					return errorf(CodeUpdateError, fmt.Sprintf("mutations[%d]: no such statement to remove; nothing was changed", i),
						map[string]any{"verificationStatus": StatusConflict, "verificationDetails": "statement not found"})
				}
				if err := author(i, r); err != nil {
					return err
				}
				if err := deleteRow(ctx, tx, r.ID); err != nil {
					return err
				}
				if err := logRemoval(r); err != nil {
					return err
				}
			case OpReplace:
				olds, err := rowsOf(ctx, tx, st.Subject.ID, st.Predicate.ID, st.Graph)
				if err != nil {
					return err
				}
				newKey := st.key()
				for _, r := range olds {
					if r.Stmt.key() == newKey {
						continue
					}
					if err := author(i, r); err != nil {
						return err
					}
					if err := deleteRow(ctx, tx, r.ID); err != nil {
						return err
					}
					if err := logRemoval(r); err != nil {
						return err
					}
				}
				fallthrough
			case OpAdd:
				if s.rules.Editors != nil && source != s.source {
					// Adding a statement that is there already rewrites its metadata and its author.
					r, err := findRow(ctx, find, st.key())
					if err != nil {
						return err
					}
					if r != nil {
						if err := author(i, r); err != nil {
							return err
						}
					}
				}
				enc, err := encode(st, prov)
				if err != nil {
					return err
				}
				isNew, bytes, err := upsertRow(ctx, insert, update, st, enc, source, justification, now)
				if err != nil {
					return err
				}
				before := beforePresent
				if isNew {
					before = beforeAbsent
					inserted.statements++
					inserted.bytes += bytes
				}
				if err := logChange(pt.Op, st, enc, before); err != nil {
					return err
				}
			}
		}
		if inserted.statements > 0 {
			if err := addUsage(ctx, tx.StmtContext(ctx, s.st.addUsage), source, inserted); err != nil {
				return err
			}
		}
		if q != nil {
			after, err := readUsage()
			if err != nil {
				return err
			}
			if err := q.check(source, used, after); err != nil {
				return err
			}
		}
		if len(changes) == 0 {
			return nil
		}
		// The other replicas bring their graphs up to this change once it commits.
		return s.db.Announce(tx, Topic, strconv.FormatInt(changes[len(changes)-1].Seq, 10))
	})
	if err != nil {
		var kerr *Error
		if errors.As(err, &kerr) {
			return nil, nil, kerr
		}
		return nil, nil, err
	}
	return changes, ids, nil
}

// seed adds the sample graph once, as the hub itself. The "seeded" flag is set in the seed's own
// transaction (commitOnce), so replicas starting together on one database seed once.
func (s *Service) seed(ctx context.Context, stmts []Statement) error {
	done, err := readState(ctx, s.db.Reader, "seeded")
	if err != nil || done == 1 || len(stmts) == 0 {
		return err
	}
	patches := make([]Patch, len(stmts))
	for i, st := range stmts {
		if err := st.canonicalize(nil); err != nil {
			return err
		}
		patches[i] = Patch{Op: OpAdd, Statement: st}
	}
	_, err = s.update(ctx, s.source, patches, "sample graph of a new hub", true, nil, "seeded")
	if errors.Is(err, errClaimed) {
		return nil // another replica seeded; its changes reach this graph like any other's
	}
	return err
}
