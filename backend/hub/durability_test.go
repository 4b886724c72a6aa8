//go:build unix

package hub_test

// Durability of the real binary under kill -9: what the hub acknowledged survives, what was running
// is failed (demo agent) or resumed (inbox), the event log replays after a restart, and the data
// directory is locked against a second process.

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/uuid"
)

const restartedText = "agent restarted"

func v1Message(text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"messageId": uuid.NewString(), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}}
}

func v1Reply(text, taskID, contextID string) map[string]any {
	p := v1Message(text)
	m := p["message"].(map[string]any)
	m["taskId"], m["contextId"] = taskID, contextID
	return p
}

func v03Message(text string) map[string]any {
	return map[string]any{"message": map[string]any{
		"kind": "message", "messageId": uuid.NewString(), "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": text}}}}
}

func draftSend(id, text string) map[string]any {
	return map[string]any{"id": id, "message": map[string]any{
		"role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}}}
}

func byID(id string) map[string]any { return map[string]any{"id": id} }

// v1Kind is the kind of a v1.0 stream event: task, statusUpdate, artifactUpdate or message.
func v1Kind(t *testing.T, ev any) string {
	t.Helper()
	k := keys(ev)
	if len(k) != 1 {
		t.Fatalf("a v1.0 stream event has exactly one of task|statusUpdate|artifactUpdate|message, got %s", pretty(ev))
	}
	return k[0]
}

// v1State is the state a v1.0 stream event carries ("" for artifact updates).
func v1State(ev any) string {
	if s := str(ev, "statusUpdate", "status", "state"); s != "" {
		return s
	}
	return str(ev, "task", "status", "state")
}

// readUntilWorking reads a new v1.0 stream until n working status updates arrived and returns every
// event read (all of them acknowledged: a2a-go stores an event before it streams it). The first event
// must be the task.
func readUntilWorking(t *testing.T, s *sseStream, n int) []any {
	t.Helper()
	evs := readMoreWorking(t, s, n)
	if v1Kind(t, evs[0]) != "task" {
		t.Fatalf("%s: the first event is not the task: %s", s.method, pretty(evs[0]))
	}
	return evs
}

// readMoreWorking reads a v1.0 stream until n more working status updates arrived.
func readMoreWorking(t *testing.T, s *sseStream, n int) []any {
	t.Helper()
	var evs []any
	working := 0
	for working < n {
		ev := decode(t, s.mustNext())
		evs = append(evs, ev)
		switch st := v1State(ev); st {
		case "TASK_STATE_SUBMITTED", "":
		case "TASK_STATE_WORKING":
			if v1Kind(t, ev) == "statusUpdate" {
				working++
			}
		default:
			t.Fatalf("%s: unexpected state %s before %d working updates: %s", s.method, st, n, pretty(ev))
		}
	}
	return evs
}

// expectCut checks that a stream that was open when the server died ends without a final event.
func expectCut(t *testing.T, s *sseStream) {
	t.Helper()
	for {
		ev, ok := s.next()
		if !ok {
			return
		}
		switch st := v1State(decode(t, ev)); st {
		case "", "TASK_STATE_WORKING":
		default:
			t.Fatalf("%s: after kill -9 the stream delivered state %s", s.method, st)
		}
	}
}

func requireState(t *testing.T, what string, task any, want string) {
	t.Helper()
	if got := str(task, "status", "state"); got != want {
		t.Fatalf("%s: state %q, want %q:\n%s", what, got, want, pretty(task))
	}
}

// requireV1Task, requireV03Task and requireDraftTask check that a task is in the dialect's shape.
func requireV1Task(t *testing.T, what string, task any) {
	t.Helper()
	if has(task, "kind") || has(task, "sessionId") || str(task, "contextId") == "" ||
		!strings.HasPrefix(str(task, "status", "state"), "TASK_STATE_") {
		t.Fatalf("%s is not a v1.0 task:\n%s", what, pretty(task))
	}
	for _, m := range list(task, "history") {
		if !strings.HasPrefix(str(m, "role"), "ROLE_") || has(m, "kind") {
			t.Fatalf("%s: history message is not v1.0: %s", what, pretty(m))
		}
	}
}

func requireV03Task(t *testing.T, what string, task any) {
	t.Helper()
	if str(task, "kind") != "task" || has(task, "sessionId") || str(task, "contextId") == "" ||
		strings.HasPrefix(str(task, "status", "state"), "TASK_STATE_") {
		t.Fatalf("%s is not a v0.3 task:\n%s", what, pretty(task))
	}
	for _, m := range list(task, "history") {
		if str(m, "kind") != "message" {
			t.Fatalf("%s: history message has no kind: %s", what, pretty(m))
		}
	}
	for _, a := range list(task, "artifacts") {
		for _, p := range list(a, "parts") {
			if str(p, "kind") == "" {
				t.Fatalf("%s: artifact part has no kind: %s", what, pretty(p))
			}
		}
	}
}

func requireDraftTask(t *testing.T, what string, task any) {
	t.Helper()
	if str(task, "sessionId") == "" || has(task, "contextId") || has(task, "kind") ||
		strings.HasPrefix(str(task, "status", "state"), "TASK_STATE_") {
		t.Fatalf("%s is not a v0.1 draft task:\n%s", what, pretty(task))
	}
	arts := list(task, "artifacts")
	if len(arts) == 0 {
		t.Fatalf("%s has no artifacts:\n%s", what, pretty(task))
	}
	for i, a := range arts {
		if idx, ok := at(a, "index").(float64); !ok || int(idx) != i {
			t.Fatalf("%s: artifact %d has index %v:\n%s", what, i, at(a, "index"), pretty(task))
		}
		for _, p := range list(a, "parts") {
			if str(p, "type") == "" {
				t.Fatalf("%s: artifact part has no type: %s", what, pretty(p))
			}
		}
	}
}

// textOf joins the text of a list of parts (any dialect: all three name the text "text").
func textOf(parts []any) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(str(p, "text"))
	}
	return b.String()
}

