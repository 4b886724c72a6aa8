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
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/errordetails"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/tasks"
)

// RESTPath is where the HTTP+JSON binding (A2A v1.0 §11) lives under an agent's base URL: the card's
// HTTP+JSON interface URL is BaseURL + RESTPath, and the binding's paths (/message:send, /tasks/{id}…)
// sit below it. v0.3's HTTP+JSON paths, which all start with /v1 (/v1/message:send…), sit below it
// too, so one interface URL serves both versions.
const RESTPath = "/rest"

// restV03Prefix starts every path of v0.3's HTTP+JSON binding (a2av0.RESTPathPrefix).
const restV03Prefix = "/v1"

// The REST binding is a2a-go's REST handler over the same request handler as JSON-RPC. In front of it,
// restBinding gives every route what the JSON-RPC router gives every method: a known route and method
// (a2a-go answers those in plain text), the Content-Type, the body size and nesting limits, the
// version header, the send and subscribe prechecks, the stream limits and write deadline, and the
// v1.0 dialect for the tasks it creates. Its own refusals use the binding's error body
// ({"error":{"code","status","message","details":[ErrorInfo]}}), as a2a-go's clients parse it.
type restBinding struct {
	sdk          http.Handler // v1.0's REST handler
	sdkV03       http.Handler // v0.3's (a2av0), for the paths under restV03Prefix
	rt           *router      // readBody, streams, writeTimeout and log: shared with JSON-RPC
	sendCheck    func(ctx context.Context, r *request) error
	sendCheckV03 func(ctx context.Context, r *request) error
	subscribable func(ctx context.Context, r *request) error
}

// restKind is what a route does, which decides its checks.
type restKind int

const (
	restOther restKind = iota
	restSend
	restStream
	restSubscribe
)

// restRoute finds the route of path (below RESTPath, and below restV03Prefix for v0.3's): the
// methods it takes and what it does with method m. ok is false for a path the binding does not have.
// The routes are the same in both versions but for the extended card's.
func restRoute(path string, v03 bool) (allowed string, kind restKind, ok bool) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	card := "/extendedAgentCard"
	if v03 {
		card = "/card"
	}
	switch {
	case path == "/message:send":
		return "POST", restSend, true
	case path == "/message:stream":
		return "POST", restStream, true
	case path == "/tasks", path == card:
		return "GET", restOther, true
	case len(parts) == 2 && parts[0] == "tasks" && parts[1] != "":
		switch {
		case strings.HasSuffix(parts[1], ":subscribe"):
			return "GET, POST", restSubscribe, true
		case strings.HasSuffix(parts[1], ":cancel"):
			return "POST", restOther, true
		}
		return "GET", restOther, true
	case len(parts) == 3 && parts[0] == "tasks" && parts[1] != "" && parts[2] == "pushNotificationConfigs":
		return "GET, POST", restOther, true
	case len(parts) == 4 && parts[0] == "tasks" && parts[1] != "" && parts[2] == "pushNotificationConfigs" && parts[3] != "":
		return "GET, DELETE", restOther, true
	}
	return "", restOther, false
}

func (b *restBinding) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			logPanic(b.rt.log, "rest binding", p)
			writeRESTStatus(w, http.StatusInternalServerError, a2a.ErrInternalError, "internal error")
		}
	}()
	route, v03 := strings.CutPrefix(r.URL.Path, restV03Prefix+"/")
	if v03 {
		route = "/" + route
	} else {
		route = r.URL.Path
	}
	allowed, kind, ok := restRoute(route, v03)
	if !ok {
		writeRESTStatus(w, http.StatusNotFound, a2a.ErrMethodNotFound, "not found: the HTTP+JSON binding has no route "+r.URL.Path)
		return
	}
	if !slices.Contains(strings.Split(allowed, ", "), r.Method) {
		w.Header().Set("Allow", allowed)
		writeRESTStatus(w, http.StatusMethodNotAllowed, a2a.ErrInvalidRequest,
			fmt.Sprintf("method not allowed: %s takes %s, not %s", r.URL.Path, allowed, r.Method))
		return
	}
	dialect, sdk, sendCheck := tasks.DialectV1, b.sdk, b.sendCheck
	if v03 {
		dialect, sdk, sendCheck = tasks.DialectV03, b.sdkV03, b.sendCheckV03
		w = problemAsJSON{w}
	} else if v := r.Header.Get("A2A-Version"); majorMinor(v) != "" && majorMinor(v) != "1.0" {
		writeRESTError(w, r, fmt.Errorf("%w: A2A-Version %q (the HTTP+JSON binding speaks 1.0 here, 0.3 under %s)", a2a.ErrVersionNotSupported, v, restV03Prefix))
		return
	}
	ctx := tasks.WithDialect(r.Context(), dialect)
	req := &request{HTTP: r}
	if r.Method == http.MethodPost && r.ContentLength != 0 {
		body, ok := b.readBody(w, r)
		if !ok {
			return
		}
		req.Params = body
		if kind == restSend || kind == restStream {
			// The TCK writes proto field names (task_id); a2a-go's decoder knows only lowerCamel.
			if err := protoJSONNames(ctx, req); err != nil {
				writeRESTError(w, r, err)
				return
			}
			if err := sendCheck(ctx, req); err != nil {
				writeRESTError(w, r, err)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(req.Params))
		r.ContentLength = int64(len(req.Params))
	}
	if kind == restSubscribe && !v03 { // v0.3 has no such check, as on JSON-RPC
		id, _, _ := strings.Cut(strings.TrimPrefix(route, "/tasks/"), ":subscribe")
		if err := b.subscribable(ctx, &request{HTTP: r, Params: mustJSON(map[string]string{"id": id})}); err != nil {
			writeRESTError(w, r, err)
			return
		}
	}
	r = r.WithContext(ctx)
	if kind != restStream && kind != restSubscribe {
		sdk.ServeHTTP(&internalErrors{ResponseWriter: w, log: b.rt.log, path: r.URL.Path}, r)
		return
	}
	release, rerr := b.rt.streams.acquire(r.RemoteAddr)
	if rerr != nil {
		writeRESTStatus(w, http.StatusTooManyRequests, errStreamLimit, rerr.Message)
		return
	}
	defer release()
	// A stream outlives the authentication of its request: it ends, with an UNAUTHENTICATED error as
	// its last event, once the key or token it was opened with is revoked.
	ctx, stop := auth.UntilRevoked(ctx)
	defer stop()
	sw := newStreamWriter(w, b.rt.writeTimeout, nil, b.rt.log)
	sdk.ServeHTTP(sw, r.WithContext(ctx))
	if errors.Is(context.Cause(ctx), auth.ErrRevoked) && strings.HasPrefix(sw.Header().Get("Content-Type"), "text/event-stream") {
		if _, err := fmt.Fprintf(sw, "data: %s\n\n", restErrorBody(http.StatusUnauthorized, a2a.ErrUnauthenticated, auth.ErrRevoked.Error())); err == nil {
			sw.Flush()
		}
	}
}

