package server_test

// The requests the official A2A TCK (github.com/a2aproject/a2a-tck, branches 0.3.x and main) sends,
// reproduced as our own tests for each fault it found, in the dialect where it was found, plus the
// SDK clients that must decode the answers.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"
)

func legacyClient(t *testing.T, a *testAgent) *legacyclient.Client {
	t.Helper()
	card, err := legacycard.DefaultResolver.Resolve(t.Context(), a.Base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := legacyclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawError is a JSON-RPC error as it is on the wire.
type rawError struct {
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func callRaw(t *testing.T, url, body string) rawError {
	t.Helper()
	_, b := post(t, url, body)
	var r rawError
	if err := json.Unmarshal(b, &r); err != nil || r.Error == nil {
		t.Fatalf("expected a JSON-RPC error, got %s (%v)", b, err)
	}
	return r
}

// TCK 0.3.x tests/mandatory/protocol/test_tasks_cancel_method.py cancels a task that has ended. The
// v0.3 answer must be v0.3's: "data" an object (or absent) and v0.3 state names, which the a2a-go
// v0.3 client decodes into its typed error.
func TestTCKV03CancelOfEndedTaskIsAV03Error(t *testing.T) {
	a := startDemo(t)
	c := legacyClient(t, a)
	res, err := c.SendMessage(t.Context(), &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "slow abc"})})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*legacy.Task)
	if task.Status.State != legacy.TaskStateRejected {
		t.Fatalf("an invalid slow N is rejected; got %s", task.Status.State)
	}
	_, err = c.CancelTask(t.Context(), &legacy.TaskIDParams{ID: task.ID})
	if !errors.Is(err, legacy.ErrTaskNotCancelable) {
		t.Fatalf("v0.3 client got %v, want its ErrTaskNotCancelable", err)
	}
	r := callRaw(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"id":"`+string(task.ID)+`"}}`)
	if r.Error.Code != -32002 || strings.Contains(r.Error.Message, "TASK_STATE_") || !strings.Contains(r.Error.Message, "rejected") {
		t.Errorf("v0.3 error %d %q: want -32002 naming the state as v0.3 does", r.Error.Code, r.Error.Message)
	}
	if d := r.Error.Data; d != nil && d[0] != '{' {
		t.Errorf("v0.3 error data %s: must be an object or absent", d)
	}

	// A v0.3 stream's error event too: resubscribing to an unknown task.
	events := stream(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"message/stream","params":{"message":{"kind":"message","messageId":"m-stream","role":"user","taskId":"`+string(task.ID)+`","parts":[{"kind":"text","text":"more"}]}}}`)
	last := events[len(events)-1]
	if last.Error == nil || strings.Contains(last.Error.Message, "TASK_STATE_") {
		t.Errorf("v0.3 stream to an ended task ended with %+v", last)
	}
}

// The v0.1 draft names states its own way too: a rejected task is "failed" there.
func TestV01CancelOfEndedTaskNamesDraftStates(t *testing.T) {
	a := startDemo(t)
	call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"draft-rejected","message":{"role":"user","parts":[{"type":"text","text":"slow abc"}]}}}`)
	r := callRaw(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"id":"draft-rejected"}}`)
	if r.Error.Code != -32002 || strings.Contains(r.Error.Message, "TASK_STATE_") || strings.Contains(r.Error.Message, "rejected") || r.Error.Data != nil {
		t.Errorf("v0.1 error %d %q data %s: want -32002 in draft state names, no data", r.Error.Code, r.Error.Message, r.Error.Data)
	}
}

// sendV03 sends a v0.3 message/send (not blocking) and returns the task's id.
func sendV03(t *testing.T, a *testAgent, text string) string {
	t.Helper()
	var task struct {
		ID string `json:"id"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"`+
		fmt.Sprint(time.Now().UnixNano())+`","role":"user","parts":[{"kind":"text","text":"`+text+`"}]},"configuration":{"blocking":false}}}`), &task)
	if task.ID == "" {
		t.Fatal("message/send answered no task")
	}
	return task.ID
}

// sendV1 sends a v1.0 SendMessage with returnImmediately and returns the task's id and context.
func sendV1(t *testing.T, a *testAgent, text string) (id, contextID string) {
	t.Helper()
	var res struct {
		Task struct {
			ID        string `json:"id"`
			ContextID string `json:"contextId"`
		} `json:"task"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"`+fmt.Sprint(time.Now().UnixNano())+
		`","role":"ROLE_USER","parts":[{"text":"`+text+`"}]},"configuration":{"returnImmediately":true}}}`), &res)
	return res.Task.ID, res.Task.ContextID
}

func resultOf(t *testing.T, url, body string) json.RawMessage {
	t.Helper()
	_, b := post(t, url, body)
	var r map[string]json.RawMessage
	if err := json.Unmarshal(b, &r); err != nil || r["error"] != nil || r["result"] == nil {
		t.Fatalf("want a result, got %s", b)
	}
	return r["result"]
}

