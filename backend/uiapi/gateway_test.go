package uiapi_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/gorilla/websocket"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

func startHub(t *testing.T) *hub.Hub {
	t.Helper()
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0", DemoAddr: "127.0.0.1:0",
		Version: "test", Logger: slog.New(slog.DiscardHandler), UIOrigins: []string{"wails://wails"}, Secrets: "file"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	return h
}

// ui is a test client of the gateway that keeps pushed frames apart from replies.
type ui struct {
	t      *testing.T
	ws     *websocket.Conn
	nextID int

	mu      sync.Mutex
	replies map[int]chan frame
	pushes  chan frame
	backlog []frame // pushed frames read but not yet awaited
}

type frame struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcErr         `json:"error"`
	Topic  string          `json:"topic"`
	Data   json.RawMessage `json:"data"`
}

func dial(t *testing.T, h *hub.Hub) *ui {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(h.WSURL()+"?token="+h.UIToken(), nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	c := &ui{t: t, ws: ws, replies: map[int]chan frame{}, pushes: make(chan frame, 10000)}
	go func() {
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				close(c.pushes)
				return
			}
			var f frame
			if err := json.Unmarshal(data, &f); err != nil {
				t.Errorf("unreadable frame %s", data)
				continue
			}
			if f.ID != nil {
				c.mu.Lock()
				ch := c.replies[*f.ID]
				c.mu.Unlock()
				ch <- f
				continue
			}
			c.pushes <- f
		}
	}()
	t.Cleanup(func() { ws.Close() })
	return c
}

// call sends a request and returns its reply frame.
func (c *ui) call(method string, params any) frame {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan frame, 1)
	c.replies[id] = ch
	c.mu.Unlock()
	if err := c.ws.WriteJSON(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		c.t.Fatal(err)
	}
	select {
	case f := <-ch:
		return f
	case <-time.After(10 * time.Second):
		c.t.Fatalf("no reply to %s", method)
	}
	return frame{}
}

