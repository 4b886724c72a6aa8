package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
)

// guardedClient returns a copy of hc (credentials, logging and all) whose transport caps JSON bodies
// and turns a JSON answer to a streaming request into a one-event stream. Servers answer a streaming
// call that fails before its first event (method not found, invalid params) with a plain JSON-RPC
// error; a2a-go's clients read only SSE `data:` lines there and would see an empty, error-free stream.
func guardedClient(hc *http.Client) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = streamGuard{base: base}
	return &c
}

type streamGuard struct{ base http.RoundTripper }

func (g streamGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if jsonrpc.IsEventStream(resp.Header) {
		return resp, nil
	}
	resp.Body = jsonrpc.CapBody(resp.Body)
	if resp.StatusCode >= 400 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		// a2a-go's v0.3 REST server labels its JSON errors so; its client reads them only as JSON.
		resp.Header.Set("Content-Type", "application/json")
	}
	if resp.StatusCode != http.StatusOK || !wantsEventStream(req.Header) {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var event bytes.Buffer
	event.WriteString("data: ")
	if err := json.Compact(&event, body); err != nil {
		return nil, fmt.Errorf("agent answered a streaming request with %q that is not JSON either", resp.Header.Get("Content-Type"))
	}
	event.WriteString("\n\n")
	resp.Header.Set("Content-Type", "text/event-stream")
	resp.Header.Del("Content-Length")
	resp.ContentLength = int64(event.Len())
	resp.Body = io.NopCloser(&event)
	return resp, nil
}

func wantsEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Accept"))
	return mt == "text/event-stream"
}
