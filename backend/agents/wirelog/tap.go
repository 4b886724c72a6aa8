package wirelog

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxWireBody bounds a recorded body; wireSlack more is captured so a secret straddling the cut is
// still masked whole before the cut is made.
const (
	maxWireBody = 64 << 10
	wireSlack   = 4 << 10
)

// Tap sends requests and records them, their responses and each event of a stream.
type Tap struct {
	agentID string
	wire    Recorder
	base    http.RoundTripper
}

// NewTap returns the tap that sends an agent's requests through base and records them to wire
// (nil: nothing is recorded).
func NewTap(agentID string, wire Recorder, base http.RoundTripper) *Tap {
	return &Tap{agentID: agentID, wire: wire, base: base}
}

func (p *Tap) record(e Entry) {
	if p.wire == nil {
		return
	}
	e.AgentID = p.agentID
	if e.At.IsZero() {
		e.At = time.Now()
	}
	p.wire.Record(e)
}

// Failed records a call that got no response.
func (p *Tap) Failed(callID, method string, req *http.Request, start time.Time, err error, m *Masker) {
	p.record(Entry{CallID: callID, Kind: "error", Method: method, URL: m.URL(req.URL), Duration: time.Since(start), Body: m.Text(err.Error())})
}

// Do records req, sends it, and wraps the response body so its content is recorded as it is read:
// a plain body once, when finished or closed; a stream event by event.
func (p *Tap) Do(req *http.Request, body []byte, callID, method string, m *Masker) (*http.Response, error) {
	start := time.Now()
	if p.wire != nil {
		captured := body[:min(len(body), maxWireBody+wireSlack)]
		p.record(Entry{CallID: callID, At: start, Kind: "request", Method: method, URL: m.URL(req.URL),
			Header: m.Header(req.Header), Body: ClipBody(m.Text(string(captured)), int64(len(body)-len(captured)), maxWireBody)})
	}
	resp, err := p.base.RoundTrip(req)
	if err != nil {
		p.Failed(callID, method, req, start, err, m)
		return nil, err
	}
	if p.wire == nil {
		return resp, nil
	}
	head := Entry{CallID: callID, Kind: "response", Method: method, URL: m.URL(req.URL), Status: resp.StatusCode,
		Duration: time.Since(start), Header: m.Header(resp.Header)}
	if wireMediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		p.record(head)
		resp.Body = &eventTee{rc: resp.Body, done: func(event []byte, more int64) {
			p.record(Entry{CallID: callID, Kind: "event", Method: method, Duration: time.Since(start),
				Body: ClipBody(m.Text(string(event)), more, maxWireBody)})
		}}
		return resp, nil
	}
	resp.Body = &bodyTee{rc: resp.Body, done: func(captured []byte, more int64) {
		head.At, head.Body = time.Now(), ClipBody(m.Text(string(captured)), more, maxWireBody)
		p.record(head)
	}}
	return resp, nil
}

func wireMediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// bodyTee captures the start of a body and reports it once, at EOF or Close, whichever comes first.
type bodyTee struct {
	rc       io.ReadCloser
	mu       sync.Mutex
	captured []byte
	total    int64
	once     sync.Once
	done     func(captured []byte, more int64)
}

func (b *bodyTee) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	b.total += int64(n)
	if room := maxWireBody + wireSlack - len(b.captured); room > 0 {
		b.captured = append(b.captured, p[:min(n, room)]...)
	}
	b.mu.Unlock()
	if err != nil {
		b.finish()
	}
	return n, err
}

func (b *bodyTee) Close() error {
	b.finish()
	return b.rc.Close()
}

func (b *bodyTee) finish() {
	b.once.Do(func() {
		b.mu.Lock()
		captured, more := b.captured, b.total-int64(len(b.captured))
		b.mu.Unlock()
		b.done(captured, more)
	})
}

// eventTee splits an SSE stream into events (separated by a blank line) and reports each as it
// completes; an event's text is capped, the rest only counted.
type eventTee struct {
	rc      io.ReadCloser
	mu      sync.Mutex
	line    []byte // the current line, up to a newline
	event   []byte // the lines of the current event
	dropped int64
	closed  bool
	done    func(event []byte, more int64)
}

func (e *eventTee) Read(p []byte) (int, error) {
	n, err := e.rc.Read(p)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range p[:n] {
		if c != '\n' {
			if len(e.line) < maxWireBody+wireSlack {
				e.line = append(e.line, c)
			} else {
				e.dropped++
			}
			continue
		}
		line := bytes.TrimSuffix(e.line, []byte("\r"))
		e.line = e.line[:0]
		if len(line) == 0 {
			e.emit()
			continue
		}
		e.keep(line)
		if len(e.event) < maxWireBody+wireSlack {
			e.event = append(e.event, '\n')
		}
	}
	if err != nil {
		e.end()
	}
	return n, err
}

func (e *eventTee) keep(b []byte) {
	room := maxWireBody + wireSlack - len(e.event)
	take := min(max(room, 0), len(b))
	e.event = append(e.event, b[:take]...)
	e.dropped += int64(len(b) - take)
}

func (e *eventTee) emit() {
	if len(e.event) == 0 && e.dropped == 0 {
		return
	}
	e.done(bytes.TrimSuffix(e.event, []byte("\n")), e.dropped)
	e.event, e.dropped = nil, 0
}

// end reports an event the stream stopped in the middle of.
func (e *eventTee) end() {
	if e.closed {
		return
	}
	e.closed = true
	if len(e.line) > 0 {
		e.keep(e.line)
		e.line = nil
	}
	e.emit()
}

func (e *eventTee) Close() error {
	e.mu.Lock()
	e.end()
	e.mu.Unlock()
	return e.rc.Close()
}

// ClipBody cuts s to limit bytes (at a character boundary) and notes how much was left out.
func ClipBody(s string, more int64, limit int) string {
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		more += int64(len(s) - cut)
		s = s[:cut]
	}
	if more > 0 {
		s += fmt.Sprintf("… (%d bytes more)", more)
	}
	return s
}

// RecordCall records one entry of a call that is not plain HTTP (a gRPC call), already masked; the
// agent and, when unset, the time are filled in, and its body is cut at the log's limit.
func (p *Tap) RecordCall(e Entry) {
	e.Body = ClipBody(e.Body, 0, maxWireBody)
	p.record(e)
}
