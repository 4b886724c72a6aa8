package bench_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// echo4 is the like-for-like executor: four events per task (the task, working, one artifact,
// completed), the smallest useful task a2a-go's server runs.
type echo4 struct{}

func (echo4) Execute(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) ||
			!yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) ||
			!yield(&a2a.TaskArtifactUpdateEvent{TaskID: ec.TaskID, ContextID: ec.ContextID, LastChunk: true,
				Artifact: &a2a.Artifact{ID: a2a.NewArtifactID(), Name: "echo", Parts: a2a.ContentParts{a2a.NewTextPart(demoagent.Text(ec.Message))}}}, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (echo4) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// endpoint is one server under test: the URL of its v1.0 and of its v0.3 JSON-RPC endpoint.
type endpoint struct {
	name     string
	v1, v03  string
	rest     string // the HTTP+JSON binding's base URL (as-run only)
	grpc     string // the gRPC binding's host:port (as-run only)
	shutdown func()
	db       *store.DB // the hub's database: its writer's commits are counted
}

// hubStack is the hub's durable stack as `agenthub serve` runs an agent: its own SQLite file
// (synchronous=FULL), or with database a PostgreSQL database (synchronous_commit on), the push outbox
// as write hook, auth, recovery, the dialect router. column names its column in the table.
func hubStack(b testing.TB, column, name, database string, exec a2asrv.AgentExecutor) *endpoint {
	a, err := hub.StartAgent(b.Context(), hub.AgentSpec{ID: name, Name: name, Addr: "127.0.0.1:0",
		DBPath: filepath.Join(b.TempDir(), name+".db"), Database: database, Logger: slog.New(slog.DiscardHandler),
		Executor: func(context.Context, *store.DB, *tasks.Store) (a2asrv.AgentExecutor, error) { return exec, nil }})
	if err != nil {
		b.Fatal(err)
	}
	u := a.BaseURL + server.RPCPath
	return &endpoint{name: column, v1: u, v03: u, shutdown: func() { a.Stop() }, db: a.DB}
}

// sdkStack is a2a-go/v2's own JSON-RPC server with its default in-memory task store, v1.0 and its
// v0.3 compat handler over one request handler.
func sdkStack(b testing.TB, exec a2asrv.AgentExecutor) *endpoint {
	h := a2asrv.NewHandler(exec, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/v1", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/v03", a2av0.NewJSONRPCHandler(h))
	base, stop := listen(b, mux)
	return &endpoint{name: "a2a-go", v1: base + "/v1", v03: base + "/v03", shutdown: stop}
}

// ceilingStack answers SendMessage without an agent: it decodes the request and encodes a completed
// task with the same message, so its rate is what loopback HTTP and JSON alone allow.
func ceilingStack(b *testing.B) *endpoint {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage        `json:"id"`
			Params a2a.SendMessageRequest `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m := req.Params.Message
		task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(), History: []*a2a.Message{m},
			Status:    a2a.TaskStatus{State: a2a.TaskStateCompleted},
			Artifacts: []*a2a.Artifact{{ID: a2a.NewArtifactID(), Name: "echo", Parts: a2a.ContentParts{a2a.NewTextPart(demoagent.Text(m))}}}}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": a2a.StreamResponse{Event: task}})
	})
	base, stop := listen(b, h)
	return &endpoint{name: "ceiling", v1: base, shutdown: stop}
}

// labelled runs start with the profiler label server=name, which every goroutine the servers it starts
// spawn (listeners, connections, executions, the hub's writer) inherits: with -cpuprofile, `go tool
// pprof -tagfocus server=hub` shows one server's share of an interleaved run.
func labelled(name string, start func()) {
	pprof.Do(context.Background(), pprof.Labels("server", name), func(context.Context) { start() })
}

func listen(b testing.TB, h http.Handler) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }
}

// httpClient keeps a connection per concurrent client alive for every server alike. Each new
// connection comes from the next of 250 loopback addresses (127.0.0.2 …), so the clients are as many
// hosts as a real load would be: the hub caps the streams one host may hold open (64), and 128
// streaming clients from 127.0.0.1 alone would be refused.
var httpClient = &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute,
	DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		n := dials.Add(1)
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+n%250))}}
		return d.DialContext(ctx, network, addr)
	}}}

var dials atomic.Int64

// method is one way of sending a message; call sends one and checks that the task completed.
type method struct {
	name string
	call func(ctx context.Context, e *endpoint) error
}

