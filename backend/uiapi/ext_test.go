package uiapi_test

import (
	"encoding/json"
	"testing"
)

// extFrame is topic "ext"'s data.
type extFrame struct {
	Stream string          `json:"stream"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	End bool `json:"end"`
}

// extFail calls an ext method that must fail and returns the error as received.
func (c *ui) extFail(method string, params any) rpcErr {
	c.t.Helper()
	f := c.call(method, params)
	if f.Error == nil {
		c.t.Fatalf("%s %v: want an error, got %s", method, params, f.Result)
	}
	return *f.Error
}

type rpcErr = struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	RPC     *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"rpc"` // rpc_error: the extension's JSON-RPC error
}

func (c *ui) awaitExt(stream string, ok func(extFrame) bool) extFrame {
	c.t.Helper()
	var got extFrame
	c.await("ext", func(d json.RawMessage) bool {
		var f extFrame
		if err := json.Unmarshal(d, &f); err != nil || f.Stream != stream {
			return false
		}
		got = f
		return ok(f)
	})
	return got
}

// The UI reaches this hub's channels in the spec's own terms, as the owner; an extension's error
// reaches it with its JSON-RPC code; a stream carries live events until the UI closes it.
func TestExtCallsAndStreamsTheHubsChannelsAsTheOwner(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)

	var created struct {
		Channel struct {
			ID      string `json:"id"`
			Members []struct {
				PrincipalID string `json:"principalId"`
				Role        string `json:"role"`
			} `json:"members"`
		} `json:"channel"`
	}
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "design", "visibility": "private"}}, &created)
	ch := created.Channel
	if ch.ID == "" || len(ch.Members) != 1 || ch.Members[0].PrincipalID != "user://owner" || ch.Members[0].Role != "owner" {
		t.Fatalf("created %+v: want a channel owned by user://owner", ch)
	}

	// A stream opened before the publish gets the event live; the reply names the stream first.
	var opened struct {
		Stream string `json:"stream"`
	}
	c.result("ext.stream", map[string]any{"method": "channels/stream", "params": map[string]any{"channelId": ch.ID, "heartbeatIntervalMs": 60000}}, &opened)
	if opened.Stream == "" {
		t.Fatal("ext.stream named no stream")
	}
	var published struct {
		Event struct {
			Sequence int64  `json:"sequence"`
			Author   string `json:"author"`
		} `json:"event"`
	}
	c.result("ext.call", map[string]any{"method": "channels/publish", "params": map[string]any{"channelId": ch.ID,
		"parts": []any{map[string]any{"type": "text", "text": "hello"}}}}, &published)
	if published.Event.Sequence != 1 || published.Event.Author != "user://owner" {
		t.Fatalf("published %+v: want sequence 1 by user://owner", published.Event)
	}
	f := c.awaitExt(opened.Stream, func(f extFrame) bool { return len(f.Result) > 0 })
	var item struct {
		Kind  string `json:"kind"`
		Event struct {
			Sequence int64 `json:"sequence"`
		} `json:"event"`
	}
	if err := json.Unmarshal(f.Result, &item); err != nil || item.Kind != "messageEvent" || item.Event.Sequence != 1 {
		t.Fatalf("stream frame %s: want messageEvent 1", f.Result)
	}

	// Closed by the UI: a second close finds nothing to close.
	c.result("ext.close", map[string]any{"stream": opened.Stream}, nil)
	if e := c.extFail("ext.close", map[string]any{"stream": opened.Stream}); e.Code != "not_found" {
		t.Fatalf("second close: %+v, want not_found", e)
	}

	// The extension's own errors, with their codes.
	if e := c.extFail("ext.call", map[string]any{"method": "channels/get", "params": map[string]any{"channelId": "chan:nope"}}); e.Code != "rpc_error" || e.RPC == nil || e.RPC.Code != -32020 {
		t.Fatalf("unknown channel: %+v, want rpc_error -32020", e)
	}
	if e := c.extFail("ext.stream", map[string]any{"method": "channels/stream", "params": map[string]any{"channelId": "chan:nope"}}); e.Code != "rpc_error" || e.RPC == nil || e.RPC.Code != -32020 {
		t.Fatalf("stream of an unknown channel: %+v, want rpc_error -32020 before any stream", e)
	}
	if e := c.extFail("ext.call", map[string]any{"method": "channels/frobnicate"}); e.Code != "rpc_error" || e.RPC == nil || e.RPC.Code != -32601 {
		t.Fatalf("unknown extension method: %+v, want rpc_error -32601", e)
	}
	if e := c.extFail("ext.call", map[string]any{"method": "knowledge/query", "params": map[string]any{"queryLanguage": "graphql", "query": "{ search(text: \"x\") { id }"}}); e.Code != "rpc_error" || e.RPC == nil || e.RPC.Code != -32010 || len(e.RPC.Data) == 0 {
		t.Fatalf("GraphQL syntax error: %+v, want rpc_error -32010 with data", e)
	}

	// Only the extensions' families, and each method through the right door.
	for _, bad := range []map[string]any{
		{"method": "tasks/get", "params": map[string]any{"id": "x"}},
		{"method": "message/send"},
		{"method": "channels/stream", "params": map[string]any{"channelId": ch.ID}},
	} {
		if e := c.extFail("ext.call", bad); e.Code != "invalid_params" {
			t.Fatalf("ext.call %v: %+v, want invalid_params", bad, e)
		}
	}
	if e := c.extFail("ext.stream", map[string]any{"method": "channels/get", "params": map[string]any{"channelId": ch.ID}}); e.Code != "invalid_params" {
		t.Fatalf("ext.stream of a unary method: %+v, want invalid_params", e)
	}

	// The knowledge graph answers through the same door.
	var q struct {
		Data struct {
			Search []struct {
				ID string `json:"id"`
			} `json:"search"`
		} `json:"data"`
	}
	c.result("ext.call", map[string]any{"method": "knowledge/query", "params": map[string]any{"queryLanguage": "graphql",
		"query": `{ search(text: "Demo agent") { id } }`}}, &q)
	if len(q.Data.Search) == 0 || q.Data.Search[0].ID != "agenthub:agent/demo" {
		t.Fatalf("search of the sample graph: %+v", q.Data)
	}
}