// result calls and decodes a successful result into out.
func (c *ui) result(method string, params, out any) {
	c.t.Helper()
	f := c.call(method, params)
	if f.Error != nil {
		c.t.Fatalf("%s: %s: %s", method, f.Error.Code, f.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(f.Result, out); err != nil {
			c.t.Fatalf("%s result %s: %v", method, f.Result, err)
		}
	}
}

// await returns the first pushed frame on topic that satisfies ok; frames of other topics stay for
// later awaits.
func (c *ui) await(topic string, ok func(json.RawMessage) bool) json.RawMessage {
	c.t.Helper()
	for i, f := range c.backlog {
		if f.Topic == topic && ok(f.Data) {
			c.backlog = append(c.backlog[:i:i], c.backlog[i+1:]...)
			return f.Data
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case f, open := <-c.pushes:
			if !open {
				c.t.Fatalf("connection closed waiting for %s", topic)
			}
			if f.Topic == topic && ok(f.Data) {
				return f.Data
			}
			if f.Topic != topic {
				c.backlog = append(c.backlog, f)
			}
		case <-deadline:
			c.t.Fatalf("no %s event", topic)
		}
	}
}

// startTask sends m with returnImmediately and returns the task it started.
func startTask(t *testing.T, to *a2aclient.Client, m *a2a.Message) *a2a.Task {
	t.Helper()
	res, err := to.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: m, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	return res.(*a2a.Task)
}

func client(t *testing.T, base string) *a2aclient.Client {
	t.Helper()
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := a2aclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGatewayRefusesWrongTokenForeignOriginAndForeignHost(t *testing.T) {
	h := startHub(t)
	cases := []struct {
		name   string
		query  string
		header http.Header
		want   int
	}{
		{"no token", "", nil, http.StatusUnauthorized},
		{"wrong token", "?token=" + strings.Repeat("x", len(h.UIToken())), nil, http.StatusUnauthorized},
		{"token with a suffix", "?token=" + h.UIToken() + "x", nil, http.StatusUnauthorized},
		{"foreign origin", "?token=" + h.UIToken(), http.Header{"Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"same port other host origin", "?token=" + h.UIToken(), http.Header{"Origin": {"http://localhost.evil.example" + strings.TrimPrefix(h.Agent.BaseURL, "http://127.0.0.1")}}, http.StatusForbidden},
		{"rebound host", "?token=" + h.UIToken(), http.Header{"Host": {"attacker.example" + strings.TrimPrefix(h.Agent.BaseURL, "http://127.0.0.1")}}, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := websocket.Dialer{}
			hdr := tc.header
			if host := hdr.Get("Host"); host != "" {
				// gorilla takes the Host from the URL; dial the loopback address with a foreign Host header.
				d.NetDial = nil
				req, _ := http.NewRequest("GET", h.Agent.BaseURL+"/ui/ws"+tc.query, nil)
				req.Host = host
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
				req.Header.Set("Sec-WebSocket-Version", "13")
				req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tc.want {
					t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
				}
				return
			}
			ws, resp, err := d.Dial(h.WSURL()+tc.query, hdr)
			if err == nil {
				ws.Close()
				t.Fatal("the connection was accepted")
			}
			if resp == nil || resp.StatusCode != tc.want {
				t.Fatalf("got %v, want HTTP %d", resp, tc.want)
			}
		})
	}
	// The hub's own origin and the desktop webview's origin are let in.
	for _, origin := range []string{h.Agent.BaseURL, "wails://wails"} {
		ws, _, err := websocket.DefaultDialer.Dial(h.WSURL()+"?token="+h.UIToken(), http.Header{"Origin": {origin}})
		if err != nil {
			t.Fatalf("origin %s refused: %v", origin, err)
		}
		ws.Close()
	}
}

func TestAgentsListShowsHubAndDemoWithSkillsAndNoProblems(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	hello := c.await("hello", func(json.RawMessage) bool { return true })
	if !strings.Contains(string(hello), `"version":"test"`) {
		t.Fatalf("hello: %s", hello)
	}
	var got struct {
		Agents []struct {
			ID, Name, Kind, URL string
			ProtocolVersions    []string
			Card                struct{ Skills []struct{ ID string } }
			Problems            []any
		}
	}
	c.result("agents.list", nil, &got)
	if len(got.Agents) != 2 || got.Agents[0].ID != "hub" || got.Agents[1].ID != "demo" {
		t.Fatalf("agents: %+v", got.Agents)
	}
	if got.Agents[0].URL != h.Agent.BaseURL || got.Agents[0].Card.Skills[0].ID != "inbox" {
		t.Fatalf("hub: %+v", got.Agents[0])
	}
	if len(got.Agents[1].Card.Skills) != 7 { // slow, ask, file, data, plan (A2UI v0.9), plan-v08, echo
		t.Fatalf("demo skills: %+v", got.Agents[1].Card.Skills)
	}
	for _, a := range got.Agents {
		if len(a.Problems) != 0 {
			t.Errorf("%s card problems: %v", a.ID, a.Problems)
		}
		if strings.Join(a.ProtocolVersions, ",") != "1.0,0.3,0.1" {
			t.Errorf("%s versions %v", a.ID, a.ProtocolVersions)
		}
	}
}

func TestInboxRoundTripFromAnA2AClientToTheOwnerAndBack(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	c.await("hello", func(json.RawMessage) bool { return true })

	// A remote agent streams a message to the hub's inbox.
	sender := client(t, h.Agent.BaseURL)
	answers := make(chan a2a.Event, 16)
	go func() {
		defer close(answers)
		for ev, err := range sender.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{
			Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("May I deploy v2.3?"))}) {
			if err != nil {
				return
			}
			answers <- ev
		}
	}()
	var id string
	c.await("task", func(d json.RawMessage) bool {
		var up struct {
			Agent, TaskID string
			Summary       struct {
				Title, State    string
				WaitingForOwner bool
			}
		}
		json.Unmarshal(d, &up)
		id = up.TaskID
		return up.Agent == "hub" && up.Summary.Title == "May I deploy v2.3?" && up.Summary.State == "working" && up.Summary.WaitingForOwner
	})
	c.await("inbox", func(d json.RawMessage) bool { return string(d) == `{"unread":1,"waiting":1}` })

	var list struct {
		Tasks []struct {
			ID     string
			Unread bool
		}
		Unread int
	}
	c.result("inbox.list", nil, &list)
	if list.Unread != 1 || len(list.Tasks) != 1 || list.Tasks[0].ID != id || !list.Tasks[0].Unread {
		t.Fatalf("inbox: %+v", list)
	}
	var read struct{ Unread int }
	c.result("inbox.markRead", map[string]any{"id": id}, &read)
	if read.Unread != 0 {
		t.Fatalf("still unread: %+v", read)
	}
	c.await("inbox", func(d json.RawMessage) bool { return string(d) == `{"unread":0,"waiting":1}` })

	// The owner answers with text and a file; the sender sees it live, and so does the UI.
	c.result("inbox.act", map[string]any{"id": id, "action": "answer", "text": "Yes, go ahead.",
		"files": []map[string]any{{"name": "notes.txt", "mediaType": "text/plain", "bytes": []byte("checklist")}}}, nil)
	c.await("task", func(d json.RawMessage) bool {
		return strings.Contains(string(d), `"kind":"artifact"`) && strings.Contains(string(d), "Yes, go ahead.")
	})
	got := <-answers
	for ; got != nil; got = <-answers {
		if a, ok := got.(*a2a.TaskArtifactUpdateEvent); ok {
			if len(a.Artifact.Parts) != 2 || a.Artifact.Parts[0].Text() != "Yes, go ahead." || string(a.Artifact.Parts[1].Raw()) != "checklist" || a.Artifact.Parts[1].Filename != "notes.txt" {
				t.Fatalf("the sender got %+v", a.Artifact)
			}
			break
		}
	}
	if got == nil {
		t.Fatal("the sender never saw the answer")
	}

	// Acting on a task that has ended is a conflict; the stored task is unchanged by it.
	var done struct{ State string }
	c.result("inbox.act", map[string]any{"id": id, "action": "complete"}, &done)
	if done.State != "completed" {
		t.Fatalf("after complete: %+v", done)
	}
	if f := c.call("inbox.act", map[string]any{"id": id, "action": "answer", "text": "late"}); f.Error == nil || f.Error.Code != "conflict" {
		t.Fatalf("acting on an ended task: %+v", f)
	}
	var detail struct {
		Summary struct{ State string }
		History []struct {
			Role  string
			Parts []struct{ Kind, Text string }
		}
		Artifacts []struct {
			Parts []struct{ Kind, Name, Text string }
		}
		Events []struct {
			Seq         int64
			Kind, State string
			At          string
		}
	}
	c.result("tasks.get", map[string]any{"agent": "hub", "id": id}, &detail)
	if detail.Summary.State != "completed" || len(detail.Artifacts) != 1 || detail.Artifacts[0].Parts[1].Name != "notes.txt" {
		t.Fatalf("detail: %+v", detail)
	}
	last := detail.Events[len(detail.Events)-1]
	if last.Kind != "status" || last.State != "completed" || last.Seq != int64(len(detail.Events)) {
		t.Fatalf("events: %+v", detail.Events)
	}
	for _, e := range detail.Events {
		if _, err := time.Parse(time.RFC3339Nano, e.At); err != nil {
			t.Fatalf("event time %q: %v", e.At, err)
		}
	}
	var more struct{ Events []struct{ Seq int64 } }
	c.result("tasks.events", map[string]any{"agent": "hub", "id": id, "after": last.Seq - 1}, &more)
	if len(more.Events) != 1 || more.Events[0].Seq != last.Seq {
		t.Fatalf("events after %d: %+v", last.Seq-1, more)
	}
}

func TestTasksListPagesNewestFirstAcrossAgents(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var want []string // newest first
	for i := range 7 {
		store := h.Agent.Tasks
		if i%2 == 1 {
			store = h.Demo.Tasks
		}
		task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: a2a.NewContextID(), Status: a2a.TaskStatus{State: a2a.TaskStateCompleted},
			History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(fmt.Sprintf("task %d", i)))}}
		if _, err := store.Create(t.Context(), task); err != nil {
			t.Fatal(err)
		}
		want = append([]string{fmt.Sprintf("task %d", i)}, want...)
	}
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		var page struct {
			Tasks []struct{ Title, Agent string }
			Next  string
		}
		c.result("tasks.list", map[string]any{"limit": 3, "cursor": cursor}, &page)
		for _, s := range page.Tasks {
			got = append(got, s.Title)
		}
		if page.Next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		cursor = page.Next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	var demoOnly struct{ Tasks []struct{ Agent string } }
	c.result("tasks.list", map[string]any{"agent": "demo", "state": "completed"}, &demoOnly)
	if len(demoOnly.Tasks) != 3 {
		t.Fatalf("demo tasks: %+v", demoOnly)
	}
	c.result("tasks.list", map[string]any{"state": "working"}, &demoOnly)
	if len(demoOnly.Tasks) != 0 {
		t.Fatalf("working tasks: %+v", demoOnly)
	}
}

