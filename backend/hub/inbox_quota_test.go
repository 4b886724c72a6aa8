package hub_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agenthub/agenthub/backend/inbox"
)

// A caller may leave only so much in the owner's inbox: past its quota of open tasks, of tasks in all
// or of bytes, its message is refused before anything of it is stored, with UnsupportedOperation
// (-32004) in its own dialect's shape naming the quota, and every dialect's send is held to it.
func TestInboxQuotaRefusesBeforeStoring(t *testing.T) {
	h := startInProcess(t, t.TempDir())
	defer h.Stop()
	_, key, err := h.Auth.Principals.Add(t.Context(), "chatty")
	if err != nil {
		t.Fatal(err)
	}
	h.Inbox.SetBlockingWait(10 * time.Millisecond)
	h.Inbox.SetQuota(inbox.Quota{Open: 2, Tasks: 3, Bytes: 1 << 30})
	url := h.Agent.BaseURL + "/a2a"

	send := func(dialect, text, taskID string) (json.RawMessage, *rpcError) {
		t.Helper()
		var method string
		var params map[string]any
		switch dialect {
		case "1.0":
			msg := map[string]any{"messageId": "m-" + text, "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
			if taskID != "" {
				msg["taskId"] = taskID
			}
			method, params = "SendMessage", map[string]any{"message": msg}
		case "0.3":
			msg := map[string]any{"kind": "message", "messageId": "m-" + text, "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}
			if taskID != "" {
				msg["taskId"] = taskID
			}
			method, params = "message/send", map[string]any{"message": msg}
		case "0.1":
			if taskID == "" {
				taskID = "draft-" + text
			}
			method, params = "tasks/send", map[string]any{"id": taskID, "message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}}
		}
		_, body := postRPC(t, url, method, params, "X-Api-Key", key)
		var r rpcResponse
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("%s: %v %s", method, err, body)
		}
		return r.Result, r.Error
	}
	taskCount := func() int {
		t.Helper()
		_, body := postRPC(t, url, "ListTasks", map[string]any{}, "X-Api-Key", key)
		var r struct {
			Result struct {
				Tasks []json.RawMessage `json:"tasks"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		return len(r.Result.Tasks)
	}
	refusedFor := func(e *rpcError, quota, dialect string) {
		t.Helper()
		if e == nil || e.Code != -32004 || !strings.Contains(e.Message, "quota exceeded for agent://chatty") {
			t.Fatalf("%s: %+v, want -32004 naming the quota", dialect, e)
		}
		// Each dialect's shape: v1.0 a list of details, v0.3 one object, the v0.1 draft none.
		data := string(e.Data)
		switch dialect {
		case "1.0":
			if !strings.HasPrefix(data, "[") || !strings.Contains(data, `"quota":"`+quota+`"`) {
				t.Errorf("v1.0 error data %s, want details naming quota %s", data, quota)
			}
		case "0.3":
			if !strings.HasPrefix(data, "{") || !strings.Contains(data, `"quota":"`+quota+`"`) {
				t.Errorf("v0.3 error data %s, want one object naming quota %s", data, quota)
			}
		case "0.1":
			if data != "" {
				t.Errorf("v0.1 error data %s, want none", data)
			}
		}
	}

	first, e := send("1.0", "one", "")
	if e != nil {
		t.Fatalf("the first message: %+v", e)
	}
	if _, e := send("0.3", "two", ""); e != nil {
		t.Fatalf("the second message: %+v", e)
	}
	for _, d := range []string{"1.0", "0.3", "0.1"} {
		_, e := send(d, "three-"+strings.ReplaceAll(d, ".", ""), "")
		refusedFor(e, "open", d)
	}
	if n := taskCount(); n != 2 {
		t.Fatalf("after three refusals the caller has %d tasks, want the 2 it was allowed", n)
	}

	// Cancelling one frees an open place, not a place in all: the third task is taken, the fourth not.
	var task struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	json.Unmarshal(first, &task)
	if _, body := postRPC(t, url, "CancelTask", map[string]any{"id": task.Task.ID}, "X-Api-Key", key); !strings.Contains(string(body), "TASK_STATE_CANCELED") {
		t.Fatalf("cancel: %s", body)
	}
	if _, e := send("0.1", "three", ""); e != nil {
		t.Fatalf("a new message once one task ended: %+v", e)
	}
	postRPC(t, url, "tasks/cancel", map[string]any{"id": "draft-three"}, "X-Api-Key", key)
	_, e = send("1.0", "four", "")
	refusedFor(e, "tasks", "1.0")

	// Past the bytes, even a later turn of an open task is refused.
	h.Inbox.SetQuota(inbox.Quota{Open: 2, Tasks: 3, Bytes: 1})
	_, body := postRPC(t, url, "ListTasks", map[string]any{"status": "TASK_STATE_WORKING"}, "X-Api-Key", key)
	var list struct {
		Result struct {
			Tasks []struct {
				ID string `json:"id"`
			} `json:"tasks"`
		} `json:"result"`
	}
	json.Unmarshal(body, &list)
	if len(list.Result.Tasks) != 1 {
		t.Fatalf("working tasks: %s", body)
	}
	_, e = send("0.3", "more", list.Result.Tasks[0].ID)
	refusedFor(e, "bytes", "0.3")
	if n := taskCount(); n != 3 {
		t.Fatalf("the caller has %d tasks, want 3", n)
	}
}
