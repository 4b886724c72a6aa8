package uiapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// agents.call sends a request written by hand to an added agent through the hub's client: its
// answer comes back whole, the agent's JSON-RPC error as rpc_error with its code, and the raw log
// records the exchange like any other call. Bad requests are refused before anything is sent.
func TestRawCallGoesThroughTheHubsClient(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var remote struct{ ID string }
	c.result("agents.add", map[string]any{"url": otherDemo(t)}, &remote)

	var sent struct{ Result json.RawMessage }
	c.result("agents.call", map[string]any{"id": remote.ID, "method": "SendMessage", "params": map[string]any{
		"message":       map[string]any{"messageId": "by-hand-1", "role": "ROLE_USER", "parts": []any{map[string]any{"text": "hello by hand"}}},
		"configuration": map[string]any{"returnImmediately": false},
	}}, &sent)
	if !strings.Contains(string(sent.Result), "hello by hand") || !strings.Contains(string(sent.Result), `"task"`) {
		t.Fatalf("SendMessage by hand: %s", sent.Result)
	}

	f := c.call("agents.call", map[string]any{"id": remote.ID, "method": "GetTask", "params": map[string]any{"id": "no-such-task"}})
	if f.Error == nil || f.Error.Code != "rpc_error" || f.Error.RPC == nil || f.Error.RPC.Code != -32001 {
		t.Errorf("GetTask of an unknown task: %+v", f.Error)
	}
	f = c.call("agents.call", map[string]any{"id": remote.ID, "method": "NoSuchMethod"})
	if f.Error == nil || f.Error.RPC == nil || f.Error.RPC.Code != -32601 {
		t.Errorf("an unknown method: %+v", f.Error)
	}

	// The raw log is written a moment after the call: wait for the whole exchange.
	want := []string{"SendMessage request", "SendMessage response", "GetTask request", "GetTask response", "NoSuchMethod request", "NoSuchMethod response"}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var wire struct {
			Entries []struct{ Kind, Method string }
		}
		c.result("wire.list", map[string]any{"agentId": remote.ID}, &wire)
		seen := map[string]bool{}
		for _, e := range wire.Entries {
			seen[e.Method+" "+e.Kind] = true
		}
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return seen[w] })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the raw log lacks %v: %v", missing, seen)
		}
		time.Sleep(50 * time.Millisecond)
	}

	for _, bad := range []map[string]any{
		{"method": "GetTask"},
		{"id": remote.ID},
		{"id": remote.ID, "method": "GetTask", "params": map[string]any{"blob": strings.Repeat("x", 1<<20)}},
	} {
		if f := c.call("agents.call", bad); f.Error == nil || f.Error.Code != "invalid_params" {
			t.Errorf("%v: %+v", bad["method"], f.Error)
		}
	}
	if f := c.call("agents.call", map[string]any{"id": "no-such-agent", "method": "GetTask"}); f.Error == nil || f.Error.Code != "not_found" {
		t.Errorf("an unknown agent: %+v", f.Error)
	}
}