func TestKill9KeepsAcknowledgedTasks(t *testing.T) {
	data := t.TempDir()
	p1 := startServe(t, "first serve", data)
	demo, hub := p1.DemoRPC(), p1.HubRPC()

	// Completed tasks in all three dialects, each acknowledged by its response.
	fileAck := decode(t, call(t, demo, "SendMessage", v1Message("file")))
	fileTask := at(fileAck, "task")
	requireV1Task(t, "v1.0 file task", fileTask)
	requireState(t, "v1.0 file task", fileTask, "TASK_STATE_COMPLETED")
	if a := list(fileTask, "artifacts"); len(a) != 1 || str(a[0], "parts", 0, "filename") != "hello.txt" {
		t.Fatalf("v1.0 file task has no hello.txt artifact:\n%s", pretty(fileTask))
	}
	fileID := str(fileTask, "id")

	v03Ack := decode(t, call(t, demo, "message/send", v03Message("hello v03")))
	requireV03Task(t, "v0.3 echo task", v03Ack)
	requireState(t, "v0.3 echo task", v03Ack, "completed")
	if got := textOf(list(v03Ack, "artifacts", 0, "parts")); got != "hello v03" {
		t.Fatalf("v0.3 echo artifact says %q, want %q", got, "hello v03")
	}
	v03ID := str(v03Ack, "id")

	draftAck := decode(t, call(t, demo, "tasks/send", draftSend("draft-1", "hello draft")))
	requireDraftTask(t, "v0.1 task draft-1", draftAck)
	requireState(t, "v0.1 task draft-1", draftAck, "completed")
	if str(draftAck, "id") != "draft-1" || textOf(list(draftAck, "artifacts", 0, "parts")) != "hello draft" {
		t.Fatalf("v0.1 task draft-1 is not the echo of its message:\n%s", pretty(draftAck))
	}

	// A task waiting for the client.
	askTask := at(decode(t, call(t, demo, "SendMessage", v1Message("ask"))), "task")
	requireState(t, "ask task", askTask, "TASK_STATE_INPUT_REQUIRED")
	askID, askContext := str(askTask, "id"), str(askTask, "contextId")

	// A hub inbox task waiting for the owner, acknowledged by its working status.
	inboxStream := openStream(t, hub, "SendStreamingMessage", v1Message("Can you approve the deployment?"))
	inboxEvents := readUntilWorking(t, inboxStream, 1)
	inboxID := str(inboxEvents[0], "task", "id")

	// A slow task with two acknowledged progress updates; the stream stays open through the kill.
	slowStream := openStream(t, demo, "SendStreamingMessage", v1Message("slow 60"))
	slowEvents := readUntilWorking(t, slowStream, 2)
	slowID := str(slowEvents[0], "task", "id")
	var slowAcked []string // messageIds of the acknowledged progress messages
	for _, ev := range slowEvents[1:] {
		if id := str(ev, "statusUpdate", "status", "message", "messageId"); id != "" {
			slowAcked = append(slowAcked, id)
		}
	}
	if len(slowAcked) < 2 {
		t.Fatalf("slow task: progress updates carry no messages: %s", pretty(slowEvents))
	}

	// Each task as tasks/get answers in its own dialect just before the kill.
	before := map[string]any{
		"v1.0 file task": decode(t, call(t, demo, "GetTask", byID(fileID))),
		"v0.3 echo task": decode(t, call(t, demo, "tasks/get", byID(v03ID))),
		"v0.1 draft-1":   decode(t, call(t, demo, "tasks/get", byID("draft-1"))),
		"ask task":       decode(t, call(t, demo, "GetTask", byID(askID))),
		"hub inbox task": decode(t, call(t, hub, "GetTask", byID(inboxID))),
	}
	// What tasks/get answered before the kill is what the send acknowledged.
	sameJSON(t, "v1.0 file task (SendMessage result vs GetTask)", before["v1.0 file task"], fileTask)
	sameJSON(t, "v0.3 echo task (message/send result vs tasks/get)", before["v0.3 echo task"], v03Ack)
	sameJSON(t, "v0.1 draft-1 (tasks/send result vs tasks/get)", before["v0.1 draft-1"], draftAck)
	sameJSON(t, "ask task (SendMessage result vs GetTask)", before["ask task"], askTask)
	requireState(t, "hub inbox task before the kill", before["hub inbox task"], "TASK_STATE_WORKING")

	p1.kill9()
	expectCut(t, slowStream)
	expectCut(t, inboxStream)

	p2 := startServe(t, "restarted serve", data)
	demo, hub = p2.DemoRPC(), p2.HubRPC()

	after := map[string]any{
		"v1.0 file task": decode(t, call(t, demo, "GetTask", byID(fileID))),
		"v0.3 echo task": decode(t, call(t, demo, "tasks/get", byID(v03ID))),
		"v0.1 draft-1":   decode(t, call(t, demo, "tasks/get", byID("draft-1"))),
		"ask task":       decode(t, call(t, demo, "GetTask", byID(askID))),
		"hub inbox task": decode(t, call(t, hub, "GetTask", byID(inboxID))),
	}

	t.Run("completed tasks are unchanged, each in its dialect", func(t *testing.T) {
		requireV1Task(t, "v1.0 file task", after["v1.0 file task"])
		requireV03Task(t, "v0.3 echo task", after["v0.3 echo task"])
		requireDraftTask(t, "v0.1 draft-1", after["v0.1 draft-1"])
		for _, name := range []string{"v1.0 file task", "v0.3 echo task", "v0.1 draft-1"} {
			sameJSON(t, name, after[name], before[name])
		}
	})

	t.Run("the interrupted slow task failed, keeping its acknowledged progress", func(t *testing.T) {
		task := decode(t, call(t, demo, "GetTask", byID(slowID)))
		requireV1Task(t, "slow task", task)
		requireState(t, "slow task", task, "TASK_STATE_FAILED")
		if msg := textOf(list(task, "status", "message", "parts")); !strings.Contains(msg, restartedText) {
			t.Errorf("slow task: status message %q does not say the %s", msg, restartedText)
		}
		history := list(task, "history")
		if len(history) == 0 || textOf(list(history[0], "parts")) != "slow 60" || str(history[0], "role") != "ROLE_USER" {
			t.Fatalf("slow task: history does not start with the request:\n%s", pretty(task))
		}
		// Every acknowledged progress message is in the history, in the order it was streamed.
		i := 0
		for _, m := range history {
			if i < len(slowAcked) && str(m, "messageId") == slowAcked[i] {
				i++
			}
		}
		if i != len(slowAcked) {
			t.Errorf("slow task: acknowledged progress messages %v are not all in the history, in order:\n%s", slowAcked, pretty(task))
		}
	})

	t.Run("the input-required task still waits and can be answered", func(t *testing.T) {
		sameJSON(t, "ask task", after["ask task"], before["ask task"])
		requireState(t, "ask task after the restart", after["ask task"], "TASK_STATE_INPUT_REQUIRED")
		done := at(decode(t, call(t, demo, "SendMessage", v1Reply("blue", askID, askContext))), "task")
		requireState(t, "answered ask task", done, "TASK_STATE_COMPLETED")
		if str(done, "id") != askID {
			t.Fatalf("the answer went to task %s, want %s", str(done, "id"), askID)
		}
		if got := textOf(list(done, "artifacts", 0, "parts")); got != "You answered: blue" {
			t.Errorf("answered ask task: artifact says %q, want %q", got, "You answered: blue")
		}
		sameJSON(t, "answered ask task (SendMessage result vs GetTask)", decode(t, call(t, demo, "GetTask", byID(askID))), done)
	})

	t.Run("the hub inbox task was resumed and still waits for the owner", func(t *testing.T) {
		sameJSON(t, "hub inbox task", after["hub inbox task"], before["hub inbox task"])
		requireState(t, "hub inbox task after the restart", after["hub inbox task"], "TASK_STATE_WORKING")
		// Subscribing opens with the waiting task as it is now and stays open: nothing ended it.
		s := openStream(t, hub, "SubscribeToTask", byID(inboxID))
		sameJSON(t, "the subscription's first event", decode(t, s.mustNext()), map[string]any{"task": after["hub inbox task"]})
		s.close()
	})
}

