package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/tasks"
)

// The router owns the JSON-RPC 2.0 envelope: it reads the body under a size limit, splits batches,
// validates each request (the SDKs let a request without "method" or with a string "params" through
// with the wrong code), answers notifications with nothing, and dispatches by method name to the
// dialect that owns it.

// request is one JSON-RPC request after envelope validation.
type request struct {
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage // nil, or a JSON object
	HTTP   *http.Request
	// at is the last stringAt read of Params: a send's prechecks (openTaskGuard, busyTaskGuard) read
	// the same path, and parsing the params once for both is a tenth of the router's own CPU.
	at struct {
		path   []string
		params []byte
		val    string
		ok     bool
	}
}

// stringAt is stringAt of r.Params, parsed once per path while Params stays the same.
func (r *request) stringAt(path ...string) (string, bool) {
	same := len(r.at.params) == len(r.Params) && (len(r.Params) == 0 || &r.at.params[0] == &r.Params[0])
	if r.at.path != nil && same && slices.Equal(r.at.path, path) {
		return r.at.val, r.at.ok
	}
	v, ok := stringAt(r.Params, path...)
	r.at.path, r.at.params, r.at.val, r.at.ok = path, r.Params, v, ok
	return v, ok
}

func (r *request) isNotification() bool { return r.ID == nil }

// response is one JSON-RPC response object.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func errorResponse(id json.RawMessage, err error) *response {
	if id == nil {
		id = json.RawMessage("null")
	}
	return &response{JSONRPC: "2.0", ID: id, Error: toRPCError(err)}
}

func resultResponse(id json.RawMessage, result any) *response {
	if result == nil {
		result = struct{}{}
	}
	return &response{JSONRPC: "2.0", ID: id, Result: result}
}

// method is what a dialect does with a request: answer it (call) or stream it (stream).
type method struct {
	dialect tasks.Dialect
	call    func(ctx context.Context, r *request) (json.RawMessage, error)
	stream  func(ctx context.Context, r *request, w http.ResponseWriter)
	// precheck, when set, runs before the method and answers with an error instead of it.
	precheck func(ctx context.Context, r *request) error
}

// router dispatches JSON-RPC requests by method name.
type router struct {
	methods map[string]method
	// shared names (tasks/get, tasks/cancel, tasks/resubscribe) exist in v0.3 and v0.1; they go to
	// the dialect the task was created in.
	shared    map[string]map[tasks.Dialect]method
	dialectOf func(ctx context.Context, id a2a.TaskID) (tasks.Dialect, error)
	maxBody   int64
	log       *slog.Logger

	bodyTimeout  time.Duration // reading one body
	writeTimeout time.Duration // one write of a stream
	streams      *streamLimits
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Unary calls and streams recover their own panics; this covers the envelope and prechecks,
	// which have written nothing when they fail.
	defer func() {
		if p := recover(); p != nil {
			logPanic(rt.log, "json-rpc router", p)
			writeJSON(w, http.StatusOK, errorResponse(nil, errInternal))
		}
	}()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeJSON(w, http.StatusMethodNotAllowed, errorResponse(nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: JSON-RPC requests are POSTed"}))
		return
	}
	// A browser sends text/plain, form and multipart bodies cross-site without asking the server
	// first; application/json makes it ask (a CORS preflight), which the hub never grants.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, errorResponse(nil, &rpcError{Code: codeInvalidRequest,
			Message: "invalid request: Content-Type must be application/json"}))
		return
	}
	body, err := rt.readBody(w, r)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeJSON(w, http.StatusRequestEntityTooLarge, errorResponse(nil, &rpcError{Code: codeInvalidRequest,
			Message: fmt.Sprintf("invalid request: body is larger than the %d-byte limit", rt.maxBody)}))
		return
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// The rest of the body is not waited for: net/http would otherwise read it before answering.
		w.Header().Set("Connection", "close")
		writeJSON(w, http.StatusRequestTimeout, errorResponse(nil, &rpcError{Code: codeInvalidRequest,
			Message: fmt.Sprintf("invalid request: the body did not arrive within %s", rt.bodyTimeout)}))
		return
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, &rpcError{Code: codeParseError, Message: "parse error: " + err.Error()}))
		return
	}
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		writeJSON(w, http.StatusOK, errorResponse(nil, &rpcError{Code: codeParseError, Message: "parse error: body is not valid JSON"}))
		return
	}
	if nestingDepth(trimmed, MaxNestingDepth) > MaxNestingDepth {
		writeJSON(w, http.StatusOK, errorResponse(nil, &rpcError{Code: codeInvalidRequest,
			Message: fmt.Sprintf("invalid request: JSON nests deeper than the limit of %d levels", MaxNestingDepth)}))
		return
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		rt.serveBatch(w, r, trimmed)
		return
	}
	req, rerr := parseRequest(trimmed, r)
	if rerr != nil {
		writeJSON(w, http.StatusOK, errorResponse(req.idOrNil(), rerr))
		return
	}
	m, ctx, rerr := rt.resolve(r.Context(), req, false)
	if rerr != nil {
		if req.isNotification() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, errorResponse(req.ID, rerr))
		return
	}
	if m.stream != nil {
		rt.stream(ctx, m, req, w)
		return
	}
	resp := rt.call(ctx, m, req)
	if req.isNotification() {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeRaw(w, resp)
}

