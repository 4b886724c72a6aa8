package uiapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type savedScenario struct {
	ID, Name, Agent, Source string
}

type storedRun struct {
	ID, ScenarioID, Agent, Status string
	Result                        struct {
		Passed  bool
		Binding string
		Steps   []struct {
			Index  int
			Passed bool
			State  string
		}
	}
}

// A conversation saved as a scenario (its messages as steps, expecting what the agent answered), run
// against the same agent and against another, each run stored with its steps and pushed as it goes;
// a file that does not parse is refused with its line; deleting takes the runs with it.
func TestScenariosFromTheApp(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": "demo"}, &conv)
	c.result("chats.send", map[string]any{"id": conv.ID, "text": "hello there"}, nil)
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.State == "completed" && up.Entry.Direction == "in"
	})

	var sv savedScenario
	c.result("scenarios.fromConversation", map[string]any{"conversationId": conv.ID}, &sv)
	if sv.ID == "" || sv.Agent != "demo" || !strings.Contains(sv.Source, "send: hello there") || !strings.Contains(sv.Source, "state: completed") {
		t.Fatalf("the conversation as a scenario: %+v", sv)
	}
	var run storedRun
	c.result("scenarios.run", map[string]any{"id": sv.ID}, &run)
	if run.Status != "running" || run.Agent != "demo" {
		t.Fatalf("a run as started: %+v", run)
	}
	c.await("scenario", func(data json.RawMessage) bool { return strings.Contains(string(data), sv.ID) })
	first := waitRun(t, c, run.ID)
	if first.Status != "passed" || !first.Result.Passed || len(first.Result.Steps) != 1 || first.Result.Steps[0].State != "completed" {
		t.Fatalf("the run against the same agent: %+v", first)
	}

	// The same scenario edited to expect something else fails against the agent, step by step.
	edited := strings.Replace(sv.Source, "state: completed", "state: failed", 1)
	c.result("scenarios.save", map[string]any{"id": sv.ID, "source": edited}, &sv)
	c.result("scenarios.run", map[string]any{"id": sv.ID, "agent": "demo"}, &run)
	second := waitRun(t, c, run.ID)
	if second.Status != "failed" || second.Result.Passed || second.Result.Steps[0].Passed {
		t.Fatalf("the edited run: %+v", second)
	}
	var detail struct {
		Scenario savedScenario
		Runs     []struct{ ID, Status string }
	}
	c.result("scenarios.get", map[string]any{"id": sv.ID}, &detail)
	if len(detail.Runs) != 2 || detail.Runs[0].ID != second.ID || detail.Runs[1].Status != "passed" {
		t.Fatalf("the runs, newest first: %+v", detail.Runs)
	}

	// Refused: a file that does not parse (its line said), an agent that is not there.
	if f := c.call("scenarios.save", map[string]any{"id": sv.ID, "source": "steps:\n  - send: hi\n    expct: {}\n"}); f.Error == nil ||
		f.Error.Code != "invalid_params" || !strings.Contains(f.Error.Message, "line 3") {
		t.Fatalf("a bad file: %+v", f.Error)
	}
	c.result("scenarios.get", map[string]any{"id": sv.ID}, &detail)
	if detail.Scenario.Source != edited {
		t.Fatal("a refused save changed the stored file")
	}
	c.result("scenarios.run", map[string]any{"id": sv.ID, "agent": "no-such-agent"}, &run)
	if r := waitRun(t, c, run.ID); r.Status != "failed" {
		t.Fatalf("a run against an unknown agent: %+v", r)
	}

	c.result("scenarios.delete", map[string]any{"id": sv.ID}, nil)
	if f := c.call("scenarios.get", map[string]any{"id": sv.ID}); f.Error == nil || f.Error.Code != "not_found" {
		t.Fatalf("a deleted scenario: %+v", f.Error)
	}
	if f := c.call("scenarios.getRun", map[string]any{"id": first.ID}); f.Error == nil || f.Error.Code != "not_found" {
		t.Fatalf("a deleted scenario's run: %+v", f.Error)
	}
}

