package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"

	"github.com/agenthub/agenthub/backend/tasks"
)

// rpcError is a JSON-RPC 2.0 error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

// Standard JSON-RPC codes, and A2A's (the same numbers a2a-go uses, so its clients map them back).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeTaskNotFound   = -32001
)

var a2aCodes = []struct {
	err  error
	code int
}{
	{a2a.ErrParseError, codeParseError},
	{a2a.ErrInvalidRequest, codeInvalidRequest},
	{a2a.ErrMethodNotFound, codeMethodNotFound},
	{a2a.ErrInvalidParams, codeInvalidParams},
	{a2a.ErrInternalError, codeInternal},
	{a2a.ErrServerError, -32000},
	{a2a.ErrTaskNotFound, codeTaskNotFound},
	{a2a.ErrTaskNotCancelable, -32002},
	{a2a.ErrPushNotificationNotSupported, -32003},
	{a2a.ErrUnsupportedOperation, -32004},
	{a2a.ErrUnsupportedContentType, -32005},
	{a2a.ErrInvalidAgentResponse, -32006},
	{a2a.ErrExtendedCardNotConfigured, -32007},
	{a2a.ErrExtensionSupportRequired, -32008},
	{a2a.ErrVersionNotSupported, -32009},
	{push.ErrPushConfigNotFound, -32001},
	{tasks.ErrTaskClosed, codeInvalidParams},
}

// toRPCError maps an error from the handlers to its JSON-RPC error; unknown errors are internal and
// their text is not leaked.
//
// An unreachable database is errStorageUnavailable whatever the error around it (see storage.go).
func toRPCError(err error) *rpcError {
	var re *rpcError
	if errors.As(err, &re) {
		if re.Code == codeInternal && storageText(re.Message) && re.Message != storageMessage {
			return errStorageUnavailable // a2a-go's text of the store's error
		}
		return re // the hub's own answer, maybe already in its dialect's shape
	}
	if StorageUnavailable(err) {
		return errStorageUnavailable
	}
	var withData rpcDataError
	if errors.As(err, &withData) {
		return &rpcError{Code: withData.RPCCode(), Message: err.Error(), Data: withData.RPCData()}
	}
	var coded RPCError
	if errors.As(err, &coded) {
		return &rpcError{Code: coded.RPCCode(), Message: err.Error()}
	}
	for _, c := range a2aCodes {
		if errors.Is(err, c.err) {
			return &rpcError{Code: c.code, Message: err.Error()}
		}
	}
	return &rpcError{Code: codeInternal, Message: "internal error"}
}

func invalidParams(msg string) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: "invalid params: " + msg}
}

// v1StateName matches a v1.0 task state (TASK_STATE_COMPLETED) in an error message.
var v1StateName = regexp.MustCompile(`TASK_STATE_[A-Z_]+`)

// inDialect puts an error into the shape of the dialect it is answered in. a2a-go's v1.0 handler
// and, mistakenly, its v0.3 compat handler (a2av0 in a2a-go/v2 v2.4.0) both add "data" as an array
// of google.rpc details and name states as v1.0 does; a v0.3 client decodes "data" as an object
// (a2a-go v0.3 fails on the array: "cannot unmarshal array into ... data") and knows only v0.3
// state names. So for v0.3, data becomes the ErrorInfo as an object (reason, domain, metadata)
// and state names become v0.3's ("rejected"); for the v0.1 draft, data is dropped (our adapter never
// sets one) and state names become the draft's ("failed" for rejected). v1.0 is left as it is.
//
// In every dialect, a task that is not found reads the same however a2a-go found it missing (its
// message names the path: "canceler setup failed" when no execution runs, "setup failed" when one
// does), so a principal cannot learn from it that another principal's task exists and runs.
func inDialect(d tasks.Dialect, re *rpcError) *rpcError {
	if re == nil {
		return re
	}
	if re.Code == codeInternal && storageText(re.Message) {
		re = errStorageUnavailable // a2a-go's text of the store's error, in a stream's error event
	}
	if re.Code == codeTaskNotFound && strings.Contains(re.Message, "task not found") && !strings.HasPrefix(re.Message, "task not found") {
		canonical := *re
		canonical.Message = "task not found"
		re = &canonical
	}
	if d == tasks.DialectV1 {
		return re
	}
	out := *re
	out.Message = v1StateName.ReplaceAllStringFunc(re.Message, func(s string) string {
		if d == tasks.DialectV01 {
			return toDraftState(a2a.TaskState(s))
		}
		return string(a2av0.FromV1TaskState(a2a.TaskState(s)))
	})
	out.Data = nil
	if d == tasks.DialectV03 {
		out.Data = errorInfoObject(re.Data)
	}
	return &out
}