// readAllV1 reads a v1.0 stream to its end and checks its shape: a task first, then status and
// artifact updates, the last one final, and nothing after it.
func readAllV1(t *testing.T, s *sseStream, wantFinal string) []any {
	t.Helper()
	var evs []any
	for _, raw := range s.all() {
		evs = append(evs, decode(t, raw))
	}
	if len(evs) < 2 {
		t.Fatalf("%s: %d events, want at least a task and a final status:\n%s", s.method, len(evs), pretty(evs))
	}
	if k := v1Kind(t, evs[0]); k != "task" {
		t.Fatalf("%s: first event is %s, want task", s.method, k)
	}
	for i, ev := range evs[1:] {
		switch k := v1Kind(t, ev); k {
		case "statusUpdate", "artifactUpdate":
		default:
			t.Fatalf("%s: event %d is %s, want statusUpdate or artifactUpdate", s.method, i+1, k)
		}
	}
	last := evs[len(evs)-1]
	if v1Kind(t, last) != "statusUpdate" || v1State(last) != wantFinal {
		t.Fatalf("%s: last event is not the final %s status:\n%s", s.method, wantFinal, pretty(last))
	}
	for i, ev := range evs[:len(evs)-1] {
		switch v1State(ev) {
		case "", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING":
		default:
			t.Fatalf("%s: event %d of %d is already final:\n%s", s.method, i, len(evs), pretty(ev))
		}
	}
	return evs
}

