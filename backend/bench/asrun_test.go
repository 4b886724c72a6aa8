package bench_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"

	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"

	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/server"
)

// The as-run benchmark (BenchmarkAsRun) measures the hub the way a user runs it: the `agenthub`
// binary as its own process, a2a-go/v2's server as another, and the load generator in a third, all
// over loopback. The test binary plays the peer server and the load generator itself, re-executed
// with roleEnv set; TestMain sends it to its role before any test runs.
const roleEnv = "AGENTHUB_BENCH_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "a2a-go":
		os.Exit(servePeer())
	case "load":
		os.Exit(runLoad())
	}
	os.Exit(m.Run())
}

// servePeer is the peer process: a2a-go/v2's servers with its default in-memory task store, v1.0
// JSON-RPC on /v1, its v0.3 compat handler on /v03, its REST handler under /rest and its gRPC
// handler on the port in $BENCH_GRPC_ADDR, running the same demo executor the hub runs (demo-agent
// --tick 0). It prints its base URL and serves until SIGTERM.
func servePeer() int {
	h := a2asrv.NewHandler(&demoagent.Agent{Tick: 0}, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/v1", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/v03", a2av0.NewJSONRPCHandler(h))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	grpcLn, err := net.Listen("tcp", os.Getenv("BENCH_GRPC_ADDR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	grpcSrv := grpc.NewServer()
	grpcv1.NewHandler(h).RegisterWith(grpcSrv)
	go grpcSrv.Serve(grpcLn)
	defer grpcSrv.Stop()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Printf("a2a-go: http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	<-ctx.Done()
	srv.Close()
	return 0
}

// loadResult is what a load process reports on its stdout, one JSON object.
type loadResult struct {
	Tasks       int     `json:"tasks"`
	PerSec      float64 `json:"perSec"`
	P50, P99    float64 // ms
	CPUPerTask  float64 `json:"cpuPerTask"` // the load generator's own CPU ms per task
	ElapsedSecs float64 `json:"elapsed"`
}

// runLoad is the load process: BENCH_CLIENTS clients call BENCH_METHOD on BENCH_URL back to back for
// BENCH_RUN, each checking that its task completed (measure, as the in-process table does).
func runLoad() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "load:", err); return 1 }
	clients, err := strconv.Atoi(os.Getenv("BENCH_CLIENTS"))
	if err != nil {
		return fail(err)
	}
	run, err := time.ParseDuration(os.Getenv("BENCH_RUN"))
	if err != nil {
		return fail(err)
	}
	i := slices.IndexFunc(asRunMethods, func(m method) bool { return m.name == os.Getenv("BENCH_METHOD") })
	if i < 0 {
		return fail(fmt.Errorf("unknown method %q", os.Getenv("BENCH_METHOD")))
	}
	u := os.Getenv("BENCH_URL")
	start := time.Now()
	s, err := measure(context.Background(), &endpoint{v1: u, v03: u, rest: u, grpc: u}, asRunMethods[i], clients, run)
	if err != nil {
		return fail(err)
	}
	json.NewEncoder(os.Stdout).Encode(loadResult{Tasks: s.tasks, PerSec: s.perSec, P50: s.p50, P99: s.p99,
		CPUPerTask: s.cpuPerTask, ElapsedSecs: time.Since(start).Seconds()})
	return 0
}

// asRunMethods are SendMessage on each binding: JSON-RPC in v1.0 and v0.3, REST, gRPC.
var asRunMethods = []method{sendV1, sendV03, sendREST, sendGRPC}

// process is a server under test running as its own process: its JSON-RPC URL per dialect and its
// pid, whose CPU time /proc tells.
type process struct {
	name       string
	v1, v03    string
	rest, grpc string
	cmd        *exec.Cmd
}

// cpu is the process's user + system CPU time so far (from /proc/PID/stat, in clock ticks of 10 ms).
func (p *process) cpu() (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

func (p *process) stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	return p.cmd.Wait()
}

