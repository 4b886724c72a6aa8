package channels_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/channels"
)

// BenchmarkChannels prints the channels benchmark of issue 11 as tables (`make bench-channels`):
// every row of the hub is measured interleaved with its peer on a bare loopback HTTP+JSON server
// (or, for the storage layer, a bare one-row write through the same group-commit writer), in the
// same run, so load on the shared machine hits both alike; the ratio column is hub / peer. It
// prints; it asserts nothing about time.
//
// CHANNELS_BENCH picks sections (publish,storage,stream,history,replicas; default all) and
// CHANNELS_BENCH_EVENTS the size of the history channel (default 1,000,000).
func BenchmarkChannels(b *testing.B) {
	h := startHub(b, "")
	h.Channels.SetRateLimit(1e9, 1e9) // measure the path, not the brake
	alice := h.principal(b, "alice")
	want := func(section string) bool {
		v := os.Getenv("CHANNELS_BENCH")
		return v == "" || slices.Contains(strings.Split(v, ","), section)
	}
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	defer out.Flush()
	fmt.Fprintf(out, "\nchannels benchmark; loadavg at start: %s\n", loadavg())
	for b.Loop() {
		ran := false
		for _, section := range []struct {
			name string
			run  func(*testing.B, io.Writer, *testHub, *principal)
		}{{"publish", benchPublish}, {"storage", benchStorage}, {"stream", benchStream}, {"history", benchHistory}, {"replicas", benchReplicas}} {
			if !want(section.name) {
				continue
			}
			if ran {
				settle(out)
			}
			section.run(b, out, h, alice)
			ran = true
		}
	}
	fmt.Fprintf(out, "loadavg at end: %s\n", loadavg())
}

func loadavg() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(raw))
}

// settle lets the disk finish what the section before left behind, so that each section measures
// its own work: the storage section writes about 150 MB, which the kernel goes on flushing for
// seconds, and the hub's checkpointer truncates the WAL only once writes pause for a second. Without
// it the stream section measured that flush (publish call p99 10.7 ms, max 174 ms) rather than
// delivery. How long the sync took is printed, so a run shows what was still pending.
func settle(out io.Writer) {
	t0 := time.Now()
	syscall.Sync()
	synced := time.Since(t0)
	time.Sleep(2 * time.Second)
	fmt.Fprintf(out, "\n(settled: sync took %s, then 2 s idle)\n", ms(synced))
}

// bareServer is the peer: a loopback HTTP handler that decodes the JSON-RPC request and encodes an
// answer of the same shape, with nothing else behind it.
func bareServer(b *testing.B, answer func(req map[string]any) any) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": answer(req)})
	}))
	b.Cleanup(s.Close)
	return s
}

var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}

// call makes one JSON-RPC call and fails on an error answer.
func call(b *testing.B, p *principal, method string, params any) []byte {
	res, err := benchClient.Do(p.request(context.Background(), method, params))
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var r rpcResponse
	if json.Unmarshal(raw, &r) != nil || r.Error != nil {
		b.Fatalf("%s: %s", method, raw)
	}
	return r.Result
}

// run calls op from n goroutines for d and returns how many calls finished and the time taken.
func run(n int, d time.Duration, op func()) (int64, time.Duration) {
	var done atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				op()
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return done.Load(), time.Since(start)
}

// pair runs the hub's and the peer's op for rounds, alternating which goes first, and returns
// each one's calls per second over all rounds, and the lowest and highest per-round ratio.
func pair(rounds, n int, d time.Duration, hub, peer func()) (hubRate, peerRate, lo, hi float64) {
	var hubN, peerN int64
	var hubT, peerT time.Duration
	lo, hi = 1e18, 0
	for r := range rounds {
		var hn, pn int64
		var ht, pt time.Duration
		if r%2 == 0 {
			hn, ht = run(n, d, hub)
			pn, pt = run(n, d, peer)
		} else {
			pn, pt = run(n, d, peer)
			hn, ht = run(n, d, hub)
		}
		ratio := (float64(hn) / ht.Seconds()) / (float64(pn) / pt.Seconds())
		lo, hi = min(lo, ratio), max(hi, ratio)
		hubN, peerN, hubT, peerT = hubN+hn, peerN+pn, hubT+ht, peerT+pt
	}
	return float64(hubN) / hubT.Seconds(), float64(peerN) / peerT.Seconds(), lo, hi
}

