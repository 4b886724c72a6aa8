package agents

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
)

// rpcServer is a hand-written JSON-RPC agent on loopback: each method answers through its own
// function; any other method is -32601, as a server that does not speak that dialect answers.
type rpcServer struct {
	*httptest.Server
	mu      sync.Mutex
	methods map[string]func(w http.ResponseWriter, r *rpcCall)
	calls   []string
}

type rpcCall struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Header http.Header
	req    *http.Request
}

func newRPCServer(t *testing.T, methods map[string]func(w http.ResponseWriter, r *rpcCall)) *rpcServer {
	s := &rpcServer{methods: methods}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		var c rpcCall
		if err := json.NewDecoder(hr.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.Header, c.req = hr.Header, hr
		s.mu.Lock()
		s.calls = append(s.calls, c.Method)
		h, ok := s.methods[c.Method]
		s.mu.Unlock()
		if !ok {
			writeRPCError(w, c.ID, -32601, "Method not found: "+c.Method)
			return
		}
		h(w, &c)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rpcServer) called() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// card is a v0.1 draft card for the server: a bare url.
func (s *rpcServer) card() []byte {
	return []byte(`{"name":"draft agent","version":"1","url":"` + s.URL + `","capabilities":{"streaming":true}}`)
}

func writeRPCResult(w http.ResponseWriter, id json.RawMessage, result any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func writeRPCError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

// writeSSE writes a complete event stream: each item is the text of one event, without its blank line.
func writeSSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range events {
		fmt.Fprintf(w, "%s\n\n", ev)
		w.(http.Flusher).Flush()
	}
}

func rpcData(id json.RawMessage, result string) string {
	return fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func decodeParams(t *testing.T, c *rpcCall) map[string]any {
	var p map[string]any
	if err := json.Unmarshal(c.Params, &p); err != nil {
		t.Errorf("%s params: %v", c.Method, err)
	}
	return p
}

func dialDraft(t *testing.T, s *rpcServer) *Conn {
	t.Helper()
	c, err := Dial(t.Context(), s.card(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dialect() != V01 {
		t.Fatalf("dialect %s, want %s", c.Dialect(), V01)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// collect runs a Send or Subscribe to its end.
func collect(seq func(yield func(a2a.Event, error) bool)) ([]a2a.Event, error) {
	var events []a2a.Event
	for ev, err := range seq {
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
	return events, nil
}

func TestDraftSendGetAndContinue(t *testing.T) {
	fileBytes := []byte("\x00binary\xffcontent")
	var sent map[string]any
	var sessionOf = map[string]string{}
	draftTask := func(id, session, state string) map[string]any {
		return map[string]any{"id": id, "sessionId": session,
			"status": map[string]any{"state": state, "message": map[string]any{"role": "agent", "parts": []any{map[string]any{"type": "text", "text": "done"}}},
				"timestamp": "2025-04-09T10:00:00Z"},
			"history": []any{sent["message"]},
			"artifacts": []any{map[string]any{"name": "copy", "index": 0,
				"parts": []any{map[string]any{"type": "file", "file": map[string]any{"name": "f.bin", "mimeType": "application/octet-stream", "bytes": base64.StdEncoding.EncodeToString(fileBytes)}}}}},
			"metadata": map[string]any{"unknown": "fields are fine"}, "surprise": true}
	}
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/send": func(w http.ResponseWriter, c *rpcCall) {
			sent = decodeParams(t, c)
			id, _ := sent["id"].(string)
			session, _ := sent["sessionId"].(string)
			if id == "" || session == "" {
				writeRPCError(w, c.ID, -32602, "the draft client chooses id and sessionId")
				return
			}
			sessionOf[id] = session
			writeRPCResult(w, c.ID, draftTask(id, session, "completed"))
		},
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) {
			id, _ := decodeParams(t, c)["id"].(string)
			if sessionOf[id] == "" {
				writeRPCError(w, c.ID, -32001, "Task not found: "+id)
				return
			}
			writeRPCResult(w, c.ID, draftTask(id, sessionOf[id], "completed"))
		},
	})
	c := dialDraft(t, s)
	ctx := t.Context()

	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("copy this"), &a2a.Part{Content: a2a.Raw(fileBytes), Filename: "f.bin", MediaType: "application/octet-stream"})
	events, err := collect(c.Send(ctx, msg, false))
	if err != nil || len(events) != 1 {
		t.Fatalf("Send: %v %v", events, err)
	}
	wantParts := `[{"type":"text","text":"copy this","content":"copy this"},{"type":"file","file":{"name":"f.bin","mimeType":"application/octet-stream","bytes":"` + base64.StdEncoding.EncodeToString(fileBytes) + `"}}]`
	var want any
	json.Unmarshal([]byte(wantParts), &want)
	if got := sent["message"].(map[string]any); !reflect.DeepEqual(got["parts"], want) || got["role"] != "user" {
		t.Fatalf("sent message %v\nwant parts %s", sent["message"], wantParts)
	}
	task := events[0].(*a2a.Task)
	if string(task.ID) != sent["id"] || task.ContextID != sent["sessionId"] || task.Status.State != a2a.TaskStateCompleted || task.Status.Timestamp == nil {
		t.Fatalf("task %+v", task)
	}
	if m := task.Status.Message; m == nil || m.Role != a2a.MessageRoleAgent || m.Parts[0].Text() != "done" || m.TaskID != task.ID {
		t.Fatalf("status message %+v", task.Status.Message)
	}
	art := task.Artifacts[0]
	if art.Name != "copy" || art.ID == "" || !bytes.Equal(art.Parts[0].Raw(), fileBytes) || art.Parts[0].Filename != "f.bin" {
		t.Fatalf("artifact %+v", art)
	}
	if len(task.History) != 1 || task.History[0].Role != a2a.MessageRoleUser || !bytes.Equal(task.History[0].Parts[1].Raw(), fileBytes) {
		t.Fatalf("history %+v", task.History)
	}

	got, err := c.GetTask(ctx, task.ID)
	if err != nil || got.ID != task.ID || got.ContextID != task.ContextID {
		t.Fatalf("GetTask %+v %v", got, err)
	}
	if _, err := c.GetTask(ctx, "nope"); !errors.Is(err, a2a.ErrTaskNotFound) || !strings.Contains(err.Error(), "Task not found: nope") {
		t.Fatalf("GetTask unknown: %v", err)
	}

	// A turn of the same task carries its id and session.
	reply := a2a.NewMessageForTask(a2a.MessageRoleUser, task, a2a.NewTextPart("again"))
	if _, err := collect(c.Send(ctx, reply, false)); err != nil {
		t.Fatal(err)
	}
	if sent["id"] != string(task.ID) || sent["sessionId"] != task.ContextID {
		t.Fatalf("continuation sent id %v session %v", sent["id"], sent["sessionId"])
	}
}

func TestDraftStreamChunks(t *testing.T) {
	var taskID string
	var release chan struct{}
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/sendSubscribe": func(w http.ResponseWriter, c *rpcCall) {
			if c.Header.Get("Accept") != "text/event-stream" {
				t.Errorf("Accept %q", c.Header.Get("Accept"))
			}
			taskID = decodeParams(t, c)["id"].(string)
			chunk := func(text string, appendChunk, last bool) string {
				return rpcData(c.ID, fmt.Sprintf(`{"id":%q,"artifact":{"name":"echo","index":0,"append":%v,"lastChunk":%v,"parts":[{"type":"text","text":%q}]}}`, taskID, appendChunk, last, text))
			}
			writeSSE(w,
				": a comment, ignored",
				rpcData(c.ID, fmt.Sprintf(`{"id":%q,"status":{"state":"working"},"final":false}`, taskID)),
				chunk("one ", false, false), chunk("two ", true, false), chunk("three", true, true),
				rpcData(c.ID, fmt.Sprintf(`{"id":%q,"status":{"state":"completed"},"final":true}`, taskID)))
			// The stream stays open: the client must stop at the final event, not wait for the end.
			select {
			case <-c.req.Context().Done():
			case <-release:
			}
		},
	})
	release = make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before the server's Close, which waits for handlers
	c := dialDraft(t, s)
	// A client that waited for the stream to end would run into this deadline and fail.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	events, err := collect(c.Send(ctx, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("one two three")), true))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 5 {
		t.Fatalf("%d events: %v", len(events), events)
	}
	var text strings.Builder
	var artifactID a2a.ArtifactID
	for i, ev := range events[1:4] {
		a, ok := ev.(*a2a.TaskArtifactUpdateEvent)
		if !ok {
			t.Fatalf("event %d is %T", i+1, ev)
		}
		if a.Append != (i > 0) || a.LastChunk != (i == 2) || string(a.TaskID) != taskID || a.ContextID == "" {
			t.Fatalf("chunk %d: append %v lastChunk %v task %s context %q", i, a.Append, a.LastChunk, a.TaskID, a.ContextID)
		}
		if artifactID == "" {
			artifactID = a.Artifact.ID
		} else if a.Artifact.ID != artifactID {
			t.Fatalf("chunk %d has artifact id %s, the first had %s", i, a.Artifact.ID, artifactID)
		}
		text.WriteString(a.Artifact.Parts[0].Text())
	}
	if text.String() != "one two three" {
		t.Fatalf("chunks %q", text.String())
	}
	first, last := events[0].(*a2a.TaskStatusUpdateEvent), events[4].(*a2a.TaskStatusUpdateEvent)
	if first.Status.State != a2a.TaskStateWorking || last.Status.State != a2a.TaskStateCompleted || first.ContextID != last.ContextID {
		t.Fatalf("statuses %+v %+v", first, last)
	}
}

