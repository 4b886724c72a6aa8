package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// send makes one request as a browser or an attacker would shape it: its own Host, Origin and
// Content-Type headers ("" leaves a header out).
func send(t *testing.T, method, url, host, origin, contentType, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// wantRPCError checks an HTTP status and a JSON-RPC error body with the given code.
func wantRPCError(t *testing.T, resp *http.Response, body []byte, status, code int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("HTTP %d, want %d; body %s", resp.StatusCode, status, body)
	}
	var r rpcResp
	if err := json.Unmarshal(body, &r); err != nil || r.Error == nil || r.Error.Code != code || r.JSONRPC != "2.0" {
		t.Fatalf("body %s, want a JSON-RPC error %d", body, code)
	}
}

// sendText creates a task through the demo agent and returns its id.
func sendText(t *testing.T, a *testAgent, text string) string {
	t.Helper()
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"`+text+`","role":"ROLE_USER","parts":[{"text":"`+text+`"}]}}}`), &res)
	if res.Task.ID == "" {
		t.Fatal("no task")
	}
	return res.Task.ID
}

func taskCount(t *testing.T, a *testAgent) int {
	t.Helper()
	var res struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	mustResult(t, call(t, a.URL, `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`), &res)
	return len(res.Tasks)
}

const listTasks = `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`

// A page on a name the attacker controls that resolves to 127.0.0.1 (DNS rebinding) is same-origin
// to the browser: the Host header is all that tells it apart, on every route.
func TestReboundHostIsRefusedOnEveryRoute(t *testing.T) {
	a := startDemo(t)
	id := sendText(t, a, "private reply")
	port := a.Base[strings.LastIndex(a.Base, ":")+1:]
	rebound := "rebind.attacker.example:" + port

	resp, body := send(t, http.MethodPost, a.URL, rebound, "", "application/json", listTasks)
	wantRPCError(t, resp, body, http.StatusForbidden, -32031)
	if strings.Contains(string(body), id) || strings.Contains(string(body), "private reply") {
		t.Fatalf("task data under a rebound Host: %s", body)
	}
	resp, body = send(t, http.MethodPost, a.URL, rebound, "", "application/json", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"`+id+`"}}`)
	wantRPCError(t, resp, body, http.StatusForbidden, -32031)
	for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		if resp, _ := send(t, http.MethodGet, a.Base+path, rebound, "", "", ""); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s under a rebound Host: HTTP %d", path, resp.StatusCode)
		}
	}
	// The loopback names are the hub's own.
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port} {
		resp, body := send(t, http.MethodPost, a.URL, host, "", "application/json", listTasks)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), id) {
			t.Fatalf("Host %s: HTTP %d %s", host, resp.StatusCode, body)
		}
	}
}

// A form or a text/plain fetch crosses sites without a preflight; only application/json is read.
func TestNonJSONContentTypeIsRefusedAndCreatesNothing(t *testing.T) {
	a := startDemo(t)
	before := taskCount(t, a)
	create := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"x","role":"ROLE_USER","parts":[{"text":"from a web page"}]}}}`
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""} {
		resp, body := send(t, http.MethodPost, a.URL, "", "", ct, create)
		wantRPCError(t, resp, body, http.StatusUnsupportedMediaType, -32600)
	}
	if after := taskCount(t, a); after != before {
		t.Fatalf("%d tasks after refused posts, %d before", after, before)
	}
	resp, body := send(t, http.MethodPost, a.URL, "", "", "application/json; charset=utf-8", listTasks)
	if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"error"`) {
		t.Fatalf("JSON with a charset: HTTP %d %s", resp.StatusCode, body)
	}
}

// A browser names the page's origin; only the hub's own is let in, except to read the public cards.
func TestForeignOriginIsRefused(t *testing.T) {
	a := startDemo(t)
	id := sendText(t, a, "private")
	before := taskCount(t, a)
	for _, origin := range []string{"http://evil.example", "null", "http://localhost.evil.example"} {
		resp, body := send(t, http.MethodPost, a.URL, "", origin, "application/json", listTasks)
		wantRPCError(t, resp, body, http.StatusForbidden, -32031)
		if strings.Contains(string(body), id) {
			t.Fatalf("task data to origin %s: %s", origin, body)
		}
		resp, body = send(t, http.MethodPost, a.URL, "", origin, "application/json",
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"o","role":"ROLE_USER","parts":[{"text":"x"}]}}}`)
		wantRPCError(t, resp, body, http.StatusForbidden, -32031)
	}
	if after := taskCount(t, a); after != before {
		t.Fatalf("%d tasks after refused posts, %d before", after, before)
	}
	resp, body := send(t, http.MethodPost, a.URL, "", a.Base, "application/json", listTasks)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), id) {
		t.Fatalf("own origin: HTTP %d %s", resp.StatusCode, body)
	}
	// Browser clients on any page read the cards.
	resp, body = send(t, http.MethodGet, a.Base+"/.well-known/agent-card.json", "", "http://evil.example", "", "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !json.Valid(body) {
		t.Fatalf("card to a foreign origin: HTTP %d %v", resp.StatusCode, resp.Header)
	}
}

// The official client sends what the guard asks for.
func TestSDKClientPassesTheGuard(t *testing.T) {
	a := startDemo(t)
	card, err := agentcard.DefaultResolver.Resolve(t.Context(), a.Base)
	if err != nil {
		t.Fatal(err)
	}
	client, err := a2aclient.NewFromCard(t.Context(), card)
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.SendMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("hello"))})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("result %#v", res)
	}
	list, err := client.ListTasks(t.Context(), &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != task.ID {
		t.Fatalf("ListTasks %+v %v", list, err)
	}
	for ev, err := range client.SendStreamingMessage(t.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("stream"))}) {
		if err != nil {
			t.Fatal(err)
		}
		_ = ev
	}
}