// errorInfoObject returns the first google.rpc.ErrorInfo of a v1.0 details array as a plain object,
// an object as it is, and nil for anything else.
func errorInfoObject(data any) any {
	switch v := data.(type) {
	case map[string]any:
		return v
	case []any:
		for _, d := range v {
			detail, ok := d.(map[string]any)
			if !ok || detail["@type"] != "type.googleapis.com/google.rpc.ErrorInfo" {
				continue
			}
			info := map[string]any{}
			for k, val := range detail {
				if k != "@type" {
					info[k] = val
				}
			}
			return info
		}
	}
	return nil
}

// callInDialect answers a unary method's errors in dialect d's shape.
func callInDialect(d tasks.Dialect, call func(ctx context.Context, r *request) (json.RawMessage, error)) func(ctx context.Context, r *request) (json.RawMessage, error) {
	return func(ctx context.Context, r *request) (json.RawMessage, error) {
		raw, err := call(ctx, r)
		if err != nil {
			return nil, inDialect(d, toRPCError(err))
		}
		return raw, nil
	}
}

// streamInDialect answers a streaming method's errors, the immediate reply and the error events of
// its stream, in dialect d's shape.
func streamInDialect(d tasks.Dialect, stream func(ctx context.Context, r *request, w http.ResponseWriter)) func(ctx context.Context, r *request, w http.ResponseWriter) {
	return func(ctx context.Context, r *request, w http.ResponseWriter) {
		stream(ctx, r, &dialectErrorWriter{ResponseWriter: w, dialect: d})
	}
}

// dialectErrorWriter rewrites JSON-RPC error responses written through it, whether a whole
// application/json body or one SSE "data: " event, into its dialect's shape. a2a-go writes each of
// those with a single Write; anything else (or anything that does not parse) passes unchanged.
type dialectErrorWriter struct {
	http.ResponseWriter
	dialect tasks.Dialect
}

func (w *dialectErrorWriter) Write(p []byte) (int, error) {
	if out, ok := rewriteErrorResponse(w.dialect, p); ok {
		if _, err := w.ResponseWriter.Write(out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *dialectErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *dialectErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func rewriteErrorResponse(d tasks.Dialect, p []byte) ([]byte, bool) {
	// Every event of every stream passes here: one that has no "error" key (a2a-go's encoder writes
	// keys as they are) is no error response, and is not parsed.
	if !bytes.Contains(p, []byte(`"error"`)) {
		return nil, false
	}
	prefix, body, suffix := []byte(nil), p, []byte(nil)
	if rest, ok := bytes.CutPrefix(p, []byte("data: ")); ok {
		trimmed := bytes.TrimRight(rest, "\n")
		prefix, body, suffix = p[:len("data: ")], trimmed, rest[len(trimmed):]
	}
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcError       `json:"error"`
	}
	if json.Unmarshal(body, &resp) != nil || resp.Error == nil {
		return nil, false
	}
	resp.Error = inDialect(d, resp.Error)
	out, err := json.Marshal(resp)
	if err != nil {
		return nil, false
	}
	if prefix == nil && bytes.HasSuffix(body, []byte("\n")) {
		suffix = []byte("\n")
	}
	return append(append(append([]byte{}, prefix...), out...), suffix...), true
}