// summary is what a v1.0 and a v0.3 stream event both say, in v1.0 terms, so a replay in one dialect
// can be compared with a live stream in the other.
type summary struct {
	Kind              string // task | status | artifact
	TaskID, ContextID string
	State             string // TASK_STATE_*
	StatusMessage     string // messageId
	History           string // messageIds of a task event's history
	ArtifactID, Text  string
	Append, LastChunk bool
}

func summarizeV1(t *testing.T, ev any) summary {
	t.Helper()
	var s summary
	switch k := v1Kind(t, ev); k {
	case "task":
		v := at(ev, "task")
		s = summary{Kind: "task", TaskID: str(v, "id"), ContextID: str(v, "contextId"), State: str(v, "status", "state"),
			StatusMessage: str(v, "status", "message", "messageId")}
		for _, m := range list(v, "history") {
			s.History += str(m, "messageId") + " "
		}
	case "statusUpdate":
		v := at(ev, "statusUpdate")
		s = summary{Kind: "status", TaskID: str(v, "taskId"), ContextID: str(v, "contextId"), State: str(v, "status", "state"),
			StatusMessage: str(v, "status", "message", "messageId")}
	case "artifactUpdate":
		v := at(ev, "artifactUpdate")
		s = summary{Kind: "artifact", TaskID: str(v, "taskId"), ContextID: str(v, "contextId"), ArtifactID: str(v, "artifact", "artifactId"),
			Text: textOf(list(v, "artifact", "parts"))}
		s.Append, _ = at(v, "append").(bool)
		s.LastChunk, _ = at(v, "lastChunk").(bool)
	default:
		t.Fatalf("unexpected v1.0 event %s", pretty(ev))
	}
	return s
}