// startProcess runs cmd and waits for the line of its stdout that starts with prefix, whose rest is
// the server's base URL.
func startProcess(b *testing.B, name string, cmd *exec.Cmd, prefix string) (*process, string) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &process{name: name, cmd: cmd}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				found <- strings.TrimSpace(rest)
			}
		}
		close(found)
	}()
	select {
	case base, ok := <-found:
		if !ok {
			cmd.Wait()
			b.Fatalf("%s exited before it listened: %s", name, stderr.String())
		}
		return p, base
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		b.Fatalf("%s did not print %q within a minute: %s", name, prefix, stderr.String())
	}
	return nil, ""
}

// buildAgenthub builds the binary a user runs (plain `go build` at the repository's root, as the
// README's build does without the desktop window) into dir.
func buildAgenthub(b *testing.B, dir string) string {
	wd, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..") // this package is backend/bench
	bin := filepath.Join(dir, "agenthub")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freeAddr is a loopback address with a port nobody listens on right now, for a process that takes
// its address as a flag.
func freeAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// load runs one load process against url and returns what it measured.
func load(ctx context.Context, url string, m method, clients int, run time.Duration) (loadResult, error) {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=load", "BENCH_URL="+url, "BENCH_METHOD="+m.name,
		"BENCH_CLIENTS="+strconv.Itoa(clients), "BENCH_RUN="+run.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return loadResult{}, fmt.Errorf("%v: %s", err, stderr.String())
	}
	var r loadResult
	if err := json.Unmarshal(out, &r); err != nil {
		return loadResult{}, fmt.Errorf("load process printed %q: %v", out, err)
	}
	return r, nil
}

// asRunSample is one round of one server in one row: what the load process measured, and the
// serving process's own CPU over the same time.
type asRunSample struct {
	loadResult
	serverCPUPerTask float64 // ms
	serverCores      float64 // CPU seconds per second
}