func textParams(channelID string) map[string]any {
	return map[string]any{"channelId": channelID, "parts": []any{map[string]any{"type": "text", "text": "benchmark message"}}}
}

// benchPublish: channels/publish over JSON-RPC (auth, router, one durable event through the
// group-commit writer) against the bare server, with 1, 8 and 64 publishers.
func benchPublish(b *testing.B, out io.Writer, h *testHub, alice *principal) {
	bare := bareServer(b, func(req map[string]any) any { return map[string]any{"event": req["params"]} })
	peer := &principal{t: b, url: bare.URL, key: alice.key, ID: alice.ID}
	fmt.Fprintf(out, "\nchannels/publish over JSON-RPC vs bare HTTP+JSON (3 interleaved rounds of 2 s each; loadavg %s)\n", loadavg())
	fmt.Fprintln(out, "publishers\tjsonrpc events/s\tbare req/s\tratio\tratio min–max\t")
	for _, n := range []int{1, 8, 64} {
		params := textParams(alice.create(map[string]any{"name": fmt.Sprint("bench-", n)}).ID)
		hub, bare, lo, hi := pair(3, n, 2*time.Second,
			func() { call(b, alice, "channels/publish", params) },
			func() { call(b, peer, "channels/publish", params) })
		fmt.Fprintf(out, "%d\t%.0f\t%.0f\t%.2f\t%.2f–%.2f\t\n", n, hub, bare, hub/bare, lo, hi)
	}
}