// readBody reads the body under the size limit and a deadline (a client trickling a body would
// otherwise hold its goroutine and buffer for ever). The deadline is lifted once the body is in:
// the server's own ReadTimeout cannot be used, since it would also cut every SSE stream.
func (rt *router) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(rt.bodyTimeout))
	defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	return io.ReadAll(http.MaxBytesReader(w, r.Body, rt.maxBody))
}

// stream serves a streaming method within the stream limits: a refusal is a JSON-RPC error before any
// event, every write has a deadline, and a panic is logged and ends the stream with an internal error
// if no event was written yet.
func (rt *router) stream(ctx context.Context, m method, req *request, w http.ResponseWriter) {
	release, rerr := rt.streams.acquire(req.HTTP.RemoteAddr)
	if rerr != nil {
		writeJSON(w, http.StatusTooManyRequests, errorResponse(req.ID, rerr))
		return
	}
	defer release()
	sw := newStreamWriter(w, rt.writeTimeout, req.ID, rt.log) // net/http lifts the deadline after the response
	defer func() {
		if p := recover(); p != nil {
			logPanic(rt.log, req.Method, p)
			if !sw.started {
				writeJSON(w, http.StatusOK, errorResponse(req.ID, errInternal))
			}
		}
	}()
	// A stream outlives the authentication of its request: it ends, with -32030 as its last event,
	// once the key or token it was opened with is revoked.
	ctx, stop := auth.UntilRevoked(ctx)
	defer stop()
	m.stream(ctx, req, sw)
	if errors.Is(context.Cause(ctx), auth.ErrRevoked) && strings.HasPrefix(sw.Header().Get("Content-Type"), "text/event-stream") {
		endRevoked(sw, req.ID)
	}
}

// endRevoked writes a stream's last event: the credential it was opened with no longer works.
func endRevoked(sw *streamWriter, id json.RawMessage) {
	b := marshal(errorResponse(id, &rpcError{Code: codeUnauthenticated, Message: auth.ErrRevoked.Error()}))
	if _, err := fmt.Fprintf(sw, "data: %s\n\n", b); err == nil {
		sw.Flush()
	}
}