// problemAsJSON labels a2av0's REST errors application/json. a2av0's server writes them as
// application/problem+json, but their body is the binding's error object, not an RFC 9457 problem,
// and a2a-go's own v0.3 REST client reads a typed error only from application/json (anything else is
// a bare "server error").
type problemAsJSON struct{ http.ResponseWriter }

func (w problemAsJSON) WriteHeader(status int) {
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
		w.Header().Set("Content-Type", "application/json")
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w problemAsJSON) Write(p []byte) (int, error) { return w.ResponseWriter.Write(p) }

func (w problemAsJSON) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes on the stream's flushes.
func (w problemAsJSON) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// internalErrors keeps the cause of an internal failure from the client, as the JSON-RPC router
// does: a2a-go's REST handler writes err.Error() into a 500's message (a database's error, a panic's
// text). The cause is logged; the client gets a bare internal error, or 503 with Retry-After when
// the database cannot be reached.
type internalErrors struct {
	http.ResponseWriter
	log      *slog.Logger
	path     string
	replaced bool // a2a-go answered 5xx: its body is replaced by ours
	answered bool
}

func (w *internalErrors) WriteHeader(status int) {
	if status < http.StatusInternalServerError {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.replaced = true
	w.ResponseWriter.Header().Del("Content-Length")
}

func (w *internalErrors) Write(p []byte) (int, error) {
	if !w.replaced {
		return w.ResponseWriter.Write(p)
	}
	if w.answered {
		return len(p), nil
	}
	w.answered = true
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(p, &body)
	if storageText(body.Error.Message) {
		w.log.Warn("rest call failed: storage unavailable", "path", w.path, "error", body.Error.Message)
		w.ResponseWriter.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
		writeRESTStatus(w.ResponseWriter, http.StatusServiceUnavailable, a2a.ErrInternalError, storageMessage)
	} else {
		w.log.Error("rest call failed", "path", w.path, "error", body.Error.Message)
		writeRESTStatus(w.ResponseWriter, http.StatusInternalServerError, a2a.ErrInternalError, "internal error")
	}
	return len(p), nil
}

func (w *internalErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readBody reads a POST body under the JSON-RPC router's limits (size, read deadline, nesting depth)
// and checks its Content-Type, answering the refusal itself (ok false).
func (b *restBinding) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	// As on JSON-RPC: a browser may POST text/plain or a form cross-site without a preflight. A body
	// of unknown length is read first: an empty one (a bodiless :cancel or :subscribe) needs no type.
	typed := func() bool {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || (mt != "application/json" && mt != "application/a2a+json") {
			writeRESTStatus(w, http.StatusUnsupportedMediaType, a2a.ErrInvalidRequest, "unsupported media type: Content-Type must be application/json")
			return false
		}
		return true
	}
	if r.ContentLength > 0 && !typed() {
		return nil, false
	}
	body, err := b.rt.readBody(w, r)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeRESTStatus(w, http.StatusRequestEntityTooLarge, a2a.ErrInvalidRequest, fmt.Sprintf("invalid request: body is larger than the %d-byte limit", b.rt.maxBody))
		return nil, false
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeRESTStatus(w, http.StatusRequestTimeout, a2a.ErrInvalidRequest, fmt.Sprintf("invalid request: the body did not arrive within %s", b.rt.bodyTimeout))
		return nil, false
	case err != nil:
		writeRESTError(w, r, fmt.Errorf("%w: %v", a2a.ErrParseError, err))
		return nil, false
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 && r.ContentLength < 0 {
		return body, true
	}
	if r.ContentLength < 0 && !typed() {
		return nil, false
	}
	if !json.Valid(body) {
		writeRESTError(w, r, fmt.Errorf("%w: body is not valid JSON", a2a.ErrParseError))
		return nil, false
	}
	if nestingDepth(body, MaxNestingDepth) > MaxNestingDepth {
		writeRESTStatus(w, http.StatusBadRequest, a2a.ErrInvalidRequest, fmt.Sprintf("invalid request: JSON nests deeper than the limit of %d levels", MaxNestingDepth))
		return nil, false
	}
	return body, true
}

// errStreamLimit is the reason a refused stream gives (HTTP 429).
var errStreamLimit = errors.New("too many open streams")

// restStatusNames are the google.rpc status names that go with the HTTP statuses the binding answers
// itself (AIP-193, as a2a-go writes them).
var restStatusNames = map[int]string{
	http.StatusBadRequest: "INVALID_ARGUMENT", http.StatusUnauthorized: "UNAUTHENTICATED", http.StatusForbidden: "PERMISSION_DENIED",
	http.StatusNotFound: "NOT_FOUND", http.StatusMethodNotAllowed: "UNIMPLEMENTED", http.StatusRequestTimeout: "DEADLINE_EXCEEDED",
	http.StatusRequestEntityTooLarge: "INVALID_ARGUMENT", http.StatusUnsupportedMediaType: "INVALID_ARGUMENT",
	http.StatusTooManyRequests: "RESOURCE_EXHAUSTED", http.StatusInternalServerError: "INTERNAL", http.StatusServiceUnavailable: "UNAVAILABLE",
}

// restErrorBody is the binding's error object with the A2A reason of kind (a2a.ErrorReason), which
// a2a-go's client turns back into that error.
func restErrorBody(status int, kind error, message string) []byte {
	reason := a2a.ErrorReason(kind)
	if kind == errStreamLimit {
		reason = "STREAM_LIMIT"
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": status, "status": restStatusNames[status], "message": message,
		"details": []*errordetails.Typed{errordetails.NewErrorInfo(reason, a2a.ProtocolDomain,
			map[string]string{"timestamp": time.Now().UTC().Format(time.RFC3339)})},
	}})
	return b
}

