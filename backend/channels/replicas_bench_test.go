package channels_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// benchReplicas is issue 25's table: channels/publish and channels/stream on the hub as it is today
// (SQLite), on PostgreSQL with one replica, and with two replicas on one database, beside the
// durable peer a team would otherwise pick, an embedded NATS JetStream server with every publish
// synced to disk before it is acknowledged. Every server gets the same load, interleaved round by
// round: n publishers publishing flat out for 2 s, and one subscriber per replica (per
// replica-equivalent for JetStream) receiving every event.
//
// Two replicas are two whole hubs (two store.Open handles, two channel services, two HTTP servers)
// on one PostgreSQL database; call k of publisher i goes to replica (i+k) mod 2, as a client behind
// a proxy may hit either on every call, and each replica has one channels/stream subscriber that
// must receive every event of both. An event acknowledged but not received by a subscriber within
// 5 s of the row's last round is counted missing, a failed publish is counted failed: the table says
// what happened rather than stopping.
//
// Delivery latency is from the publish's acknowledgement (the JSON-RPC answer, the PubAck) to its
// receipt by the subscriber; an event received before its publisher had the answer counts 0. CPU
// is per acknowledged event: this process (clients, hubs, the NATS server: getrusage over the
// server's own rounds) and, when the bench started the PostgreSQL cluster, its processes
// (/proc/PID/stat of the postmaster's children).
//
// JetStream: Options.SyncAlways is what the config file's `jetstream { sync_interval: always }`
// sets; with one replica the stream's file store then writes each message and fsyncs its block
// file before StoreMsg returns, and the PubAck is sent after that (nats-server v2.15.2,
// server/filestore.go: writeMsgRecordLocked → flushPendingMsgsLocked → mb.mfd.Sync() when
// syncAlways). The payload is the hub's own event from a channels/publish of textParams, so both
// sides make the same bytes durable. Each publisher has its own NATS connection and waits for its
// PubAck (js.Publish); each subscriber is an ordered push consumer on its own connection.
//
// With AGENTHUB_TEST_DATABASE set the PostgreSQL databases come from storetest (its cluster or the
// URL given); unset, the bench starts a throwaway cluster of its own (storetest.StartCluster).
func benchReplicas(b *testing.B, out io.Writer, h *testHub, alice *principal) {
	const rounds, roundTime, grace = 3, 2 * time.Second, 5 * time.Second
	// A principal of its own: the history section stored a million events as alice, her quota.
	alice = h.principal(b, "replicas")

	// PostgreSQL: one database for the single replica, one for the pair.
	var database func(name string) string
	var pgCPU func() time.Duration // the cluster's CPU so far; nil when not ours to see
	if storetest.Postgres() {
		database = func(string) string { return storetest.Target(b, "") }
	} else {
		c, err := storetest.StartCluster()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(c.Remove)
		database = func(name string) string {
			u, err := c.CreateDatabase(name)
			if err != nil {
				b.Fatal(err)
			}
			return u
		}
		pgCPU = func() time.Duration { return clusterCPU(c.Dir) }
	}
	keyFile := hubtest.KeyFile(b, "")
	one := startHubOn(b, database("one"), keyFile)
	twoURL := database("two")
	two := [2]*testHub{startHubOn(b, twoURL, keyFile), startHubOn(b, twoURL, keyFile)}
	aliceOne := one.principal(b, "alice")
	aliceTwo := two[0].principal(b, "alice") // the same key works on both: one database
	aliceTwoB := &principal{t: b, url: two[1].URL, key: aliceTwo.key, ID: aliceTwo.ID}

	// JetStream.
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: b.TempDir(),
		SyncAlways: true, NoLog: true, NoSigs: true})
	if err != nil {
		b.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		b.Fatal("nats-server did not start")
	}
	b.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func() nats.JetStreamContext {
		nc, err := nats.Connect(ns.ClientURL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		js, err := nc.JetStream()
		if err != nil {
			b.Fatal(err)
		}
		return js
	}
	if _, err := connect().AddStream(&nats.StreamConfig{Name: "bench", Subjects: []string{"bench.>"}, Storage: nats.FileStorage, Replicas: 1}); err != nil {
		b.Fatal(err)
	}
	var res struct {
		Event json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(call(b, alice, "channels/publish", textParams(alice.create(map[string]any{"name": "jetstream-payload"}).ID)), &res); err != nil {
		b.Fatal(err)
	}
	payload := []byte(res.Event)

	engine := "SQLite"
	if h.Agent.DB.Postgres() {
		engine = "PostgreSQL (AGENTHUB_TEST_DATABASE)"
	}
	hubServer := func(name string, dbs []*store.DB, pgCPU func() time.Duration, as ...*principal) *replicaServer {
		return &replicaServer{name: name, subscribers: len(as), dbs: dbs, pgCPU: pgCPU, open: func(b *testing.B, n int, c *cell) func(worker, k int) (string, error) {
			ch := as[0].create(map[string]any{"name": fmt.Sprintf("%s-%d", name, n)})
			for i, p := range as {
				openSubscriber(b, p, ch.ID, c.receiver(i))
			}
			params := textParams(ch.ID)
			return func(worker, k int) (string, error) {
				return publishID(as[(worker+k)%len(as)], params)
			}
		}}
	}
	jetStream := func(subscribers int) *replicaServer {
		name := fmt.Sprintf("JetStream synced, %d sub", subscribers)
		return &replicaServer{name: name, subscribers: subscribers, open: func(b *testing.B, n int, c *cell) func(worker, k int) (string, error) {
			subject := fmt.Sprintf("bench.s%d.n%d", subscribers, n)
			for i := range subscribers {
				got := c.receiver(i)
				if _, err := connect().Subscribe(subject, func(m *nats.Msg) {
					at := time.Now()
					if md, err := m.Metadata(); err == nil {
						got(strconv.FormatUint(md.Sequence.Stream, 10), at)
					}
				}, nats.OrderedConsumer(), nats.DeliverNew()); err != nil {
					b.Fatal(err)
				}
			}
			pubs := make([]nats.JetStreamContext, n)
			for i := range pubs {
				pubs[i] = connect()
			}
			return func(worker, _ int) (string, error) {
				ack, err := pubs[worker].Publish(subject, payload)
				if err != nil {
					return "", err
				}
				return strconv.FormatUint(ack.Sequence, 10), nil
			}
		}}
	}
	h.Channels.SetRateLimit(1e9, 1e9)
	servers := []*replicaServer{
		hubServer("hub "+engine, []*store.DB{h.Agent.DB}, nil, alice),
		hubServer("hub PostgreSQL, 1 replica", []*store.DB{one.Agent.DB}, pgCPU, aliceOne),
		hubServer("hub PostgreSQL, 2 replicas", []*store.DB{two[0].Agent.DB, two[1].Agent.DB}, pgCPU, aliceTwo, aliceTwoB),
		jetStream(1),
		jetStream(2),
	}

	fmt.Fprintf(out, "\nissue 25: channels/publish and stream delivery, PostgreSQL replicas vs JetStream (file storage, every publish synced)\n")
	fmt.Fprintf(out, "%d-byte event; per row %d interleaved rounds of %s, all publishers flat out; one subscriber per replica; loadavg %s\n",
		len(payload), rounds, roundTime, loadavg())
	fmt.Fprintln(out, "delivery = publish acknowledged → subscriber receives (0 if it arrived first); CPU per acknowledged event")
	fmt.Fprintln(out, "publishers\tserver\tevents/s\tfailed\tcall p50\tcall p99\tdelivery p50\tp99\tmax\tp99 cross-replica\tmissing\tCPU µs/event process\tpostgres\twrites/commit\t")
	results := map[string]map[int]*cell{}
	for _, n := range []int{1, 8, 64} {
		cells := make([]*cell, len(servers))
		publish := make([]func(int, int) (string, error), len(servers))
		for i, s := range servers {
			cells[i] = newCell(s.subscribers)
			publish[i] = s.open(b, n, cells[i])
		}
		time.Sleep(200 * time.Millisecond) // every subscriber subscribed
		for r := range rounds {
			for j := range servers {
				i := (j + r) % len(servers) // each round starts with another server
				cells[i].measure(servers[i], n, roundTime, publish[i])
			}
		}
		for i, s := range servers {
			c := cells[i]
			c.await(grace)
			st := c.stats()
			pg := "–"
			if s.pgCPU != nil {
				pg = fmt.Sprintf("%.0f", float64(c.pgCPU.Microseconds())/float64(max(1, c.acked())))
			}
			perCommit := "–"
			if c.batches > 0 {
				perCommit = fmt.Sprintf("%.1f", float64(c.writes)/float64(c.batches))
			}
			cross := "–"
			if s.subscribers > 1 && s.dbs != nil {
				cross = ms(st.crossP99)
			}
			fmt.Fprintf(out, "%d\t%s\t%.0f\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d of %d\t%.0f\t%s\t%s\t\n", n, s.name, c.rate(), c.failed,
				ms(pct(c.calls, .5)), ms(pct(c.calls, .99)), ms(st.p50), ms(st.p99), ms(st.max), cross,
				st.missing, c.acked()*s.subscribers, float64(c.cpu.Microseconds())/float64(max(1, c.acked())), pg, perCommit)
			if results[s.name] == nil {
				results[s.name] = map[int]*cell{}
			}
			results[s.name][n] = c
		}
	}
	fmt.Fprintln(out, "ratio PG/JetStream, events/s (and the lowest and highest of its rounds: how much the machine moved it)")
	fmt.Fprintln(out, "publishers\t1 replica / 1 sub\tmin–max\t2 replicas / 2 subs\tmin–max\t")
	for _, n := range []int{1, 8, 64} {
		r := func(pg, js int) (float64, float64, float64) {
			a, b := results[servers[pg].name][n], results[servers[js].name][n]
			lo, hi := 1e18, 0.0
			for i := range a.rounds {
				lo, hi = min(lo, a.rounds[i]/b.rounds[i]), max(hi, a.rounds[i]/b.rounds[i])
			}
			return a.rate() / b.rate(), lo, hi
		}
		r1, lo1, hi1 := r(1, 3)
		r2, lo2, hi2 := r(2, 4)
		fmt.Fprintf(out, "%d\t%.2f\t%.2f–%.2f\t%.2f\t%.2f–%.2f\t\n", n, r1, lo1, hi1, r2, lo2, hi2)
	}
	for _, s := range servers {
		for _, n := range []int{1, 8, 64} {
			if c := results[s.name][n]; c.failed > 0 {
				fmt.Fprintf(out, "%s, %d publishers: %d publishes failed, the first with: %v\n", s.name, n, c.failed, c.firstErr)
			}
		}
	}

	// The goals, as measured in this run.
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	pg1, pg2, js1, js2 := results[servers[1].name][64], results[servers[2].name][64], results[servers[3].name][64], results[servers[4].name][64]
	fmt.Fprintf(out, "goal: publish on PostgreSQL ≥ 1.0× JetStream (synced) at 64 publishers: 1 replica %.2f× (%s), 2 replicas %.2f× (%s)\n",
		pg1.rate()/js1.rate(), verdict(pg1.rate() >= js1.rate()), pg2.rate()/js2.rate(), verdict(pg2.rate() >= js2.rate()))
	worst, missing := time.Duration(0), 0
	for _, n := range []int{1, 8, 64} {
		st := results[servers[2].name][n].stats()
		worst, missing = max(worst, st.p99), missing+st.missing
	}
	fmt.Fprintf(out, "goal: delivery p99 ≤ 10 ms across replicas (2 replicas, worst row): %s, %d deliveries missing (%s)\n",
		ms(worst), missing, verdict(worst <= 10*time.Millisecond && missing == 0))
}

// replicaServer is one column of benchReplicas: open makes a row's channel (or subject) and its
// subscribers, which report receipts to the cell, and returns the publish call of publisher worker
// (its k-th call), which answers the published event's key.
type replicaServer struct {
	name        string
	subscribers int
	dbs         []*store.DB          // the hub's databases (writer counts), nil for JetStream
	pgCPU       func() time.Duration // the PostgreSQL cluster's CPU so far, nil when not known
	open        func(b *testing.B, n int, c *cell) func(worker, k int) (string, error)
}

// cell is one server's row at one number of publishers: every acknowledged publish and every
// receipt, over all its rounds.
type cell struct {
	mu       sync.Mutex
	acks     map[string]ack
	received []map[string]time.Time // per subscriber: event key → receipt
	calls    []time.Duration        // each acknowledged publish's round trip
	failed   int
	firstErr error
	took     time.Duration
	rounds   []float64     // events/s of each round
	cpu      time.Duration // this process's, over the rounds
	pgCPU    time.Duration // the PostgreSQL cluster's, over the rounds
	writes   int64         // the hub writers' writes and batches over the rounds
	batches  int64
}

type ack struct {
	at      time.Time
	replica int // which replica answered (for a two-replica hub), to tell cross-replica receipts
}

func newCell(subscribers int) *cell {
	c := &cell{acks: map[string]ack{}}
	for range subscribers {
		c.received = append(c.received, map[string]time.Time{})
	}
	return c
}

// receiver is subscriber i's receipt callback.
func (c *cell) receiver(i int) func(key string, at time.Time) {
	return func(key string, at time.Time) {
		c.mu.Lock()
		if _, seen := c.received[i][key]; !seen {
			c.received[i][key] = at
		}
		c.mu.Unlock()
	}
}

// measure runs one round: n publishers calling publish flat out for d.
func (c *cell) measure(s *replicaServer, n int, d time.Duration, publish func(worker, k int) (string, error)) {
	cpu0, pg0 := cpuTime(), time.Duration(0)
	if s.pgCPU != nil {
		pg0 = s.pgCPU()
	}
	var st0 []store.Stats
	for _, db := range s.dbs {
		st0 = append(st0, db.Stats())
	}
	before := c.acked()
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for k := 0; time.Now().Before(deadline); k++ {
				t0 := time.Now()
				key, err := publish(w, k)
				at := time.Now()
				c.mu.Lock()
				if err != nil {
					if c.failed++; c.firstErr == nil {
						c.firstErr = err
					}
				} else {
					c.acks[key] = ack{at: at, replica: (w + k) % max(1, len(s.dbs))}
					c.calls = append(c.calls, at.Sub(t0))
				}
				c.mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	c.mu.Lock()
	c.rounds = append(c.rounds, float64(len(c.acks)-before)/took.Seconds())
	c.mu.Unlock()
	c.took += took
	c.cpu += cpuTime() - cpu0
	if s.pgCPU != nil {
		c.pgCPU += s.pgCPU() - pg0
	}
	for i, db := range s.dbs {
		st := db.Stats()
		c.writes += st.Writes - st0[i].Writes
		c.batches += st.Batches - st0[i].Batches
	}
}

func (c *cell) acked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.acks)
}

