package server_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

type draftTask struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionId"`
	Status    struct {
		State   string `json:"state"`
		Message *struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"message"`
	} `json:"status"`
	History []struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	} `json:"history"`
	Artifacts []struct {
		Name  string           `json:"name"`
		Index *int             `json:"index"`
		Parts []map[string]any `json:"parts"`
	} `json:"artifacts"`
}

func TestDraftSendAnswersInDraftShapes(t *testing.T) {
	a := startDemo(t)
	var task draftTask
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"d-1","sessionId":"s-1","message":{"role":"user","parts":[{"type":"text","text":"tell me a joke"}]},"metadata":{}}}`), &task)
	if task.ID != "d-1" || task.SessionID != "s-1" || task.Status.State != "completed" {
		t.Fatalf("task %+v", task)
	}
	if len(task.Artifacts) != 1 || task.Artifacts[0].Index == nil || *task.Artifacts[0].Index != 0 {
		t.Fatalf("artifacts %+v", task.Artifacts)
	}
	var echoed strings.Builder
	for _, p := range task.Artifacts[0].Parts {
		if p["type"] != "text" {
			t.Fatalf("part %v has no draft type", p)
		}
		echoed.WriteString(p["text"].(string))
	}
	if echoed.String() != "tell me a joke" {
		t.Fatalf("echo %q", echoed.String())
	}
	if task.History[0].Role != "user" || task.History[0].Parts[0]["text"] != "tell me a joke" {
		t.Fatalf("history %+v", task.History)
	}

	t.Run("tasks/get with historyLength", func(t *testing.T) {
		var got draftTask
		mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"d-1","historyLength":1}}`), &got)
		if got.SessionID != "s-1" || len(got.History) != 1 {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("a session id that is not the task's", func(t *testing.T) {
		r := call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"tasks/send","params":{"id":"d-1","sessionId":"other","message":{"role":"user","parts":[{"type":"text","text":"x"}]}}}`)
		if r.Error == nil || r.Error.Code != -32602 {
			t.Fatalf("got %+v", r)
		}
	})
	t.Run("the overview's parts spelled data", func(t *testing.T) {
		var got draftTask
		mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":4,"method":"tasks/send","params":{"id":"d-2","message":{"role":"user","data":[{"type":"text","text":"tell me a joke"}]}}}`), &got)
		if got.Status.State != "completed" || got.SessionID == "" {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("file in, file out", func(t *testing.T) {
		var got draftTask
		mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":5,"method":"tasks/send","params":{"id":"d-3","message":{"role":"user","parts":[{"type":"text","text":"file"},{"type":"file","file":{"name":"a.bin","mimeType":"application/octet-stream","bytes":"AAEC"}}]}}}`), &got)
		f, _ := got.Artifacts[0].Parts[0]["file"].(map[string]any)
		raw, _ := base64.StdEncoding.DecodeString(f["bytes"].(string))
		if got.Artifacts[0].Parts[0]["type"] != "file" || f["name"] != "hello.txt" || !strings.Contains(string(raw), "demo agent") {
			t.Fatalf("artifact %+v", got.Artifacts)
		}
		in := got.History[0].Parts[1]["file"].(map[string]any)
		if in["bytes"] != "AAEC" || in["name"] != "a.bin" {
			t.Fatalf("history file part %+v", in)
		}
	})
	t.Run("data out", func(t *testing.T) {
		var got draftTask
		mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":6,"method":"tasks/send","params":{"id":"d-4","message":{"role":"user","parts":[{"type":"text","text":"data"}]}}}`), &got)
		p := got.Artifacts[0].Parts[0]
		if p["type"] != "data" || p["data"].(map[string]any)["agent"] != "demo" {
			t.Fatalf("part %+v", p)
		}
	})
}

func TestDraftAskBackThenAnswer(t *testing.T) {
	a := startDemo(t)
	var task draftTask
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"ask-1","message":{"role":"user","parts":[{"type":"text","text":"ask"}]}}}`), &task)
	if task.Status.State != "input-required" || task.Status.Message == nil || task.Status.Message.Role != "agent" {
		t.Fatalf("task %+v", task)
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/send","params":{"id":"ask-1","message":{"role":"user","parts":[{"type":"text","text":"blue"}]}}}`), &task)
	if task.Status.State != "completed" || task.Artifacts[0].Parts[0]["text"] != "You answered: blue" {
		t.Fatalf("task %+v", task)
	}
}

