package push_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/push"
)

func TestCheckTarget(t *testing.T) {
	ctx := context.Background()
	remoteRefused := map[string]string{
		"http://127.0.0.1:9/hook":          "loopback",
		"http://[::1]:9/hook":              "loopback",
		"http://[::ffff:127.0.0.1]:9/hook": "loopback",
		"http://localhost:9/hook":          "loopback",
		"http://10.1.2.3/hook":             "private",
		"http://172.16.0.1/hook":           "private",
		"http://192.168.1.10/hook":         "private",
	}
	alwaysRefused := map[string]string{
		"http://169.254.169.254/latest/meta-data":            "link-local",
		"http://169.254.170.2/v2/credentials":                "link-local",
		"http://[fe80::1]/hook":                              "link-local",
		"http://[::ffff:169.254.169.254]/latest/meta-data":   "link-local",
		"http://[fd00:ec2::254]/latest/meta-data":            "cloud metadata",
		"http://100.100.100.200/latest/meta-data":            "cloud metadata",
		"http://metadata.google.internal/computeMetadata/v1": "cloud metadata",
		"http://METADATA.google.internal./computeMetadata":   "cloud metadata",
		"http://0.0.0.0:9/hook":                              "not a unicast",
		"http://224.0.0.1/hook":                              "not a unicast",
		"ftp://example.com/hook":                             "absolute http or https",
		"/relative":                                          "absolute http or https",
		"http://user:pass@example.com/x":                     "credentials",
	}
	check := func(url string, local bool, want string) {
		t.Helper()
		err := push.CheckTarget(ctx, url, local)
		if want == "" {
			if err != nil {
				t.Errorf("local=%v %s: %v, want allowed", local, url, err)
			}
			return
		}
		if err == nil || !errors.Is(err, a2a.ErrInvalidParams) || !strings.Contains(err.Error(), want) {
			t.Errorf("local=%v %s: %v, want an invalid-params refusal saying %q", local, url, err, want)
		}
	}
	for url, why := range remoteRefused {
		check(url, false, why)
		check(url, true, "") // a caller on this computer may point at what it can reach itself
	}
	for url, why := range alwaysRefused {
		check(url, false, why)
		check(url, true, why)
	}
	check("http://93.184.216.34/hook", false, "") // a public address, for anyone
	check("http://100.64.0.1/hook", false, "shared address space")
	check("http://100.64.0.1/hook", true, "")
	check("https://[2001:4860:4860::8888]/hook", false, "")
}

// A remote caller's config pointing at loopback is refused when set, in every dialect and through
// every method that sets one, with -32602 and the reason; the same calls from loopback succeed.
func TestSetRefusesTargetsPerDialect(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, nil)
	local, remote := a.BaseURL+"/a2a", remoteFront(t, a)
	// Tasks to set configs on, one per dialect.
	var v1 struct {
		Task struct{ ID string } `json:"task"`
	}
	mustJSON(t, mustRPC(t, local, "SendMessage", map[string]any{"message": map[string]any{"messageId": "a", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "ask"}}}}), &v1)
	var v03 struct{ ID string }
	mustJSON(t, mustRPC(t, local, "message/send", map[string]any{"message": map[string]any{"kind": "message", "messageId": "b", "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": "ask"}}}}), &v03)
	mustRPC(t, local, "tasks/send", map[string]any{"id": "draft", "message": map[string]any{"role": "user",
		"parts": []any{map[string]any{"type": "text", "text": "ask"}}}})

	calls := []struct {
		name, method string
		params       func(url string) map[string]any
	}{
		{"v1.0 CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfig", func(url string) map[string]any {
			return map[string]any{"taskId": v1.Task.ID, "url": url}
		}},
		{"v1.0 SendMessage configuration", "SendMessage", func(url string) map[string]any {
			return map[string]any{"message": map[string]any{"messageId": "c" + url, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "file"}}},
				"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": url}}}
		}},
		{"v0.3 tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/set", func(url string) map[string]any {
			return map[string]any{"taskId": v03.ID, "pushNotificationConfig": map[string]any{"url": url}}
		}},
		{"v0.3 message/send configuration", "message/send", func(url string) map[string]any {
			return map[string]any{"message": map[string]any{"kind": "message", "messageId": "d" + url, "role": "user", "parts": []any{map[string]any{"kind": "text", "text": "file"}}},
				"configuration": map[string]any{"pushNotificationConfig": map[string]any{"url": url}}}
		}},
		{"v0.1 tasks/pushNotification/set", "tasks/pushNotification/set", func(url string) map[string]any {
			return map[string]any{"id": "draft", "pushNotificationConfig": map[string]any{"url": url}}
		}},
		{"v0.1 tasks/send pushNotification", "tasks/send", func(url string) map[string]any {
			return map[string]any{"id": "draft-send-" + url[len(url)-4:], "pushNotification": map[string]any{"url": url},
				"message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "file"}}}}
		}},
	}
	for _, c := range calls {
		for _, target := range []struct{ url, why string }{
			{hook.URL + "/hook", "loopback"},
			{"http://169.254.169.254/latest/meta-data", "link-local"},
			{"http://192.168.0.1/hook", "private"},
		} {
			_, e := rpc(t, remote, c.method, c.params(target.url))
			if e == nil || e.Code != -32602 || !strings.Contains(e.Message, target.why) {
				t.Errorf("%s to %s from a remote caller: %+v, want -32602 saying %q", c.name, target.url, e, target.why)
			}
		}
		// Link-local addresses and cloud metadata services are refused to a loopback caller too.
		for _, target := range []struct{ url, why string }{
			{"http://169.254.169.254/latest/meta-data", "link-local"},
			{"http://[fe80::1]/hook", "link-local"},
			{"http://[fd00:ec2::254]/latest/meta-data", "cloud metadata"},
			{"http://100.100.100.200/latest/meta-data", "cloud metadata"},
			{"http://metadata.google.internal/computeMetadata/v1", "cloud metadata"},
		} {
			_, e := rpc(t, local, c.method, c.params(target.url))
			if e == nil || e.Code != -32602 || !strings.Contains(e.Message, target.why) {
				t.Errorf("%s to %s from a loopback caller: %+v, want -32602 saying %q", c.name, target.url, e, target.why)
			}
		}
		if c.method == "tasks/send" { // refused before the task was created: nothing is left behind
			if _, e := rpc(t, local, "tasks/get", map[string]any{"id": "draft-send-hook"}); e == nil || e.Code != -32001 {
				t.Errorf("a refused tasks/send left its task behind: tasks/get answered %+v, want -32001", e)
			}
		}
		if _, e := rpc(t, local, c.method, c.params(hook.URL+"/ok1")); e != nil {
			t.Errorf("%s to loopback from a loopback caller: %d %s", c.name, e.Code, e.Message)
		}
	}
}

