//go:build unix

package hub_test

// Push notifications survive kill -9 of the real binary: the outbox rows are committed with the task
// events, so notifications recorded while the webhook was down are delivered after a restart, each
// exactly once and in order per config.

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	_ "modernc.org/sqlite"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

// webhook records the notifications POSTed to it, by the config token they carry.
type webhook struct {
	mu   sync.Mutex
	got  map[string][]json.RawMessage // token → bodies in arrival order
	jtis map[string]int               // notification id (JWT jti) → times received
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	jti := jwtID(r.Header.Get("A2A-Push-Signature"))
	h.mu.Lock()
	h.got[r.Header.Get("A2A-Notification-Token")] = append(h.got[r.Header.Get("A2A-Notification-Token")], body)
	h.jtis[jti]++
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// jwtID reads a JWT's jti without verifying it (the signature is checked in backend/push's tests).
func jwtID(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		ID string `json:"jti"`
	}
	json.Unmarshal(raw, &c)
	return c.ID
}

// outboxDB opens the agent's SQLite file read-only beside the running process (WAL lets it).
func outboxDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := store.OpenReadOnly(path) // a SQLite file or a PostgreSQL URL
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// waitFor polls cond until it holds; the deadline only guards against a hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// expectedNotifications are the v1.0 notifications of a task: a StreamResponse per logged task,
// status and artifact event, in log order, read from the agent's own event log.
func expectedNotifications(t *testing.T, db *sql.DB, taskID string) []any {
	t.Helper()
	rows, err := db.Query(`SELECT kind, event_json FROM task_events WHERE task_id = ? AND kind != 'message' ORDER BY seq`, taskID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		var kind string
		var body []byte
		if err := rows.Scan(&kind, &body); err != nil {
			t.Fatal(err)
		}
		ev, err := tasks.DecodeEvent(kind, body)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(a2a.StreamResponse{Event: ev})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode(t, b))
	}
	return out
}

func TestPushOutboxSurvivesKill9(t *testing.T) {
	data := t.TempDir()
	// The webhook's address is reserved, then left closed: it is down while the tasks run.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hookAddr := ln.Addr().String()
	ln.Close()
	hookURL := "http://" + hookAddr + "/hook"
	flags := []string{"--push-retry-max", "300ms"}

	p1 := startServe(t, "first serve", data, flags...)
	demo := p1.DemoRPC()
	withPush := func(params map[string]any, token string) map[string]any {
		params["configuration"] = map[string]any{"taskPushNotificationConfig": map[string]any{"url": hookURL, "token": token}}
		return params
	}
	// Three tasks, each with its own config (told apart by token): an echo streamed in chunks, a file,
	// and a question that waits for an answer.
	echo := at(decode(t, call(t, demo, "SendMessage", withPush(v1Message("push notifications arrive in order"), "echo"))), "task")
	file := at(decode(t, call(t, demo, "SendMessage", withPush(v1Message("file"), "file"))), "task")
	ask := at(decode(t, call(t, demo, "SendMessage", withPush(v1Message("ask"), "ask"))), "task")
	requireState(t, "echo task", echo, "TASK_STATE_COMPLETED")
	requireState(t, "file task", file, "TASK_STATE_COMPLETED")
	requireState(t, "ask task", ask, "TASK_STATE_INPUT_REQUIRED")

	db := outboxDB(t, hubtest.DemoTarget(t, data))
	// Delivery was tried, and failed, before the kill.
	waitFor(t, "a failed delivery attempt", func() bool {
		return count(t, db, `SELECT COUNT(*) FROM push_outbox WHERE attempts > 0 AND state = 'pending'`) > 0
	})
	if n := count(t, db, `SELECT COUNT(*) FROM push_outbox WHERE state != 'pending'`); n != 0 {
		t.Fatalf("%d notifications left pending state with the webhook down", n)
	}
	p1.kill9()

	p2 := startServe(t, "second serve", data, flags...)
	// The question is answered after the restart: its config's later notifications queue behind the
	// earlier ones.
	done := at(decode(t, call(t, p2.DemoRPC(), "SendMessage", v1Reply("blue", str(ask, "id"), str(ask, "contextId")))), "task")
	requireState(t, "answered ask task", done, "TASK_STATE_COMPLETED")

	hook := &webhook{got: map[string][]json.RawMessage{}, jtis: map[string]int{}}
	ln, err = net.Listen("tcp", hookAddr)
	if err != nil {
		t.Fatalf("bringing the webhook up on %s: %v", hookAddr, err)
	}
	srv := &http.Server{Handler: hook}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	// Once nothing is pending, nothing more will be sent: then the webhook's record is final.
	waitFor(t, "every notification delivered", func() bool {
		return count(t, db, `SELECT COUNT(*) FROM push_outbox WHERE state != 'delivered'`) == 0
	})
	hook.mu.Lock()
	defer hook.mu.Unlock()
	total := 0
	for token, task := range map[string]any{"echo": echo, "file": file, "ask": ask} {
		want := expectedNotifications(t, db, str(task, "id"))
		var got []any
		for _, b := range hook.got[token] {
			got = append(got, decode(t, b))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("config %q received %d notifications, want the task's %d events in order:\ngot  %s\nwant %s",
				token, len(got), len(want), pretty(got), pretty(want))
		}
		total += len(want)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM push_outbox`); n != total {
		t.Errorf("the outbox holds %d notifications, want %d", n, total)
	}
	for jti, n := range hook.jtis {
		if jti == "" || n != 1 {
			t.Errorf("notification %q received %d times, want exactly once", jti, n)
		}
	}
	if len(hook.jtis) != total {
		t.Errorf("%d distinct notification ids, want %d", len(hook.jtis), total)
	}
	if askN := len(hook.got["ask"]); askN < 4 {
		t.Errorf("the ask config got %d notifications, want those from before and after the restart", askN)
	}
}