var (
	sendV1 = method{"SendMessage", func(ctx context.Context, e *endpoint) error {
		res, err := a2aclient.NewJSONRPCTransport(e.v1, httpClient).SendMessage(ctx, nil, newRequest())
		return completed(res, err)
	}}
	sendV03 = method{"message/send", func(ctx context.Context, e *endpoint) error {
		res, err := a2av0.NewJSONRPCTransport(a2av0.JSONRPCTransportConfig{URL: e.v03, Client: httpClient}).SendMessage(ctx, nil, newRequest())
		return completed(res, err)
	}}
	sendREST = method{"SendMessage REST", func(ctx context.Context, e *endpoint) error {
		u, err := url.Parse(e.rest)
		if err != nil {
			return err
		}
		res, err := a2aclient.NewRESTTransport(u, httpClient).SendMessage(ctx, nil, newRequest())
		return completed(res, err)
	}}
	sendGRPC = method{"SendMessage gRPC", func(ctx context.Context, e *endpoint) error {
		conn, err := grpcConn(e.grpc)
		if err != nil {
			return err
		}
		res, err := grpcv1.NewGRPCTransportFromClient(a2apb.NewA2AServiceClient(conn)).SendMessage(ctx, nil, newRequest())
		return completed(res, err)
	}}
	streamV1 = method{"SendStreamingMessage", func(ctx context.Context, e *endpoint) error {
		var last a2a.Event
		for ev, err := range a2aclient.NewJSONRPCTransport(e.v1, httpClient).SendStreamingMessage(ctx, nil, newRequest()) {
			if err != nil {
				return err
			}
			last = ev
		}
		if st, ok := last.(*a2a.TaskStatusUpdateEvent); !ok || st.Status.State != a2a.TaskStateCompleted {
			return fmt.Errorf("the stream ended with %#v", last)
		}
		return nil
	}}
)

// grpcConns are the load's gRPC connections, one per address, shared by its clients as HTTP/2
// multiplexes them (as httpClient shares its pooled connections).
var grpcConns sync.Map

func grpcConn(addr string) (*grpc.ClientConn, error) {
	if c, ok := grpcConns.Load(addr); ok {
		return c.(*grpc.ClientConn), nil
	}
	c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	if prev, loaded := grpcConns.LoadOrStore(addr, c); loaded {
		c.Close()
		return prev.(*grpc.ClientConn), nil
	}
	return c, nil
}

func newRequest() *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("benchmark echo text"))}
}

func completed(res a2a.SendMessageResult, err error) error {
	if err != nil {
		return err
	}
	if t, ok := res.(*a2a.Task); !ok || t.Status.State != a2a.TaskStateCompleted {
		return fmt.Errorf("result %#v", res)
	}
	return nil
}

