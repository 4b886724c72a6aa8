package knowledge

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph/path"
	"github.com/cayleygraph/quad"
	"github.com/graphql-go/graphql"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/store"
)

func benchService(b *testing.B) *Service {
	dir := b.TempDir()
	db, err := store.Open(hubTarget(b, dir))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	s, err := Open(context.Background(), Options{DB: db, Source: "hub", Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkUpdate is one durable single-statement update: hub.db transaction, bolt transaction.
func BenchmarkUpdate(b *testing.B) {
	s := benchService(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		p := Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:n%d", i%100)}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: fmt.Sprintf("ex:o%d", i)}}}
		if _, err := s.apply(ctx, "hub", []Patch{p}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGraphQLNode is node(id) with its types, label and 10 out-edges, on a 1,000-statement graph.
func BenchmarkGraphQLNode(b *testing.B) {
	s := benchService(b)
	ctx := context.Background()
	var ps []Patch
	for i := range 1000 {
		ps = append(ps, Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: fmt.Sprintf("ex:n%d", i%100)}, Predicate: Predicate{ID: "ex:p"}, Object: Object{ID: fmt.Sprintf("ex:n%d", (i*7)%100)}}})
	}
	if _, err := s.apply(ctx, "hub", ps, ""); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res := graphql.Do(graphql.Params{Schema: s.schema, Context: context.WithValue(ctx, viewKey{}, &view{}),
			RequestString: `{ node(id: "ex:n5") { id types label out(first: 10) { object certainty } } }`})
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
	}
}

// BenchmarkBatchedUpdate is Service.Update with 1,000 new statements a request on a graph of
// KG_BATCH_PRELOAD statements (100k by default), as the batched row of BenchmarkKnowledge (new
// subjects, each linked to an existing entity); it
// reports the process's CPU time per statement (user+system, getrusage), which unlike the wall
// clock does not move with the other load on the machine. Run it with -cpuprofile to see where it goes.
func BenchmarkBatchedUpdate(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("KG_BATCH_PRELOAD")); err == nil {
		n = v
	}
	// KG_BATCH_EXISTING=1: the statements are edges out of existing entities, not of new nodes.
	existing := os.Getenv("KG_BATCH_EXISTING") != ""
	s := batchService(b, n)
	owner := auth.WithPrincipal(context.Background(), auth.Owner)
	const per = 1000
	var cpu, sys time.Duration
	var faults int64
	stmts := 0
	pages := s.bolt.Stats().TxStats.Write
	// KG_BATCH_UPDATERS updaters send their batches at the same time (one's hub.db write beside
	// another's graph commit).
	updaters := 1
	if v, err := strconv.Atoi(os.Getenv("KG_BATCH_UPDATERS")); err == nil && v > 0 {
		updaters = v
	}
	batch := func(i int) []Patch {
		ps := make([]Patch, per)
		for j := range ps {
			sub, obj := fmt.Sprintf("ex:batch%d", i*per+j), "ex:e"+strconv.Itoa((i*per+j)%(n/10))
			if existing {
				sub, obj = obj, sub
			}
			ps[j] = Patch{Op: OpAdd, Statement: Statement{Subject: Subject{ID: sub}, Predicate: Predicate{ID: "ex:knows"}, Object: Object{ID: obj}}}
		}
		return ps
	}
	// KG_BATCH_CPUPROFILE: a CPU profile of the updates alone (-cpuprofile would include the preload).
	if f := os.Getenv("KG_BATCH_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(out); err != nil {
			b.Fatal(err)
		}
		defer func() { pprof.StopCPUProfile(); out.Close() }()
	}
	for i := 0; b.Loop(); i++ {
		var wg sync.WaitGroup
		before, sysBefore, faultsBefore := cpuTime(), sysTime(), minorFaults()
		for w := range updaters {
			wg.Go(func() {
				if _, err := s.Update(owner, batch(i*updaters+w), "benchmark"); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
		cpu += cpuTime() - before
		sys += sysTime() - sysBefore
		faults += minorFaults() - faultsBefore
		stmts += per * updaters
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(stmts), "cpu-µs/stmt")
	b.ReportMetric(float64(sys.Microseconds())/float64(stmts), "sys-µs/stmt")
	b.ReportMetric(float64(faults)/float64(stmts), "minor-faults/stmt")
	// Pages bolt wrote per statement: Cayley keeps each node in one of 65,536 small buckets by hash,
	// so a batch's new and touched nodes rewrite pages all over the file.
	b.ReportMetric(float64(s.bolt.Stats().TxStats.Write-pages)/float64(stmts), "bolt-pages/stmt")
	b.ReportMetric(float64(stmts)/b.Elapsed().Seconds(), "stmts/s")
}

// sysTime is the CPU time the process has spent in the kernel.
func sysTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Stime.Nano())
}

// minorFaults counts the page faults served without I/O (a mapped file's page in the page cache).
func minorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}

