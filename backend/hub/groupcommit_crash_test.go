//go:build unix

package hub_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// ack is what a sender was acknowledged: a completed task (SendMessage), or the events a stream
// delivered before the process died (each is stored before it is streamed).
type ack struct {
	taskID string
	task   any   // SendMessage: the completed task in the response
	events []any // streaming: the v1.0 StreamResponses received, in order
}

// sendOnce sends one v1.0 SendMessage and returns the acknowledged task, or an error once the
// process is gone.
func sendOnce(ctx context.Context, url, text string) (*ack, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": v1Message(text)})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var r rpcResponse
	if err := json.Unmarshal(raw, &r); err != nil || r.Error != nil || r.Result == nil {
		return nil, fmt.Errorf("not a result: %s", raw)
	}
	var res map[string]any
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return nil, err
	}
	task := res["task"]
	if str(task, "status", "state") != "TASK_STATE_COMPLETED" {
		return nil, fmt.Errorf("acknowledged a task that is not completed: %s", raw)
	}
	return &ack{taskID: str(task, "id"), task: task}, nil
}

// streamOnce sends one v1.0 SendStreamingMessage and returns what it received, even when the stream
// is cut (then err is set too).
func streamOnce(ctx context.Context, url, text string) (*ack, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": v1Message(text)})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	a := &ack{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		var r rpcResponse
		if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &r); err != nil || r.Error != nil {
			return a, fmt.Errorf("bad event %s", data)
		}
		var ev any
		if err := json.Unmarshal(r.Result, &ev); err != nil {
			return a, err
		}
		if a.taskID == "" {
			a.taskID = str(ev, "task", "id")
		}
		a.events = append(a.events, ev)
	}
	if err := sc.Err(); err != nil {
		return a, err
	}
	if len(a.events) == 0 || v1State(a.events[len(a.events)-1]) != "TASK_STATE_COMPLETED" {
		return a, fmt.Errorf("the stream ended without completing")
	}
	return a, nil
}

// storedEvent is one row of task_events.
type storedEvent struct {
	seq, version int64
	kind         string
	body         any
}

// v1Key is the StreamResponse field of a logged kind.
var v1Key = map[string]string{"task": "task", "status": "statusUpdate", "artifact": "artifactUpdate"}

