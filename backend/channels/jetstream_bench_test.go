package channels_test

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// benchJetStream (issue 25): the durable peer a team would otherwise pick, an embedded NATS
// JetStream server (in process, loopback, file storage in a temp dir) with every publish synced
// to disk before it is acknowledged. Options.SyncAlways is what the config file's
// `jetstream { sync_interval: always }` sets; with one replica the stream's file store then
// writes each message in place and fsyncs its block file before StoreMsg returns, and the PubAck
// is sent after that (nats-server v2.15.2, server/filestore.go: writeMsgRecordLocked →
// flushPendingMsgsLocked → mb.mfd.Sync() when syncAlways). The payload is the hub's own event
// from a channels/publish of textParams, so both sides make the same number of bytes durable.
//
// Publish: js.Publish waits for the PubAck as a hub caller waits for its publish answer; 1, 8 and
// 64 publishers, each on its own NATS connection (as each hub publisher has its own HTTP
// connection), interleaved round by round with the hub's channels/publish. Stream: sequential
// publishes one every 10 ms, hub and JetStream alternating per round, to one subscriber per
// replica on each side (a channels/stream SSE client; an ordered push consumer).
func benchJetStream(b *testing.B, out io.Writer, h *testHub, alice *principal) {
	opts := &server.Options{
		Host:       "127.0.0.1",
		Port:       -1,
		JetStream:  true,
		StoreDir:   b.TempDir(),
		SyncAlways: true,
		NoLog:      true,
		NoSigs:     true,
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		b.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		b.Fatal("nats-server did not start")
	}
	b.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func() (*nats.Conn, nats.JetStreamContext) {
		nc, err := nats.Connect(ns.ClientURL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		js, err := nc.JetStream()
		if err != nil {
			b.Fatal(err)
		}
		return nc, js
	}
	_, js := connect()
	if _, err := js.AddStream(&nats.StreamConfig{Name: "bench", Subjects: []string{"bench.>"}, Storage: nats.FileStorage, Replicas: 1}); err != nil {
		b.Fatal(err)
	}

	// The same event: what the hub itself answers for a publish of textParams.
	var res struct {
		Event json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(call(b, alice, "channels/publish", textParams(alice.create(map[string]any{"name": "jetstream-payload"}).ID)), &res); err != nil {
		b.Fatal(err)
	}
	payload := []byte(res.Event)

	fmt.Fprintf(out, "\nchannels/publish over JSON-RPC vs JetStream, file storage, every publish synced (%d-byte event; 3 interleaved rounds of 2 s each; loadavg %s)\n", len(payload), loadavg())
	fmt.Fprintln(out, "publishers\thub events/s\tJetStream synced events/s\tratio\tratio min–max\t")
	for _, n := range []int{1, 8, 64} {
		params := textParams(alice.create(map[string]any{"name": fmt.Sprint("js-bench-", n)}).ID)
		subject := fmt.Sprint("bench.publish.", n)
		pool := make(chan nats.JetStreamContext, n)
		for range n {
			_, pjs := connect()
			pool <- pjs
		}
		hub, peer, lo, hi := pair(3, n, 2*time.Second,
			func() { call(b, alice, "channels/publish", params) },
			func() {
				pjs := <-pool
				if _, err := pjs.Publish(subject, payload); err != nil {
					b.Fatal(err)
				}
				pool <- pjs
			})
		fmt.Fprintf(out, "%d\t%.0f\t%.0f\t%.2f\t%.2f–%.2f\t\n", n, hub, peer, hub/peer, lo, hi)
	}

	const perRound, rounds = 100, 4
	fmt.Fprintf(out, "\nstream delivery, publish call → receipt, one subscriber per replica, %d events each side (loadavg %s)\n", perRound*rounds, loadavg())
	fmt.Fprintln(out, "subscribers\tserver\tp50\tp90\tp99\tmax\tsamples\t")
	for _, subscribers := range []int{1, 2} {
		c := alice.create(map[string]any{"name": fmt.Sprint("js-stream-", subscribers)})
		params := textParams(c.ID)
		hubLat := &latencies{sent: map[int64]time.Time{}}
		for i := range subscribers {
			req := alice.request(b.Context(), "channels/stream", map[string]any{"channelId": c.ID, "heartbeatIntervalMs": 60000})
			req.Header.Set("Accept", "text/event-stream")
			res, err := clientFrom(fmt.Sprintf("127.0.0.%d", 2+i)).Do(req)
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

		// Each subscriber on its own connection, keyed by the message's sequence in the stream.
		// The stream already holds the publish rows' messages: each subject's sequence numbers
		// are counted from the stream's last sequence before the first publish.
		subject := fmt.Sprint("bench.stream.", subscribers)
		info, err := js.StreamInfo("bench")
		if err != nil {
			b.Fatal(err)
		}
		base := int64(info.State.LastSeq)
		jsLat := &latencies{sent: map[int64]time.Time{}}
		for range subscribers {
			_, sjs := connect()
			sub, err := sjs.Subscribe(subject, func(m *nats.Msg) {
				at := time.Now()
				if md, err := m.Metadata(); err == nil {
					jsLat.got(int64(md.Sequence.Stream)-base, at)
				}
			}, nats.OrderedConsumer(), nats.DeliverNew())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { sub.Unsubscribe() })
		}
		_, pjs := connect()

		var hubSeq, jsSeq int64
		publish := func(l *latencies, next *int64, op func()) {
			*next++
			l.mu.Lock()
			t0 := time.Now()
			l.sent[*next] = t0
			l.left.Add(subscribers)
			l.mu.Unlock()
			op()
			l.mu.Lock()
			l.calls = append(l.calls, time.Since(t0))
			l.mu.Unlock()
		}
		hubRound := func() {
			for range perRound {
				publish(hubLat, &hubSeq, func() { call(b, alice, "channels/publish", params) })
				time.Sleep(10 * time.Millisecond)
			}
		}
		jsRound := func() {
			for range perRound {
				publish(jsLat, &jsSeq, func() {
					if _, err := pjs.Publish(subject, payload); err != nil {
						b.Fatal(err)
					}
				})
				time.Sleep(10 * time.Millisecond)
			}
		}
		for r := range rounds {
			if r%2 == 0 {
				hubRound()
				jsRound()
			} else {
				jsRound()
				hubRound()
			}
		}
		waitOrFail(b, &hubLat.left, "channels/stream deliveries")
		waitOrFail(b, &jsLat.left, "JetStream deliveries")
		for _, row := range []struct {
			name string
			t    []time.Duration
		}{{"channels/stream", hubLat.times}, {"JetStream ordered consumer (synced)", jsLat.times},
			{"(the publish call alone, hub)", hubLat.calls}, {"(js.Publish alone, synced)", jsLat.calls}} {
			t := row.t
			fmt.Fprintf(out, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t\n", subscribers, row.name, ms(pct(t, .5)), ms(pct(t, .9)), ms(pct(t, .99)), ms(pct(t, 1)), len(t))
		}
		fmt.Fprintf(out, "%d\tratio p50 %.2f, p99 %.2f\t\t\t\t\t\t\n", subscribers, float64(pct(hubLat.times, .5))/float64(pct(jsLat.times, .5)),
			float64(pct(hubLat.times, .99))/float64(pct(jsLat.times, .99)))
	}
}

// waitOrFail waits for every expected delivery, and fails rather than hang when some never come.
func waitOrFail(b *testing.B, wg *sync.WaitGroup, what string) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		b.Fatalf("%s: not all arrived within 30 s", what)
	}
}
