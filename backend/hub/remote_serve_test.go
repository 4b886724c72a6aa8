//go:build unix

package hub_test

// Two `agenthub serve` processes: the owner of A browses and edits B's channels and knowledge graph
// through A's UI gateway, with the key of a principal made on B by `agenthub principals add`.

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// gatewayClient is a minimal UI: calls by id, and pushed frames of topic "ext".
type gatewayClient struct {
	t      *testing.T
	ws     *websocket.Conn
	mu     sync.Mutex
	nextID int
	wait   map[int]chan gatewayFrame
	ext    chan json.RawMessage
}

type gatewayFrame struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		RPC     *struct {
			Code int `json:"code"`
		} `json:"rpc"`
	} `json:"error"`
	Topic string          `json:"topic"`
	Data  json.RawMessage `json:"data"`
}

// dialGateway opens the UI websocket of a running `agenthub serve` with the token of the UI link it
// printed.
func dialGateway(t *testing.T, p *serveProc) *gatewayClient {
	t.Helper()
	_, token, ok := strings.Cut(p.UIURL, "/#token=")
	if !ok {
		t.Fatalf("%s printed no UI link with a token: %q", p.name, p.UIURL)
	}
	url := "ws" + strings.TrimPrefix(p.HubURL, "http") + "/ui/ws?token=" + token
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatalf("%s: dial the UI gateway: %v", p.name, err)
	}
	c := &gatewayClient{t: t, ws: ws, wait: map[int]chan gatewayFrame{}, ext: make(chan json.RawMessage, 1000)}
	go func() {
		for {
			var f gatewayFrame
			if err := ws.ReadJSON(&f); err != nil {
				return
			}
			if f.ID != nil {
				c.mu.Lock()
				ch := c.wait[*f.ID]
				c.mu.Unlock()
				ch <- f
			} else if f.Topic == "ext" {
				c.ext <- f.Data
			}
		}
	}()
	t.Cleanup(func() { ws.Close() })
	return c
}

// call makes a gateway call and returns its reply.
func (c *gatewayClient) call(method string, params any) gatewayFrame {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan gatewayFrame, 1)
	c.wait[id] = ch
	err := c.ws.WriteJSON(map[string]any{"id": id, "method": method, "params": params})
	c.mu.Unlock()
	if err != nil {
		c.t.Fatal(err)
	}
	select {
	case f := <-ch:
		return f
	case <-time.After(callDeadline):
		c.t.Fatalf("no reply to %s within %v", method, callDeadline)
		return gatewayFrame{}
	}
}

// result makes a call that must succeed and decodes its result into out.
func (c *gatewayClient) result(method string, params, out any) {
	c.t.Helper()
	f := c.call(method, params)
	if f.Error != nil {
		c.t.Fatalf("%s %v: %s: %s", method, params, f.Error.Code, f.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(f.Result, out); err != nil {
			c.t.Fatalf("%s: %v\n%s", method, err, f.Result)
		}
	}
}

// nextExt returns the next result pushed on stream.
func (c *gatewayClient) nextExt(stream string) json.RawMessage {
	c.t.Helper()
	deadline := time.After(eventDeadline)
	for {
		select {
		case d := <-c.ext:
			var f struct {
				Stream string          `json:"stream"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
				End    bool            `json:"end"`
			}
			json.Unmarshal(d, &f)
			if f.Stream != stream {
				continue
			}
			if f.Error != nil || f.End {
				c.t.Fatalf("stream %s ended: %s", stream, d)
			}
			return f.Result
		case <-deadline:
			c.t.Fatalf("no result on stream %s within %v", stream, eventDeadline)
			return nil
		}
	}
}

func TestTwoServeProcessesShareChannelsAndKnowledgeThroughTheGateway(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	key := addPrincipal(t, dirB, "alice")
	a, b := startServe(t, "hub A", dirA), startServe(t, "hub B", dirB)
	ui, bOwner := dialGateway(t, a), dialGateway(t, b)
	ext := func(agent, method string, params any) map[string]any {
		p := map[string]any{"method": method, "params": params}
		if agent != "" {
			p["agent"] = agent
		}
		return p
	}

	var added struct{ ID string }
	ui.result("agents.add", map[string]any{"url": b.HubURL}, &added)
	ui.result("agents.setCredential", map[string]any{"id": added.ID, "scheme": "apiKey", "apiKey": key}, nil)
	b2 := added.ID

	// A channel on B, made from A (alice owns it and adds B's owner); a live stream of it at A; a
	// message from A and one from B's owner.
	var created struct {
		Channel struct{ ID string } `json:"channel"`
	}
	ui.result("ext.call", ext(b2, "channels/create", map[string]any{"name": "across", "visibility": "public"}), &created)
	ch := created.Channel.ID
	var opened struct{ Stream string }
	ui.result("ext.stream", ext(b2, "channels/stream", map[string]any{"channelId": ch}), &opened)
	ui.result("ext.call", ext(b2, "channels/publish", map[string]any{"channelId": ch, "parts": []any{map[string]any{"type": "text", "text": "from A"}}}), nil)
	ui.result("ext.call", ext(b2, "channels/addMember", map[string]any{"channelId": ch, "principalId": "user://owner", "role": "member"}), nil)
	bOwner.result("ext.call", ext("", "channels/publish", map[string]any{"channelId": ch, "parts": []any{map[string]any{"type": "text", "text": "from B"}}}), nil)
	var authors []string
	for len(authors) < 2 {
		var item struct {
			Event struct{ Author string } `json:"event"`
		}
		json.Unmarshal(ui.nextExt(opened.Stream), &item)
		authors = append(authors, item.Event.Author)
	}
	if authors[0] != "agent://alice" || authors[1] != "user://owner" {
		t.Fatalf("the live events of B's channel at A: %v", authors)
	}
	var history struct {
		Events []struct {
			Parts []struct{ Text string } `json:"parts"`
		} `json:"events"`
	}
	ui.result("ext.call", ext(b2, "channels/history", map[string]any{"channelId": ch}), &history)
	if len(history.Events) != 2 || history.Events[1].Parts[0].Text != "from B" {
		t.Fatalf("B's channel history at A: %+v", history.Events)
	}
	if f := ui.call("ext.call", ext(b2, "channels/get", map[string]any{"channelId": "chan:nope"})); f.Error == nil || f.Error.RPC == nil || f.Error.RPC.Code != -32020 {
		t.Fatalf("an unknown channel on B: %+v", f.Error)
	}

	// B's graph, updated from A, as B's owner queries it on B.
	ui.result("ext.call", ext(b2, "knowledge/update", map[string]any{"justification": "from hub A", "mutations": []any{map[string]any{"op": "add",
		"statement": map[string]any{"subject": map[string]any{"id": "ex:a"}, "predicate": map[string]any{"id": "rdfs:label"}, "object": map[string]any{"value": "Hub A"}}}}}), nil)
	var q struct {
		Data struct {
			Node struct{ Label string } `json:"node"`
		} `json:"data"`
	}
	bOwner.result("ext.call", ext("", "knowledge/query", map[string]any{"query": `{ node(id: "ex:a") { label } }`}), &q)
	if q.Data.Node.Label != "Hub A" {
		t.Fatalf("B's own query after A's update: %+v", q)
	}
	ui.result("ext.call", ext(b2, "knowledge/query", map[string]any{"query": `{ node(id: "ex:a") { label } }`}), &q)
	if q.Data.Node.Label != "Hub A" {
		t.Fatalf("A's query of B's graph: %+v", q)
	}
}
