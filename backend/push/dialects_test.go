package push_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	legacy "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/hub"
	"github.com/agenthub/agenthub/backend/push"
)

// A v0.3 config, set with v0.3's own method, gets the whole task after each write, in v0.3's shape
// (kind "task", lower-case states), read here by the v0.3 SDK's own types.
func TestV03ConfigGetsV03Tasks(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, nil)
	rpcURL := a.BaseURL + "/a2a"
	msg := func(text string, extra map[string]any) map[string]any {
		m := map[string]any{"kind": "message", "messageId": text + "-id", "role": "user", "parts": []any{map[string]any{"kind": "text", "text": text}}}
		for k, v := range extra {
			m[k] = v
		}
		return map[string]any{"message": m}
	}
	var asked legacy.Task
	json.Unmarshal(mustRPC(t, rpcURL, "message/send", msg("ask", nil)), &asked)
	if asked.Status.State != legacy.TaskStateInputRequired {
		t.Fatalf("ask task %+v", asked)
	}
	mustRPC(t, rpcURL, "tasks/pushNotificationConfig/set", map[string]any{"taskId": asked.ID,
		"pushNotificationConfig": map[string]any{"url": hook.URL + "/v03", "token": "tok-v03"}})
	mustRPC(t, rpcURL, "message/send", msg("blue", map[string]any{"taskId": asked.ID, "contextId": asked.ContextID}))

	settled(t, a, a2a.TaskID(asked.ID))
	got := hook.accepted()
	if len(got) < 2 {
		t.Fatalf("%d notifications, want the working and completed tasks", len(got))
	}
	set := fetchJWKS(t, a.BaseURL)
	var states []legacy.TaskState
	for i, r := range got {
		if r.Header.Get(push.TokenHeaderV03) != "tok-v03" || r.Header.Get(push.TokenHeaderV1) != "" {
			t.Errorf("notification %d: token headers %v", i, r.Header)
		}
		verifiedClaims(t, set, r, a.BaseURL, hook.URL+"/v03")
		var shape map[string]any
		json.Unmarshal(r.Body, &shape)
		var task legacy.Task
		if err := json.Unmarshal(r.Body, &task); err != nil || shape["kind"] != "task" || task.ID != asked.ID || task.ContextID != asked.ContextID {
			t.Fatalf("notification %d is not the v0.3 task (%v):\n%s", i, err, r.Body)
		}
		states = append(states, task.Status.State)
	}
	if states[0] != legacy.TaskStateWorking || states[len(states)-1] != legacy.TaskStateCompleted {
		t.Errorf("states %v, want working first and completed last", states)
	}
	var last legacy.Task
	json.Unmarshal(got[len(got)-1].Body, &last)
	if len(last.Artifacts) != 1 || len(last.Artifacts[0].Parts) != 1 {
		t.Fatalf("the completed task has no answer artifact: %s", got[len(got)-1].Body)
	}
	if p, ok := last.Artifacts[0].Parts[0].(legacy.TextPart); !ok || p.Text != "You answered: blue" {
		t.Errorf("artifact part %#v", last.Artifacts[0].Parts[0])
	}
}

// A v0.1 config, set with tasks/pushNotification/set, is challenged once (GET with a validationToken)
// before its first notification, then gets the whole task in the draft's shape (sessionId, part
// "type", artifact "index"), with the config's own credentials in Authorization.
func TestV01ConfigChallengedThenGetsDraftTasks(t *testing.T) {
	a := startAgent(t, hub.PushOptions{})
	hook := newWebhook(t, nil)
	rpcURL := a.BaseURL + "/a2a"
	send := func(text string) map[string]any {
		return map[string]any{"id": "draft-task", "sessionId": "draft-session",
			"message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}}
	}
	mustRPC(t, rpcURL, "tasks/send", send("ask"))
	mustRPC(t, rpcURL, "tasks/pushNotification/set", map[string]any{"id": "draft-task", "pushNotificationConfig": map[string]any{
		"url": hook.URL + "/v01", "token": "tok-v01", "authentication": map[string]any{"schemes": []string{"bearer"}, "credentials": "receiver-cred"}}})
	mustRPC(t, rpcURL, "tasks/send", send("blue"))

	settled(t, a, "draft-task")
	all := hook.requests()
	if len(all) < 3 || all[0].Method != http.MethodGet || !strings.HasPrefix(all[0].Query, "validationToken=") || all[0].Path != "/v01" {
		t.Fatalf("requests %+v, want the challenge GET first", all)
	}
	set := fetchJWKS(t, a.BaseURL)
	var states []string
	for i, r := range all[1:] {
		if r.Method != http.MethodPost {
			t.Fatalf("request %d is a %s: the URL is challenged once", i+2, r.Method)
		}
		if r.Header.Get("Authorization") != "Bearer receiver-cred" || r.Header.Get(push.TokenHeaderV03) != "tok-v01" {
			t.Errorf("notification %d headers %v", i, r.Header)
		}
		// The JWT moved aside for the receiver's credentials; it is still there and valid.
		r.Header.Set("Authorization", "Bearer "+r.Header.Get(push.SignatureHeader))
		if c := verifiedClaims(t, set, r, a.BaseURL, hook.URL+"/v01"); c["task_id"] != "draft-task" {
			t.Errorf("task_id %v", c["task_id"])
		}
		var task struct {
			ID        string `json:"id"`
			SessionID string `json:"sessionId"`
			Status    struct {
				State string `json:"state"`
			} `json:"status"`
			Artifacts []struct {
				Index *int `json:"index"`
				Parts []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifacts"`
		}
		var shape map[string]any
		json.Unmarshal(r.Body, &shape)
		if err := json.Unmarshal(r.Body, &task); err != nil || task.ID != "draft-task" || task.SessionID != "draft-session" || shape["contextId"] != nil || shape["kind"] != nil {
			t.Fatalf("notification %d is not a draft task (%v):\n%s", i, err, r.Body)
		}
		states = append(states, task.Status.State)
		if task.Status.State == "completed" {
			if len(task.Artifacts) != 1 || task.Artifacts[0].Index == nil || *task.Artifacts[0].Index != 0 ||
				task.Artifacts[0].Parts[0].Type != "text" || task.Artifacts[0].Parts[0].Text != "You answered: blue" {
				t.Errorf("completed draft task artifacts: %s", r.Body)
			}
		}
	}
	if states[0] != "working" || states[len(states)-1] != "completed" {
		t.Errorf("states %v, want working first and completed last", states)
	}
}

// A v0.1 webhook that does not echo the validationToken gets no notification: the challenge
// failure is retried, then given up, with the reason in the status.
func TestV01ChallengeFailureSendsNothing(t *testing.T) {
	a := startAgent(t, hub.PushOptions{GiveUpAfter: 200 * time.Millisecond})
	hook := newWebhook(t, func(r *http.Request, _ int) (int, string) { return http.StatusOK, "not the token" })
	rpcURL := a.BaseURL + "/a2a"
	mustRPC(t, rpcURL, "tasks/send", map[string]any{"id": "unchecked", "pushNotification": map[string]any{"url": hook.URL},
		"message": map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "text": "file"}}}})
	st := settled(t, a, "unchecked")
	if st[0].Failed == 0 || st[0].Delivered != 0 || !strings.Contains(st[0].LastError, "validation challenge") {
		t.Fatalf("status %+v, want failed on the validation challenge", st)
	}
	for _, r := range hook.requests() {
		if r.Method != http.MethodGet {
			t.Fatalf("a %s reached a webhook that failed the challenge", r.Method)
		}
	}
}