// batchService is a service holding the benchmark graph of n statements. With KG_BATCH_DIR the
// graph is loaded there once and each run works on a copy of it, so a profile at 1M does not pay
// the load each time.
func batchService(b *testing.B, n int) *Service {
	src := os.Getenv("KG_BATCH_DIR")
	if src == "" {
		s := benchOpen(b, b.TempDir())
		loadService(b, s, n)
		return s
	}
	if _, err := os.Stat(filepath.Join(src, "loaded")); err != nil {
		// Loaded, then closed (hub.db too, so the copy has no WAL to recover).
		db, err := store.Open(filepath.Join(src, "hub.db"))
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(context.Background(), Options{DB: db, Source: "hub", Dir: src})
		if err != nil {
			b.Fatal(err)
		}
		loadService(b, s, n)
		if err := errors.Join(s.Close(), db.Close()); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "loaded"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	if out, err := exec.Command("cp", "-a", src+"/.", dir).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	return benchOpen(b, dir)
}

// cpuTime is the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readService is the service holding the benchmark graph of KG_READ_N statements (100k by
// default) for the read benchmarks. With KG_READ_DIR it is loaded there once and reopened by later
// runs, so a profile at 1M does not pay the load each time.
func readService(b *testing.B) (*Service, int) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("KG_READ_N")); err == nil && v > 0 {
		n = v
	}
	dir := os.Getenv("KG_READ_DIR")
	if dir == "" {
		s := benchOpen(b, b.TempDir())
		loadService(b, s, n)
		return s, n
	}
	_, err := os.Stat(filepath.Join(dir, "loaded"))
	s := benchOpen(b, dir)
	if err != nil {
		loadService(b, s, n)
		if err := os.WriteFile(filepath.Join(dir, "loaded"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return s, n
}

// readNodes are the 300 entities BenchmarkKnowledge queries, drawn from PCG(9, 9). Its memstore
// peer (BenchmarkKnowledgePeerChild) draws the same list from n rather than each request carrying
// the nodes it names: the update runs name nodes[i%300] for every statement of a run.
func readNodes(n int) []string {
	rng := rand.New(rand.NewPCG(9, 9))
	nodes := make([]string, 300)
	for i := range nodes {
		nodes[i] = "ex:e" + strconv.Itoa(rng.IntN(n/10))
	}
	return nodes
}

// BenchmarkTwoHop is the 2-hop row of BenchmarkKnowledge (Out().Out().Limit(500) on the service's
// graph) over its 300 nodes in turn; run it with -benchmem and -cpuprofile to see where a query goes.
func BenchmarkTwoHop(b *testing.B) {
	s, n := readService(b)
	nodes := readNodes(n)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := path.StartPath(s.qs, quad.IRI(nodes[i%len(nodes)])).Out().Out().Limit(500).Iterate(ctx).AllValues(s.qs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodeLookup is the node lookup row of BenchmarkKnowledge: GraphQL node(id){id types label}.
func BenchmarkNodeLookup(b *testing.B) {
	s, n := readService(b)
	nodes := readNodes(n)
	ctx := context.WithValue(context.Background(), viewKey{}, &view{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		res := graphql.Do(graphql.Params{Schema: s.schema, Context: ctx,
			RequestString: `{ node(id: "` + nodes[i%len(nodes)] + `") { id types label } }`})
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
	}
}
