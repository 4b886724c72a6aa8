package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/server"
)

// REST streams count against the same limits as JSON-RPC's: a client at its limit on one binding is
// refused on the other with 429 in the REST binding's terms, and gets the slot once a stream ends.
func TestRESTStreamsShareTheStreamLimits(t *testing.T) {
	a := startDemo(t, func(c *server.Config) {
		c.MaxStreamsPerClient = 1
		c.Executor = &demoagent.Agent{Tick: time.Second}
	})
	id := slowTask(t, a) // works for minutes: streams on it stay open
	rpcStream, closeRPC := openStream(t, a, "127.0.0.1", id)
	if rpcStream.StatusCode != http.StatusOK {
		t.Fatalf("the JSON-RPC stream: HTTP %d", rpcStream.StatusCode)
	}
	subscribe := func() (*http.Response, func()) {
		ctx, cancel := context.WithCancel(t.Context())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.Base+server.RESTPath+"/tasks/"+id+":subscribe", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		return resp, func() { cancel(); resp.Body.Close() }
	}
	refused, closeRefused := subscribe()
	body, _ := io.ReadAll(refused.Body)
	closeRefused()
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if refused.StatusCode != http.StatusTooManyRequests || json.Unmarshal(body, &e) != nil || e.Error.Code != http.StatusTooManyRequests ||
		e.Error.Status != "RESOURCE_EXHAUSTED" || !strings.Contains(e.Error.Message, "this client has its limit of 1") {
		t.Fatalf("a REST stream over the limit: HTTP %d %s", refused.StatusCode, body)
	}
	closeRPC()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, closeIt := subscribe()
		ok := resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
		closeIt()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the REST stream never got the slot back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