// Many concurrent senders share group commits; kill -9 lands in the middle of them. After a restart
// every acknowledged task and every streamed event is back exactly as acknowledged, no task is half
// written (its row is at the version of its last logged event, its state is the one its log ends
// in), every task's log is numbered 1..n without a gap, and what was running is failed by recovery.
// The demo agent at --demo-tick 0 yields its events back to back, so its execution queues each write
// without waiting for the one before (tasks.UpdateQueued): the kill also lands between an event's
// write being queued and its commit, and what was queued but not committed was never sent.
func TestKill9UnderGroupCommitKeepsEveryAcknowledgedWrite(t *testing.T) {
	data := t.TempDir()
	p1 := startServe(t, "first serve", data, "--demo-tick", "0")
	url := p1.DemoRPC()

	const senders, streamers, enough = 24, 8, 300
	var mu sync.Mutex
	var acks []*ack
	var acked atomic.Int64
	killed := make(chan struct{})
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range senders + streamers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				text := fmt.Sprintf("sender %d message %d, echoed back in chunks", i, n)
				var a *ack
				var err error
				if i < senders {
					a, err = sendOnce(ctx, url, text)
				} else {
					a, err = streamOnce(ctx, url, text)
				}
				if a != nil && (err == nil || len(a.events) > 0) {
					mu.Lock()
					acks = append(acks, a)
					mu.Unlock()
				}
				if err != nil {
					select {
					case <-killed:
						return // the process is gone: expected
					default:
						t.Errorf("sender %d before kill -9: %v", i, err)
						return
					}
				}
				acked.Add(1)
			}
		}()
	}
	waitFor(t, fmt.Sprintf("%d acknowledged tasks", enough), func() bool { return acked.Load() >= enough || t.Failed() })
	close(killed)
	p1.kill9()
	wg.Wait()
	if t.Failed() {
		return
	}

	p2 := startServe(t, "after kill -9", data, "--demo-tick", "0")
	url = p2.DemoRPC()
	for _, a := range acks {
		if a.task != nil {
			got := decode(t, call(t, url, "GetTask", byID(a.taskID)))
			sameJSON(t, "task "+a.taskID+" after kill -9", got, a.task)
		}
	}

	db := outboxDB(t, hubtest.DemoTarget(t, data))
	logs := map[string][]storedEvent{}
	rows, err := db.Query(`SELECT task_id, seq, version, kind, event_json FROM task_events ORDER BY task_id, seq`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var e storedEvent
		var body []byte
		if err := rows.Scan(&id, &e.seq, &e.version, &e.kind, &body); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(body, &e.body); err != nil {
			t.Fatalf("task %s seq %d: stored event is not JSON: %v", id, e.seq, err)
		}
		logs[id] = append(logs[id], e)
	}
	rows.Close()

	// Every streamed event is in the log, in order, as it was streamed (messages are not streamed).
	streamedTasks := 0
	for _, a := range acks {
		if a.events == nil {
			continue
		}
		streamedTasks++
		var logged []storedEvent
		for _, e := range logs[a.taskID] {
			if e.kind != "message" {
				logged = append(logged, e)
			}
		}
		if len(logged) < len(a.events) {
			t.Fatalf("task %s: %d events streamed, %d logged after kill -9", a.taskID, len(a.events), len(logged))
		}
		for i, ev := range a.events {
			want := map[string]any{v1Key[logged[i].kind]: logged[i].body}
			if !reflect.DeepEqual(ev, want) {
				t.Fatalf("task %s: streamed event %d is not what the log holds:\nstreamed %s\nlogged   %s", a.taskID, i, pretty(ev), pretty(want))
			}
		}
	}

	// No task is half written, no log has a gap, nothing is left running.
	trows, err := db.Query(`SELECT id, version, state, task_json FROM tasks`)
	if err != nil {
		t.Fatal(err)
	}
	defer trows.Close()
	tasksSeen, failed := 0, 0
	for trows.Next() {
		var id, state string
		var version int64
		var body []byte
		if err := trows.Scan(&id, &version, &state, &body); err != nil {
			t.Fatal(err)
		}
		tasksSeen++
		var task any
		if err := json.Unmarshal(body, &task); err != nil {
			t.Fatalf("task %s: row JSON does not decode: %v", id, err)
		}
		log := logs[id]
		if len(log) == 0 {
			t.Fatalf("task %s has a row and no log", id)
		}
		for i, e := range log {
			if e.seq != int64(i+1) {
				t.Fatalf("task %s: log seqs are not 1..n: entry %d has seq %d", id, i, e.seq)
			}
			if i > 0 && e.version < log[i-1].version {
				t.Fatalf("task %s: log versions go back at seq %d", id, e.seq)
			}
		}
		last := log[len(log)-1]
		if last.version != version {
			t.Fatalf("task %s: row at version %d, its log ends at version %d (half written)", id, version, last.version)
		}
		lastState := ""
		for _, e := range log {
			switch e.kind {
			case "task", "status":
				lastState = str(e.body, "status", "state")
			}
		}
		if str(task, "status", "state") != lastState {
			t.Fatalf("task %s: row state %s, its log ends in %s", id, str(task, "status", "state"), lastState)
		}
		switch lastState {
		case "TASK_STATE_COMPLETED":
		case "TASK_STATE_FAILED":
			failed++
		default:
			t.Fatalf("task %s is %s after recovery", id, lastState)
		}
	}
	if err := trows.Err(); err != nil {
		t.Fatal(err)
	}
	if tasksSeen < len(acks) || streamedTasks == 0 {
		t.Fatalf("%d tasks stored, %d acknowledged (%d streamed)", tasksSeen, len(acks), streamedTasks)
	}
	t.Logf("%d acknowledged (%d streamed), %d stored, %d failed by recovery", len(acks), streamedTasks, tasksSeen, failed)
}
