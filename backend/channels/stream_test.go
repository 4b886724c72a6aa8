package channels_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/channels"
)

// A stream resumed from sinceSequence replays the backlog and goes live while publishers keep
// writing: every sequence after the resume point arrives once, in order, across the seam.
func TestStreamResumesWithoutGapOrDuplicate(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"members": []string{bob.ID}})
	for i := range 30 {
		alice.publish(c.ID, fmt.Sprint("before ", i))
	}
	// Publishers run while the stream opens, so events land before, during and after its backlog read.
	const live = 60
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range live / 3 {
				alice.publish(c.ID, fmt.Sprint("live ", w, i))
			}
		}()
	}
	close(start)
	s, e := bob.stream(map[string]any{"channelId": c.ID, "sinceSequence": 10})
	if e != nil {
		t.Fatalf("stream: %d %s", e.Code, e.Message)
	}
	for want := int64(11); want <= 30+live; want++ {
		if ev := s.nextEvent(); ev.Sequence != want {
			t.Fatalf("stream sent sequence %d, want %d", ev.Sequence, want)
		}
	}
	wg.Wait()
	if ev := alice.publish(c.ID, "after"); ev.Sequence != 31+live {
		t.Fatalf("after: %+v", ev)
	}
	if ev := s.nextEvent(); ev.Sequence != 31+live {
		t.Fatalf("stream sent %d after the live run", ev.Sequence)
	}
}

// Without sinceSequence the stream starts at the channel's present; heartbeats come at the interval.
func TestStreamHeartbeatsAndLiveStart(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{})
	alice.publish(c.ID, "old")
	s, e := alice.stream(map[string]any{"channelId": c.ID, "heartbeatIntervalMs": 100})
	if e != nil {
		t.Fatal(e.Message)
	}
	beats := 0
	for beats < 3 {
		it, e, ok := s.next()
		if !ok || e != nil {
			t.Fatalf("stream ended: %v", e)
		}
		if it.Kind != "heartbeat" {
			t.Fatalf("before any publish the stream sent %+v", it)
		}
		beats++
	}
	alice.publish(c.ID, "new")
	if ev := s.nextEvent(); ev.Sequence != 2 {
		t.Fatalf("live start sent %+v", ev)
	}
}

// Removing a member ends their stream (with PermissionDenied as its last event); deleting the
// channel ends everyone's (ChannelNotFound); another member's stream goes on.
func TestStreamEndsOnRemovalAndDeletion(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"members": []string{bob.ID}})
	bs, _ := bob.stream(map[string]any{"channelId": c.ID, "sinceSequence": 0})
	as, _ := alice.stream(map[string]any{"channelId": c.ID, "sinceSequence": 0})
	alice.publish(c.ID, "one")
	if ev := bs.nextEvent(); ev.Sequence != 1 {
		t.Fatalf("bob got %+v", ev)
	}
	alice.ok("channels/removeMember", map[string]any{"channelId": c.ID, "principalId": bob.ID}, nil)
	endsWith(t, bs, codeDenied)
	alice.publish(c.ID, "two")
	for want := int64(1); want <= 2; want++ {
		if ev := as.nextEvent(); ev.Sequence != want {
			t.Fatalf("alice got %+v", ev)
		}
	}
	// Bob cannot reopen it.
	if _, e := bob.stream(map[string]any{"channelId": c.ID}); e == nil || e.Code != codeNotFound {
		t.Fatalf("bob reopening: %+v", e)
	}
	alice.ok("channels/delete", map[string]any{"channelId": c.ID}, nil)
	endsWith(t, as, codeNotFound)
}

// endsWith reads s to its end and checks its last event is the error code.
func endsWith(t *testing.T, s *sse, code int) {
	t.Helper()
	for {
		it, e, ok := s.next()
		if !ok {
			t.Fatalf("stream ended without an error event, want %d", code)
		}
		if e != nil {
			if e.Code != code {
				t.Fatalf("stream ended with %d %s, want %d", e.Code, e.Message, code)
			}
			if _, _, more := s.next(); more {
				t.Fatal("the stream went on after its error")
			}
			return
		}
		if it.Kind == "messageEvent" {
			t.Fatalf("unexpected event %+v before the end", it.Event)
		}
	}
}