// benchStorage: Service.Publish called in process (no HTTP), against the floor of the store: one
// one-row INSERT per write through the same group-commit writer (same fsync, same batching).
func benchStorage(b *testing.B, out io.Writer, h *testHub, alice *principal) {
	db := h.Agent.DB
	if _, err := db.Writer.Exec(`CREATE TABLE IF NOT EXISTS bench_floor (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	ctx := auth.WithPrincipal(context.Background(), auth.Agent("alice"))
	body := []byte(`{"kind":"messageEvent","parts":[{"type":"text","text":"benchmark message"}]}`)
	fmt.Fprintf(out, "\nstorage: Service.Publish in process vs a bare one-row store.Write (3 interleaved rounds of 2 s; loadavg %s)\n", loadavg())
	fmt.Fprintln(out, "writers\tPublish events/s\tbare writes/s\tratio\tratio min–max\t")
	for _, n := range []int{1, 8, 64} {
		var p channels.PublishParams
		raw, _ := json.Marshal(textParams(alice.create(map[string]any{"name": fmt.Sprint("store-", n)}).ID))
		json.Unmarshal(raw, &p)
		hub, bare, lo, hi := pair(3, n, 2*time.Second,
			func() {
				if _, err := h.Channels.Publish(ctx, p); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				if err := db.Write(ctx, func(tx *sql.Tx) error {
					_, err := tx.Exec(`INSERT INTO bench_floor(body) VALUES (?)`, body)
					return err
				}); err != nil {
					b.Fatal(err)
				}
			})
		fmt.Fprintf(out, "%d\t%.0f\t%.0f\t%.2f\t%.2f–%.2f\t\n", n, hub, bare, hub/bare, lo, hi)
	}
}

// sseClient reads an SSE response and reports the time each data line arrived, keyed by what
// key extracts from its JSON (-1: not a keyed item, e.g. a heartbeat).
func sseClient(b *testing.B, res *http.Response, key func([]byte) int64, got func(int64, time.Time)) {
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				if k := key(bytes.TrimSpace(data)); k >= 0 {
					got(k, time.Now())
				}
			}
		}
	}()
}

// clientFrom is an HTTP client whose connections come from local address ip, so that 100 streams
// from this one process are spread over a few loopback addresses (the hub caps streams per client
// address).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}}
}

// latencies collects publish-to-receipt times.
type latencies struct {
	mu       sync.Mutex
	sent     map[int64]time.Time
	times    []time.Duration
	calls    []time.Duration // the publish calls' own round trips
	left     sync.WaitGroup
	received []receipt // every receipt, for latencies from another start (the commit)
}

type receipt struct {
	seq int64
	at  time.Time
}

func (l *latencies) got(k int64, at time.Time) {
	l.mu.Lock()
	if t0, ok := l.sent[k]; ok {
		l.times = append(l.times, at.Sub(t0))
		l.received = append(l.received, receipt{k, at})
		l.left.Done()
	}
	l.mu.Unlock()
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// benchStream: delivery latency from the publish call to receipt by each of 100 channels/stream
// SSE clients, against a bare SSE fan-out server (a POST decoded, encoded and written to 100 open
// SSE responses). Publishes are sequential, one every 10 ms, alternating hub and peer per round.
func benchStream(b *testing.B, out io.Writer, h *testHub, alice *principal) {
	const subscribers, perRound, rounds = 100, 100, 4
	c := alice.create(map[string]any{"name": "stream-bench"})
	params := textParams(c.ID)
	hubLat := &latencies{sent: map[int64]time.Time{}}
	for i := range subscribers {
		cl := clientFrom(fmt.Sprintf("127.0.0.%d", 2+i/50))
		req := alice.request(b.Context(), "channels/stream", map[string]any{"channelId": c.ID, "heartbeatIntervalMs": 60000})
		req.Header.Set("Accept", "text/event-stream")
		res, err := cl.Do(req)
		if err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			b.Fatalf("stream %d: %v %v", i, err, res)
		}
		sseClient(b, res, func(data []byte) int64 {
			var r struct {
				Result struct {
					Event *struct{ Sequence int64 } `json:"event"`
				} `json:"result"`
			}
			if json.Unmarshal(data, &r) != nil || r.Result.Event == nil {
				return -1
			}
			return r.Result.Event.Sequence
		}, hubLat.got)
	}

	// The peer: the same fan-out with nothing behind it.
	var mu sync.Mutex
	var subs []chan []byte
	var ready sync.WaitGroup
	ready.Add(subscribers)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			ch := make(chan []byte, 256)
			mu.Lock()
			subs = append(subs, ch)
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			ready.Done()
			for {
				select {
				case <-r.Context().Done():
					return
				case msg := <-ch:
					fmt.Fprintf(w, "data: %s\n\n", msg)
					w.(http.Flusher).Flush()
				}
			}
		}
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"kind": "messageEvent", "event": req["params"]}})
		mu.Lock()
		for _, ch := range subs {
			ch <- msg
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"event": req["params"]}})
	}))
	b.Cleanup(bare.Close)
	bareLat := &latencies{sent: map[int64]time.Time{}}
	for i := range subscribers {
		cl := clientFrom(fmt.Sprintf("127.0.0.%d", 2+i/50))
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodGet, bare.URL, nil)
		res, err := cl.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		sseClient(b, res, func(data []byte) int64 {
			var r struct {
				Result struct {
					Event *struct{ Sequence int64 } `json:"event"`
				} `json:"result"`
			}
			if json.Unmarshal(data, &r) != nil || r.Result.Event == nil {
				return -1
			}
			return r.Result.Event.Sequence
		}, bareLat.got)
	}
	ready.Wait()
	peer := &principal{t: b, url: bare.URL, key: alice.key, ID: alice.ID}

	// When each hub publish committed: publishes are one at a time, so the first commit of the hub's
	// database after a publish call starts is the one that made its event durable. The hook runs on
	// the writer right after the commit (after the channels package's own hook announced the event).
	var commitMu sync.Mutex
	committed := map[int64]time.Time{}
	var awaiting int64 // the sequence of the hub publish in flight, 0 when none
	h.Agent.DB.OnCommit(func() {
		at := time.Now()
		commitMu.Lock()
		if awaiting != 0 {
			if _, ok := committed[awaiting]; !ok {
				committed[awaiting] = at
			}
		}
		commitMu.Unlock()
	})

	var seq, bareSeq int64
	publish := func(l *latencies, next *int64, p *principal, params map[string]any) {
		if l == hubLat {
			commitMu.Lock()
			awaiting = *next + 1
			commitMu.Unlock()
		}
		*next++
		l.mu.Lock()
		t0 := time.Now()
		l.sent[*next] = t0
		l.left.Add(subscribers)
		l.mu.Unlock()
		call(b, p, "channels/publish", params)
		l.mu.Lock()
		l.calls = append(l.calls, time.Since(t0))
		l.mu.Unlock()
	}
	for r := range rounds {
		hubRound := func() {
			for range perRound {
				publish(hubLat, &seq, alice, params)
				time.Sleep(10 * time.Millisecond)
			}
		}
		bareRound := func() {
			for range perRound {
				bp := maps(params, "sequence", bareSeq+1)
				publish(bareLat, &bareSeq, peer, bp)
				time.Sleep(10 * time.Millisecond)
			}
		}
		if r%2 == 0 {
			hubRound()
			bareRound()
		} else {
			bareRound()
			hubRound()
		}
	}
	hubLat.left.Wait()
	bareLat.left.Wait()
	var afterCommit []time.Duration
	for _, r := range hubLat.received {
		if at, ok := committed[r.seq]; ok {
			afterCommit = append(afterCommit, r.at.Sub(at))
		}
	}
	fmt.Fprintf(out, "\nstream delivery, publish call → receipt, %d SSE subscribers, %d events each side (loadavg %s)\n", subscribers, perRound*rounds, loadavg())
	fmt.Fprintln(out, "server\tp50\tp90\tp99\tmax\tsamples\t")
	for _, row := range []struct {
		name string
		t    []time.Duration
	}{{"channels/stream", hubLat.times}, {"bare SSE fan-out", bareLat.times},
		{"(channels/stream, from the commit)", afterCommit},
		{"(the publish call alone, hub)", hubLat.calls}, {"(the publish call alone, bare)", bareLat.calls}} {
		t := row.t
		fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%s\t%d\t\n", row.name, ms(pct(t, .5)), ms(pct(t, .9)), ms(pct(t, .99)), ms(pct(t, 1)), len(t))
	}
	fmt.Fprintf(out, "ratio p50 %.2f, p99 %.2f\n", float64(pct(hubLat.times, .5))/float64(pct(bareLat.times, .5)),
		float64(pct(hubLat.times, .99))/float64(pct(bareLat.times, .99)))
}

// maps is m with k set to v (a copy).
func maps(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for key, val := range m {
		c[key] = val
	}
	c[k] = v
	return c
}

// seedEvents stores n events in channel id straight through the store, in transactions of 50,000
// (setup, not measured).
func seedEvents(b *testing.B, h *testHub, id, author string, n int) {
	db := h.Agent.DB
	const batch = 50_000
	start := time.Now().UnixMilli() - int64(n)
	for from := 1; from <= n; from += batch {
		err := db.Write(context.Background(), func(tx *sql.Tx) error {
			st, err := tx.Prepare(`INSERT INTO channel_events(channel_id, sequence, id, timestamp, author, request_hash, event_json) VALUES (?, ?, ?, ?, ?, x'00', ?)`)
			if err != nil {
				return err
			}
			defer st.Close()
			for seq := from; seq < from+batch && seq <= n; seq++ {
				evID := fmt.Sprintf("seed-%s-%d", id, seq)
				ev, _ := json.Marshal(channels.MessageEvent{ID: evID, ChannelID: id, Sequence: int64(seq), Timestamp: start + int64(seq), Author: author,
					Parts: []json.RawMessage{json.RawMessage(`{"type":"text","text":"seeded message number ` + strconv.Itoa(seq) + `"}`)}, Kind: "messageEvent"})
				if _, err := st.Exec(id, seq, evID, start+int64(seq), author, ev); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// benchHistory: channels/history pages of 50 in a channel of CHANNELS_BENCH_EVENTS events, at
// random positions (sinceSequence) and continuing with the page token, against the bare server
// answering a page of 50 events of the same shape.
func benchHistory(b *testing.B, out io.Writer, h *testHub, alice *principal) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("CHANNELS_BENCH_EVENTS")); err == nil && v > 100 {
		n = v
	}
	c := alice.create(map[string]any{"name": "history-bench"})
	t0 := time.Now()
	seedEvents(b, h, c.ID, alice.ID, n)
	seeded := time.Since(t0)
	sample := call(b, alice, "channels/history", map[string]any{"channelId": c.ID, "pageSize": 50})
	var pg struct{ Events []any }
	json.Unmarshal(sample, &pg)
	bare := bareServer(b, func(map[string]any) any { return map[string]any{"events": pg.Events, "nextPageToken": "x"} })
	peer := &principal{t: b, url: bare.URL, key: alice.key, ID: alice.ID}
	rng := rand.New(rand.NewPCG(1, 2))
	var random, token, barePage []time.Duration
	timed := func(dst *[]time.Duration, p *principal, params map[string]any) []byte {
		start := time.Now()
		res := call(b, p, "channels/history", params)
		*dst = append(*dst, time.Since(start))
		return res
	}
	for r := range 10 {
		hubRound := func() {
			for range 100 {
				since := rng.Int64N(int64(n - 100))
				res := timed(&random, alice, map[string]any{"channelId": c.ID, "pageSize": 50, "sinceSequence": since})
				var p struct{ NextPageToken string }
				json.Unmarshal(res, &p)
				timed(&token, alice, map[string]any{"channelId": c.ID, "pageSize": 50, "pageToken": p.NextPageToken})
			}
		}
		bareRound := func() {
			for range 200 {
				timed(&barePage, peer, map[string]any{"channelId": c.ID, "pageSize": 50, "sinceSequence": rng.Int64N(int64(n))})
			}
		}
		if r%2 == 0 {
			hubRound()
			bareRound()
		} else {
			bareRound()
			hubRound()
		}
	}
	fmt.Fprintf(out, "\nchannels/history pageSize 50 in a channel of %d events (seeded in %s), 1,000 calls per row (loadavg %s)\n", n, seeded.Round(time.Millisecond), loadavg())
	fmt.Fprintln(out, "call\tp50\tp90\tp99\tratio p50 to bare\t")
	for _, row := range []struct {
		name string
		t    []time.Duration
	}{{"sinceSequence random", random}, {"pageToken next page", token}, {"bare page of 50", barePage}} {
		fmt.Fprintf(out, "%s\t%s\t%s\t%s\t%.2f\t\n", row.name, ms(pct(row.t, .5)), ms(pct(row.t, .9)), ms(pct(row.t, .99)),
			float64(pct(row.t, .5))/float64(pct(barePage, .5)))
	}
}

// BenchmarkPublishCPU measures the CPU the process spends per Service.Publish (getrusage, user +
// system: the callers, the group-commit writer and its fsyncs) with 64 concurrent writers on one
// channel, beside a bare one-row write through the same writer, and the same over JSON-RPC beside
// the bare HTTP+JSON handler: a measure that load on the shared machine moves far less than
// events/s. Run with -cpu 2 (64 = 32 goroutines per P).
//
//	go test ./backend/channels -run '^$' -bench PublishCPU -cpu 2 -benchtime 20000x
func BenchmarkPublishCPU(b *testing.B) {
	h := startHub(b, "")
	h.Channels.SetRateLimit(1e9, 1e9)
	alice := h.principal(b, "alice")
	ctx := auth.WithPrincipal(context.Background(), auth.Agent("alice"))
	db := h.Agent.DB
	if _, err := db.Writer.Exec(`CREATE TABLE IF NOT EXISTS bench_floor (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"kind":"messageEvent","parts":[{"type":"text","text":"benchmark message"}]}`)
	var p channels.PublishParams
	params := textParams(alice.create(map[string]any{"name": "cpu"}).ID)
	raw, _ := json.Marshal(params)
	json.Unmarshal(raw, &p)
	bare := bareServer(b, func(req map[string]any) any { return map[string]any{"event": req["params"]} })
	peer := &principal{t: b, url: bare.URL, key: alice.key, ID: alice.ID}
	for _, c := range []struct {
		name string
		op   func() error
	}{
		{"publish", func() error { _, err := h.Channels.Publish(ctx, p); return err }},
		{"bare-write", func() error {
			return db.Write(ctx, func(tx *sql.Tx) error {
				_, err := tx.Exec(`INSERT INTO bench_floor(body) VALUES (?)`, body)
				return err
			})
		}},
		// The same over JSON-RPC (client included), beside the bare HTTP+JSON handler.
		{"jsonrpc", func() error { call(b, alice, "channels/publish", params); return nil }},
		{"bare-jsonrpc", func() error { call(b, peer, "channels/publish", params); return nil }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetParallelism(32)
			before, st0 := cpuTime(), db.Stats()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := c.op(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			st := db.Stats()
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(st.Writes-st0.Writes)/float64(max(1, st.Batches-st0.Batches)), "writes/commit")
		})
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkHistoryCPU measures the process CPU per channels/history call (a page of 50 at a random
// sinceSequence, client included) in a channel of 100,000 events, beside the bare HTTP+JSON handler
// answering a page of the same shape.
//
//	go test ./backend/channels -run '^$' -bench HistoryCPU -benchtime 2000x
func BenchmarkHistoryCPU(b *testing.B) {
	h := startHub(b, "")
	h.Channels.SetRateLimit(1e9, 1e9)
	alice := h.principal(b, "alice")
	const n = 100_000
	c := alice.create(map[string]any{"name": "history-cpu"})
	seedEvents(b, h, c.ID, alice.ID, n)
	var pg struct{ Events []any }
	json.Unmarshal(call(b, alice, "channels/history", map[string]any{"channelId": c.ID, "pageSize": 50}), &pg)
	bare := bareServer(b, func(map[string]any) any { return map[string]any{"events": pg.Events, "nextPageToken": "x"} })
	peer := &principal{t: b, url: bare.URL, key: alice.key, ID: alice.ID}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, side := range []struct {
		name string
		p    *principal
	}{{"history", alice}, {"bare", peer}} {
		b.Run(side.name, func(b *testing.B) {
			before := cpuTime()
			for b.Loop() {
				call(b, side.p, "channels/history", map[string]any{"channelId": c.ID, "pageSize": 50, "sinceSequence": rng.Int64N(n - 100)})
			}
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkStreamCPU measures the process CPU per event delivered to each of 100 channels/stream
// SSE subscribers (getrusage: publish, fan-out, the SSE writes and the clients reading lines),
// publishing one event at a time and waiting until every subscriber got it; "none" is the same
// publishes with no subscriber, so (stream - none) / 100 is what one subscriber costs per event.
//
//	go test ./backend/channels -run '^$' -bench StreamCPU -benchtime 300x
func BenchmarkStreamCPU(b *testing.B) {
	h := startHub(b, "")
	h.Channels.SetRateLimit(1e9, 1e9)
	alice := h.principal(b, "alice")
	ctx := auth.WithPrincipal(context.Background(), auth.Agent("alice"))
	var p channels.PublishParams
	params := textParams(alice.create(map[string]any{"name": "stream-cpu"}).ID)
	raw, _ := json.Marshal(params)
	json.Unmarshal(raw, &p)
	for _, subscribers := range []int{0, 100} {
		b.Run(fmt.Sprintf("subscribers=%d", subscribers), func(b *testing.B) {
			var got sync.WaitGroup
			sctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			for i := range subscribers {
				req := alice.request(sctx, "channels/stream", map[string]any{"channelId": p.ChannelID, "heartbeatIntervalMs": 60000})
				res, err := clientFrom(fmt.Sprintf("127.0.0.%d", 2+i/50)).Do(req)
				if err != nil {
					b.Fatal(err)
				}
				go func() {
					defer res.Body.Close()
					sc := bufio.NewScanner(res.Body)
					for sc.Scan() {
						if bytes.Contains(sc.Bytes(), []byte(`"messageEvent"`)) {
							got.Done()
						}
					}
				}()
			}
			time.Sleep(200 * time.Millisecond) // every stream subscribed
			before := cpuTime()
			for b.Loop() {
				got.Add(subscribers)
				if _, err := h.Channels.Publish(ctx, p); err != nil {
					b.Fatal(err)
				}
				got.Wait()
			}
			cpu := float64((cpuTime() - before).Microseconds()) / float64(b.N)
			b.ReportMetric(cpu, "cpu-µs/event")
			if subscribers > 0 {
				b.ReportMetric(cpu/float64(subscribers), "cpu-µs/event/sub")
			}
		})
	}
}
