//go:build unix

package hub_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
)

// TestUnreadableRowDoesNotStopTheHub: a task row whose JSON cannot be read (written straight into
// hub.db while the hub is down) no longer aborts the next start in recovery. The hub starts, the
// interrupted unreadable task is failed with a reason, a finished unreadable task answers GetTask with
// a clear -32603, and ListTasks lists every other task.
func TestUnreadableRowDoesNotStopTheHub(t *testing.T) {
	data := t.TempDir()
	p1 := startServe(t, "first serve", data)
	var ids []string
	for _, text := range []string{"keep me", "break me while working", "break me once done"} {
		send := v1Message(text)
		send["configuration"] = map[string]any{"returnImmediately": true}
		ids = append(ids, str(at(decode(t, call(t, p1.HubRPC(), "SendMessage", send)), "task"), "id"))
	}
	keep, working, done := ids[0], ids[1], ids[2]
	p1.kill9()

	db, err := store.Open(hubtest.Target(t, data))
	if err != nil {
		t.Fatal(err)
	}
	garbage := []byte(`{"history":[{"parts":[{"raw":null}]}]}`) // what an empty file used to be stored as
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE tasks SET task_json = ? WHERE id = ?`, []any{garbage, working}},
		{`UPDATE tasks SET task_json = ?, state = 'TASK_STATE_COMPLETED' WHERE id = ?`, []any{garbage, done}},
	} {
		if _, err := db.Writer.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	p2 := startServe(t, "second serve", data) // used to exit: recover hub tasks: stored task ... is unreadable

	listed := map[string]bool{}
	for _, task := range list(decode(t, call(t, p2.HubRPC(), "ListTasks", map[string]any{})), "tasks") {
		listed[str(task, "id")] = true
	}
	if !listed[keep] || !listed[working] || listed[done] {
		t.Fatalf("ListTasks after restart lists %v; want %s and the recovered %s, not the unreadable %s", listed, keep, working, done)
	}
	failed := decode(t, call(t, p2.HubRPC(), "GetTask", byID(working)))
	requireState(t, "the interrupted unreadable task", failed, "TASK_STATE_FAILED")
	if msg := textOf(list(failed, "status", "message", "parts")); !strings.Contains(msg, "could not be read") {
		t.Fatalf("its status message says %q", msg)
	}
	_, body := postRPC(t, p2.HubRPC(), "GetTask", byID(done))
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil || r.Error == nil || r.Error.Code != -32603 || !strings.Contains(r.Error.Message, "unreadable") {
		t.Fatalf("GetTask of the finished unreadable task: %s", body)
	}
}
