package server_test

import (
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkDeeplyNestedBody posts a 60 KB SendMessage whose data part nests 9,990 arrays deep and
// reports the process's allocation per request and the peak heap in use while it is served (the
// server runs in this process). Before the nesting limit one request cost about 2.7 GB.
//
//	go test -run '^$' -bench DeeplyNestedBody -benchtime 3x ./backend/server/
func BenchmarkDeeplyNestedBody(b *testing.B) {
	a := startDemo(b)
	body := deepSendMessage(9990)
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // samples the heap, as nothing else reports a peak
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Post(a.URL, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	close(stop)
	<-sampled
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "alloc-B/req")
	b.ReportMetric(float64(peak.Load()), "peak-heap-inuse-B")
}