func TestBadCallsGetClearErrors(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	cases := []struct {
		method string
		params any
		code   string
	}{
		{"no.such.method", nil, "unknown_method"},
		{"tasks.get", map[string]any{"agent": "hub", "id": "nope"}, "not_found"},
		{"tasks.get", map[string]any{"agent": "mars", "id": "x"}, "not_found"},
		{"tasks.get", map[string]any{"agent": "hub", "id": 42}, "invalid_params"},
		{"tasks.get", "a string", "invalid_params"},
		{"tasks.list", map[string]any{"limit": 100000}, "invalid_params"},
		{"tasks.list", map[string]any{"state": "sleeping"}, "invalid_params"},
		{"tasks.list", map[string]any{"cursor": "%%%"}, "invalid_params"},
		{"tasks.list", map[string]any{"unknownField": true}, "invalid_params"},
		{"inbox.act", map[string]any{"id": "nope", "action": "answer", "text": "x"}, "not_found"},
		{"inbox.act", map[string]any{"id": "nope", "action": "dance"}, "invalid_params"},
		{"inbox.act", map[string]any{"id": "x", "action": "answer", "files": "not a list"}, "invalid_params"},
		{"inbox.markRead", map[string]any{"id": "nope"}, "not_found"},
	}
	for _, tc := range cases {
		f := c.call(tc.method, tc.params)
		if f.Error == nil || f.Error.Code != tc.code || f.Error.Message == "" {
			t.Errorf("%s %v: got %+v, want %s", tc.method, tc.params, f.Error, tc.code)
		}
	}
	// Frames that are not requests are answered, and the connection stays usable.
	for _, raw := range []string{"not json", `{"method":"hub.info"}`, `[1,2]`, `{"id":1}`} {
		if err := c.ws.WriteMessage(websocket.TextMessage, []byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	var info struct{ Version string }
	c.result("hub.info", nil, &info)
	if info.Version != "test" {
		t.Fatalf("hub.info after junk: %+v", info)
	}
}

// A UI client that stops reading must not slow the hub down: the hub keeps storing tasks, other UI
// clients keep being answered, and the slow client is told it lagged when it reads again.
func TestSlowUIClientNeverBlocksTheHub(t *testing.T) {
	h := startHub(t)
	slow, _, err := websocket.DefaultDialer.Dial(h.WSURL()+"?token="+h.UIToken(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	// A burst of events about one large task, as its store publishes them: each pushed frame carries
	// the task whole, so 1000 of them are far more than the connection's queue and socket buffers hold.
	task := &a2a.Task{ID: a2a.NewTaskID(), ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		History: []*a2a.Message{a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(strings.Repeat("x", 64<<10)))}}
	if _, err := h.Demo.Tasks.Create(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	for i := range n {
		h.Bus.Publish(bus.Event{Topic: tasks.Topic, Source: hub.DemoID, Key: string(task.ID), Seq: int64(i + 2),
			Data: &tasks.Logged{TaskID: task.ID, Seq: int64(i + 2), Kind: "task", Event: task}})
	}
	// The hub still stores and answers.
	if _, err := h.Demo.Tasks.Create(t.Context(), &a2a.Task{ID: a2a.NewTaskID(), ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}); err != nil {
		t.Fatal(err)
	}
	// Another UI client is served meanwhile.
	fast := dial(t, h)
	var info struct{ Version string }
	fast.result("hub.info", nil, &info)

	lagged := false
	seen := 0
	slow.SetReadDeadline(time.Now().Add(10 * time.Second))
	for seen < n+2 {
		_, data, err := slow.ReadMessage()
		if err != nil {
			break
		}
		var f frame
		json.Unmarshal(data, &f)
		if f.Topic == "lagged" {
			lagged = true
			break
		}
		seen++
	}
	if !lagged {
		t.Fatalf("the slow client read %d frames and was never told it lagged", seen)
	}
}

func TestAgentsAddedByURLAreListedRefreshedAndRemoved(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	type info struct {
		ID, Name, Kind, CardURL, LastError string
		Online                             bool
		ProtocolVersions                   []string
		Problems                           []any
	}
	var added info
	other := otherDemo(t)
	c.result("agents.add", map[string]any{"url": other}, &added)
	if added.Kind != "remote" || added.Name != "AgentHub demo agent" || !added.Online || added.CardURL != other+"/.well-known/agent-card.json" ||
		len(added.Problems) != 0 || strings.Join(added.ProtocolVersions, ",") != "1.0,0.3" {
		t.Fatalf("added: %+v", added)
	}
	c.await("agents", func(d json.RawMessage) bool { return strings.Contains(string(d), added.ID) })
	var list struct{ Agents []info }
	c.result("agents.list", nil, &list)
	if len(list.Agents) != 3 || list.Agents[2].ID != added.ID {
		t.Fatalf("list: %+v", list)
	}
	var refreshed info
	c.result("agents.refresh", map[string]any{"id": added.ID}, &refreshed)
	if !refreshed.Online || refreshed.LastError != "" {
		t.Fatalf("refreshed: %+v", refreshed)
	}
	for _, bad := range []struct {
		method string
		params any
		code   string
	}{
		{"agents.add", map[string]any{"url": "ftp://example.com"}, "invalid_params"},
		{"agents.add", map[string]any{"url": h.Agent.BaseURL + "/nothing-here/"}, "not_found"},
		{"agents.refresh", map[string]any{"id": "nope"}, "not_found"},
		{"agents.remove", map[string]any{"id": "nope"}, "not_found"},
		{"agents.get", map[string]any{"id": "nope"}, "not_found"},
	} {
		if f := c.call(bad.method, bad.params); f.Error == nil || f.Error.Code != bad.code {
			t.Errorf("%s %v: %+v, want %s", bad.method, bad.params, f.Error, bad.code)
		}
	}
	c.result("agents.remove", map[string]any{"id": added.ID}, nil)
	c.result("agents.list", nil, &list)
	if len(list.Agents) != 2 {
		t.Fatalf("after remove: %+v", list)
	}
}

// otherDemo runs a demo agent of its own, outside the hub: a remote agent to add by URL.
func otherDemo(t *testing.T) string {
	t.Helper()
	a, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: "127.0.0.1:0", Version: "test", Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a.BaseURL
}

// The hub and its demo agent are chat-ready out of the box, each listed once: adding the demo
// agent's URL by hand finds it, and a conversation with either goes over A2A like any other.
func TestLocalAgentsAreChatReadyAndListedOnce(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	type info struct {
		ID, Kind string
		CanChat  bool
	}
	var list struct{ Agents []info }
	c.result("agents.list", nil, &list)
	if len(list.Agents) != 2 || list.Agents[0] != (info{"hub", "hub", true}) || list.Agents[1] != (info{"demo", "local", true}) {
		t.Fatalf("agents: %+v", list.Agents)
	}
	var added info
	c.result("agents.add", map[string]any{"url": h.Demo.BaseURL}, &added)
	if added != (info{"demo", "local", true}) {
		t.Fatalf("adding the demo agent's URL: %+v", added)
	}
	c.result("agents.list", nil, &list)
	if len(list.Agents) != 2 {
		t.Fatalf("after adding the demo agent's URL: %+v", list.Agents)
	}
	if f := c.call("agents.remove", map[string]any{"id": "demo"}); f.Error == nil || f.Error.Code != "conflict" {
		t.Fatalf("removing the demo agent: %+v", f.Error)
	}

	for _, agent := range []struct{ id, text, state string }{
		{"demo", "hello demo", "completed"},
		{"hub", "a note to myself", "working"}, // in the owner's inbox until they act on it
	} {
		var conv conversation
		c.result("chats.start", map[string]any{"agentId": agent.id}, &conv)
		c.result("chats.send", map[string]any{"id": conv.ID, "text": agent.text}, nil)
		c.await("chat", func(data json.RawMessage) bool {
			var up chatUpdate
			json.Unmarshal(data, &up)
			return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.Direction == "in" && up.Entry.State == agent.state
		})
	}
	var inbox struct {
		Tasks []struct{ Title string }
	}
	c.result("inbox.list", nil, &inbox)
	if len(inbox.Tasks) != 1 || inbox.Tasks[0].Title != "a note to myself" {
		t.Fatalf("inbox: %+v", inbox)
	}
}

// The UI token is kept (owner-only in the data dir on SQLite, in the database on PostgreSQL), so a
// restart keeps open tabs and printed links working; Regenerate replaces it, keeps the caller's
// connection, and ends every other one, whose token is refused from then on, also after the next
// restart.
func TestUITokenSurvivesARestartUntilRegenerated(t *testing.T) {
	dir := t.TempDir()
	start := func() *hub.Hub {
		h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: dir, Addr: "127.0.0.1:0", DemoAddr: "127.0.0.1:0", NoDemo: true,
			Version: "test", Logger: slog.New(slog.DiscardHandler), Secrets: "file"}))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := start()
	first := h.UIToken()
	if !storetest.Postgres() {
		fi, err := os.Stat(hub.UITokenPath(dir))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("the token file: %v, %v", fi, err)
		}
	}
	h.Stop()
	h = start()
	t.Cleanup(func() { h.Stop() })
	if h.UIToken() != first {
		t.Fatal("a restart changed the UI token")
	}
	var info struct{ UIURL string }
	me, other := dial(t, h), dial(t, h)
	me.result("hub.info", nil, &info)
	if info.UIURL != h.Agent.BaseURL+"/#token="+first {
		t.Fatalf("uiUrl %q", info.UIURL)
	}

	var regen struct{ Token, UIURL string }
	me.result("ui.regenerateToken", nil, &regen)
	if regen.Token == first || regen.Token != h.UIToken() || regen.UIURL != h.Agent.BaseURL+"/#token="+regen.Token {
		t.Fatalf("regenerated: %+v (was %s)", regen, first)
	}
	for ended := false; !ended; { // the other connection is ended
		select {
		case _, open := <-other.pushes:
			ended = !open
		case <-time.After(10 * time.Second):
			t.Fatal("the other connection is still open")
		}
	}
	me.result("hub.info", nil, &info) // the caller's goes on
	if _, resp, err := websocket.DefaultDialer.Dial(h.WSURL()+"?token="+first, nil); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the old token: %v %v", resp, err)
	}
	h.Stop()
	if storetest.Postgres() {
		h = start()
		defer h.Stop()
		if h.UIToken() != regen.Token {
			t.Fatal("the regenerated token was not kept")
		}
		return // no file on PostgreSQL: the rest is about the file's mode
	}
	if b, _ := os.ReadFile(hub.UITokenPath(dir)); strings.TrimSpace(string(b)) != regen.Token {
		t.Fatal("the regenerated token was not kept")
	}

	// A token file others may read is not trusted: a new token replaces it.
	if err := os.Chmod(hub.UITokenPath(dir), 0o644); err != nil {
		t.Fatal(err)
	}
	h = start()
	if h.UIToken() == regen.Token {
		t.Fatal("a world-readable token file was trusted")
	}
	if fi, _ := os.Stat(hub.UITokenPath(dir)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new token file's mode: %v", fi.Mode())
	}
}