func (c *cell) rate() float64 { return float64(c.acked()) / c.took.Seconds() }

// await waits until every subscriber received every acknowledged event, or for at most grace.
func (c *cell) await(grace time.Duration) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		done := true
		for _, got := range c.received {
			for key := range c.acks {
				if _, ok := got[key]; !ok {
					done = false
					break
				}
			}
		}
		c.mu.Unlock()
		if done {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type cellStats struct {
	p50, p99, max, crossP99 time.Duration
	missing                 int
}

// stats are the delivery latencies over every (event, subscriber) pair: subscriber i listens on
// replica i, so an event acknowledged by another replica reached it across replicas.
func (c *cell) stats() cellStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	var all, cross []time.Duration
	var st cellStats
	for i, got := range c.received {
		for key, a := range c.acks {
			at, ok := got[key]
			if !ok {
				st.missing++
				continue
			}
			d := max(0, at.Sub(a.at))
			all = append(all, d)
			if a.replica != i {
				cross = append(cross, d)
			}
		}
	}
	st.p50, st.p99, st.max, st.crossP99 = pct(all, .5), pct(all, .99), pct(all, 1), pct(cross, .99)
	return st
}

// startHubOn starts a whole hub (no demo agents, anonymous access off) on the PostgreSQL database
// at url, with its own data dir and the secrets key shared by the database's replicas.
func startHubOn(b *testing.B, url, keyFile string) *testHub {
	h, err := hub.Start(context.Background(), hub.Config{DataDir: b.TempDir(), Database: url, Addr: "127.0.0.1:0",
		NoDemo: true, Version: "test", Secrets: "database", SecretsKeyFile: keyFile, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Stop() })
	if err := h.Auth.SetAnonymousPolicy(context.Background(), auth.AnonymousOff); err != nil {
		b.Fatal(err)
	}
	h.Channels.SetRateLimit(1e9, 1e9)
	return &testHub{Hub: h, URL: h.Agent.LocalURL + "/a2a"}
}

