package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/server"
)

// FuzzRouter posts arbitrary bodies to the real endpoint, nested depth levels deep and repeated
// batch times in a batch, and checks what any client may rely on: a JSON-RPC answer (or none for
// notifications, or a stream), nothing of the server's internals, and the nesting and batch limits
// enforced whatever the body says.
//
//	go test -run '^$' -fuzz FuzzRouter -fuzztime 60s ./backend/server/
func FuzzRouter(f *testing.F) {
	a := startDemo(f, func(c *server.Config) { c.Executor = &demoagent.Agent{Tick: time.Millisecond} })
	for _, seed := range []struct {
		body         string
		depth, batch uint16
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 0, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, 0, 0},
		{`{"jsonrpc":"2.0","id":"a","method":"tasks/send","params":{"id":"t","message":{"role":"user","parts":[{"type":"data","data":{"k":[1,{"x":null}]}}]}}}`, 0, 2},
		{`{"jsonrpc":"2.0","method":"ListTasks","params":{}}`, 0, 3},
		{`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"d","role":"ROLE_USER","parts":[{"data":[[[[]]]]}]}}}`, 60, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 64, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 0, server.MaxBatchRequests},
		{`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, 0, server.MaxBatchRequests + 1},
		{`{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"kind":"message","messageId":"s","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`, 0, 0},
		{`"[\"{"`, 3, 1},
		{`[`, 10, 0},
	} {
		f.Add(seed.body, seed.depth, seed.batch)
	}
	f.Fuzz(func(t *testing.T, body string, depth, batch uint16) {
		depth %= 2 * server.MaxNestingDepth
		batch %= 2 * server.MaxBatchRequests
		nested := strings.Repeat("[", int(depth)) + body + strings.Repeat("]", int(depth))
		full := nested
		if batch > 0 {
			full = "[" + strings.TrimSuffix(strings.Repeat(nested+",", int(batch)), ",") + "]"
		}
		resp, err := http.Post(a.URL, "application/json", strings.NewReader(full))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			io.Copy(io.Discard, resp.Body)
			return
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(got, []byte("goroutine ")) || bytes.Contains(got, []byte(".go:")) {
			t.Fatalf("the answer shows the server's internals: %s", got)
		}
		switch resp.StatusCode {
		case http.StatusNoContent:
			if len(got) != 0 {
				t.Fatalf("204 with a body %q", got)
			}
			return
		case http.StatusRequestEntityTooLarge, http.StatusOK:
		default:
			t.Fatalf("HTTP %d %s", resp.StatusCode, got)
		}
		if !json.Valid(got) {
			t.Fatalf("answer is not JSON: %q", got)
		}
		trimmed := strings.TrimSpace(full)
		if resp.StatusCode != http.StatusOK || !json.Valid([]byte(trimmed)) {
			return
		}
		// The limits hold whatever the requests inside say.
		var single rpcResp
		refused := json.Unmarshal(got, &single) == nil && single.Error != nil && single.Error.Code == -32600 && string(single.ID) == "null"
		if d := jsonDepth(trimmed); d > server.MaxNestingDepth && !refused {
			t.Fatalf("a body %d deep was not refused: %s", d, got)
		}
		var items []json.RawMessage
		if json.Unmarshal([]byte(trimmed), &items) == nil && len(items) > server.MaxBatchRequests && !refused {
			t.Fatalf("a batch of %d was not refused: %s", len(items), got)
		}
	})
}

// jsonDepth measures nesting with the standard decoder, independently of the router's scan.
func jsonDepth(s string) int {
	dec := json.NewDecoder(strings.NewReader(s))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil { // io.EOF at the end
			return deepest
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			deepest = max(deepest, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}
