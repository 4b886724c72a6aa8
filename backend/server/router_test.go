package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestHostileRequestsGetProtocolErrorsAndChangeNothing(t *testing.T) {
	a := startDemo(t)
	var created struct {
		Task json.RawMessage `json:"task"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"keep me"}]}}}`), &created)
	var task struct {
		ID string `json:"id"`
	}
	json.Unmarshal(created.Task, &task)
	before := call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+task.ID+`"}}`).Result

	cases := []struct {
		name, body string
		status     int
		code       int
		id         string
	}{
		{"not JSON", `{"jsonrpc":`, 200, -32700, "null"},
		{"empty body", ``, 200, -32700, "null"},
		{"empty batch", `[]`, 200, -32600, "null"},
		{"not an object", `42`, 200, -32600, "null"},
		{"no method", `{"jsonrpc":"2.0","id":7}`, 200, -32600, "7"},
		{"empty method", `{"jsonrpc":"2.0","id":7,"method":""}`, 200, -32600, "7"},
		{"method not a string", `{"jsonrpc":"2.0","id":7,"method":5}`, 200, -32600, "7"},
		{"wrong version", `{"jsonrpc":"1.0","id":"a","method":"GetTask","params":{"id":"x"}}`, 200, -32600, `"a"`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"GetTask"}`, 200, -32600, "null"},
		{"string params", `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":"x"}`, 200, -32602, "7"},
		{"array params", `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":["x"]}`, 200, -32602, "7"},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"tasks/explode","params":{}}`, 200, -32601, "7"},
		{"unknown task v1", `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"nope"}}`, 200, -32001, "7"},
		{"unknown task shared name", `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"nope"}}`, 200, -32001, "7"},
		{"shared name without id", `{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{}}`, 200, -32602, "7"},
		{"shared name numeric id", `{"jsonrpc":"2.0","id":7,"method":"tasks/cancel","params":{"id":5}}`, 200, -32602, "7"},
		{"v1 params wrong type", `{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":5}}`, 200, -32602, "7"},
		{"v1 part with no content", `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_USER","parts":[{"bogus":1}]}}}`, 200, -32602, "7"},
		{"v1 no message", `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{}}`, 200, -32602, "7"},
		{"v1 stream bad params", `{"jsonrpc":"2.0","id":7,"method":"SendStreamingMessage","params":{"message":"x"}}`, 200, -32602, "7"},
		{"v03 parts wrong type", `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"messageId":"x","role":"user","parts":"x"}}}`, 200, -32602, "7"},
		{"v01 no task id", `{"jsonrpc":"2.0","id":7,"method":"tasks/send","params":{"message":{"role":"user","parts":[{"type":"text","text":"x"}]}}}`, 200, -32602, "7"},
		{"v01 unknown part type", `{"jsonrpc":"2.0","id":7,"method":"tasks/send","params":{"id":"d1","message":{"role":"user","parts":[{"type":"video"}]}}}`, 200, -32602, "7"},
		{"v01 bad base64", `{"jsonrpc":"2.0","id":7,"method":"tasks/send","params":{"id":"d1","message":{"role":"user","parts":[{"type":"file","file":{"bytes":"!!"}}]}}}`, 200, -32602, "7"},
		{"v01 data not object", `{"jsonrpc":"2.0","id":7,"method":"tasks/send","params":{"id":"d1","message":{"role":"user","parts":[{"type":"data","data":[1]}]}}}`, 200, -32602, "7"},
		{"v01 bad role", `{"jsonrpc":"2.0","id":7,"method":"tasks/send","params":{"id":"d1","message":{"role":"robot","parts":[{"type":"text","text":"x"}]}}}`, 200, -32602, "7"},
		{"v01 push on unknown task", `{"jsonrpc":"2.0","id":7,"method":"tasks/pushNotification/set","params":{"id":"nope","pushNotificationConfig":{"url":"https://example.com/cb"}}}`, 200, -32001, "7"},
		{"push config not a URL", `{"jsonrpc":"2.0","id":7,"method":"CreateTaskPushNotificationConfig","params":{"taskId":"` + task.ID + `","url":"not a url"}}`, 200, -32602, "7"},
		{"v1 continue terminal task", `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m9","taskId":"` + task.ID + `","role":"ROLE_USER","parts":[{"text":"again"}]}}}`, 200, -32004, "7"},
		{"v1 stream to terminal task", `{"jsonrpc":"2.0","id":7,"method":"SendStreamingMessage","params":{"message":{"messageId":"m9","taskId":"` + task.ID + `","role":"ROLE_USER","parts":[{"text":"again"}]}}}`, 200, -32004, "7"},
		{"v1 subscribe to terminal task", `{"jsonrpc":"2.0","id":7,"method":"SubscribeToTask","params":{"id":"` + task.ID + `"}}`, 200, -32004, "7"},
		{"v03 continue terminal task", `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","messageId":"m9","taskId":"` + task.ID + `","role":"user","parts":[{"kind":"text","text":"again"}]}}}`, 200, -32602, "7"},
		{"v1 unknown push config", `{"jsonrpc":"2.0","id":7,"method":"GetTaskPushNotificationConfig","params":{"taskId":"` + task.ID + `","id":"nope"}}`, 200, -32001, "7"},
		{"cancel finished task", `{"jsonrpc":"2.0","id":7,"method":"CancelTask","params":{"id":"` + task.ID + `"}}`, 200, -32002, "7"},
		{"too large", `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"pad":"` + strings.Repeat("x", 70<<10) + `"}}`, 413, -32600, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(t, a.URL, c.body)
			if resp.StatusCode != c.status {
				t.Fatalf("HTTP %d, want %d (%s)", resp.StatusCode, c.status, body)
			}
			var r rpcResp
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code != c.code {
				t.Fatalf("got %s, want error %d", body, c.code)
			}
			if string(r.ID) != c.id {
				t.Fatalf("id %s, want %s", r.ID, c.id)
			}
			if r.Error.Message == "" {
				t.Fatal("error without a message")
			}
		})
	}
	t.Run("unsupported A2A-Version", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, a.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"x"}}`))
		req.Header.Set("A2A-Version", "9.9")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r rpcResp
		json.NewDecoder(resp.Body).Decode(&r)
		if r.Error == nil || r.Error.Code != -32009 {
			t.Fatalf("got %+v", r)
		}
	})
	after := call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"`+task.ID+`"}}`).Result
	if string(before) != string(after) {
		t.Fatalf("stored task changed:\nbefore %s\nafter  %s", before, after)
	}
}

