package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/agenthub/agenthub/backend/store/storetest"
)

const storageMessage = "storage unavailable: the hub's database cannot be reached; retry shortly"

// TestPostgresRestartUnderTheDemoAgent serves the demo agent over a PostgreSQL cluster of the test's
// own and stops the server under it: calls in every dialect answer the storage error (no driver text,
// no hang), a stream that was open ends, a2a-go's own client reports the storage error; once
// PostgreSQL is back the same agent (nothing restarted) takes and answers calls, and the tasks
// acknowledged before the stop are all there.
func TestPostgresRestartUnderTheDemoAgent(t *testing.T) {
	if _, err := storetest.BinDir(); err != nil {
		if storetest.Postgres() {
			t.Fatal(err)
		}
		t.Skipf("a PostgreSQL server's faults need its programs: %v", err)
	}
	c, err := storetest.StartCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Remove)
	url := startDemoOn(t, c.URL("postgres")).URL

	// Tasks acknowledged before the stop.
	var acked []string
	for i := range 5 {
		var res struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		}
		mustResult(t, call(t, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"b%d","role":"ROLE_USER","parts":[{"text":"file"}]}}}`, i)), &res)
		acked = append(acked, res.Task.ID)
	}

	// A stream that is open when the server stops.
	events, ended := openLiveStream(t, url, `{"jsonrpc":"2.0","id":9,"method":"SendStreamingMessage","params":{"message":{"messageId":"s1","role":"ROLE_USER","parts":[{"text":"slow 600"}]}}}`)
	<-events // the task exists and works
	c.Stop()

	select {
	case last := <-ended:
		t.Logf("the open stream ended; its last event: %.300s", last)
		if !strings.Contains(last, storageMessage) {
			t.Errorf("the stream's last event is not the storage error: %s", last)
		}
		noInternals(t, "stream", last)
	case <-time.After(time.Minute): // a deadlock guard, not a timing assertion
		t.Fatal("the open stream did not end after PostgreSQL stopped")
	}

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"d1","role":"ROLE_USER","parts":[{"text":"file"}]}}}`,
		// A task the store keeps in memory may still be answered; one it must read is not.
		`{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"not-in-memory"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"d2","role":"user","parts":[{"kind":"text","text":"file"}]}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"` + acked[0] + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tasks/send","params":{"id":"draft-1","message":{"role":"user","parts":[{"type":"text","text":"file"}]}}}`,
	} {
		resp, b := post(t, url, body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"code":-32603`) || !strings.Contains(string(b), storageMessage) {
			t.Errorf("%s while PostgreSQL is down: HTTP %d %s", body, resp.StatusCode, b)
		}
		noInternals(t, body, string(b))
	}
	// A streaming call refused by the database answers the storage error too (as its only event or
	// as a plain answer).
	_, b := post(t, url, `{"jsonrpc":"2.0","id":3,"method":"SendStreamingMessage","params":{"message":{"messageId":"d3","role":"ROLE_USER","parts":[{"text":"file"}]}}}`)
	if !strings.Contains(string(b), storageMessage) {
		t.Errorf("a stream opened while PostgreSQL is down: %s", b)
	}
	// What a2a-go's own client makes of it.
	client, err := a2aclient.NewFromEndpoints(t.Context(), []*a2a.AgentInterface{{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: "not-in-memory"})
	if err == nil || !strings.Contains(err.Error(), storageMessage) {
		t.Errorf("a2a-go's client: %v, want the storage message", err)
	}

	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Back, nothing restarted: new work and old tasks.
	var res struct {
		Task struct {
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"task"`
	}
	mustResult(t, call(t, url, `{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":{"message":{"messageId":"a1","role":"ROLE_USER","parts":[{"text":"file"}]}}}`), &res)
	if res.Task.Status.State != "TASK_STATE_COMPLETED" {
		t.Errorf("a task after the restart: %s", res.Task.Status.State)
	}
	for _, id := range acked {
		var got struct {
			ID string `json:"id"`
		}
		mustResult(t, call(t, url, `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":{"id":"`+id+`"}}`), &got)
		if got.ID != id {
			t.Errorf("task %s acknowledged before the stop: got %q", id, got.ID)
		}
	}
	if _, err := client.GetTask(t.Context(), &a2a.GetTaskRequest{ID: a2a.TaskID(acked[0])}); err != nil {
		t.Errorf("a2a-go's client after the restart: %v", err)
	}
	ev := stream(t, url, `{"jsonrpc":"2.0","id":6,"method":"SendStreamingMessage","params":{"message":{"messageId":"a2","role":"ROLE_USER","parts":[{"text":"file"}]}}}`)
	if len(ev) == 0 || ev[len(ev)-1].Error != nil {
		t.Errorf("a stream after the restart: %+v", ev)
	}
}

// openLiveStream posts a streaming request; events gets each data payload as it comes, ended the last
// one once the server closes the stream.
func openLiveStream(t *testing.T, url, body string) (events <-chan string, ended <-chan string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ev, end := make(chan string, 1024), make(chan string, 1)
	go func() {
		defer resp.Body.Close()
		last := ""
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				last = string(line)
				select {
				case ev <- last:
				default:
				}
			}
		}
		end <- last
	}()
	return ev, end
}

func noInternals(t *testing.T, what, answer string) {
	t.Helper()
	for _, s := range []string{"user=agenthub", "dial tcp", "SQLSTATE", "127.0.0.1:", "goroutine "} {
		if strings.Contains(answer, s) {
			t.Errorf("%s: the answer shows %q: %s", what, s, answer)
		}
	}
}
