//go:build unix

package hub_test

// Durability of channels in the real binary: 16 concurrent publishers, kill -9, restart. Sequences
// stay contiguous, every acknowledged event is there, idempotent retries return the original event,
// and a stream resumed after the restart continues with no gap and no duplicate.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
)

// addPrincipal runs `agenthub principals add NAME` on the data dir and returns the key it printed.
func addPrincipal(t *testing.T, dataDir, name string) string {
	t.Helper()
	args := []string{"principals", "add", name, "--data", dataDir}
	if u := hubtest.Database(t, dataDir); u != "" {
		args = append(args, "--database", u)
	}
	return runPrincipalsAdd(t, name, args)
}

// addPrincipalOn is addPrincipal for a team hub's database (its replicas' data dirs hold no table).
func addPrincipalOn(t *testing.T, database, name string) string {
	t.Helper()
	return runPrincipalsAdd(t, name, []string{"principals", "add", name, "--data", t.TempDir(), "--database", database})
}

func runPrincipalsAdd(t *testing.T, name string, args []string) string {
	t.Helper()
	out, err := exec.Command(agenthubBinary(t), args...).Output()
	if err != nil {
		t.Fatalf("principals add %s: %v", name, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

type chanEvent struct {
	ID        string `json:"id"`
	Sequence  int64  `json:"sequence"`
	Author    string `json:"author"`
	Idem      string `json:"idempotencyKey"`
	ChannelID string `json:"channelId"`
}

// tryPublish publishes once; ok is false when the call did not complete (the process died).
func tryPublish(url, key string, params map[string]any) (ev chanEvent, rpcErr *rpcError, ok bool) {
	_, ev, rpcErr, _, err := publishOnce(url, key, params)
	return ev, rpcErr, err == nil && (rpcErr != nil || ev.ID != "")
}

// publishOnce publishes once and tells how the call ended: the event, a JSON-RPC error, or an HTTP
// status without a JSON-RPC answer (503 while the caller's key cannot be checked).
func publishOnce(url, key string, params map[string]any) (status int, ev chanEvent, rpcErr *rpcError, body string, err error) {
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": requestSeq.Add(1), "method": "channels/publish", "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, ev, nil, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, ev, nil, "", err
	}
	var r struct {
		Result struct{ Event chanEvent }
		Error  *rpcError
	}
	if json.Unmarshal(b, &r) != nil || (r.Error == nil && r.Result.Event.ID == "") {
		return res.StatusCode, ev, nil, string(b), nil
	}
	return res.StatusCode, r.Result.Event, r.Error, string(b), nil
}

func callAs(t *testing.T, url, key, method string, params any, out any) {
	t.Helper()
	resp, body := postRPC(t, url, method, params, "X-Api-Key", key)
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil || r.Error != nil || r.Result == nil {
		t.Fatalf("%s: HTTP %d %s", method, resp.StatusCode, body)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		t.Fatal(err)
	}
}

// allEvents pages through the channel's whole history.
func allEvents(t *testing.T, url, key, channelID string) []chanEvent {
	t.Helper()
	var out []chanEvent
	token := ""
	for {
		params := map[string]any{"channelId": channelID, "pageSize": 200}
		if token != "" {
			params["pageToken"] = token
		}
		var p struct {
			Events        []chanEvent
			NextPageToken string
		}
		callAs(t, url, key, "channels/history", params, &p)
		out = append(out, p.Events...)
		if token = p.NextPageToken; token == "" {
			return out
		}
	}
}

func TestChannelsSurviveKill9(t *testing.T) {
	dir := t.TempDir()
	keys := map[string]string{"agent://alice": addPrincipal(t, dir, "alice"), "agent://bob": addPrincipal(t, dir, "bob")}
	alice, bob := keys["agent://alice"], keys["agent://bob"]
	p := startServe(t, "hub", dir)
	var created struct{ Channel struct{ ID string } }
	callAs(t, p.HubRPC(), alice, "channels/create", map[string]any{"name": "crash", "members": []string{"agent://bob"}}, &created)
	ch := created.Channel.ID

	// bob streams from the start while the publishers run.
	before := openStream(t, p.HubRPC(), "channels/stream", map[string]any{"channelId": ch, "sinceSequence": 0}, "X-Api-Key", bob)

	type attempt struct {
		author, key, text string
	}
	const publishers = 16
	var (
		mu       sync.Mutex
		acked    = map[string]chanEvent{} // idempotency key → acknowledged event
		inFlight []attempt                // calls cut by the kill: stored or not, nobody knows
		lastAck  = map[int]attempt{}
		total    atomic.Int64
		wg       sync.WaitGroup
		enough   = make(chan struct{})
		once     sync.Once
	)
	for w := range publishers {
		author := "agent://alice"
		if w%2 == 1 {
			author = "agent://bob"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				a := attempt{author: author, key: fmt.Sprintf("w%d-%d", w, i), text: fmt.Sprintf("from %d #%d", w, i)}
				ev, e, ok := tryPublish(p.HubRPC(), keys[author], map[string]any{"channelId": ch, "idempotencyKey": a.key,
					"parts": []any{map[string]any{"type": "text", "text": a.text}}})
				mu.Lock()
				switch {
				case !ok:
					inFlight = append(inFlight, a)
				case e != nil:
					t.Errorf("publish %s: %d %s", a.key, e.Code, e.Message)
				default:
					acked[a.key] = ev
					lastAck[w] = a
				}
				mu.Unlock()
				if !ok || e != nil {
					return
				}
				if total.Add(1) >= 400 {
					once.Do(func() { close(enough) })
				}
			}
		}()
	}
	<-enough
	p.kill9() // the publishers are mid-call: each one's call is cut
	wg.Wait()
	if t.Failed() {
		return
	}
	var streamed []int64
	for {
		res, ok := before.next()
		if !ok {
			break
		}
		var it struct {
			Kind  string
			Event chanEvent
		}
		json.Unmarshal(res, &it)
		if it.Kind == "messageEvent" {
			streamed = append(streamed, it.Event.Sequence)
		}
	}
	for i, s := range streamed {
		if s != int64(i+1) {
			t.Fatalf("before the kill the stream sent %v…: gap or duplicate at %d", streamed[:i+1], i)
		}
	}

	p = startServe(t, "hub (restarted)", dir)
	events := allEvents(t, p.HubRPC(), alice, ch)
	byKey := map[string]chanEvent{}
	for i, ev := range events {
		if ev.Sequence != int64(i+1) {
			t.Fatalf("after the restart event %d has sequence %d: not contiguous", i, ev.Sequence)
		}
		byKey[ev.Idem] = ev
	}
	for k, ev := range acked {
		if got, ok := byKey[k]; !ok || got.ID != ev.ID || got.Sequence != ev.Sequence {
			t.Fatalf("acknowledged %s (%+v) is %+v after the restart", k, ev, got)
		}
	}
	if extra := len(events) - len(acked); extra < 0 || extra > len(inFlight) {
		t.Fatalf("%d events stored, %d acknowledged, %d cut by the kill", len(events), len(acked), len(inFlight))
	}
	t.Logf("%d acknowledged before kill -9, %d stored, %d calls cut; the stream had seen %d", len(acked), len(events), len(inFlight), len(streamed))

	// bob resumes his stream from the last sequence he saw.
	var resumeFrom int64
	if len(streamed) > 0 {
		resumeFrom = streamed[len(streamed)-1]
	}
	after := openStream(t, p.HubRPC(), "channels/stream", map[string]any{"channelId": ch, "sinceSequence": resumeFrom, "heartbeatIntervalMs": 60000}, "X-Api-Key", bob)

	// Retries: an acknowledged request returns its original event; a cut one is stored exactly once.
	for _, a := range lastAck {
		ev, e, ok := tryPublish(p.HubRPC(), keys[a.author], map[string]any{"channelId": ch, "idempotencyKey": a.key,
			"parts": []any{map[string]any{"type": "text", "text": a.text}}})
		if !ok || e != nil || ev.ID != acked[a.key].ID || ev.Sequence != acked[a.key].Sequence {
			t.Fatalf("retry of acknowledged %s: %+v %v, want %+v", a.key, ev, e, acked[a.key])
		}
	}
	for _, a := range inFlight {
		ev, e, ok := tryPublish(p.HubRPC(), keys[a.author], map[string]any{"channelId": ch, "idempotencyKey": a.key,
			"parts": []any{map[string]any{"type": "text", "text": a.text}}})
		if !ok || e != nil {
			t.Fatalf("retry of cut %s: %v", a.key, e)
		}
		if stored, was := byKey[a.key]; was && (stored.ID != ev.ID || stored.Sequence != ev.Sequence) {
			t.Fatalf("retry of %s, stored before the kill as %+v, answered %+v", a.key, stored, ev)
		}
		byKey[a.key] = ev
	}
	final := allEvents(t, p.HubRPC(), alice, ch)
	for i, ev := range final {
		if ev.Sequence != int64(i+1) {
			t.Fatalf("after the retries event %d has sequence %d", i, ev.Sequence)
		}
	}
	if len(final) != len(acked)+len(inFlight) {
		t.Fatalf("%d events after the retries, want %d acknowledged + %d retried", len(final), len(acked), len(inFlight))
	}
	for want := resumeFrom + 1; want <= int64(len(final)); want++ {
		var it struct {
			Kind  string
			Event chanEvent
		}
		json.Unmarshal(after.mustNext(), &it)
		if it.Kind != "messageEvent" || it.Event.Sequence != want {
			t.Fatalf("resumed stream sent %+v, want sequence %d", it, want)
		}
	}
}