func TestDraftSendSubscribeStreamsDraftEvents(t *testing.T) {
	a := startDemo(t)
	events := stream(t, a.URL, `{"jsonrpc":"2.0","id":9,"method":"tasks/sendSubscribe","params":{"id":"st-1","message":{"role":"user","parts":[{"type":"text","text":"abcdefgh"}]}}}`)
	if len(events) < 4 {
		t.Fatalf("only %d events", len(events))
	}
	var text strings.Builder
	for i, e := range events {
		if string(e.ID) != "9" || e.Error != nil {
			t.Fatalf("event %d: %+v", i, e)
		}
		var ev struct {
			ID       string          `json:"id"`
			Final    *bool           `json:"final"`
			Status   json.RawMessage `json:"status"`
			Artifact *struct {
				Index     *int             `json:"index"`
				Append    bool             `json:"append"`
				LastChunk bool             `json:"lastChunk"`
				Parts     []map[string]any `json:"parts"`
			} `json:"artifact"`
		}
		json.Unmarshal(e.Result, &ev)
		if ev.ID != "st-1" {
			t.Fatalf("event %d for task %q", i, ev.ID)
		}
		if ev.Artifact != nil {
			if ev.Artifact.Index == nil || *ev.Artifact.Index != 0 {
				t.Fatalf("artifact event without index 0: %s", e.Result)
			}
			text.WriteString(ev.Artifact.Parts[0]["text"].(string))
		}
		last := i == len(events)-1
		if ev.Status != nil && (ev.Final == nil || *ev.Final != last) {
			t.Fatalf("event %d final=%v, last=%v: %s", i, ev.Final, last, e.Result)
		}
	}
	if text.String() != "abcdefgh" {
		t.Fatalf("streamed %q", text.String())
	}
	// Resubscribed, the stream opens with the task as it is now, in the draft's events (it has no
	// whole-task event): its artifact so far, whole, then its status, here completed and final.
	replayed := stream(t, a.URL, `{"jsonrpc":"2.0","id":10,"method":"tasks/resubscribe","params":{"id":"st-1"}}`)
	if len(replayed) != 2 || !strings.Contains(string(replayed[0].Result), `"text":"abcdefgh"`) && !strings.Contains(string(replayed[0].Result), `"text":"ef"`) {
		t.Fatalf("resubscribe gave %d events; first %s", len(replayed), replayed[0].Result)
	}
	var art struct {
		Artifact struct {
			Index int              `json:"index"`
			Parts []map[string]any `json:"parts"`
		} `json:"artifact"`
	}
	json.Unmarshal(replayed[0].Result, &art)
	var whole strings.Builder
	for _, p := range art.Artifact.Parts {
		whole.WriteString(p["text"].(string))
	}
	if whole.String() != "abcdefgh" || art.Artifact.Index != 0 {
		t.Fatalf("the first event is not the artifact so far: %s", replayed[0].Result)
	}
	if st := string(replayed[1].Result); !strings.Contains(st, `"state":"completed"`) || !strings.Contains(st, `"final":true`) {
		t.Fatalf("the second event is not the final status: %s", st)
	}
}

func TestDraftPushNotificationConfig(t *testing.T) {
	a := startDemo(t)
	call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"p-1","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`)
	set := call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/pushNotification/set","params":{"id":"p-1","pushNotificationConfig":{"url":"https://example.com/callback","authentication":{"schemes":["bearer"]}}}}`)
	want := `{"id":"p-1","pushNotificationConfig":{"url":"https://example.com/callback","authentication":{"schemes":["bearer"]}}}`
	if set.Error != nil || string(set.Result) != want {
		t.Fatalf("set: %s %+v", set.Result, set.Error)
	}
	got := call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"tasks/pushNotification/get","params":{"id":"p-1"}}`)
	if got.Error != nil || string(got.Result) != want {
		t.Fatalf("get: %s %+v", got.Result, got.Error)
	}
	none := call(t, a.URL, `{"jsonrpc":"2.0","id":4,"method":"tasks/send","params":{"id":"p-2","message":{"role":"user","parts":[{"type":"text","text":"hi"}]}}}`)
	if none.Error != nil {
		t.Fatal(none.Error)
	}
	if r := call(t, a.URL, `{"jsonrpc":"2.0","id":5,"method":"tasks/pushNotification/get","params":{"id":"p-2"}}`); r.Error == nil || r.Error.Code != -32001 {
		t.Fatalf("get without config: %+v", r)
	}
}

func TestSharedNamesAnswerInTheTasksDialect(t *testing.T) {
	a := startDemo(t)
	var sent struct {
		Kind string `json:"kind"`
		ID   string `json:"id"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"v03"}]}}}`), &sent)
	if sent.Kind != "task" {
		t.Fatalf("v0.3 result kind %q", sent.Kind)
	}
	call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/send","params":{"id":"draft-x","message":{"role":"user","parts":[{"type":"text","text":"v01"}]}}}`)

	v03 := call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"`+sent.ID+`"}}`)
	if !strings.Contains(string(v03.Result), `"kind":"task"`) || !strings.Contains(string(v03.Result), `"state":"completed"`) || strings.Contains(string(v03.Result), "sessionId") {
		t.Fatalf("v0.3 task answered as %s", v03.Result)
	}
	v01 := call(t, a.URL, `{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"id":"draft-x"}}`)
	if !strings.Contains(string(v01.Result), `"sessionId"`) || !strings.Contains(string(v01.Result), `"type":"text"`) || strings.Contains(string(v01.Result), `"kind"`) {
		t.Fatalf("v0.1 task answered as %s", v01.Result)
	}
	// v1.0 reads every task in its own shape, whatever dialect created it.
	v1 := call(t, a.URL, `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":{"id":"draft-x"}}`)
	if !strings.Contains(string(v1.Result), `"TASK_STATE_COMPLETED"`) {
		t.Fatalf("v1 GetTask of a draft task: %s", v1.Result)
	}
}

func TestDraftCancel(t *testing.T) {
	a := startDemo(t)
	done := make(chan []rpcResp)
	go func() {
		done <- stream(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/sendSubscribe","params":{"id":"c-1","message":{"role":"user","parts":[{"type":"text","text":"slow 100"}]}}}`)
	}()
	for {
		r := call(t, a.URL, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"c-1"}}`)
		if r.Error == nil && strings.Contains(string(r.Result), `"working"`) {
			break
		}
	}
	var task draftTask
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"id":"c-1"}}`), &task)
	if task.Status.State != "canceled" {
		t.Fatalf("after cancel: %+v", task)
	}
	events := <-done
	last := string(events[len(events)-1].Result)
	if !strings.Contains(last, `"canceled"`) || !strings.Contains(last, `"final":true`) {
		t.Fatalf("stream ended with %s", last)
	}
}