// sample is one timed run: n clients sending back to back for the run's duration.
type sample struct {
	perSec, p50, p99, cpuPerTask float64 // tasks/s, ms, ms, CPU ms per task (client and server: one process)
	cores                        float64 // CPU seconds per second: below GOMAXPROCS, something else bounds it
	perCommit                    float64 // writes per commit (one fsync each), hub only
	tasks                        int     // tasks completed
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(ctx context.Context, e *endpoint, m method, clients int, d time.Duration) (sample, error) {
	lat := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	cpu0, start := cpuTime(), time.Now()
	end := start.Add(d)
	for i := range clients {
		wg.Add(1)
		go pprof.Do(ctx, pprof.Labels("server", "client"), func(ctx context.Context) {
			defer wg.Done()
			for t := time.Now(); t.Before(end); t = time.Now() {
				if err := m.call(ctx, e); err != nil {
					errs[i] = err
					return
				}
				lat[i] = append(lat[i], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if err := errors.Join(errs...); err != nil {
		return sample{}, err
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return sample{}, errors.New("no task completed")
	}
	ms := func(q float64) float64 { return float64(all[int(q*float64(len(all)-1))]) / 1e6 }
	return sample{tasks: len(all), perSec: float64(len(all)) / elapsed.Seconds(), p50: ms(0.50), p99: ms(0.99),
		cpuPerTask: float64(cpu) / 1e6 / float64(len(all)), cores: cpu.Seconds() / elapsed.Seconds()}, nil
}

// cell is one row of the table: a workload at one concurrency, its samples per server.
type cell struct {
	workload string
	m        method
	clients  int
	servers  []*endpoint
	samples  map[string][]sample
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// BenchmarkThroughput prints the throughput table of `make bench`: for N concurrent clients over
// loopback HTTP (1, 8, 32, 128), each of SendMessage, message/send and a streaming send to the demo
// agent's echo (Tick 0: 7 events a task), and SendMessage to the 4-event echo4, run against the hub's
// durable stack and against a2a-go/v2's in-memory server running the same executor, interleaved
// (hub then a2a-go, then the other way round) for three rounds. Tasks/s is min/median/max over the
// rounds, latency and CPU per task are medians, hub/a2a-go is the ratio of the medians (and the range
// of the per-round ratios). The ceiling row is a bare handler that decodes and encodes the same JSON.
//
//	go test ./backend/bench -run '^$' -bench Throughput -benchtime 1x
//
// BENCH_RUN sets each run's duration (default 1s); BENCH_CLIENTS the client counts (default 1,8,32,128);
// BENCH_SERVERS=hub runs one server alone (for a profile: add -cpuprofile); BENCH_WORKLOADS keeps the
// rows whose method is one of its names or whose workload starts with one (e.g. SendStreamingMessage,echo4),
// or, named workload:method, that method of that workload (demo:SendMessage). With -v it logs how many
// tasks each server completed; the servers' goroutines carry the profiler label server=hub, a2a-go or
// client, so a -cpuprofile of an interleaved run splits by server (pprof -tagfocus server=hub).
func BenchmarkThroughput(b *testing.B) {
	run, clients := runAndClients(b, time.Second, []int{1, 8, 32, 128})
	const rounds = 3
	demo := &demoagent.Agent{Tick: 0}
	var hubDemo, pgDemo, sdkDemo, hubEcho4, pgEcho4, sdkEcho4 *endpoint
	labelled("hub", func() {
		hubDemo, hubEcho4 = hubStack(b, "hub", "demo", "", demo), hubStack(b, "hub", "echo4", "", echo4{})
	})
	// The team hub's storage: one replica on a PostgreSQL cluster of its own on this machine (Debian's
	// package, fsync and synchronous_commit on), started here and removed after.
	pg, err := storetest.StartCluster()
	if err != nil {
		b.Fatal(err)
	}
	defer pg.Remove()
	var dbs [2]string
	for i, name := range []string{"demo", "echo4"} {
		if dbs[i], err = pg.CreateDatabase(name); err != nil {
			b.Fatal(err)
		}
	}
	labelled("hub-pg", func() {
		pgDemo, pgEcho4 = hubStack(b, "hub-pg", "demo", dbs[0], demo), hubStack(b, "hub-pg", "echo4", dbs[1], echo4{})
	})
	labelled("a2a-go", func() { sdkDemo, sdkEcho4 = sdkStack(b, demo), sdkStack(b, echo4{}) })
	ceiling := ceilingStack(b)
	for _, e := range []*endpoint{hubDemo, pgDemo, sdkDemo, hubEcho4, pgEcho4, sdkEcho4, ceiling} {
		defer e.shutdown()
	}
	var cells []*cell
	for _, w := range []struct {
		name    string
		m       method
		servers []*endpoint
	}{
		{"demo echo (7 events)", sendV1, []*endpoint{hubDemo, pgDemo, sdkDemo}},
		{"demo echo (7 events)", sendV03, []*endpoint{hubDemo, pgDemo, sdkDemo}},
		{"demo echo (7 events)", streamV1, []*endpoint{hubDemo, pgDemo, sdkDemo}},
		{"echo4 (4 events)", sendV1, []*endpoint{hubEcho4, pgEcho4, sdkEcho4}},
		{"ceiling (no agent)", sendV1, []*endpoint{ceiling}},
	} {
		for _, n := range clients {
			cells = append(cells, &cell{workload: w.name, m: w.m, clients: n, servers: slices.Clone(w.servers), samples: map[string][]sample{}})
		}
	}
	if only := os.Getenv("BENCH_WORKLOADS"); only != "" {
		cells = slices.DeleteFunc(cells, func(c *cell) bool {
			return !slices.ContainsFunc(strings.Split(only, ","), func(w string) bool {
				if prefix, name, ok := strings.Cut(w, ":"); ok { // workload:method, e.g. demo:SendMessage
					return strings.HasPrefix(c.workload, prefix) && c.m.name == name
				}
				return c.m.name == w || strings.HasPrefix(c.workload, w)
			})
		})
	}
	if only := os.Getenv("BENCH_SERVERS"); only != "" {
		for _, c := range cells {
			c.servers = slices.DeleteFunc(c.servers, func(e *endpoint) bool { return !strings.Contains(","+only+",", ","+e.name+",") })
		}
		cells = slices.DeleteFunc(cells, func(c *cell) bool { return len(c.servers) == 0 })
	}
	ctx := context.Background()
	// A short warm-up of every server: connections, page cache, the JIT-free Go runtime's pools.
	for _, c := range cells {
		for _, e := range c.servers {
			if _, err := measure(ctx, e, c.m, 4, 50*time.Millisecond); err != nil {
				b.Fatalf("%s %s on %s: %v", c.workload, c.m.name, e.name, err)
			}
		}
	}
	load0, t0 := loadavg(), time.Now()
	b.ResetTimer()
	for round := range rounds {
		for _, c := range cells {
			order := slices.Clone(c.servers)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, e := range order {
				runtime.GC() // each run starts from a collected heap, whoever ran before
				var before store.Stats
				if e.db != nil {
					before = e.db.Stats()
				}
				s, err := measure(ctx, e, c.m, c.clients, run)
				if err != nil {
					b.Fatalf("%s %s on %s with %d clients: %v", c.workload, c.m.name, e.name, c.clients, err)
				}
				if e.db != nil {
					after := e.db.Stats()
					s.perCommit = float64(after.Writes-before.Writes) / float64(max(1, after.Batches-before.Batches))
				}
				c.samples[e.name] = append(c.samples[e.name], s)
			}
		}
	}
	b.StopTimer()
	// With -v: how many tasks each server completed in each cell, to turn a labelled profile's CPU
	// (pprof -tagfocus server=hub) into CPU per task.
	for _, c := range cells {
		for _, e := range c.servers {
			if !testing.Verbose() {
				break
			}
			n := 0
			for _, s := range c.samples[e.name] {
				n += s.tasks
			}
			b.Logf("%s %s %d clients: %s completed %d tasks", c.workload, c.m.name, c.clients, e.name, n)
		}
	}
	printTable(os.Stdout, cells, rounds, run, load0, loadavg(), time.Since(t0))
}

// runAndClients is a run's duration and the client counts, from BENCH_RUN and BENCH_CLIENTS
// (comma-separated) when set, else the defaults given.
func runAndClients(b *testing.B, run time.Duration, clients []int) (time.Duration, []int) {
	if v := os.Getenv("BENCH_RUN"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatal(err)
		}
		run = d
	}
	if v := os.Getenv("BENCH_CLIENTS"); v != "" {
		clients = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("BENCH_CLIENTS: %v", err)
			}
			clients = append(clients, n)
		}
	}
	return run, clients
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func field(ss []sample, f func(sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

func printTable(out io.Writer, cells []*cell, rounds int, run time.Duration, load0, load1 string, took time.Duration) {
	fmt.Fprintf(out, "\nThroughput: %d rounds, interleaved, %v per run; GOMAXPROCS %d, %d CPUs; load average %s before, %s after; took %v\n",
		rounds, run, runtime.GOMAXPROCS(0), runtime.NumCPU(), load0, load1, took.Round(time.Second))
	fmt.Fprintln(out, "tasks/s is min / median / max of the rounds; p50, p99, CPU per task and cores used (client + server: one process) are medians.")
	fmt.Fprintln(out, "hub is the hub on SQLite, hub-pg on PostgreSQL (one replica; the PostgreSQL server's own CPU is not in CPU ms/task).")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tmethod\tclients\tserver\ttasks/s min\tmedian\tmax\tp50 ms\tp99 ms\tCPU ms/task\tcores used\twrites/commit\thub/a2a-go\tper round\t")
	for _, c := range cells {
		for _, e := range c.servers {
			ss := c.samples[e.name]
			rate := field(ss, func(s sample) float64 { return s.perSec })
			ratio, perRound := "", ""
			if peer, ok := c.samples["a2a-go"]; ok && strings.HasPrefix(e.name, "hub") {
				peerRate := field(peer, func(s sample) float64 { return s.perSec })
				ratio = fmt.Sprintf("%.2fx", median(rate)/median(peerRate))
				var rs []float64
				for i := range rate {
					rs = append(rs, rate[i]/peerRate[i])
				}
				perRound = fmt.Sprintf("%.2f-%.2f", slices.Min(rs), slices.Max(rs))
			}
			perCommit := ""
			if e.db != nil {
				perCommit = fmt.Sprintf("%.1f", median(field(ss, func(s sample) float64 { return s.perCommit })))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.3f\t%.2f\t%s\t%s\t%s\t\n", c.workload, c.m.name, c.clients, e.name,
				slices.Min(rate), median(rate), slices.Max(rate),
				median(field(ss, func(s sample) float64 { return s.p50 })), median(field(ss, func(s sample) float64 { return s.p99 })),
				median(field(ss, func(s sample) float64 { return s.cpuPerTask })), median(field(ss, func(s sample) float64 { return s.cores })), perCommit, ratio, perRound)
		}
	}
	tw.Flush()
}