func (rt *router) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil || len(items) == 0 {
		writeJSON(w, http.StatusOK, errorResponse(nil, &rpcError{Code: codeInvalidRequest, Message: "invalid request: a batch must be a non-empty array"}))
		return
	}
	if len(items) > MaxBatchRequests {
		writeJSON(w, http.StatusOK, errorResponse(nil, &rpcError{Code: codeInvalidRequest,
			Message: fmt.Sprintf("invalid request: a batch of %d requests is over the limit of %d", len(items), MaxBatchRequests)}))
		return
	}
	out := make([]json.RawMessage, 0, len(items))
	for _, item := range items {
		req, rerr := parseRequest(item, r)
		if rerr != nil {
			out = append(out, marshal(errorResponse(req.idOrNil(), rerr)))
			continue
		}
		m, ctx, rerr := rt.resolve(r.Context(), req, true)
		if rerr != nil {
			if !req.isNotification() {
				out = append(out, marshal(errorResponse(req.ID, rerr)))
			}
			continue
		}
		resp := rt.call(ctx, m, req)
		if !req.isNotification() {
			out = append(out, resp)
		}
	}
	if len(out) == 0 {
		w.WriteHeader(http.StatusNoContent) // a batch of notifications gets nothing back
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// resolve finds the method a request names and checks it may run: a stream cannot answer inside a
// batch or to a notification (neither has a stream to answer on), and the method's precheck passes.
// The returned context carries the method's dialect.
func (rt *router) resolve(ctx context.Context, req *request, inBatch bool) (method, context.Context, *rpcError) {
	m, rerr := rt.lookup(ctx, req)
	if rerr != nil {
		return m, ctx, rerr
	}
	if m.stream != nil && (inBatch || req.isNotification()) {
		return m, ctx, &rpcError{Code: codeInvalidRequest, Message: "invalid request: streaming method " + req.Method + " cannot be batched or sent as a notification"}
	}
	ctx = tasks.WithDialect(ctx, m.dialect)
	if m.precheck != nil {
		if err := m.precheck(ctx, req); err != nil {
			return m, ctx, toRPCError(err)
		}
	}
	return m, ctx, nil
}

// call answers a unary method. A panic, or any internal error, is logged with what caused it, and the
// client gets a bare -32603: the cause (a panic's stack, a database error) is not the client's
// business and can tell an attacker about the server.
func (rt *router) call(ctx context.Context, m method, req *request) (raw json.RawMessage) {
	defer func() {
		if p := recover(); p != nil {
			logPanic(rt.log, req.Method, p)
			raw = marshal(errorResponse(req.ID, errInternal))
		}
	}()
	raw, err := m.call(ctx, req)
	if err == nil {
		return raw
	}
	if re := toRPCError(err); re.Message == storageMessage {
		rt.log.Warn("json-rpc call failed: storage unavailable", "method", req.Method, "error", err)
	} else if re.Code == codeInternal {
		rt.log.Error("json-rpc call failed", "method", req.Method, "error", err)
		err = errInternal
		if strings.Contains(re.Message, tasks.ErrUnreadable.Error()) {
			err = errUnreadableTask // what the client can act on, without the decoder's details
		}
	}
	return marshal(errorResponse(req.ID, err))
}

// supportedVersions are the A2A-Version header values the hub answers (v0.2 clients use v0.3's names).
var supportedVersions = map[string]bool{"": true, "0.1": true, "0.2": true, "0.3": true, "1.0": true}

func (rt *router) lookup(ctx context.Context, req *request) (method, *rpcError) {
	if v := req.HTTP.Header.Get("A2A-Version"); !supportedVersions[majorMinor(v)] {
		return method{}, toRPCError(fmt.Errorf("%w: A2A-Version %q (this hub speaks 1.0, 0.3 and 0.1)", a2a.ErrVersionNotSupported, v))
	}
	if m, ok := rt.methods[req.Method]; ok {
		return m, nil
	}
	byDialect, ok := rt.shared[req.Method]
	if !ok {
		return method{}, &rpcError{Code: codeMethodNotFound, Message: "method not found: " + req.Method}
	}
	var p struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(req.Params, &p); err != nil || p.ID == nil || *p.ID == "" {
		return method{}, invalidParams("params.id must be a non-empty string")
	}
	d, err := rt.dialectOf(ctx, a2a.TaskID(*p.ID))
	if errors.Is(err, a2a.ErrTaskNotFound) {
		return method{}, toRPCError(fmt.Errorf("%w: %s", a2a.ErrTaskNotFound, *p.ID))
	}
	if err != nil {
		return method{}, toRPCError(err)
	}
	if m, ok := byDialect[d]; ok {
		return m, nil
	}
	return byDialect[tasks.DialectV03], nil
}

// parseRequest validates one request object of the envelope. The returned request carries the id
// even on error, so the error response can echo it.
func parseRequest(raw json.RawMessage, hr *http.Request) (*request, *rpcError) {
	req := &request{HTTP: hr}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(raw, &env); err != nil {
		return req, &rpcError{Code: codeInvalidRequest, Message: "invalid request: a request must be a JSON object"}
	}
	if id, ok := env["id"]; ok {
		switch firstByte(id) {
		case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			req.ID = id
		default:
			return req, &rpcError{Code: codeInvalidRequest, Message: "invalid request: id must be a string, a number or null"}
		}
	}
	var version string
	if err := json.Unmarshal(env["jsonrpc"], &version); err != nil || version != "2.0" {
		return req, &rpcError{Code: codeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`}
	}
	m, ok := env["method"]
	if !ok || json.Unmarshal(m, &req.Method) != nil || req.Method == "" {
		return req, &rpcError{Code: codeInvalidRequest, Message: `invalid request: "method" must be a non-empty string`}
	}
	if p, ok := env["params"]; ok && string(p) != "null" {
		if firstByte(p) != '{' {
			return req, invalidParams(`"params" must be an object`)
		}
		req.Params = p
	}
	return req, nil
}

func (r *request) idOrNil() json.RawMessage {
	if r == nil {
		return nil
	}
	return r.ID
}

func firstByte(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(errorResponse(nil, err))
	}
	return b
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeRaw(w http.ResponseWriter, raw json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(raw, '\n'))
}

// majorMinor reduces "1.0.2" to "1.0".
func majorMinor(v string) string {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return strings.TrimSpace(v)
}