// TCK 0.3.x test_push_notification_config_methods.py: list of a task without configs is an array;
// delete answers null; get with only the task id ("Server will return one of the associated
// configurations if config id is not specified") answers its config, also to the a2a-go v0.3 client.
func TestTCKV03PushConfigShapes(t *testing.T) {
	a := startDemo(t)
	id := sendV03(t, a, "hello")
	if got := resultOf(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/pushNotificationConfig/list","params":{"id":"`+id+`"}}`); string(got) != "[]" {
		t.Errorf("list without configs answered %s, want []", got)
	}

	var set struct {
		PushNotificationConfig struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		} `json:"pushNotificationConfig"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"`+id+`","pushNotificationConfig":{"url":"https://example.com/webhook"}}}`), &set)

	var got struct {
		TaskID                 string `json:"taskId"`
		PushNotificationConfig struct {
			URL string `json:"url"`
		} `json:"pushNotificationConfig"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":4,"method":"tasks/pushNotificationConfig/get","params":{"id":"`+id+`"}}`), &got)
	if got.TaskID != id || got.PushNotificationConfig.URL != "https://example.com/webhook" {
		t.Errorf("get with only the task id answered %+v", got)
	}
	cfg, err := legacyClient(t, a).GetTaskPushConfig(t.Context(), &legacy.GetTaskPushConfigParams{TaskID: legacy.TaskID(id)})
	if err != nil || cfg.Config.URL != "https://example.com/webhook" {
		t.Errorf("a2a-go v0.3 client's get without a config id: %+v %v", cfg, err)
	}

	if got := resultOf(t, a.URL, `{"jsonrpc":"2.0","id":5,"method":"tasks/pushNotificationConfig/delete","params":{"id":"`+id+`","pushNotificationConfigId":"`+set.PushNotificationConfig.ID+`"}}`); string(got) != "null" {
		t.Errorf("delete answered %s, want null", got)
	}
	if got := resultOf(t, a.URL, `{"jsonrpc":"2.0","id":6,"method":"tasks/pushNotificationConfig/list","params":{"id":"`+id+`"}}`); string(got) != "[]" {
		t.Errorf("list after delete answered %s, want []", got)
	}
	r := callRaw(t, a.URL, `{"jsonrpc":"2.0","id":7,"method":"tasks/pushNotificationConfig/get","params":{"id":"`+id+`"}}`)
	if r.Error.Code != -32001 {
		t.Errorf("get without a config id on a task with none: %d %s", r.Error.Code, r.Error.Message)
	}
}

// TCK main test_tasks_list_method.py: an invalid status and pageSize 0, -1 or 101 are -32602. The
// SDK cannot tell pageSize 0 from "not given" (then 50) and would filter on any status.
func TestTCKListTasksRefusesInvalidParams(t *testing.T) {
	a := startDemo(t)
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`), new(any))
	for _, params := range []string{`{"status":"INVALID_STATUS"}`, `{"pageSize":0}`, `{"pageSize":-1}`, `{"pageSize":101}`, `{"pageSize":2.5}`, `{"page_size":0}`} {
		if r := callRaw(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":`+params+`}`); r.Error.Code != -32602 {
			t.Errorf("ListTasks %s: %d %s, want -32602", params, r.Error.Code, r.Error.Message)
		}
	}
	var list struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{"status":"TASK_STATE_COMPLETED","pageSize":1}}`), &list)
	if len(list.Tasks) != 1 {
		t.Errorf("ListTasks of completed tasks found %d", len(list.Tasks))
	}
}

// TCK main sends proto field names (GetTaskPushNotificationConfig {"task_id", "id"}); ProtoJSON
// accepts them beside the lowerCamel names, so the hub does too. Free-form metadata keeps its keys.
func TestTCKV1AcceptsProtoFieldNames(t *testing.T) {
	a := startDemo(t)
	id, contextID := sendV1(t, a, "hello")
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"CreateTaskPushNotificationConfig","params":{"task_id":"`+id+`","id":"cfg-1","url":"https://example.com/webhook"}}`), new(any))
	var cfg struct {
		TaskID string `json:"taskId"`
		URL    string `json:"url"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"GetTaskPushNotificationConfig","params":{"task_id":"`+id+`","id":"cfg-1"}}`), &cfg)
	if cfg.TaskID != id || cfg.URL != "https://example.com/webhook" {
		t.Errorf("get by task_id: %+v", cfg)
	}
	var configs struct {
		Configs []json.RawMessage `json:"configs"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"ListTaskPushNotificationConfigs","params":{"task_id":"`+id+`"}}`), &configs)
	if len(configs.Configs) != 1 {
		t.Errorf("list by task_id: %d configs", len(configs.Configs))
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":4,"method":"DeleteTaskPushNotificationConfig","params":{"task_id":"`+id+`","id":"cfg-1"}}`), new(any))

	var sent struct {
		Task struct {
			ID      string `json:"id"`
			History []struct {
				MessageID string         `json:"messageId"`
				Metadata  map[string]any `json:"metadata"`
			} `json:"history"`
		} `json:"task"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":5,"method":"SendMessage","params":{"message":{"message_id":"snake-1","context_id":"`+contextID+
		`","role":"ROLE_USER","parts":[{"text":"hi","media_type":"text/plain"}],"metadata":{"kept_as_is":1}},"configuration":{"history_length":5}}}`), &sent)
	if h := sent.Task.History; len(h) == 0 || h[0].MessageID != "snake-1" || h[0].Metadata["kept_as_is"] == nil {
		t.Errorf("message with proto names: %+v", sent.Task)
	}
	var list struct {
		Tasks []struct {
			ContextID string `json:"contextId"`
		} `json:"tasks"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":6,"method":"ListTasks","params":{"context_id":"`+contextID+`","page_size":1}}`), &list)
	if len(list.Tasks) != 1 || list.Tasks[0].ContextID != contextID {
		t.Errorf("ListTasks by context_id/page_size: %+v", list)
	}
	// A name whose underscore is written as a JSON escape is the same name.
	list.Tasks = nil
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":7,"method":"ListTasks","params":{"context\u005fid":"`+contextID+`","page\u005Fsize":1}}`), &list)
	if len(list.Tasks) != 1 || list.Tasks[0].ContextID != contextID {
		t.Errorf("ListTasks by context\u005fid/page\u005Fsize: %+v", list)
	}
}