// A stream's error after it opened arrives on the stream, then its end: here the owner removes
// themselves from a channel they share with another owner, which ends their stream.
func TestExtStreamEndsWithTheExtensionsError(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	if _, _, err := h.Auth.Principals.Add(t.Context(), "alice"); err != nil { // members must be principals
		t.Fatal(err)
	}
	var created struct {
		Channel struct {
			ID string `json:"id"`
		} `json:"channel"`
	}
	c.result("ext.call", map[string]any{"method": "channels/create", "params": map[string]any{"name": "shared", "visibility": "private",
		"members": []string{"agent://alice"}}}, &created)
	id := created.Channel.ID
	c.result("ext.call", map[string]any{"method": "channels/addMember", "params": map[string]any{"channelId": id, "principalId": "agent://alice", "role": "owner"}}, nil)
	var opened struct {
		Stream string `json:"stream"`
	}
	c.result("ext.stream", map[string]any{"method": "channels/stream", "params": map[string]any{"channelId": id}}, &opened)
	c.result("ext.call", map[string]any{"method": "channels/removeMember", "params": map[string]any{"channelId": id, "principalId": "user://owner"}}, nil)
	f := c.awaitExt(opened.Stream, func(f extFrame) bool { return f.Error != nil || f.End })
	if f.Error == nil {
		t.Fatalf("first frame after removal %+v: want the stream's error", f)
	}
	c.awaitExt(opened.Stream, func(f extFrame) bool { return f.End })
}