func TestGetIsNotAllowed(t *testing.T) {
	a := startDemo(t)
	resp, err := http.Get(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET answered %d", resp.StatusCode)
	}
}

func TestBatchesAndNotifications(t *testing.T) {
	a := startDemo(t)
	t.Run("notification gets no reply but runs", func(t *testing.T) {
		resp, body := post(t, a.URL, `{"jsonrpc":"2.0","method":"tasks/send","params":{"id":"note-1","message":{"role":"user","parts":[{"type":"text","text":"quiet"}]}}}`)
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Fatalf("HTTP %d %q", resp.StatusCode, body)
		}
		var task struct {
			Status struct{ State string } `json:"status"`
		}
		mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"note-1"}}`), &task)
		if task.Status.State != "completed" {
			t.Fatalf("notification's task is %q", task.Status.State)
		}
	})
	t.Run("mixed batch", func(t *testing.T) {
		_, body := post(t, a.URL, `[
			{"jsonrpc":"2.0","id":"a","method":"tasks/send","params":{"id":"batch-1","message":{"role":"user","parts":[{"type":"text","text":"one"}]}}},
			{"jsonrpc":"2.0","method":"GetTask","params":{"id":"nope"}},
			{"jsonrpc":"2.0","id":"b","method":"GetTask","params":{"id":"nope"}},
			{"jsonrpc":"2.0","id":"c"},
			5,
			{"jsonrpc":"2.0","id":"d","method":"SendStreamingMessage","params":{"message":{"messageId":"s","role":"ROLE_USER","parts":[{"text":"x"}]}}}
		]`)
		var out []rpcResp
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatalf("batch reply %s: %v", body, err)
		}
		want := []struct {
			id   string
			code int
		}{{`"a"`, 0}, {`"b"`, -32001}, {`"c"`, -32600}, {`null`, -32600}, {`"d"`, -32600}}
		if len(out) != len(want) {
			t.Fatalf("got %d replies, want %d: %s", len(out), len(want), body)
		}
		for i, w := range want {
			got := 0
			if out[i].Error != nil {
				got = out[i].Error.Code
			}
			if string(out[i].ID) != w.id || got != w.code {
				t.Errorf("reply %d: id %s code %d, want id %s code %d", i, out[i].ID, got, w.id, w.code)
			}
		}
	})
	t.Run("failing notifications get no reply either", func(t *testing.T) {
		for _, body := range []string{
			`{"jsonrpc":"2.0","method":"no/such/method"}`,
			`{"jsonrpc":"2.0","method":"SendStreamingMessage","params":{"message":{"messageId":"s","role":"ROLE_USER","parts":[{"text":"x"}]}}}`,
		} {
			resp, got := post(t, a.URL, body)
			if resp.StatusCode != http.StatusNoContent || len(got) != 0 {
				t.Fatalf("%s: HTTP %d %q", body, resp.StatusCode, got)
			}
		}
	})
	t.Run("batch of notifications", func(t *testing.T) {
		resp, body := post(t, a.URL, `[{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}},{"jsonrpc":"2.0","method":"GetTask","params":{"id":"y"}}]`)
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Fatalf("HTTP %d %q", resp.StatusCode, body)
		}
	})
}

// TestUnaryResponsesAsMarshalled: a unary answer from a2a-go's handler is spliced into the response
// instead of being decoded and marshalled again; the bytes a client reads are what marshalling gave.
// The id is the client's own (a number beyond float64, a string with HTML characters, escapes).
func TestUnaryResponsesAsMarshalled(t *testing.T) {
	a := startDemo(t)
	id, _ := sendV1(t, a, "hello")
	for _, rid := range []string{`12345678901234567890`, `"<a&b>"`, `"\u00e9 x"`, `-1.5e3`} {
		_, body := post(t, a.URL, `{"jsonrpc":"2.0","id":`+rid+`,"method":"GetTask","params":{"id":"`+id+`"}}`)
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &r); err != nil || r.Result == nil {
			t.Fatalf("id %s: %s, %v", rid, body, err)
		}
		// What marshalling the response gave: its fields in this order, the result compacted.
		want, err := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{"2.0", json.RawMessage(rid), r.Result})
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.TrimSpace(body); !bytes.Equal(got, want) {
			t.Errorf("id %s:\n got %s\nwant %s", rid, got, want)
		}
	}
}
