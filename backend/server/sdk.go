package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// forward hands one validated request to an a2a-go JSON-RPC handler (v1.0 or its v0.3 compat), as a
// request of its own: the router has already dealt with the envelope, batches and notifications.

func forwardBody(req *request) []byte {
	params := req.Params
	if params == nil {
		params = json.RawMessage("{}") // the SDK reports absent params as a parse error
	}
	id := req.ID
	if id == nil {
		id = json.RawMessage(`"notification"`)
	}
	// Written out instead of marshalled from a map: the params are JSON the router checked, which
	// a2a-go decodes anyway, so compacting them once more was work for nothing.
	method := mustJSON(req.Method)
	b := make([]byte, 0, len(id)+len(method)+len(params)+48)
	b = append(append(b, `{"id":`...), id...)
	b = append(append(b, `,"jsonrpc":"2.0","method":`...), method...)
	b = append(append(b, `,"params":`...), params...)
	return append(b, '}')
}

func forwardRequest(ctx context.Context, req *request) *http.Request {
	hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, req.HTTP.URL.String(), bytes.NewReader(forwardBody(req)))
	hr.Header = req.HTTP.Header.Clone()
	hr.Header.Set("Content-Type", "application/json")
	hr.RemoteAddr = req.HTTP.RemoteAddr
	return hr
}

// sdkCall answers a unary method through h and returns its JSON-RPC response. The body reaching h is
// always valid JSON (the router checked), so a parse error from the SDK means params of the wrong
// shape: that is reported as -32602, as JSON-RPC says.
func sdkCall(h http.Handler) func(ctx context.Context, req *request) (json.RawMessage, error) {
	return func(ctx context.Context, req *request) (json.RawMessage, error) {
		rec := &bufferWriter{header: http.Header{}}
		h.ServeHTTP(rec, forwardRequest(ctx, req))
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result,omitempty"`
			Error   *rpcError       `json:"error,omitempty"`
		}
		if err := json.Unmarshal(rec.body.Bytes(), &resp); err != nil {
			return nil, err
		}
		if resp.Error != nil {
			if resp.Error.Code == codeParseError {
				resp.Error.Code = codeInvalidParams
			}
			return nil, resp.Error
		}
		if resp.Result == nil {
			resp.Result = json.RawMessage("{}")
		}
		// a2a-go's json.Encoder wrote the result compact and HTML-escaped, as json.Marshal would:
		// it is spliced in, not scanned and copied again.
		return resultJSON(req.ID, resp.Result), nil
	}
}

// sdkStream answers a streaming method through h, writing its SSE straight to the client. Params are
// first decoded into the SDK's own type so a malformed request gets a plain -32602 instead of a
// stream holding a parse error.
func sdkStream(h http.Handler, decodeInto func() any) func(ctx context.Context, req *request, w http.ResponseWriter) {
	return func(ctx context.Context, req *request, w http.ResponseWriter) {
		params := req.Params
		if params == nil {
			params = json.RawMessage("{}")
		}
		if err := json.Unmarshal(params, decodeInto()); err != nil {
			writeJSON(w, http.StatusOK, errorResponse(req.ID, invalidParams(err.Error())))
			return
		}
		h.ServeHTTP(w, forwardRequest(ctx, req))
	}
}

type bufferWriter struct {
	header http.Header
	body   bytes.Buffer
	status int
}

func (b *bufferWriter) Header() http.Header         { return b.header }
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferWriter) WriteHeader(status int)      { b.status = status }

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