func mustJSON(t *testing.T, raw []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

// The rule holds again on every connection: a config whose target a remote caller set (here: its
// record says so, as when a name that resolved to a public address at set time now resolves to
// loopback) is refused at dial time, and the notifications fail at once with the reason.
func TestDeliveryChecksTheAddressItConnectsTo(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, nil)
	rpcURL := a.BaseURL + "/a2a"
	var asked struct {
		Task struct{ ID, ContextID string } `json:"task"`
	}
	mustJSON(t, mustRPC(t, rpcURL, "SendMessage", map[string]any{"message": map[string]any{"messageId": "a", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "ask"}}}}), &asked)
	mustRPC(t, rpcURL, "CreateTaskPushNotificationConfig", map[string]any{"taskId": asked.Task.ID, "id": "c", "url": hook.URL})
	if _, err := a.DB.Writer.Exec(`UPDATE push_targets SET caller_local = 0 WHERE task_id = ?`, asked.Task.ID); err != nil {
		t.Fatal(err)
	}
	mustRPC(t, rpcURL, "SendMessage", map[string]any{"message": map[string]any{"messageId": "b", "role": "ROLE_USER",
		"taskId": asked.Task.ID, "contextId": asked.Task.ContextID, "parts": []any{map[string]any{"text": "blue"}}}})
	st := settled(t, a, a2a.TaskID(asked.Task.ID))
	if st[0].Failed == 0 || st[0].Delivered != 0 || !strings.Contains(st[0].LastError, "refused") || !strings.Contains(st[0].LastError, "loopback") {
		t.Fatalf("status %+v, want failed: target refused, loopback", st)
	}
	if got := hook.requests(); len(got) != 0 {
		t.Fatalf("the refused webhook got %d requests", len(got))
	}
}

// A config a loopback caller set is still refused at delivery when its address turns out to be
// link-local (here: its URL now names one, as when the name it gave resolves to one since): the
// dial is refused before any byte is sent, and the notifications fail at once with the reason.
func TestDeliveryRefusesLinkLocalForALoopbackCaller(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	rpcURL := a.BaseURL + "/a2a"
	var asked struct {
		Task struct{ ID, ContextID string } `json:"task"`
	}
	mustJSON(t, mustRPC(t, rpcURL, "SendMessage", map[string]any{"message": map[string]any{"messageId": "a", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "ask"}}}}), &asked)
	hook := newWebhook(t, nil)
	mustRPC(t, rpcURL, "CreateTaskPushNotificationConfig", map[string]any{"taskId": asked.Task.ID, "id": "c", "url": hook.URL})
	metadata := "http://169.254.169.254:80/latest/meta-data"
	setURL := `UPDATE push_configs SET config_json = json_set(config_json, '$.url', ?) WHERE task_id = ?`
	if a.DB.Postgres() { // config_json is BYTEA there: through jsonb and back
		setURL = `UPDATE push_configs SET config_json = convert_to(jsonb_set(convert_from(config_json, 'UTF8')::jsonb, '{url}', to_jsonb(?::text))::text, 'UTF8') WHERE task_id = ?`
	}
	if _, err := a.DB.Writer.Exec(setURL, metadata, asked.Task.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DB.Writer.Exec(`UPDATE push_targets SET url = ? WHERE task_id = ?`, metadata, asked.Task.ID); err != nil {
		t.Fatal(err)
	}
	mustRPC(t, rpcURL, "SendMessage", map[string]any{"message": map[string]any{"messageId": "b", "role": "ROLE_USER",
		"taskId": asked.Task.ID, "contextId": asked.Task.ContextID, "parts": []any{map[string]any{"text": "blue"}}}})
	st := settled(t, a, a2a.TaskID(asked.Task.ID))
	if st[0].Failed == 0 || st[0].Delivered != 0 || !strings.Contains(st[0].LastError, "refused") || !strings.Contains(st[0].LastError, "link-local") {
		t.Fatalf("status %+v, want failed: target refused, link-local", st)
	}
}
