package wirelog

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

func openTestWireLog(t *testing.T) (*Log, *store.DB) {
	t.Helper()
	db, err := store.Open(storetest.Target(t, filepath.Join(t.TempDir(), "hub.db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w, err := Open(context.Background(), db, bus.New())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, db
}

func wireRows(t *testing.T, db *store.DB) (count, minID, maxID int64) {
	t.Helper()
	err := db.Reader.QueryRow(`SELECT count(*), coalesce(min(id), 0), coalesce(max(id), 0) FROM wire_log`).Scan(&count, &minID, &maxID)
	if err != nil {
		t.Fatal(err)
	}
	return count, minID, maxID
}

func TestWireLogPrunesToTheNewestRowsInBatches(t *testing.T) {
	if wireKeep != 20000 {
		t.Errorf("the wire log keeps %d rows, want 20000", wireKeep)
	}
	w, db := openTestWireLog(t)
	w.keep = 100 // set before the first Record: the writer reads it only after a send on the queue
	const total = 2*wirePruneBatch + 600
	for i := range total {
		w.Record(Entry{AgentID: "a", CallID: fmt.Sprint(i), Kind: "event", At: time.Now()})
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Pruning runs as rows arrive; between prunes a few more than keep may wait.
	if count, _, _ := wireRows(t, db); count > int64(w.keep+wirePruneEvery) {
		t.Errorf("%d rows kept, want at most %d", count, w.keep+wirePruneEvery)
	}
	if err := w.prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	count, minID, maxID := wireRows(t, db)
	if count != 100 || maxID != total || minID != total-99 {
		t.Errorf("after pruning: %d rows, ids %d..%d; want the newest 100 (ids %d..%d)", count, minID, maxID, total-99, total)
	}
}

func TestWireLogListsNewestFirstByAgentAndPages(t *testing.T) {
	w, _ := openTestWireLog(t)
	for i := range 5 {
		for _, agent := range []string{"a", "b"} {
			w.Record(Entry{AgentID: agent, CallID: fmt.Sprint(i), Kind: "request", Method: "SendMessage",
				Header: map[string]string{"X": agent}, Duration: time.Duration(i) * time.Millisecond, At: time.Unix(100, 0)})
		}
	}
	ctx := context.Background()
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := w.List(ctx, "a", 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 3 || page[0].CallID != "4" || page[2].CallID != "2" {
		t.Fatalf("first page = %+v", page)
	}
	if e := page[0]; e.AgentID != "a" || e.Header["X"] != "a" || e.Duration != 4*time.Millisecond || !e.At.Equal(time.Unix(100, 0)) || e.Method != "SendMessage" {
		t.Errorf("entry did not round-trip: %+v", e)
	}
	rest, err := w.List(ctx, "a", page[2].ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rest) != 2 || rest[0].CallID != "1" || rest[1].CallID != "0" {
		t.Errorf("second page = %+v", rest)
	}
	if all, _ := w.List(ctx, "", 0, 0); len(all) != 10 {
		t.Errorf("listing every agent gave %d entries", len(all))
	}

	if err := w.DeleteAgent(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if left, _ := w.List(ctx, "a", 0, 100); len(left) != 0 {
		t.Errorf("DeleteAgent left %d entries", len(left))
	}
	if left, _ := w.List(ctx, "b", 0, 100); len(left) != 5 {
		t.Errorf("DeleteAgent(a) took b's entries: %d left", len(left))
	}

	w.Close()
	w.Record(Entry{AgentID: "b"}) // after Close: dropped, no panic
	if err := w.Flush(ctx); err != nil {
		t.Errorf("Flush after Close = %v", err)
	}
}

func TestWireMaskerHidesSecretsInEveryEncodingAndCredentialFields(t *testing.T) {
	const secret = `p@ss "word"/+&`
	m := NewMasker([]string{secret, ""}, []string{"x-custom-key"}, []string{"k"})
	for name, in := range map[string]string{
		"raw":         "before " + secret + " after",
		"query":       "a=" + url.QueryEscape(secret),
		"path":        "/x/" + url.PathEscape(secret),
		"json":        `{"text": "p@ss \"word\"/+&"}`,
		"json html":   `{"text": "p@ss \"word\"/+\u0026"}`,
		"token json":  `{"access_token": "unknown-yet", "refresh_token":"r\"x"}`,
		"token form":  "grant_type=client_credentials&client_secret=zzz&scope=a",
		"form access": "access_token=abc&token_type=bearer",
	} {
		got := m.Text(in)
		for _, leak := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), `p@ss \"word\"`, "unknown-yet", `r\"x`, "zzz", "abc"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s: %q still holds %q", name, got, leak)
			}
		}
		if !strings.Contains(got, MaskedValue) {
			t.Errorf("%s: nothing masked in %q", name, got)
		}
	}
	if got := m.Text("nothing to hide here"); got != "nothing to hide here" {
		t.Errorf("an empty secret changed plain text: %q", got)
	}

	u, _ := url.Parse("https://user:pw@agent.example/rpc?k=abc&other=1")
	if got := m.URL(u); strings.Contains(got, "abc") || strings.Contains(got, "pw") || !strings.Contains(got, "other=1") {
		t.Errorf("url = %q", got)
	}
	h := http.Header{"Authorization": {"Bearer abc"}, "Cookie": {"sid=abc; theme=dark"}, "X-Custom-Key": {"abc"},
		"X-Api-Key": {"abc"}, "Set-Cookie": {"sid=abc; Path=/; HttpOnly"}, "X-Echo": {"said " + secret}}
	got := m.Header(h)
	want := map[string]string{"Authorization": "Bearer •••", "Cookie": "sid=•••; theme=•••", "X-Custom-Key": "•••",
		"X-Api-Key": "•••", "Set-Cookie": "sid=•••; Path=/; HttpOnly", "X-Echo": "said •••"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("header %s = %q, want %q", k, got[k], v)
		}
	}
}

func TestWireEventTeeSplitsAStreamOnBlankLinesWhateverTheChunking(t *testing.T) {
	stream := "event: a\r\ndata: 1\r\n\r\ndata: 2\n\n: comment\n\ndata: " + strings.Repeat("x", maxWireBody+wireSlack+10) + "\n\ndata: cut"
	var events []string
	tee := &eventTee{rc: io.NopCloser(iotest.OneByteReader(strings.NewReader(stream))), done: func(e []byte, more int64) {
		events = append(events, ClipBody(string(e), more, 20))
	}}
	if _, err := io.Copy(io.Discard, tee); err != nil {
		t.Fatal(err)
	}
	tee.Close() // after EOF: reports nothing twice
	want := []string{"event: a\ndata: 1", "data: 2", ": comment",
		"data: " + strings.Repeat("x", 14) + fmt.Sprintf("… (%d bytes more)", maxWireBody+wireSlack+10-14), "data: cut"}
	if len(events) != len(want) {
		t.Fatalf("events = %q", events)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Errorf("event %d = %q, want %q", i, events[i], want[i])
		}
	}
}

func TestWireClipBodyCutsAtACharacterBoundary(t *testing.T) {
	if got := ClipBody("ééé", 0, 3); got != "é… (4 bytes more)" {
		t.Errorf("ClipBody = %q", got)
	}
	if got := ClipBody("short", 0, 10); got != "short" {
		t.Errorf("ClipBody = %q", got)
	}
}