func v1StateOf(v03State string) string {
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(v03State, "-", "_"))
}

func summarizeV03(t *testing.T, ev any) summary {
	t.Helper()
	var s summary
	switch k := str(ev, "kind"); k {
	case "task":
		s = summary{Kind: "task", TaskID: str(ev, "id"), ContextID: str(ev, "contextId"), State: v1StateOf(str(ev, "status", "state")),
			StatusMessage: str(ev, "status", "message", "messageId")}
		for _, m := range list(ev, "history") {
			s.History += str(m, "messageId") + " "
		}
	case "status-update":
		s = summary{Kind: "status", TaskID: str(ev, "taskId"), ContextID: str(ev, "contextId"), State: v1StateOf(str(ev, "status", "state")),
			StatusMessage: str(ev, "status", "message", "messageId")}
	case "artifact-update":
		s = summary{Kind: "artifact", TaskID: str(ev, "taskId"), ContextID: str(ev, "contextId"), ArtifactID: str(ev, "artifact", "artifactId"),
			Text: textOf(list(ev, "artifact", "parts"))}
		s.Append, _ = at(ev, "append").(bool)
		s.LastChunk, _ = at(ev, "lastChunk").(bool)
	default:
		t.Fatalf("event has kind %q, want task, status-update or artifact-update:\n%s", k, pretty(ev))
	}
	return s
}

// readAllV03 reads a v0.3 stream to its end and checks its shape: a task first, then status and
// artifact updates, only the last one final (a status in state wantFinal), and nothing after it.
func readAllV03(t *testing.T, s *sseStream, wantFinal string) []any {
	t.Helper()
	var evs []any
	for _, raw := range s.all() {
		evs = append(evs, decode(t, raw))
	}
	if len(evs) < 2 || str(evs[0], "kind") != "task" {
		t.Fatalf("%s: want a task, updates and a final status:\n%s", s.method, pretty(evs))
	}
	for i, ev := range evs[1:] {
		k := str(ev, "kind")
		if k != "status-update" && k != "artifact-update" {
			t.Fatalf("%s: event %d has kind %q:\n%s", s.method, i+1, k, pretty(ev))
		}
		if final, _ := at(ev, "final").(bool); final != (i+1 == len(evs)-1) {
			t.Fatalf("%s: event %d of %d has final=%v:\n%s", s.method, i+1, len(evs), final, pretty(evs))
		}
	}
	if last := evs[len(evs)-1]; str(last, "kind") != "status-update" || str(last, "status", "state") != wantFinal {
		t.Fatalf("%s: last event is not the final %s status:\n%s", s.method, wantFinal, pretty(last))
	}
	return evs
}

