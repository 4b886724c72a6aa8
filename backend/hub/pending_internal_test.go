package hub

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// A tab that reloads while the hub restarts asks for the UI before Start has mounted it: the request
// waits and gets the page, not a 404; if Start fails, it gets 503.
func TestRoutesRequestedDuringStartWaitForThem(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  func(p *pendingMux)
		status int
		body   string
	}{
		{"started", func(p *pendingMux) {
			p.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the UI") })
			p.open()
		}, http.StatusOK, "the UI"},
		{"failed", func(p *pendingMux) { p.fail() }, http.StatusServiceUnavailable, "the hub did not start\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPendingMux()
			done := make(chan *httptest.ResponseRecorder)
			go func() {
				w := httptest.NewRecorder()
				p.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
				done <- w
			}()
			for p.held.Load() == 0 { // the request is in, before Start is done
				runtime.Gosched()
			}
			tc.start(p)
			w := <-done
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Fatalf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.status, tc.body)
			}
		})
	}
}
