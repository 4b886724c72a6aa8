package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// sseWriter writes JSON-RPC responses as Server-Sent Events, one `data:` line each.
type sseWriter struct {
	w http.ResponseWriter
	f http.Flusher
	// onPanic answers a panic of the producer: the router's streamWriter supplies the request's id
	// and logger; without one the panic is only ended.
	onPanic func(p any) any
}

func newSSEWriter(w http.ResponseWriter) (*sseWriter, error) {
	f, ok := w.(http.Flusher)
	if !ok {
		return nil, fmt.Errorf("response writer cannot stream")
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	f.Flush()
	s := &sseWriter{w: w, f: f, onPanic: func(any) any { return nil }}
	if sw, ok := w.(*streamWriter); ok {
		s.onPanic = func(p any) any {
			logPanic(sw.log, "event stream", p)
			return errorResponse(sw.id, errInternal)
		}
	}
	return s, nil
}

func (s *sseWriter) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}

// sendRaw writes frame, a whole event already framed ("data: " JSON "\n\n"), in one write.
func (s *sseWriter) sendRaw(frame []byte) error {
	if _, err := s.w.Write(frame); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}

// comment writes an SSE comment, which clients ignore and idle proxies see as traffic.
func (s *sseWriter) comment() error {
	if _, err := fmt.Fprint(s.w, ": keep-alive\n\n"); err != nil {
		return err
	}
	s.f.Flush()
	return nil
}

// direct runs produce on the calling goroutine, writing to the connection itself (write encodes a
// value, writeRaw writes an event already framed): an event reaches the client without a hop through
// another goroutine. Keep-alive comments come from a goroutine of their own, every keepAlive while
// the stream lasts; a lock keeps them from interleaving with produce's writes. A failed write, or the
// client going away, ends ctx; the stream ends when produce returns.
func (s *sseWriter) direct(ctx context.Context, keepAlive time.Duration, produce func(ctx context.Context, write func(v any) error, writeRaw func([]byte) error)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	locked := func(fn func() error) error {
		mu.Lock()
		defer mu.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(); err != nil {
			cancel()
			return err
		}
		return nil
	}
	write := func(v any) error { return locked(func() error { return s.send(v) }) }
	writeRaw := func(frame []byte) error { return locked(func() error { return s.sendRaw(frame) }) }
	idle := make(chan struct{})
	go func() {
		defer close(idle)
		tick := time.NewTicker(keepAlive)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if locked(s.comment) != nil {
					return
				}
			}
		}
	}()
	// The handler must not return, and so end the response, while the keep-alive goroutine may
	// still write to it.
	defer func() { cancel(); <-idle }()
	// A panic here would end the whole process: it ends this stream with an internal error.
	defer func() {
		if p := recover(); p != nil {
			if v := s.onPanic(p); v != nil {
				_ = write(v)
			}
		}
	}()
	produce(ctx, write, writeRaw)
}