func TestSubscribeAfterRestartOpensWithTheTaskAsItIs(t *testing.T) {
	data := t.TempDir()
	p1 := startServe(t, "first serve", data)
	demo := p1.DemoRPC()

	// Streams read live to their end: the events the log must replay.
	liveEcho := readAllV1(t, openStream(t, demo, "SendStreamingMessage", v1Message("hello replay")), "TASK_STATE_COMPLETED")
	echoID := str(liveEcho[0], "task", "id")
	var chunks int
	for _, ev := range liveEcho {
		if v1Kind(t, ev) == "artifactUpdate" {
			chunks++
		}
	}
	if chunks < 2 {
		t.Fatalf("the echo streamed %d artifact chunks, want several:\n%s", chunks, pretty(liveEcho))
	}
	liveAsk := readAllV1(t, openStream(t, demo, "SendStreamingMessage", v1Message("ask")), "TASK_STATE_INPUT_REQUIRED")
	askID := str(liveAsk[0], "task", "id")
	liveV03 := readAllV03(t, openStream(t, demo, "message/stream", v03Message("hello v03")), "completed")
	v03ID := str(liveV03[0], "id")

	draft := decode(t, call(t, demo, "tasks/send", draftSend("draft-1", "hello draft")))
	requireState(t, "v0.1 draft-1", draft, "completed")

	slowStream := openStream(t, demo, "SendStreamingMessage", v1Message("slow 60"))
	liveSlow := readUntilWorking(t, slowStream, 2)
	slowID := str(liveSlow[0], "task", "id")

	p1.kill9()
	expectCut(t, slowStream)
	p2 := startServe(t, "restarted serve", data)
	demo = p2.DemoRPC()

	// A subscription opens with the task as it is now (v1.0 §3.1.6), the same after a restart as
	// GetTask answers it; a task whose state ends a stream ends the subscription there.
	t.Run("SubscribeToTask opens with a task waiting for input as it is, then the stream closes", func(t *testing.T) {
		evs := openStream(t, demo, "SubscribeToTask", byID(askID)).all()
		if len(evs) != 1 {
			t.Fatalf("%d events, want the task alone", len(evs))
		}
		sameJSON(t, "the subscription's task", decode(t, evs[0]), map[string]any{"task": decode(t, call(t, demo, "GetTask", byID(askID)))})
		requireState(t, "the subscription's task", at(decode(t, evs[0]), "task"), "TASK_STATE_INPUT_REQUIRED")
	})

	t.Run("SubscribeToTask on ended tasks answers -32004", func(t *testing.T) {
		for name, id := range map[string]string{"completed echo task": echoID, "failed slow task": slowID} {
			if e := streamRefused(t, demo, "SubscribeToTask", byID(id)); e.Code != -32004 {
				t.Errorf("%s: SubscribeToTask answered %d %s, want -32004", name, e.Code, e.Message)
			}
		}
	})

	// v0.3's tasks/resubscribe opens the same way, with the task in v0.3's shape; an ended task ends
	// the stream there.
	onlyV03Task := func(t *testing.T, id, state string) any {
		t.Helper()
		evs := openStream(t, demo, "tasks/resubscribe", byID(id)).all()
		if len(evs) != 1 {
			t.Fatalf("%d events, want the task alone", len(evs))
		}
		task := decode(t, evs[0])
		if str(task, "kind") != "task" || str(task, "id") != id || str(task, "status", "state") != state {
			t.Fatalf("tasks/resubscribe opens with %s, want the %s task %s", pretty(task), state, id)
		}
		return task
	}
	t.Run("tasks/resubscribe opens with the ended v1.0 echo task as it is, in v0.3 shape", func(t *testing.T) {
		task := onlyV03Task(t, echoID, "completed")
		var text strings.Builder
		for _, a := range list(task, "artifacts") {
			text.WriteString(textOf(list(a, "parts")))
		}
		if text.String() != "hello replay" {
			t.Errorf("the task's artifacts say %q, want %q", text.String(), "hello replay")
		}
	})

	t.Run("tasks/resubscribe opens with the interrupted slow task, failed", func(t *testing.T) {
		task := onlyV03Task(t, slowID, "failed")
		if msg := textOf(list(task, "status", "message", "parts")); !strings.Contains(msg, restartedText) {
			t.Errorf("status message %q does not say the %s", msg, restartedText)
		}
	})

	t.Run("tasks/resubscribe opens with the v0.3 task as tasks/get answers it", func(t *testing.T) {
		sameJSON(t, "the v0.3 task", onlyV03Task(t, v03ID, "completed"), decode(t, call(t, demo, "tasks/get", byID(v03ID))))
	})

	// The draft has no whole-task event: its resubscription opens with the task's artifacts so far,
	// whole, then its status.
	t.Run("tasks/resubscribe opens with draft-1 as it is, in the v0.1 shape", func(t *testing.T) {
		var evs []any
		for _, raw := range openStream(t, demo, "tasks/resubscribe", byID("draft-1")).all() {
			evs = append(evs, decode(t, raw))
		}
		if len(evs) != 2 {
			t.Fatalf("%d events, want the artifact and the final status:\n%s", len(evs), pretty(evs))
		}
		art, status := evs[0], evs[1]
		if str(art, "id") != "draft-1" || len(keys(art)) != 2 || textOf(list(art, "artifact", "parts")) != "hello draft" {
			t.Fatalf("first event is not draft-1's artifact {id, artifact}:\n%s", pretty(art))
		}
		if idx, ok := at(art, "artifact", "index").(float64); !ok || idx != 0 {
			t.Fatalf("artifact index %v, want 0", at(art, "artifact", "index"))
		}
		if final, _ := at(status, "final").(bool); str(status, "id") != "draft-1" || len(keys(status)) != 3 || !final || str(status, "status", "state") != "completed" {
			t.Fatalf("second event is not draft-1's final status {id, status, final}:\n%s", pretty(status))
		}
	})
}

