package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/store/storetest"
	"github.com/agenthub/agenthub/backend/tasks"
)

// TestSubscribeOnAnotherReplica: two servers of the demo agent on one PostgreSQL database, as two
// replicas behind a proxy. A task sent to A runs on A; SubscribeToTask on B (and v0.3's
// tasks/resubscribe) opens with the task as it stands and follows it to its end: each of A's events
// after that once, in order. B's GetTask then answers the task as A left it.
func TestSubscribeOnAnotherReplica(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("several replicas share a PostgreSQL database only: a PostgreSQL run's case (make test runs one: suite go-postgres)")
	}
	url := storetest.Target(t, "")
	a, b := startDemoOn(t, url), startDemoOn(t, url)
	for _, method := range []string{"SubscribeToTask", "tasks/resubscribe"} {
		t.Run(method, func(t *testing.T) {
			id, _ := sendV1(t, a, "slow 30") // 30 ticks of 50 ms
			got := stream(t, b.URL, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{"id":"`+id+`"}}`)
			if len(got) < 2 {
				t.Fatalf("B's stream gave %d events", len(got))
			}
			var seen []string
			for i, r := range got {
				if r.Error != nil {
					t.Fatalf("B's stream: error %d %s", r.Error.Code, r.Error.Message)
				}
				if i > 0 { // the first is the task as it stood
					seen = append(seen, eventText(t, r.Result))
				}
			}
			// The log (read on A) ends with what B streamed after the task, exactly.
			log, err := a.Store.Log(t.Context(), a2a.TaskID(id), 0)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, l := range log {
				if l.Kind != "message" {
					all = append(all, loggedText(l))
				}
			}
			if len(seen) > len(all) || !slices.Equal(seen, all[len(all)-len(seen):]) {
				t.Fatalf("B streamed %q;\nthe log holds %q", seen, all)
			}
			if last := seen[len(seen)-1]; last != "status "+string(a2a.TaskStateCompleted)+" " {
				t.Fatalf("B's stream ended with %q", last)
			}
			stored, err := b.Store.Get(t.Context(), a2a.TaskID(id))
			if err != nil || stored.Task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("B's Get after the stream: %+v, %v", stored, err)
			}
		})
	}
}

// eventText is a streamed event (v1.0 or v0.3 JSON) as "kind state text", or "artifact id".
func eventText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var ev struct {
		StatusUpdate   *a2a.TaskStatusUpdateEvent   `json:"statusUpdate"`
		ArtifactUpdate *a2a.TaskArtifactUpdateEvent `json:"artifactUpdate"`
		Kind           string                       `json:"kind"` // v0.3
		Status         *struct {
			State   string `json:"state"`
			Message *struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"status"`
		Artifact *struct {
			ID string `json:"artifactId"`
		} `json:"artifact"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("event %s: %v", raw, err)
	}
	switch {
	case ev.StatusUpdate != nil:
		return loggedText(&tasks.Logged{Kind: "status", Event: ev.StatusUpdate})
	case ev.ArtifactUpdate != nil:
		return loggedText(&tasks.Logged{Kind: "artifact", Event: ev.ArtifactUpdate})
	case ev.Kind == "status-update" && ev.Status != nil:
		text := ""
		if ev.Status.Message != nil && len(ev.Status.Message.Parts) > 0 {
			text = ev.Status.Message.Parts[0].Text
		}
		return "status " + v1State(ev.Status.State) + " " + text
	case ev.Kind == "artifact-update" && ev.Artifact != nil:
		return "artifact " + ev.Artifact.ID
	}
	return fmt.Sprintf("other %s", raw)
}

// v1State is a v0.3 state name ("working") in v1.0's words.
func v1State(s string) string {
	return map[string]string{"submitted": string(a2a.TaskStateSubmitted), "working": string(a2a.TaskStateWorking),
		"completed": string(a2a.TaskStateCompleted), "failed": string(a2a.TaskStateFailed)}[s]
}

// loggedText is a log entry as eventText names a streamed event.
func loggedText(l *tasks.Logged) string {
	switch ev := l.Event.(type) {
	case *a2a.TaskStatusUpdateEvent:
		text := ""
		if ev.Status.Message != nil && len(ev.Status.Message.Parts) > 0 {
			text = ev.Status.Message.Parts[0].Text()
		}
		return "status " + string(ev.Status.State) + " " + text
	case *a2a.TaskArtifactUpdateEvent:
		return "artifact " + string(ev.Artifact.ID)
	}
	return l.Kind
}