// A conversation where the owner answered the demo agent's A2UI form and sent a file is saved as a
// scenario that replays both: the action names the surface by the task captured from the step that
// drew it, and the run passes against the agent.
func TestAConversationWithAFormAndAFileReplays(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	conv, asking := answeredDemoForm(t, c, "plan a release", map[string]any{"version": "v0.9", "action": map[string]any{"name": "plan_release",
		"sourceComponentId": "submit", "timestamp": "2026-11-28T12:00:00Z", "context": map[string]any{"version": "5.0", "channel": []any{"stable"}}}})
	c.result("chats.send", map[string]any{"id": conv.ID, "text": "the notes", "files": []map[string]any{
		{"name": "notes.txt", "mediaType": "text/plain", "bytes": []byte("v5.0 notes")}}}, nil)
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.TaskID != asking && up.Entry.State == "completed"
	})

	var sv savedScenario
	c.result("scenarios.fromConversation", map[string]any{"conversationId": conv.ID}, &sv)
	for _, want := range []string{"a2ui:", "release-plan-${task1}", "task1: $.id", "files:", "name: notes.txt", "text: v5.0 notes"} {
		if !strings.Contains(sv.Source, want) {
			t.Fatalf("the recorded scenario lacks %q:\n%s", want, sv.Source)
		}
	}
	if strings.Contains(sv.Source, asking) {
		t.Fatalf("the recorded scenario names the old task:\n%s", sv.Source)
	}
	var started storedRun
	c.result("scenarios.run", map[string]any{"id": sv.ID}, &started)
	run := waitRun(t, c, started.ID)
	if run.Status != "passed" || len(run.Result.Steps) != 3 {
		t.Fatalf("the replay: %+v\n%s", run, sv.Source)
	}
}

// A conversation where the owner answered the demo agent's v0.8 form is saved as a scenario whose
// a2ui step holds the userAction (v0.8 sends each message as a part of its own), and it replays.
func TestAConversationWithAV08FormReplays(t *testing.T) {
	h := startHub(t)
	c := dial(t, h)
	conv, _ := answeredDemoForm(t, c, "plan a release v0.8", map[string]any{"userAction": map[string]any{"name": "plan_release",
		"sourceComponentId": "submit", "timestamp": "2026-11-28T12:00:00Z", "context": map[string]any{"version": "5.1", "channel": []any{"beta"}}}})

	var sv savedScenario
	c.result("scenarios.fromConversation", map[string]any{"conversationId": conv.ID}, &sv)
	for _, want := range []string{"a2ui:", "userAction:", "release-plan-${task1}", "task1: $.id"} {
		if !strings.Contains(sv.Source, want) {
			t.Fatalf("the recorded scenario lacks %q:\n%s", want, sv.Source)
		}
	}
	var started storedRun
	c.result("scenarios.run", map[string]any{"id": sv.ID}, &started)
	run := waitRun(t, c, started.ID)
	if run.Status != "passed" || len(run.Result.Steps) != 2 {
		t.Fatalf("the replay: %+v\n%s", run, sv.Source)
	}
}

// waitRun reads a scenario run until it is no longer running (30 s at most).
func waitRun(t *testing.T, c *ui, runID string) storedRun {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r storedRun
		c.result("scenarios.getRun", map[string]any{"id": runID}, &r)
		if r.Status != "running" && r.Status != "" {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not end: %+v", r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answeredDemoForm starts a chat with the demo agent, sends text (which draws its release form) and
// answers the form with the A2UI message msg, whose one body ("action" or "userAction") gets the
// form's surface id; it waits for the task to complete and returns the conversation and that task.
func answeredDemoForm(t *testing.T, c *ui, text string, msg map[string]any) (conversation, string) {
	t.Helper()
	var conv conversation
	c.result("chats.start", map[string]any{"agentId": "demo"}, &conv)
	c.result("chats.send", map[string]any{"id": conv.ID, "text": text}, nil)
	var asking string
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		if up.ConversationID == conv.ID && up.Entry != nil && up.Entry.State == "input-required" {
			asking = up.Entry.TaskID
			return true
		}
		return false
	})
	for _, body := range msg {
		if b, ok := body.(map[string]any); ok {
			b["surfaceId"] = "release-plan-" + asking
		}
	}
	c.result("chats.send", map[string]any{"id": conv.ID, "taskId": asking, "a2ui": []any{msg}}, nil)
	c.await("chat", func(data json.RawMessage) bool {
		var up chatUpdate
		json.Unmarshal(data, &up)
		return up.ConversationID == conv.ID && up.Entry != nil && up.Entry.TaskID == asking && up.Entry.State == "completed"
	})
	return conv, asking
}