func TestSecondInstanceRefused(t *testing.T) {
	data := t.TempDir()
	p1 := startServe(t, "first serve", data)
	demo := p1.DemoRPC()

	// Something running in the first instance that a second one must not "recover".
	slowStream := openStream(t, demo, "SendStreamingMessage", v1Message("slow 60"))
	slowID := str(readUntilWorking(t, slowStream, 1)[0], "task", "id")

	bin := agenthubBinary(t)
	for _, args := range [][]string{
		{"serve", "--secrets", "file", "--addr", "127.0.0.1:0", "--demo-addr", "127.0.0.1:0", "--data", data},
		{"serve", "--secrets", "file", "--addr", "127.0.0.1:0", "--no-demo", "--data", data},
		{"demo-agent", "--addr", "127.0.0.1:0", "--data", data},
	} {
		t.Run(strings.Join(args[:len(args)-2], " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), exitDeadline)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("the second instance kept running (stdout %q, stderr %q)", stdout.String(), stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("the second instance exited with %v, want a non-zero exit code; stdout %q, stderr %q", err, stdout.String(), stderr.String())
			}
			if !strings.Contains(stderr.String(), "in use") {
				t.Errorf("stderr does not say the data is in use: %q", stderr.String())
			}
			if strings.Contains(stdout.String(), "http://") {
				t.Errorf("the second instance announced an address: %q", stdout.String())
			}
		})
	}

	// The first instance is undisturbed: still running, its slow task still progressing (nobody failed
	// it as interrupted), and it still serves new work.
	if !p1.running() {
		t.Fatal("the first instance died")
	}
	readMoreWorking(t, slowStream, 1)
	task := decode(t, call(t, demo, "GetTask", byID(slowID)))
	requireState(t, "slow task on the first instance", task, "TASK_STATE_WORKING")
	echo := at(decode(t, call(t, demo, "SendMessage", v1Message("still here"))), "task")
	requireState(t, "new echo task on the first instance", echo, "TASK_STATE_COMPLETED")
	readUntilWorking(t, openStream(t, p1.HubRPC(), "SendStreamingMessage", v1Message("still here")), 1)
}