// An event stored after the stream read its backlog and before it reads the bus is delivered, with
// no later event to reveal a gap: the stream subscribed before it read the backlog.
func TestStreamSeamDeliversEventStoredBetweenBacklogAndLive(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{})
	alice.publish(c.ID, "backlog")
	var once sync.Once
	channels.SetBacklogRead(func() { once.Do(func() { alice.publish(c.ID, "at the seam") }) })
	t.Cleanup(func() { channels.SetBacklogRead(nil) })
	s, e := alice.stream(map[string]any{"channelId": c.ID, "sinceSequence": 0, "heartbeatIntervalMs": 60000})
	if e != nil {
		t.Fatal(e.Message)
	}
	for want := int64(1); want <= 2; want++ {
		if ev := s.nextEvent(); ev.Sequence != want {
			t.Fatalf("stream sent %d, want %d", ev.Sequence, want)
		}
	}
}

// A public channel made private ends the streams of callers who are not members.
func TestStreamEndsWhenChannelTurnsPrivate(t *testing.T) {
	h := startHub(t, "")
	alice, bob := h.principal(t, "alice"), h.principal(t, "bob")
	c := alice.create(map[string]any{"visibility": "public"})
	bs, e := bob.stream(map[string]any{"channelId": c.ID, "heartbeatIntervalMs": 60000})
	if e != nil {
		t.Fatal(e.Message)
	}
	alice.publish(c.ID, "public")
	if ev := bs.nextEvent(); ev.Sequence != 1 {
		t.Fatalf("bob got %+v", ev)
	}
	alice.ok("channels/update", map[string]any{"channelId": c.ID, "expectedVersion": 1, "visibility": "private"}, nil)
	endsWith(t, bs, codeNotFound)
}

// Every stream frame of an event is byte for byte what json.Marshal writes for the JSON-RPC
// response around {kind:"messageEvent", event} (the event as history returns it), with the stream's
// own request id, whether the event came from the backlog or live, and whatever the id's shape.
func TestStreamFramesAreTheMarshaledResponseWithEachStreamsID(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{})
	send := func(text string) {
		alice.ok("channels/publish", map[string]any{"channelId": c.ID, "metadata": map[string]any{"z": 1, "a": "<&>"},
			"parts": []any{map[string]any{"type": "text", "text": text}}}, nil)
	}
	send("backlog <b> & \u2028 é")
	// Each stream reads raw data lines: the frame as the server wrote it.
	open := func(id string, since any) chan string {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"channels/stream","params":{"channelId":"` + c.ID + `","sinceSequence":` + fmt.Sprint(since) + `}}`
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", alice.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 16)
		go func() {
			defer res.Body.Close()
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "data:") {
					lines <- sc.Text()
				}
			}
		}()
		return lines
	}
	streams := map[string]chan string{`7`: open(`7`, 0), `"s<1>\u00e9"`: open(`"s<1>\u00e9"`, 0), `null`: open(`null`, 1)}
	send("live <i> & \u2029 ü")
	var pg struct{ Events []json.RawMessage }
	json.Unmarshal(alice.ok("channels/history", map[string]any{"channelId": c.ID}, nil), &pg)
	raw := pg.Events
	if len(raw) != 2 {
		t.Fatalf("history: %s", raw)
	}
	for id, lines := range streams {
		from := 0
		if id == `null` {
			from = 1 // resumed after the first event
		}
		for _, ev := range raw[from:] {
			want, _ := json.Marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  any             `json:"result"`
			}{"2.0", json.RawMessage(id), struct {
				Kind  string          `json:"kind"`
				Event json.RawMessage `json:"event"`
			}{"messageEvent", ev}})
			select {
			case got := <-lines:
				if got != "data: "+string(want) {
					t.Fatalf("stream %s frame\ngot  %s\nwant data: %s", id, got, want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("stream %s: no frame within 30s", id)
			}
		}
	}
}

// A stream without sinceSequence starts at the channel's present as of its opening: an event
// published after the client has the stream's response, but before the stream's loop has started,
// is sent (the stream subscribes before it answers).
func TestStreamSendsEventPublishedBeforeItsLoopStarts(t *testing.T) {
	h := startHub(t, "")
	alice := h.principal(t, "alice")
	c := alice.create(map[string]any{})
	var once sync.Once
	channels.SetStreamRun(func() { once.Do(func() { alice.publish(c.ID, "as the stream starts") }) })
	t.Cleanup(func() { channels.SetStreamRun(nil) })
	s, e := alice.stream(map[string]any{"channelId": c.ID, "heartbeatIntervalMs": 60000})
	if e != nil {
		t.Fatal(e.Message)
	}
	if ev := s.nextEvent(); ev.Sequence != 1 {
		t.Fatalf("stream sent %d, want 1", ev.Sequence)
	}
}