// A message to a task still on its turn: a2a-go answers -32603 "task execution is already in
// progress", as if the server had failed. It is the request that cannot be served in the task's state:
// -32004 in every dialect (v1.0 and v0.3 UnsupportedOperationError; the v0.1 draft's code for an
// operation not allowed in the task's state).
func TestTCKMessageToAWorkingTaskIsUnsupported(t *testing.T) {
	a := startDemo(t)
	v1ID, _ := sendV1(t, a, "slow 600")
	v03ID := sendV03(t, a, "slow 600")
	v01ID := "draft-busy"
	firstDraftEvent(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/sendSubscribe","params":{"id":"`+v01ID+`","message":{"role":"user","parts":[{"type":"text","text":"slow 600"}]}}}`)
	t.Cleanup(func() {
		for _, id := range []string{v1ID, v03ID, v01ID} {
			post(t, a.URL, `{"jsonrpc":"2.0","id":9,"method":"CancelTask","params":{"id":"`+id+`"}}`)
		}
	})
	for name, body := range map[string]string{
		"v1.0 SendMessage":          `{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"again-1","taskId":"` + v1ID + `","role":"ROLE_USER","parts":[{"text":"again"}]}}}`,
		"v1.0 SendStreamingMessage": `{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{"message":{"messageId":"again-2","taskId":"` + v1ID + `","role":"ROLE_USER","parts":[{"text":"again"}]}}}`,
		"v0.3 message/send":         `{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"again-3","taskId":"` + v03ID + `","role":"user","parts":[{"kind":"text","text":"again"}]}}}`,
		"v0.3 message/stream":       `{"jsonrpc":"2.0","id":2,"method":"message/stream","params":{"message":{"kind":"message","messageId":"again-4","taskId":"` + v03ID + `","role":"user","parts":[{"kind":"text","text":"again"}]}}}`,
		"v0.1 tasks/send":           `{"jsonrpc":"2.0","id":2,"method":"tasks/send","params":{"id":"` + v01ID + `","message":{"role":"user","parts":[{"type":"text","text":"again"}]}}}`,
		"v0.1 tasks/sendSubscribe":  `{"jsonrpc":"2.0","id":2,"method":"tasks/sendSubscribe","params":{"id":"` + v01ID + `","message":{"role":"user","parts":[{"type":"text","text":"again"}]}}}`,
	} {
		if r := callRaw(t, a.URL, body); r.Error.Code != -32004 || strings.Contains(r.Error.Message, "TASK_STATE_") {
			t.Errorf("%s to a working task: %d %s, want -32004", name, r.Error.Code, r.Error.Message)
		}
	}
}

// firstDraftEvent opens a v0.1 stream and returns once its first event arrived (the task is working).
func firstDraftEvent(t *testing.T, url, body string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), `"working"`) {
			go io.Copy(io.Discard, resp.Body)
			return
		}
	}
	t.Fatal("the v0.1 stream ended before the task was working")
}

// TCK 0.3.x test_streaming_methods.py resubscribes to a task that does not exist. The v0.3 spec
// (7.9): on failure "The HTTP body MAY contain a standard JSONRPCResponse with an error object.
// Failures can occur if the task ... doesn't exist"; v1.0 lists TaskNotFoundError for SubscribeToTask.
// Every dialect answers at once, -32001 as application/json, before any stream opens.
func TestTCKSubscribeToUnknownTaskIsTaskNotFound(t *testing.T) {
	a := startDemo(t)
	for _, method := range []string{"SubscribeToTask", "tasks/resubscribe"} {
		resp, b := post(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{"id":"non-existent-task-1"}}`)
		var r rawError
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || json.Unmarshal(b, &r) != nil || r.Error == nil || r.Error.Code != -32001 {
			t.Errorf("%s of an unknown task: %s %s, want an application/json -32001", method, ct, b)
		}
	}
}
