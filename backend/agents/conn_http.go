package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// Limits on what a remote agent may send in one piece.
const (
	// MaxJSONBody bounds a JSON-RPC response body (a file part travels inline as base64).
	MaxJSONBody = 32 << 20
	// MaxSSEEvent bounds one Server-Sent Event of a stream.
	MaxSSEEvent = 8 << 20
)

// ErrBodyTooLarge is returned when a remote agent's response exceeds MaxJSONBody.
var ErrBodyTooLarge = fmt.Errorf("agent response is larger than the %d-byte limit", MaxJSONBody)

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
	if isEventStream(resp.Header) {
		return resp, nil
	}
	resp.Body = &cappedBody{rc: resp.Body, left: MaxJSONBody}
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

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

func wantsEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Accept"))
	return mt == "text/event-stream"
}

// cappedBody fails a read that goes past left bytes, instead of silently truncating (which would
// turn into a confusing JSON syntax error).
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n + int(c.left), ErrBodyTooLarge
	}
	return n, err
}

func (c *cappedBody) Close() error { return c.rc.Close() }

// readBody reads a whole response body under the JSON cap, whatever transport produced it.
func readBody(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(&cappedBody{rc: resp.Body, left: MaxJSONBody})
	if errors.Is(err, ErrBodyTooLarge) {
		return nil, ErrBodyTooLarge
	}
	return body, err
}

// postJSONRPC posts one JSON-RPC request body to url, asking for an event stream or a JSON answer. A
// non-200 answer is an error: what rpcErr reads as the JSON-RPC error its body carries (nil when it
// carries none, in that dialect's terms), else the HTTP status.
func postJSONRPC(ctx context.Context, hc *http.Client, url string, body []byte, stream bool, rpcErr func(body []byte) error) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		if body, err := readBody(resp); err == nil {
			if err := rpcErr(body); err != nil {
				return nil, err
			}
		}
		return nil, httpStatusError(resp)
	}
	return resp, nil
}
