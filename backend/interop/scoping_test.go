package interop

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScopingEveryDialect: principal A creates a task in each dialect; principal B can neither get,
// list, cancel, resubscribe to, nor read or set push configs of it, and each answer is exactly what
// an id that does not exist gets (the id swapped for the unknown one), so B cannot tell it exists.
// A still can; an anonymous caller (when allowed) sees neither.
func TestScopingEveryDialect(t *testing.T) {
	h, keyA, _ := startAuthHub(t, "alice")
	_, keyB, err := h.Auth.Principals.Add(t.Context(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	url := h.Agent.BaseURL + "/a2a"
	a := map[string]string{"X-Api-Key": keyA}
	b := map[string]string{"X-Api-Key": keyB}

	// A's tasks, one per dialect (the inbox keeps each open, waiting for the owner).
	taskOf := map[string]string{}
	_, e, body := rawRPC(t, url, a, "SendMessage", map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "v1.0 from alice"}}}, "configuration": map[string]any{"returnImmediately": true}})
	taskOf["1.0"] = resultID(t, e, body, "task", "id")
	_, e, body = rawRPC(t, url, a, "message/send", map[string]any{"message": map[string]any{"kind": "message", "messageId": "m2", "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": "v0.3 from alice"}}}, "configuration": map[string]any{"blocking": false}})
	taskOf["0.3"] = resultID(t, e, body, "id")
	taskOf["0.1"] = "alice-draft-task"
	_, e, body = rawRPC(t, url, a, "tasks/send", map[string]any{"id": taskOf["0.1"], "message": map[string]any{"role": "user",
		"parts": []any{map[string]any{"type": "text", "text": "v0.1 from alice"}}}})
	if e != nil {
		t.Fatalf("tasks/send: %s", body)
	}

	const unknown = "no-such-task-0000"
	calls := map[string][]struct {
		method string
		params func(id string) any
	}{
		"1.0": {
			{"GetTask", func(id string) any { return map[string]any{"id": id} }},
			{"CancelTask", func(id string) any { return map[string]any{"id": id} }},
			{"SubscribeToTask", func(id string) any { return map[string]any{"id": id} }},
			{"SendMessage", func(id string) any {
				return map[string]any{"message": map[string]any{"messageId": "m3", "role": "ROLE_USER", "taskId": id, "parts": []any{map[string]any{"text": "mine now"}}}}
			}},
			{"SendStreamingMessage", func(id string) any {
				return map[string]any{"message": map[string]any{"messageId": "m4", "role": "ROLE_USER", "taskId": id, "parts": []any{map[string]any{"text": "mine now"}}}}
			}},
			{"ListTaskPushNotificationConfigs", func(id string) any { return map[string]any{"taskId": id} }},
			{"GetTaskPushNotificationConfig", func(id string) any { return map[string]any{"taskId": id, "id": "c1"} }},
			{"CreateTaskPushNotificationConfig", func(id string) any {
				return map[string]any{"taskId": id, "url": "http://127.0.0.1:9/hook"}
			}},
			{"DeleteTaskPushNotificationConfig", func(id string) any { return map[string]any{"taskId": id, "id": "c1"} }},
		},
		"0.3": {
			{"tasks/get", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/cancel", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/resubscribe", func(id string) any { return map[string]any{"id": id} }},
			{"message/send", func(id string) any {
				return map[string]any{"message": map[string]any{"kind": "message", "messageId": "m5", "role": "user", "taskId": id, "parts": []any{map[string]any{"kind": "text", "text": "x"}}}}
			}},
			{"message/stream", func(id string) any {
				return map[string]any{"message": map[string]any{"kind": "message", "messageId": "m6", "role": "user", "taskId": id, "parts": []any{map[string]any{"kind": "text", "text": "x"}}}}
			}},
			{"tasks/pushNotificationConfig/list", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/pushNotificationConfig/get", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/pushNotificationConfig/set", func(id string) any {
				return map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"url": "http://127.0.0.1:9/hook"}}
			}},
		},
		"0.1": {
			{"tasks/get", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/cancel", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/resubscribe", func(id string) any { return map[string]any{"id": id} }},
			{"tasks/pushNotification/get", func(id string) any { return map[string]any{"id": id} }},
		},
	}
	for dialect, list := range calls {
		id := taskOf[dialect]
		for _, c := range list {
			status, got, gotBody := rawRPC(t, url, b, c.method, c.params(id))
			wantStatus, want, wantBody := rawRPC(t, url, b, c.method, c.params(unknown))
			if want == nil || got == nil {
				t.Errorf("%s %s: bob got %s, an unknown id got %s", dialect, c.method, gotBody, wantBody)
				continue
			}
			if status != wantStatus || got.Code != want.Code || strings.ReplaceAll(got.Message, id, unknown) != want.Message {
				t.Errorf("%s %s on alice's task: bob got HTTP %d %+v; an unknown id gets HTTP %d %+v", dialect, c.method, status, got, wantStatus, want)
			}
		}
		// A still reads it.
		method, params := "GetTask", map[string]any{"id": id}
		if dialect != "1.0" {
			method = "tasks/get"
		}
		if _, e, body := rawRPC(t, url, a, method, params); e != nil {
			t.Errorf("%s: alice cannot read her own task: %s", dialect, body)
		}
	}

	// The v0.1 task id is chosen by the client: bob reusing it must not join alice's task.
	if _, e, body := rawRPC(t, url, b, "tasks/send", map[string]any{"id": taskOf["0.1"], "message": map[string]any{"role": "user",
		"parts": []any{map[string]any{"type": "text", "text": "bob joins"}}}}); e == nil {
		t.Errorf("bob sent into alice's v0.1 task: %s", body)
	}

	// ListTasks: each sees only their own.
	for who, headers := range map[string]map[string]string{"alice": a, "bob": b} {
		_, e, body := rawRPC(t, url, headers, "ListTasks", map[string]any{})
		if e != nil {
			t.Fatalf("%s ListTasks: %s", who, body)
		}
		var res struct {
			Result struct {
				Tasks []struct {
					ID string `json:"id"`
				} `json:"tasks"`
				TotalSize int `json:"totalSize"`
			} `json:"result"`
		}
		_ = json.Unmarshal([]byte(body), &res)
		want := map[string]int{"alice": 3, "bob": 0}[who]
		if len(res.Result.Tasks) != want || res.Result.TotalSize != want {
			t.Errorf("%s lists %d tasks (total %d), want %d: %s", who, len(res.Result.Tasks), res.Result.TotalSize, want, body)
		}
	}
}

// resultID digs a string out of a JSON-RPC result at path, failing on an error reply.
func resultID(t *testing.T, e *rpcErr, body string, path ...string) string {
	t.Helper()
	if e != nil {
		t.Fatalf("send: %s", body)
	}
	var v struct {
		Result any `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	cur := v.Result
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("no %v in %s", path, body)
		}
		cur = m[k]
	}
	id, _ := cur.(string)
	if id == "" {
		t.Fatalf("no %v in %s", path, body)
	}
	return id
}