// writeRESTStatus answers a refusal of the binding's own with status.
func writeRESTStatus(w http.ResponseWriter, status int, kind error, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(restErrorBody(status, kind, message), '\n'))
}

// writeRESTError answers an A2A error exactly as a2a-go's REST handler answers it from a method (its
// HTTP status mapping and body), by having that handler answer it: the prechecks' errors then look
// like the same error coming from the request handler.
func writeRESTError(w http.ResponseWriter, r *http.Request, err error) {
	r2 := r.Clone(context.WithValue(r.Context(), restErrKey{}, err))
	r2.Method = http.MethodGet
	r2.URL.Path, r2.URL.RawPath, r2.URL.RawQuery = "/extendedAgentCard", "", ""
	r2.Body, r2.ContentLength = http.NoBody, 0
	restErrors.ServeHTTP(w, r2)
}

type restErrKey struct{}

// errorOnly answers GetExtendedAgentCard with the error in its context (writeRESTError).
type errorOnly struct{ a2asrv.RequestHandler }

func (errorOnly) GetExtendedAgentCard(ctx context.Context, _ *a2a.GetExtendedAgentCardRequest) (*a2a.AgentCard, error) {
	return nil, ctx.Value(restErrKey{}).(error)
}

var restErrors = a2asrv.NewRESTHandler(errorOnly{})

// restFail answers authenticate's refusals in the binding's terms.
func restFail(w http.ResponseWriter, status int, e *rpcError) {
	kind := a2a.ErrInternalError
	switch e.Code {
	case codeUnauthenticated:
		kind = a2a.ErrUnauthenticated
	case codeForbidden:
		kind = a2a.ErrUnauthorized
	}
	writeRESTStatus(w, status, kind, e.Message)
}

// jsonRPCFail answers authenticate's refusals as JSON-RPC errors.
func jsonRPCFail(w http.ResponseWriter, status int, e *rpcError) {
	writeJSON(w, status, errorResponse(nil, e))
}

func newRESTBinding(handler a2asrv.RequestHandler, rt *router, transport []a2asrv.TransportOption, sendCheck, sendCheckV03, subscribable func(context.Context, *request) error) http.Handler {
	return &restBinding{sdk: a2asrv.NewRESTHandler(handler, transport...), sdkV03: a2av0.NewRESTHandler(handler, transport...), rt: rt,
		sendCheck: sendCheck, sendCheckV03: sendCheckV03, subscribable: subscribable}
}
