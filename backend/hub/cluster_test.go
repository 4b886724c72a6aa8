package hub_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// startReplicas starts n `agenthub serve` processes at once on one PostgreSQL database, each with a
// data dir of its own, as a team runs its hub behind a proxy.
func startReplicas(t *testing.T, n int, database string) []*serveProc {
	t.Helper()
	procs := make([]*serveProc, n)
	key := hubtest.KeyFile(t, "") // one key for all: the credentials they keep are shared
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			procs[i] = startServe(t, fmt.Sprintf("replica %d", i), t.TempDir(),
				"--database", database, "--secrets", "database", "--secrets-key-file", key)
		})
	}
	wg.Wait()
	return procs
}

// Three replicas started at the same moment on a fresh database migrate it one after the other (an
// advisory lock): all three come up, and what one of them acknowledged any other reads. They print
// one UI token (the first to keep one keeps it for all), which opens the UI on each.
func TestReplicasStartTogetherAndShareTheirTasks(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	database := storetest.Target(t, "")
	replicas := startReplicas(t, 3, database)
	var ids []string
	for i, r := range replicas {
		send := v1Message(fmt.Sprintf("note %d", i))
		send["configuration"] = map[string]any{"returnImmediately": true}
		ids = append(ids, str(at(decode(t, call(t, r.HubRPC(), "SendMessage", send)), "task"), "id"))
	}
	for _, r := range replicas {
		for i, id := range ids {
			got := decode(t, call(t, r.HubRPC(), "GetTask", byID(id)))
			if str(got, "id") != id {
				t.Fatalf("%s: GetTask of the task sent to replica %d: %s", r.name, i, pretty(got))
			}
		}
		listed := map[string]bool{}
		for _, task := range list(decode(t, call(t, r.HubRPC(), "ListTasks", map[string]any{})), "tasks") {
			listed[str(task, "id")] = true
		}
		for i, id := range ids {
			if !listed[id] {
				t.Fatalf("%s: ListTasks misses the task sent to replica %d", r.name, i)
			}
		}
	}
	_, token, _ := strings.Cut(replicas[0].UIURL, "/#token=")
	for _, r := range replicas {
		if !strings.HasSuffix(r.UIURL, "/#token="+token) || token == "" {
			t.Fatalf("%s printed the UI link %s, %s printed %s", r.name, r.UIURL, replicas[0].name, replicas[0].UIURL)
		}
		dialGateway(t, r).ws.Close()
	}
}

// A sender streams its message to replica 0 and the owner answers in the UI of replica 1: the
// execution waiting on replica 0 learns of it, and the sender's stream ends with the task as stored,
// the answer included (then the sender resubscribes or polls, as after any answer).
func TestTheOwnersAnswerOnOneReplicaReachesTheSenderStreamingOnAnother(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	replicas := startReplicas(t, 2, storetest.Target(t, ""))
	s := openStream(t, replicas[0].HubRPC(), "SendStreamingMessage", v1Message("May I deploy?"))
	id := str(at(decode(t, s.mustNext()), "task"), "id")
	if state := str(at(decode(t, s.mustNext()), "statusUpdate", "status"), "state"); state != "TASK_STATE_WORKING" {
		t.Fatalf("the task is %s, not waiting for the owner", state)
	}
	dialGateway(t, replicas[1]).result("inbox.act", map[string]any{"id": id, "action": "answer", "text": "Looking at it."}, nil)
	rest := s.all()
	if len(rest) == 0 {
		t.Fatal("the sender's stream ended with nothing after the answer")
	}
	last := decode(t, rest[len(rest)-1])
	if state := str(at(last, "task", "status"), "state"); state != "TASK_STATE_WORKING" ||
		str(at(last, "task", "artifacts", 0, "parts", 0), "text") != "Looking at it." {
		t.Fatalf("the sender's stream ended with %s", pretty(last))
	}
}
