package hub_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store"
)

// A hub on 127.0.0.1 behind a reverse proxy on the same machine (the way a team runs one behind
// nginx) sees every relayed caller connect from loopback. Those callers are not on this computer: a
// caller without a key is refused as from elsewhere (-32030), and a key holder's push config may not
// point at this machine's loopback services, while a program on the machine itself keeps both.
func TestCallersRelayedByAProxyAreNotOnThisComputer(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(hubtest.Target(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := auth.OpenPrincipals(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := ps.Add(t.Context(), "teammate")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	// The proxy's address is the hub's public URL, so the hub answers to its name.
	proxy := httptest.NewUnstartedServer(nil)
	public := "http://hub.test:" + strings.Split(proxy.Listener.Addr().String(), ":")[1]
	h, err := hub.Start(t.Context(), hubtest.Storage(t, hub.Config{DataDir: dir, Addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), PublicURL: public,
		NoDemo: true, Version: "test", Secrets: "file", Logger: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop() })
	target, _ := url.Parse(h.Agent.LocalURL)

	// nginx's usual setup: the upstream's own address as Host, the client in X-Forwarded-For.
	forwarding := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.SetXForwarded() }}
	// A proxy that adds nothing but keeps the public name the client used.
	keepingHost := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target); pr.Out.Host = pr.In.Host }}
	var via *httputil.ReverseProxy
	proxy.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { via.ServeHTTP(w, r) })
	proxy.Start()
	t.Cleanup(proxy.Close)
	proxyURL := "http://" + proxy.Listener.Addr().String() + "/a2a"

	rpcVia := func(endpoint, host, method string, params any, headers ...string) rpcResponse {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(string(rpcBody(t, method, params))))
		req.Header.Set("Content-Type", "application/json")
		if host != "" {
			req.Host = host
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var r rpcResponse
		if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
			t.Fatalf("%s: HTTP %d, not JSON-RPC: %v", method, res.StatusCode, err)
		}
		return r
	}
	listTasks := map[string]any{}

	// On this computer, without a key: anonymous, admitted (the default policy).
	if r := rpcVia(h.Agent.LocalURL+"/a2a", "", "ListTasks", listTasks); r.Error != nil {
		t.Fatalf("a loopback caller without a key: %+v", r.Error)
	}
	for name, p := range map[string]*httputil.ReverseProxy{"X-Forwarded-For": forwarding, "the public name as Host": keepingHost} {
		via = p
		r := rpcVia(proxyURL, strings.TrimPrefix(public, "http://"), "ListTasks", listTasks)
		if r.Error == nil || r.Error.Code != -32030 || !strings.Contains(r.Error.Message, "not on this computer") {
			t.Errorf("a relayed caller without a key (%s): %+v, want -32030 as from another computer", name, r.Error)
		}
	}

	// A key holder through the proxy: served, but its push configs may not target loopback.
	via = forwarding
	send := rpcVia(proxyURL, "", "SendMessage", map[string]any{"message": map[string]any{"messageId": "m-proxy", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "hello from the team"}}}}, "X-Api-Key", key)
	if send.Error != nil {
		t.Fatalf("a key holder through the proxy: %+v", send.Error)
	}
	var task struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if err := json.Unmarshal(send.Result, &task); err != nil || task.Task.ID == "" {
		t.Fatalf("SendMessage answered %s", send.Result)
	}
	push := map[string]any{"taskId": task.Task.ID, "url": "http://127.0.0.1:9/hook"}
	if r := rpcVia(proxyURL, "", "CreateTaskPushNotificationConfig", push, "X-Api-Key", key); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("a relayed key holder's push to loopback: %+v %s, want -32602", r.Error, r.Result)
	}
	if r := rpcVia(h.Agent.LocalURL+"/a2a", "", "CreateTaskPushNotificationConfig", push, "X-Api-Key", key); r.Error != nil {
		t.Errorf("the same key on this computer, push to loopback: %+v", r.Error)
	}
}