func TestDraftReadsTolerantly(t *testing.T) {
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"t1","sessionId":"s1","status":{"state":"paused-for-lunch"},
				"history":[{"role":"user","data":[{"type":"text","text":"the overview calls parts data"}]},
				           {"role":"agent","parts":[{"type":"hologram","beam":1},{"text":"untyped"},{"type":"data","data":{"k":1}},
				                                     {"type":"file","url":"https://x.example/f.png","mediaType":"image/png","filename":"f.png"}]}]}}`, c.ID)
		},
	})
	c := dialDraft(t, s)
	task, err := c.GetTask(t.Context(), "t1")
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.TaskStateUnspecified || task.ContextID != "s1" {
		t.Fatalf("task %+v", task)
	}
	if p := task.History[0].Parts; len(p) != 1 || p[0].Text() != "the overview calls parts data" {
		t.Fatalf("history[0] parts %+v", p)
	}
	p := task.History[1].Parts
	if len(p) != 3 || p[0].Text() != "untyped" || p[1].Data().(map[string]any)["k"] != 1.0 || p[2].URL() != "https://x.example/f.png" || p[2].MediaType != "image/png" {
		t.Fatalf("history[1] parts %+v", p)
	}
}

func TestDraftErrors(t *testing.T) {
	huge := strings.Repeat("x", jsonrpc.MaxJSONBody)
	s := newRPCServer(t, map[string]func(http.ResponseWriter, *rpcCall){
		"tasks/get": func(w http.ResponseWriter, c *rpcCall) {
			switch id := decodeParams(t, c)["id"]; id {
			case "huge":
				writeRPCResult(w, c.ID, map[string]any{"id": "huge", "status": map[string]any{"state": "working"}, "metadata": map[string]any{"pad": huge}})
			case "401":
				w.WriteHeader(http.StatusUnauthorized)
			case "500-rpc":
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"database is down"}}`, c.ID)
			case "not-json":
				fmt.Fprint(w, "<html>hello</html>")
			case "odd-code":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":"-32099","message":"custom trouble","data":{"hint":"wait"}}}`, c.ID)
			case "no-result":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s}`, c.ID)
			case "wrong-types":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"x","history":"many"}}`, c.ID)
			case "bad-base64":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"id":"x","artifacts":[{"parts":[{"type":"file","file":{"bytes":"!!!"}}]}]}}`, c.ID)
			}
		},
	})
	c := dialDraft(t, s)
	for id, check := range map[a2a.TaskID]func(error) bool{
		"huge": func(err error) bool { return errors.Is(err, jsonrpc.ErrBodyTooLarge) },
		"401":  func(err error) bool { return errors.Is(err, a2a.ErrUnauthenticated) },
		"500-rpc": func(err error) bool {
			return errors.Is(err, a2a.ErrInternalError) && strings.Contains(err.Error(), "database is down")
		},
		"not-json": func(err error) bool { return errors.Is(err, a2a.ErrInvalidAgentResponse) },
		"odd-code": func(err error) bool {
			return strings.Contains(err.Error(), "-32099") && strings.Contains(err.Error(), "custom trouble")
		},
		"no-result":   func(err error) bool { return errors.Is(err, a2a.ErrInvalidAgentResponse) },
		"wrong-types": func(err error) bool { return errors.Is(err, a2a.ErrInvalidAgentResponse) },
		"bad-base64":  func(err error) bool { return errors.Is(err, a2a.ErrInvalidAgentResponse) },
	} {
		task, err := c.GetTask(t.Context(), id)
		if err == nil || !check(err) {
			t.Errorf("GetTask(%s) = %+v, %v", id, task, err)
		}
	}
}
