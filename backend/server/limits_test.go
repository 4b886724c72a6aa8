package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/server"
)

// deepSendMessage is a SendMessage whose data part nests depth arrays deep.
func deepSendMessage(depth int) string {
	return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"deep","role":"ROLE_USER","parts":[{"data":` +
		strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}]}}}`
}

func TestDeeplyNestedBodyIsRefused(t *testing.T) {
	a := startDemo(t)
	before := taskCount(t, a)
	for _, body := range []string{deepSendMessage(9990), "[" + deepSendMessage(server.MaxNestingDepth) + "]"} {
		r := call(t, a.URL, body)
		if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, fmt.Sprint(server.MaxNestingDepth)) {
			t.Fatalf("got %+v, want -32600 naming the limit", r)
		}
	}
	if after := taskCount(t, a); after != before {
		t.Fatalf("%d tasks after refused requests, %d before", after, before)
	}
	// Structured data within the limit, and brackets inside strings, pass.
	for _, body := range []string{deepSendMessage(40),
		`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"s","role":"ROLE_USER","parts":[{"text":"` + strings.Repeat("[{", 5000) + `\"]"}]}}}`} {
		if r := call(t, a.URL, body); r.Error != nil {
			t.Fatalf("refused: %d %s", r.Error.Code, r.Error.Message)
		}
	}
}

func TestBatchOverLimitIsRefused(t *testing.T) {
	a := startDemo(t)
	batch := func(n int, method string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"message":{"messageId":"b%d","role":"ROLE_USER","parts":[{"text":"x"}]}}}`, i, method, i)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	r := call(t, a.URL, batch(server.MaxBatchRequests+1, "SendMessage"))
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, fmt.Sprint(server.MaxBatchRequests)) {
		t.Fatalf("got %+v, want -32600 naming the limit", r)
	}
	if n := taskCount(t, a); n != 0 {
		t.Fatalf("%d tasks made by a refused batch", n)
	}
	_, body := post(t, a.URL, batch(server.MaxBatchRequests, "GetTask"))
	if n := strings.Count(string(body), `"jsonrpc"`); n != server.MaxBatchRequests {
		t.Fatalf("a batch at the limit got %d replies", n)
	}
}

// openStream posts SubscribeToTask from the given local address and returns the response once its
// headers are in; the caller closes the body.
func openStream(t *testing.T, a *testAgent, localIP, taskID string) (*http.Response, func()) {
	t.Helper()
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}).DialContext}
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.URL, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"`+taskID+`"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return resp, func() { cancel(); resp.Body.Close(); tr.CloseIdleConnections() }
}

// askTask leaves a task waiting for input, so streams on it stay open; extra is added to the message.
func askTask(t *testing.T, a *testAgent, extra string) string {
	t.Helper()
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"configuration":{"historyLength":0},"message":{"messageId":"ask","role":"ROLE_USER","parts":[{"text":"ask`+extra+`"}]}}}`), &res)
	id := res.Task.ID
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(string(call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+id+`","historyLength":0}}`).Result), "INPUT_REQUIRED") {
		if time.Now().After(deadline) {
			t.Fatal("task never asked back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return id
}

// slowTask starts a task that works for minutes, so streams on it stay open.
func slowTask(t *testing.T, a *testAgent) string {
	t.Helper()
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"configuration":{"returnImmediately":true},"message":{"messageId":"slow","role":"ROLE_USER","parts":[{"text":"slow 600"}]}}}`), &res)
	return res.Task.ID
}

func TestOpenStreamsAreCapped(t *testing.T) {
	a := startDemo(t, func(c *server.Config) {
		c.MaxStreams = 3
		c.MaxStreamsPerClient = 2
		c.Executor = &demoagent.Agent{Tick: time.Second}
	})
	id := slowTask(t, a)
	wantOpen := func(resp *http.Response) {
		t.Helper()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("stream not opened: HTTP %d %s", resp.StatusCode, b)
		}
	}
	wantRefused := func(resp *http.Response, says string) {
		t.Helper()
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("stream not refused: HTTP %d", resp.StatusCode)
		}
		b, _ := io.ReadAll(resp.Body)
		wantRPCError(t, resp, b, http.StatusTooManyRequests, -32029)
		if !strings.Contains(string(b), says) {
			t.Fatalf("refusal %s does not say %q", b, says)
		}
	}
	first, closeFirst := openStream(t, a, "127.0.0.1", id)
	wantOpen(first)
	second, closeSecond := openStream(t, a, "127.0.0.1", id)
	defer closeSecond()
	wantOpen(second)
	third, closeThird := openStream(t, a, "127.0.0.1", id)
	wantRefused(third, "this client has its limit of 2")
	closeThird()
	other, closeOther := openStream(t, a, "127.0.0.2", id)
	defer closeOther()
	wantOpen(other)
	full, closeFull := openStream(t, a, "127.0.0.2", id)
	wantRefused(full, "the server has its limit of 3")
	closeFull()

	// A closed stream gives its slot back.
	closeFirst()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, closeIt := openStream(t, a, "127.0.0.1", id)
		ok := resp.StatusCode == http.StatusOK
		closeIt()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slot of a closed stream was never given back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A client that opens a stream and stops reading must not hold it (and the events queued for it)
// for ever: a write that cannot go out within the write timeout ends the stream.
func TestStalledStreamReaderIsCut(t *testing.T) {
	a := startDemo(t, func(c *server.Config) {
		c.MaxStreamsPerClient = 1
		c.StreamWriteTimeout = 200 * time.Millisecond
		c.MaxBodyBytes = 16 << 20
	})
	// The replay starts with the task and its 8 MiB message: more than the kernel buffers hold.
	id := askTask(t, a, " "+strings.Repeat("x", 8<<20))

	conn, err := net.Dial("tcp", strings.TrimPrefix(a.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	body := `{"jsonrpc":"2.0","id":5,"method":"SubscribeToTask","params":{"id":"` + id + `"}}`
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		server.RPCPath, strings.TrimPrefix(a.Base, "http://"), len(body), body)

	// The stalled stream holds this client's only slot until the server cuts it: the slot coming
	// back shows the stream's handler, goroutines and buffers are gone.
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, closeIt := openStream(t, a, "127.0.0.1", id)
		ok := resp.StatusCode == http.StatusOK
		closeIt()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stalled stream was never cut")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A client that trickles its body cannot hold a goroutine and a buffer for ever: past the body
// timeout it gets 408 with a JSON-RPC error.
func TestSlowBodyTimesOut(t *testing.T) {
	a := startDemo(t, func(c *server.Config) { c.BodyReadTimeout = 200 * time.Millisecond })
	conn, err := net.Dial("tcp", strings.TrimPrefix(a.Base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":",
		server.RPCPath, strings.TrimPrefix(a.Base, "http://"))
	conn.SetReadDeadline(time.Now().Add(60 * time.Second)) // bounds a hang only
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	wantRPCError(t, resp, body, http.StatusRequestTimeout, -32600)
}