// Two replicas of a team hub on one PostgreSQL database accept the same UI token, so the link either
// printed opens the UI on both. Regenerating it on A ends the connections opened with the old
// token on B too, and B refuses the old token and accepts the new one from then on.
func TestReplicasShareTheUITokenAndItsRegeneration(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	database, key := storetest.Target(t, ""), hubtest.KeyFile(t, "")
	start := func() *hub.Hub {
		h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), Database: database, SecretsKeyFile: key,
			Addr: "127.0.0.1:0", NoDemo: true, Version: "test", Logger: slog.New(slog.DiscardHandler)}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Stop() })
		return h
	}
	a, b := start(), start()
	old := a.UIToken()
	if b.UIToken() != old || !strings.HasSuffix(b.UIURL(), "/#token="+old) {
		t.Fatalf("the replicas' UI links: %s and %s", a.UIURL(), b.UIURL())
	}
	onA, onB := dial(t, a), dial(t, b)
	var regen struct{ Token string }
	onA.result("ui.regenerateToken", nil, &regen)
	refused := func(h *hub.Hub, token string) bool {
		ws, resp, err := websocket.DefaultDialer.Dial(h.WSURL()+"?token="+token, nil)
		if err == nil {
			ws.Close()
			return false
		}
		if resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("dial with token: %v %v", resp, err)
		}
		return true
	}
	// B checks each connection against the database: no waiting for the note.
	if !refused(b, old) {
		t.Fatal("B still accepts the token regenerated away on A")
	}
	if refused(b, regen.Token) || refused(a, regen.Token) {
		t.Fatal("the regenerated token is refused")
	}
	for ended := false; !ended; { // B's connection opened with the old token is ended (the note)
		select {
		case _, open := <-onB.pushes:
			ended = !open
		case <-time.After(20 * time.Second): // a hang guard only
			t.Fatal("B's connection with the old token is still open")
		}
	}
	onA.result("hub.info", nil, nil) // the caller's goes on
	if b.UIToken() != regen.Token {  // B took the token with the note that ended onB
		t.Fatalf("B's UI link still has the old token: %s", b.UIURL())
	}
}