// BenchmarkAsRun is the headline measured as users run it (`make bench` prints it after the
// in-process table): `agenthub demo-agent --tick 0` on its own data dir (the demo agent behind the
// hub's durable stack: SQLite with synchronous=FULL, every acknowledged event on disk), a2a-go/v2's
// own server with its in-memory store running the same executor, and the load generator, each its
// own process, over loopback, rounds interleaved (the order alternates). BENCH_CLIENTS and BENCH_RUN
// as for BenchmarkThroughput (default 1,32,128 and 2s); BENCH_ASRUN_METHODS=SendMessage keeps one
// dialect; BENCH_PROFILE=FILE writes the hub process's CPU profile of the whole run to FILE.
func BenchmarkAsRun(b *testing.B) {
	run, clients := runAndClients(b, 2*time.Second, []int{1, 32, 128})
	methods := asRunMethods
	if v := os.Getenv("BENCH_ASRUN_METHODS"); v != "" {
		methods = slices.DeleteFunc(slices.Clone(methods), func(m method) bool { return !slices.Contains(strings.Split(v, ","), m.name) })
	}
	const rounds = 3
	dir := b.TempDir()
	bin := buildAgenthub(b, dir)

	hubGRPC, peerGRPC := freeAddr(b), freeAddr(b)
	args := []string{"demo-agent", "--addr", freeAddr(b), "--grpc-addr", hubGRPC, "--tick", "0", "--data", filepath.Join(dir, "hub")}
	if f := os.Getenv("BENCH_PROFILE"); f != "" {
		args = append(args, "--cpuprofile", f)
	}
	hubProc, base := startProcess(b, "hub", exec.Command(bin, args...), "demo agent:")
	hubProc.v1, hubProc.v03, hubProc.rest, hubProc.grpc = base+server.RPCPath, base+server.RPCPath, base+server.RESTPath, hubGRPC
	peerCmd := exec.Command(os.Args[0], "-test.run=^$")
	peerCmd.Env = append(os.Environ(), roleEnv+"=a2a-go", "BENCH_GRPC_ADDR="+peerGRPC)
	peer, peerBase := startProcess(b, "a2a-go", peerCmd, "a2a-go:")
	peer.v1, peer.v03, peer.rest, peer.grpc = peerBase+"/v1", peerBase+"/v03", peerBase+"/rest", peerGRPC
	servers := []*process{hubProc, peer}
	defer func() {
		for _, p := range servers {
			if err := p.stop(); err != nil { // both end cleanly on SIGTERM (the hub writes its profile then)
				b.Errorf("%s: %v", p.name, err)
			}
		}
	}()
	urlOf := func(p *process, m method) string {
		switch m.name {
		case sendV03.name:
			return p.v03
		case sendREST.name:
			return p.rest
		case sendGRPC.name:
			return p.grpc
		}
		return p.v1
	}

	ctx := b.Context()
	for _, m := range methods { // warm-up: connections, page cache, the servers' pools
		for _, p := range servers {
			if _, err := load(ctx, urlOf(p, m), m, 8, 300*time.Millisecond); err != nil {
				b.Fatalf("warm-up of %s with %s: %v", p.name, m.name, err)
			}
		}
	}
	type row struct {
		m       method
		clients int
		samples map[string][]asRunSample
	}
	var rows []*row
	for _, m := range methods {
		for _, n := range clients {
			rows = append(rows, &row{m: m, clients: n, samples: map[string][]asRunSample{}})
		}
	}
	load0, t0 := loadavg(), time.Now()
	b.ResetTimer()
	for round := range rounds {
		for _, r := range rows {
			order := slices.Clone(servers)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, p := range order {
				cpu0, err := p.cpu()
				if err != nil {
					b.Fatal(err)
				}
				res, err := load(ctx, urlOf(p, r.m), r.m, r.clients, run)
				if err != nil {
					b.Fatalf("%s with %d clients on %s: %v", r.m.name, r.clients, p.name, err)
				}
				cpu1, err := p.cpu()
				if err != nil {
					b.Fatal(err)
				}
				used := (cpu1 - cpu0).Seconds()
				r.samples[p.name] = append(r.samples[p.name], asRunSample{loadResult: res,
					serverCPUPerTask: used * 1e3 / float64(res.Tasks), serverCores: used / res.ElapsedSecs})
			}
		}
	}
	b.StopTimer()

	out := os.Stdout
	fmt.Fprintf(out, "\nAs users run it: agenthub demo-agent --tick 0, a2a-go/v2's server and the load generator, three processes over loopback;\n")
	fmt.Fprintf(out, "%d rounds, interleaved, %v per run; %d CPUs; load average %s before, %s after; took %v\n",
		rounds, run, runtime.NumCPU(), load0, loadavg(), time.Since(t0).Round(time.Second))
	fmt.Fprintln(out, "tasks/s is min / median / max of the rounds; p50, p99 and the server process's CPU (per task, and cores used: CPU s per s) are medians.")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tclients\tserver\ttasks/s min\tmedian\tmax\tp50 ms\tp99 ms\tserver CPU ms/task\tserver cores\thub/a2a-go\tper round\t")
	for _, r := range rows {
		for _, p := range servers {
			ss := r.samples[p.name]
			pick := func(f func(asRunSample) float64) []float64 {
				v := make([]float64, len(ss))
				for i, s := range ss {
					v[i] = f(s)
				}
				return v
			}
			rate := pick(func(s asRunSample) float64 { return s.PerSec })
			ratio, perRound := "", ""
			if p == hubProc {
				var rs []float64
				for i, peerSample := range r.samples[peer.name] {
					rs = append(rs, rate[i]/peerSample.PerSec)
				}
				peerRate := make([]float64, len(r.samples[peer.name]))
				for i, s := range r.samples[peer.name] {
					peerRate[i] = s.PerSec
				}
				ratio = fmt.Sprintf("%.2fx", median(rate)/median(peerRate))
				perRound = fmt.Sprintf("%.2f-%.2f", slices.Min(rs), slices.Max(rs))
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.3f\t%.2f\t%s\t%s\t\n", r.m.name, r.clients, p.name,
				slices.Min(rate), median(rate), slices.Max(rate),
				median(pick(func(s asRunSample) float64 { return s.P50 })), median(pick(func(s asRunSample) float64 { return s.P99 })),
				median(pick(func(s asRunSample) float64 { return s.serverCPUPerTask })), median(pick(func(s asRunSample) float64 { return s.serverCores })),
				ratio, perRound)
		}
	}
	tw.Flush()
	if f := os.Getenv("BENCH_PROFILE"); f != "" {
		fmt.Fprintf(out, "The hub process's CPU profile is in %s (written as it stopped): go tool pprof -top %s\n", f, f)
	}
}
