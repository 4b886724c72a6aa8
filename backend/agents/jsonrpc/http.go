package jsonrpc

import (
	"bytes"
	"context"
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

// IsEventStream reports whether h says the body is a stream of Server-Sent Events.
func IsEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// CapBody wraps a JSON response body so a read past MaxJSONBody fails with ErrBodyTooLarge.
func CapBody(rc io.ReadCloser) io.ReadCloser { return &cappedBody{rc: rc, left: MaxJSONBody} }

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

// ReadBody reads a whole response body under the JSON cap, whatever transport produced it.
func ReadBody(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(&cappedBody{rc: resp.Body, left: MaxJSONBody})
	if errors.Is(err, ErrBodyTooLarge) {
		return nil, ErrBodyTooLarge
	}
	return body, err
}

// Post posts one JSON-RPC request body to url, asking for an event stream or a JSON answer. A
// non-200 answer is an error: what rpcErr reads as the JSON-RPC error its body carries (nil when it
// carries none, in that dialect's terms), else the HTTP status.
func Post(ctx context.Context, hc *http.Client, url string, body []byte, stream bool, rpcErr func(body []byte) error) (*http.Response, error) {
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
		if body, err := ReadBody(resp); err == nil {
			if err := rpcErr(body); err != nil {
				return nil, err
			}
		}
		return nil, httpStatusError(resp)
	}
	return resp, nil
}