// After the owner answers, the task stays open (working) but is the sender's turn: not waiting for
// the owner, not counted, until the sender writes again. The sender is named.
func TestAnInboxTaskTheOwnerAnsweredWaitsForTheSender(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	sender := client(t, h.Agent.BaseURL)
	task := startTask(t, sender, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Lunch at noon?")))
	type item struct {
		ID, State, Sender       string
		Unread, WaitingForOwner bool
	}
	inboxItem := func() (item, int) {
		var list struct {
			Tasks  []item
			Unread int
		}
		c.result("inbox.list", nil, &list)
		if len(list.Tasks) != 1 {
			t.Fatalf("inbox: %+v", list)
		}
		return list.Tasks[0], list.Unread
	}
	c.await("task", func(d json.RawMessage) bool { return strings.Contains(string(d), `"state":"working"`) })
	if it, unread := inboxItem(); it != (item{string(task.ID), "working", "Anonymous (this computer)", true, true}) || unread != 1 {
		t.Fatalf("before the answer: %+v, %d unread", it, unread)
	}

	var acted struct {
		State           string
		WaitingForOwner bool
	}
	c.result("inbox.act", map[string]any{"id": task.ID, "action": "answer", "text": "Yes!"}, &acted)
	if acted.State != "working" || acted.WaitingForOwner {
		t.Fatalf("inbox.act answer returned %+v", acted)
	}
	c.await("inbox", func(d json.RawMessage) bool { return string(d) == `{"unread":0,"waiting":0}` })
	if it, unread := inboxItem(); it.WaitingForOwner || it.Unread || it.State != "working" || unread != 0 {
		t.Fatalf("after the answer: %+v, %d unread", it, unread)
	}
	var listed struct{ Tasks []item }
	c.result("tasks.list", map[string]any{"agent": "hub"}, &listed)
	if len(listed.Tasks) != 1 || listed.Tasks[0].WaitingForOwner {
		t.Fatalf("tasks.list after the answer: %+v", listed.Tasks)
	}

	// The sender writes again in the task: the owner's turn again.
	more := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Great, where?"))
	more.TaskID, more.ContextID = task.ID, task.ContextID
	if _, err := sender.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: more, Config: &a2a.SendMessageConfig{ReturnImmediately: true}}); err != nil {
		t.Fatal(err)
	}
	c.await("inbox", func(d json.RawMessage) bool { return string(d) == `{"unread":1,"waiting":1}` })
	if it, _ := inboxItem(); !it.WaitingForOwner || !it.Unread {
		t.Fatalf("after the sender's follow-up: %+v", it)
	}
}

