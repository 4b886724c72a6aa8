package channels_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPublish measures channels/publish through the hub's JSON-RPC endpoint (auth, router,
// one durable SQLite transaction per event) with 1, 8 and 64 concurrent publishers, beside a bare
// loopback HTTP+JSON handler driven the same way, so the numbers read against the floor of
// HTTP+JSON on this machine. It prints; it asserts nothing about time.
func BenchmarkPublish(b *testing.B) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	h := startHub(b, "")
	h.Channels.SetRateLimit(1e9, 1e9) // measure the path, not the brake
	alice := h.principal(b, "alice")
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"event": req["params"]}})
	}))
	b.Cleanup(bare.Close)

	for _, n := range []int{1, 8, 64} {
		c := alice.create(map[string]any{"name": fmt.Sprint("bench-", n)})
		params := map[string]any{"channelId": c.ID, "parts": []any{map[string]any{"type": "text", "text": "benchmark message"}}}
		for _, target := range []struct{ name, url string }{{"jsonrpc", h.URL}, {"bare-http", bare.URL}} {
			b.Run(fmt.Sprintf("%s/publishers=%d", target.name, n), func(b *testing.B) {
				p := &principal{t: b, url: target.url, key: alice.key, ID: alice.ID}
				var next atomic.Int64
				var wg sync.WaitGroup
				start := time.Now()
				b.ResetTimer()
				for range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for next.Add(1) <= int64(b.N) {
							res, err := client.Do(p.request(b.Context(), "channels/publish", params))
							if err != nil {
								b.Error(err)
								return
							}
							raw, _ := io.ReadAll(res.Body)
							res.Body.Close()
							var r rpcResponse
							if json.Unmarshal(raw, &r) != nil || r.Error != nil {
								b.Errorf("publish: %s", raw)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "publishes/s")
			})
		}
	}
}