// openSubscriber opens a channels/stream SSE subscriber on channel id and reports each event's id
// as it arrives.
func openSubscriber(b *testing.B, p *principal, id string, got func(string, time.Time)) {
	req := p.request(b.Context(), "channels/stream", map[string]any{"channelId": id, "heartbeatIntervalMs": 60000})
	req.Header.Set("Accept", "text/event-stream")
	res, err := clientFrom("127.0.0.2").Do(req)
	if err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b.Fatalf("stream: %v %v", err, res)
	}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				at := time.Now()
				var r struct {
					Result struct {
						Event *struct{ ID string } `json:"event"`
					} `json:"result"`
				}
				if json.Unmarshal(data, &r) == nil && r.Result.Event != nil {
					got(r.Result.Event.ID, at)
				}
			}
		}
	}()
}

// publishID publishes params as p and answers the stored event's id, or the call's error (a
// failure is counted, not fatal: the table reports it).
func publishID(p *principal, params map[string]any) (string, error) {
	res, err := benchClient.Do(p.request(context.Background(), "channels/publish", params))
	if err != nil {
		return "", err
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var r struct {
		Result struct {
			Event struct{ ID string } `json:"event"`
		} `json:"result"`
		Error *rpcError `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", err
	}
	if r.Error != nil {
		return "", fmt.Errorf("%d %s", r.Error.Code, r.Error.Message)
	}
	return r.Result.Event.ID, nil
}

// clusterCPU is the CPU time of the PostgreSQL cluster in dir so far: its postmaster and the
// postmaster's children (backends, WAL writer, checkpointer…), from /proc. A backend that exited
// takes its time with it; the hubs keep their connections, so little is lost.
func clusterCPU(dir string) time.Duration {
	raw, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	pm, _, _ := strings.Cut(string(raw), "\n")
	var ticks int64
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime stime: comm may hold spaces, so read after its ')'.
		i := bytes.LastIndexByte(b, ')')
		fields := strings.Fields(string(b[i+1:]))
		pid := filepath.Base(filepath.Dir(f))
		if len(fields) > 12 && (pid == pm || fields[1] == pm) {
			u, _ := strconv.ParseInt(fields[11], 10, 64)
			s, _ := strconv.ParseInt(fields[12], 10, 64)
			ticks += u + s
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}