// A connection opened after the counts last changed is still told when they change to what a fresh
// connection would have taken for "nothing pushed yet" (0 waiting, 0 unread): its UI read the old
// counts from inbox.list, and would show them for ever (issue 29 item 11).
func TestInboxCountsReachAConnectionOpenedAfterTheyLastChanged(t *testing.T) {
	h := startHub(t)
	first := dial(t, h)
	sender := client(t, h.Agent.BaseURL)
	task := startTask(t, sender, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("Lunch at noon?")))
	first.await("task", func(d json.RawMessage) bool { return strings.Contains(string(d), `"state":"working"`) })
	first.result("inbox.markRead", map[string]any{"id": task.ID}, nil)
	first.await("inbox", func(d json.RawMessage) bool { return string(d) == `{"unread":0,"waiting":1}` })

	later := dial(t, h)
	var list struct{ Unread int }
	later.result("inbox.list", nil, &list)
	if _, err := sender.CancelTask(t.Context(), &a2a.CancelTaskRequest{ID: task.ID}); err != nil {
		t.Fatal(err)
	}
	later.await("inbox", func(d json.RawMessage) bool { return string(d) == `{"unread":0,"waiting":0}` })
}

// A hub that had the demo agent's URL added by hand (before the demo agent was pinned) keeps one
// row for it once it runs the demo there itself, and the conversations follow it.
func TestAHandAddedDemoAgentBecomesThePinnedOne(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	demoAddr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	cfg := hubtest.Storage(t, hub.Config{DataDir: dir, Addr: "127.0.0.1:0", DemoAddr: demoAddr, Version: "test", Logger: slog.New(slog.DiscardHandler), Secrets: "file"})

	standalone, err := hub.StartDemo(t.Context(), hubtest.Storage(t, hub.Config{DataDir: t.TempDir(), DemoAddr: demoAddr, Version: "test", Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	first := cfg
	first.NoDemo = true
	h, err := hub.Start(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, h)
	var added struct{ ID string }
	c.result("agents.add", map[string]any{"url": standalone.BaseURL}, &added)
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": added.ID}, &conv)
	h.Stop()
	standalone.Stop()

	h, err = hub.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	c = dial(t, h)
	var list struct{ Agents []struct{ ID string } }
	c.result("agents.list", nil, &list)
	if len(list.Agents) != 2 {
		t.Fatalf("agents: %+v", list.Agents)
	}
	var got conversation
	c.result("chats.get", map[string]any{"id": conv.ID}, &struct{ Conversation *conversation }{&got})
	if got.AgentID != "demo" || got.AgentName != "AgentHub demo agent" {
		t.Fatalf("the conversation after the demo agent was pinned: %+v", got)
	}
}
