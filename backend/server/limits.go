package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Limits that keep one client from exhausting the hub's memory, goroutines or connections.
const (
	// MaxNestingDepth bounds how deeply arrays and objects nest in a request body. Decoding JSON into
	// Go values costs memory quadratic in depth on our path (each layer re-reads the layers under
	// it), so a 60 KB body nested 10,000 deep cost gigabytes before this limit.
	MaxNestingDepth = 64
	// MaxBatchRequests bounds the requests of one JSON-RPC batch.
	MaxBatchRequests = 100

	DefaultMaxStreams          = 256
	DefaultMaxStreamsPerClient = 64
	DefaultStreamWriteTimeout  = 30 * time.Second
	DefaultBodyReadTimeout     = 60 * time.Second
)

// codeStreamLimit answers a stream refused because too many are open (HTTP 429). It is in JSON-RPC's
// range for implementation-defined server errors, next to A2A's -32000.
const codeStreamLimit = -32029

func (cfg *Config) limitDefaults() {
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.MaxStreamsPerClient <= 0 {
		cfg.MaxStreamsPerClient = DefaultMaxStreamsPerClient
	}
	if cfg.StreamWriteTimeout <= 0 {
		cfg.StreamWriteTimeout = DefaultStreamWriteTimeout
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
}

// nestingDepth returns how deeply arrays and objects nest in a JSON text, stopping as soon as the
// depth passes limit. It reads bytes once and allocates nothing, so it runs before anything decodes
// the body. Brackets inside strings do not count.
func nestingDepth(body []byte, limit int) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range body {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// streamLimits counts the SSE streams open, server-wide and per remote IP address.
type streamLimits struct {
	mu           sync.Mutex
	open         int
	byClient     map[string]int
	max, perHost int
}

func newStreamLimits(max, perHost int) *streamLimits {
	return &streamLimits{byClient: map[string]int{}, max: max, perHost: perHost}
}

// acquire takes a stream slot for the client at remoteAddr, or says why not.
func (l *streamLimits) acquire(remoteAddr string) (release func(), err *rpcError) {
	host, _, splitErr := net.SplitHostPort(remoteAddr)
	if splitErr != nil {
		host = remoteAddr
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		return nil, &rpcError{Code: codeStreamLimit, Message: fmt.Sprintf("too many open streams: the server has its limit of %d open; retry after one ends", l.max)}
	}
	if l.byClient[host] >= l.perHost {
		return nil, &rpcError{Code: codeStreamLimit, Message: fmt.Sprintf("too many open streams: this client has its limit of %d open; close one first", l.perHost)}
	}
	l.open++
	l.byClient[host]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.open--
			if l.byClient[host]--; l.byClient[host] == 0 {
				delete(l.byClient, host)
			}
		})
	}, nil
}

// streamWriter is the ResponseWriter a stream writes to: every write and flush gets a deadline, so a
// client that stops reading fails the write (which cancels the request's context) instead of
// holding the stream, its goroutines and its queued events for ever. It also carries what a stream
// needs to report a panic: the request's id and the logger.
type streamWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	id      json.RawMessage
	log     *slog.Logger
	started bool      // the status line is written: an error can no longer be a plain JSON reply
	until   time.Time // the deadline last set
}

func newStreamWriter(w http.ResponseWriter, timeout time.Duration, id json.RawMessage, log *slog.Logger) *streamWriter {
	return &streamWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: timeout, id: id, log: log}
}

func (s *streamWriter) deadline() {
	// A stream writes and flushes every event: the deadline is moved only once it has come a
	// sixteenth of the timeout closer, not on every call (each move resets the connection's timer).
	until := time.Now().Add(s.timeout)
	if until.Sub(s.until) < s.timeout/16 {
		return
	}
	s.until = until
	// ErrNotSupported (a writer without a connection) leaves the write unbounded, as before.
	_ = s.rc.SetWriteDeadline(until)
}

func (s *streamWriter) WriteHeader(status int) {
	s.deadline()
	s.started = true
	s.ResponseWriter.WriteHeader(status)
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.deadline()
	s.started = true
	return s.ResponseWriter.Write(p)
}

func (s *streamWriter) Flush() { _ = s.FlushError() }

func (s *streamWriter) FlushError() error {
	s.deadline()
	return s.rc.Flush()
}

func (s *streamWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// errInternal is what a client learns of a panic or of any internal failure: nothing of its cause.
var errInternal = &rpcError{Code: codeInternal, Message: "internal error"}

// errUnreadableTask is the one internal failure a client is told about: the task exists, but its
// stored form is damaged, so asking again will not help (the owner sees it marked in the UI).
var errUnreadableTask = &rpcError{Code: codeInternal, Message: "internal error: the stored task is unreadable"}

// recoverer is a2a-go's panic handler for the executor and the transports: the panic and its stack go
// to the log, the client gets a bare internal error (a2a-go's default puts the stack in the error
// message, which reached the client).
func recoverer(log *slog.Logger, where string) func(r any) error {
	return func(r any) error {
		logPanic(log, where, r)
		return a2a.ErrInternalError
	}
}

// logPanic logs a recovered panic with its stack. http.ErrAbortHandler is net/http's way to abort a
// response on purpose: it is passed on.
func logPanic(log *slog.Logger, where string, r any) {
	if r == http.ErrAbortHandler {
		panic(r)
	}
	log.Error("panic recovered", "in", where, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
}
