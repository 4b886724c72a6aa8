package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	legacy "github.com/a2aproject/a2a-go/a2a"
	legacyclient "github.com/a2aproject/a2a-go/a2aclient"
	legacycard "github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/agenthub/agenthub/backend/hub/hubtest"
	"github.com/agenthub/agenthub/backend/interop/jsclient"
	"github.com/agenthub/agenthub/backend/store/storetest"
)

// startReplicas starts n `agenthub serve` processes at once on one PostgreSQL database, each with a
// data dir of its own, as a team runs its hub behind a proxy.
func startReplicas(t *testing.T, n int, database string, flags ...string) []*serveProc {
	t.Helper()
	procs := make([]*serveProc, n)
	key := hubtest.KeyFile(t, "") // one key for all: the credentials they keep are shared
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			procs[i] = startServe(t, fmt.Sprintf("replica %d", i), t.TempDir(),
				append([]string{"--database", database, "--secrets", "database", "--secrets-key-file", key}, flags...)...)
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

// startHAProxy runs HAProxy with the team hub's example configuration (docs/examples/haproxy.cfg) in
// front of the replicas, and returns its base URL once it relays a call to each of them.
func startHAProxy(t *testing.T, front int, replicas []*serveProc) string {
	t.Helper()
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy is not installed: run build/setup-debian.sh (it installs Debian's haproxy)")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", "-f", filepath.Join(root, "docs", "examples", "haproxy.cfg"))
	cmd.Env = append(os.Environ(), fmt.Sprintf("AGENTHUB_FRONT=127.0.0.1:%d", front))
	for i, r := range replicas {
		cmd.Env = append(cmd.Env, fmt.Sprintf("AGENTHUB_REPLICA_%d=%s", i+1, strings.TrimPrefix(r.Listen, "http://")))
	}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", tail(out.String()))
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", front)
	deadline := time.Now().Add(startDeadline)
	for ok := 0; ok < 2*len(replicas); { // round robin: every replica answered through it
		res, err := http.Get(base + "/.well-known/agent-card.json")
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		if err == nil && res.StatusCode == http.StatusOK {
			ok++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy did not relay within %v (%v):\n%s", startDeadline, err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return base
}

// The cluster test: three `agenthub serve` replicas on one PostgreSQL database behind HAProxy
// (the example configuration of docs/team-hub.md).
//   - The official SDK clients (@a2a-js/sdk v1.0 and v0.3, a2a-go v1.0 and v0.3) call the replicas of
//     the demo agent in turn: a task sent to one is streamed from another and read on a third.
//   - 16 publishers post to one channel through the proxy while each replica streams it; a knowledge
//     update on one replica is in a query on another; one replica is killed with SIGKILL mid-way.
//
// Afterwards every acknowledged event is stored once, the sequences are contiguous, the surviving
// replicas' streams hold every event in order, and the task the dead replica was running is failed
// by another replica once its lease expired.
func TestClusterOfThreeReplicas(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	database := storetest.Target(t, "")
	alice := addPrincipalOn(t, database, "alice")
	front := freePort(t)
	replicas := startReplicas(t, 3, database, "--public-url", fmt.Sprintf("http://127.0.0.1:%d", front))
	proxy := startHAProxy(t, front, replicas)
	var demos []string
	for _, r := range replicas {
		demos = append(demos, r.DemoURL)
	}

	t.Run("@a2a-js/sdk over the replicas in turn", func(t *testing.T) { jsclient.Run(t, demos...) })
	t.Run("a2a-go v1.0: sent on one replica, streamed from another, read on a third", func(t *testing.T) {
		clusterGoV1(t, demos)
	})
	t.Run("a2a-go v0.3: sent on one replica, answered on another", func(t *testing.T) {
		clusterGoV03(t, demos)
	})
	t.Run("channels, knowledge and kill -9", func(t *testing.T) {
		clusterUnderKill(t, replicas, proxy+"/a2a", alice)
	})
}

func clusterGoV1(t *testing.T, demos []string) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var clients []*a2aclient.Client
	for _, u := range demos {
		card, err := agentcard.DefaultResolver.Resolve(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		c, err := a2aclient.NewFromCard(ctx, card)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	// Replica 0 takes the send; the stream is left at the first progress report.
	var id a2a.TaskID
	for ev, err := range clients[0].SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("slow 3"))}) {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.State == a2a.TaskStateWorking {
			id = s.TaskID
			break
		}
	}
	if id == "" {
		t.Fatal("replica 0 never reported the task working")
	}
	// Replica 1 follows it: the task as it is now, then each progress report once, in order, to the end.
	var seen []string
	var final a2a.TaskState
	for ev, err := range clients[1].SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			t.Fatalf("SubscribeToTask on replica 1: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			final = e.Status.State
		case *a2a.TaskStatusUpdateEvent:
			final = e.Status.State
			if e.Status.Message != nil && e.Status.State == a2a.TaskStateWorking {
				seen = append(seen, e.Status.Message.Parts[0].Text())
			}
		}
	}
	if final != a2a.TaskStateCompleted {
		t.Fatalf("replica 1's stream ended at %s (progress %q), want completed", final, seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("replica 1's stream repeated or reordered progress: %q", seen)
		}
	}
	// Replica 2 reads the finished task.
	task, err := clients[2].GetTask(ctx, &a2a.GetTaskRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if task.Status.State != a2a.TaskStateCompleted || !strings.Contains(taskArtifactText(task), "Done after 3 seconds") {
		t.Fatalf("replica 2 reads %s %q", task.Status.State, taskArtifactText(task))
	}
}

func taskArtifactText(task *a2a.Task) string {
	var b strings.Builder
	for _, art := range task.Artifacts {
		for _, p := range art.Parts {
			b.WriteString(p.Text())
		}
	}
	return b.String()
}

func clusterGoV03(t *testing.T, demos []string) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var clients []*legacyclient.Client
	for _, u := range demos {
		card, err := legacycard.DefaultResolver.Resolve(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		c, err := legacyclient.NewFromCard(ctx, card)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	res, err := clients[0].SendMessage(ctx, &legacy.MessageSendParams{Message: legacy.NewMessage(legacy.MessageRoleUser, legacy.TextPart{Text: "ask"})})
	if err != nil {
		t.Fatal(err)
	}
	asked, ok := res.(*legacy.Task)
	if !ok || asked.Status.State != legacy.TaskStateInputRequired {
		t.Fatalf("replica 0 answered %+v, want a task asking back", res)
	}
	res, err = clients[1].SendMessage(ctx, &legacy.MessageSendParams{Message: legacy.NewMessageForTask(legacy.MessageRoleUser, asked, legacy.TextPart{Text: "teal"})})
	if err != nil {
		t.Fatalf("the answer on replica 1: %v", err)
	}
	done, ok := res.(*legacy.Task)
	if !ok || done.Status.State != legacy.TaskStateCompleted {
		t.Fatalf("replica 1 answered %+v, want the task completed", res)
	}
	got, err := clients[2].GetTask(ctx, &legacy.TaskQueryParams{ID: asked.ID})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, a := range got.Artifacts {
		for _, p := range a.Parts {
			if tp, ok := p.(legacy.TextPart); ok {
				text += tp.Text
			}
		}
	}
	if got.Status.State != legacy.TaskStateCompleted || text != "You answered: teal" {
		t.Fatalf("replica 2 reads %s %q", got.Status.State, text)
	}
}

// clusterStream collects a channel stream's message sequences on its own goroutine.
type clusterStream struct {
	mu   sync.Mutex
	seqs []int64
	done chan struct{} // closed when the stream ends
}

func collectChannel(s *sseStream) *clusterStream {
	c := &clusterStream{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for data := range s.events {
			var r struct {
				Result struct {
					Kind  string
					Event chanEvent
				}
			}
			if json.Unmarshal(data, &r) == nil && r.Result.Kind == "messageEvent" {
				c.mu.Lock()
				c.seqs = append(c.seqs, r.Result.Event.Sequence)
				c.mu.Unlock()
			}
		}
	}()
	return c
}

// waitFor returns the sequences once the stream has delivered n events, or what it had at the deadline.
func (c *clusterStream) waitFor(n int) []int64 {
	deadline := time.Now().Add(eventDeadline)
	for {
		c.mu.Lock()
		got := slices.Clone(c.seqs)
		c.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		select {
		case <-c.done:
			c.mu.Lock()
			got = slices.Clone(c.seqs)
			c.mu.Unlock()
			return got
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func clusterUnderKill(t *testing.T, replicas []*serveProc, proxyRPC, key string) {
	var created struct{ Channel struct{ ID string } }
	callAs(t, proxyRPC, key, "channels/create", map[string]any{"name": "team"}, &created)
	ch := created.Channel.ID
	var streams []*clusterStream
	for _, r := range replicas {
		streams = append(streams, collectChannel(openStream(t, r.HubRPC(), "channels/stream",
			map[string]any{"channelId": ch, "sinceSequence": 0}, "X-Api-Key", key)))
	}

	// Knowledge: written on replica 0, read on replica 1 (the query waits for its index to catch up).
	var upd map[string]any
	callAs(t, replicas[0].HubRPC(), key, "knowledge/update", map[string]any{"mutations": []any{map[string]any{"op": "add", "statement": map[string]any{
		"subject": map[string]any{"id": "ex:team"}, "predicate": map[string]any{"id": "ex:runs"}, "object": map[string]any{"id": "ex:three-replicas"}, "certainty": 1}}}}, &upd)
	var gz struct{ Data []map[string]any }
	callAs(t, replicas[1].HubRPC(), key, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<ex:team>").Out("<ex:runs>").All()`}, &gz)
	if len(gz.Data) != 1 || gz.Data[0]["id"] != "<ex:three-replicas>" {
		t.Fatalf("replica 1 does not see replica 0's update: %v", gz.Data)
	}

	// A long task on replica 2's demo agent: it dies with its replica.
	send := v1Message("slow 600")
	send["configuration"] = map[string]any{"returnImmediately": true}
	orphan := str(at(decode(t, call(t, replicas[2].DemoRPC(), "SendMessage", send)), "task"), "id")

	const publishers, total, killAt = 16, 320, 120
	var (
		mu      sync.Mutex
		acked   = map[string]chanEvent{} // idempotency key → acknowledged event
		retried int
		count   atomic.Int64
		killed  = make(chan struct{})
		once    sync.Once
		wg      sync.WaitGroup
	)
	for w := range publishers {
		wg.Go(func() {
			for i := 0; count.Load() < total; i++ {
				k := fmt.Sprintf("w%d-%d", w, i)
				params := map[string]any{"channelId": ch, "idempotencyKey": k, "parts": []any{map[string]any{"type": "text", "text": k}}}
				// A call cut by the kill is retried with its key, as a client would: stored once either way.
				var ev chanEvent
				for attempt := 0; ; attempt++ {
					got, e, ok := tryPublish(proxyRPC, key, params)
					if ok && e == nil {
						ev = got
						break
					}
					if ok || attempt == 20 {
						t.Errorf("publish %s: %+v (attempt %d)", k, e, attempt)
						return
					}
					mu.Lock()
					retried++
					mu.Unlock()
					time.Sleep(100 * time.Millisecond)
				}
				mu.Lock()
				acked[k] = ev
				mu.Unlock()
				if count.Add(1) == killAt {
					once.Do(func() { replicas[2].kill9(); close(killed) })
				}
			}
		})
	}
	wg.Wait()
	<-killed
	if t.Failed() {
		return
	}

	events := storedOnceEach(t, proxyRPC, key, ch, acked)
	for i, s := range streams[:2] {
		got := s.waitFor(len(events))
		if len(got) != len(events) {
			t.Fatalf("replica %d's stream delivered %d of %d events", i, len(got), len(events))
		}
		for j, seq := range got {
			if seq != int64(j+1) {
				t.Fatalf("replica %d's stream: event %d has sequence %d (gap or duplicate)", i, j, seq)
			}
		}
	}
	t.Logf("%d events from %d publishers through the proxy, %d calls cut by the kill and retried; both surviving streams complete", len(events), publishers, retried)

	// The dead replica's task: failed by a survivor once its lease expired, never left working.
	deadline := time.Now().Add(eventDeadline)
	for {
		task := decode(t, call(t, replicas[0].DemoRPC(), "GetTask", byID(orphan)))
		state := str(task, "status", "state")
		if state == "TASK_STATE_FAILED" {
			t.Logf("the dead replica's task: %s %q", state, textOf(list(task, "status", "message", "parts")))
			break
		}
		if state != "TASK_STATE_WORKING" || time.Now().After(deadline) {
			t.Fatalf("the dead replica's task is %s (%s), want failed once its lease expired", state, pretty(task))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// storageDown is what a call answers while the hub's database cannot be reached.
const storageDown = "storage unavailable: the hub's database cannot be reached; retry shortly"

// Two replicas on a PostgreSQL server of the test's own, under 8 publishers, while that server
// stops and starts again: every call answers at once with the storage error (HTTP 503, or the
// JSON-RPC error naming storage), never a driver's text; once the server is back both replicas
// serve again by themselves (neither restarted); the publishers retry with their idempotency keys,
// and afterwards every acknowledged event is there once, with contiguous sequences.
func TestTeamHubRidesOutAPostgresRestart(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("replicas share a PostgreSQL database: a PostgreSQL test run's case (make test runs one: suite go-postgres)")
	}
	c, err := storetest.StartCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Remove)
	database := c.URL("postgres")
	key := addPrincipalOn(t, database, "alice")
	replicas := startReplicas(t, 2, database)
	var created struct{ Channel struct{ ID string } }
	callAs(t, replicas[0].HubRPC(), key, "channels/create", map[string]any{"name": "restart"}, &created)
	ch := created.Channel.ID

	const publishers = 8
	var (
		mu          sync.Mutex
		acked       = map[string]chanEvent{}
		downAnswers = map[string]int{} // how calls answered while the server was down, by kind
		phase       atomic.Int32       // 0 before the stop, 1 stopped, 2 started again
		afterStart  atomic.Int64       // publishes acknowledged after the restart
		stop        = make(chan struct{})
		wg          sync.WaitGroup
	)
	for w := range publishers {
		wg.Go(func() {
			url := replicas[w%2].HubRPC()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := fmt.Sprintf("w%d-%d", w, i)
				params := map[string]any{"channelId": ch, "idempotencyKey": k, "parts": []any{map[string]any{"type": "text", "text": k}}}
				for {
					status, ev, e, body, err := publishOnce(url, key, params)
					if err == nil && e == nil && ev.ID != "" {
						mu.Lock()
						acked[k] = ev
						mu.Unlock()
						if phase.Load() == 2 {
							afterStart.Add(1)
						}
						break
					}
					kind := fmt.Sprintf("HTTP %d %v %.200s", status, err, body)
					switch {
					case e != nil && e.Code == -32603 && e.Message == storageDown:
						kind = "JSON-RPC -32603 storage unavailable"
					case status == http.StatusServiceUnavailable && strings.Contains(body, "storage unavailable"):
						kind = "HTTP 503 storage unavailable"
					}
					mu.Lock()
					downAnswers[kind]++
					mu.Unlock()
					if phase.Load() == 0 {
						t.Errorf("publish %s failed before the stop: %s", k, kind)
						return
					}
					time.Sleep(50 * time.Millisecond) // then the same key again
				}
			}
		})
	}
	waitUntil := func(what string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute) // a hang guard, not a timing assertion
		for !done() {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("%s: not within a minute", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	waitUntil("publishes before the stop", func() bool { return count() >= 100 })
	phase.Store(1)
	c.Stop()
	downCalls := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, v := range downAnswers {
			n += v
		}
		return n
	}
	waitUntil("calls answered while the server is down", func() bool { return downCalls() >= 4*publishers })
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	phase.Store(2)
	waitUntil("publishes after the server is back", func() bool { return afterStart.Load() >= 100 })
	close(stop)
	wg.Wait()

	mu.Lock()
	for kind, n := range downAnswers {
		t.Logf("while down: %d × %s", n, kind)
		if kind != "JSON-RPC -32603 storage unavailable" && kind != "HTTP 503 storage unavailable" {
			t.Errorf("a call while the server was down answered %s", kind)
		}
	}
	mu.Unlock()
	events := storedOnceEach(t, replicas[1].HubRPC(), key, ch, acked)
	t.Logf("%d events, %d of them after the restart; both replicas kept running", len(events), afterStart.Load())
	for _, r := range replicas {
		if !r.running() {
			t.Fatalf("%s exited", r.name)
		}
	}
}

// storedOnceEach reads the channel's history and checks it against what the publishers were
// acknowledged (by idempotency key): contiguous sequences, each key stored once, every acknowledged
// event there as answered, nothing else.
func storedOnceEach(t *testing.T, url, key, ch string, acked map[string]chanEvent) []chanEvent {
	t.Helper()
	events := allEvents(t, url, key, ch)
	byKey := map[string]chanEvent{}
	for i, ev := range events {
		if ev.Sequence != int64(i+1) {
			t.Fatalf("event %d of %d has sequence %d: not contiguous", i, len(events), ev.Sequence)
		}
		if _, dup := byKey[ev.Idem]; dup {
			t.Fatalf("idempotency key %s stored twice", ev.Idem)
		}
		byKey[ev.Idem] = ev
	}
	for k, ev := range acked {
		if got, ok := byKey[k]; !ok || got.ID != ev.ID || got.Sequence != ev.Sequence {
			t.Fatalf("acknowledged %s (%+v) is %+v in the history", k, ev, got)
		}
	}
	if len(events) != len(acked) {
		t.Fatalf("%d events stored, %d acknowledged", len(events), len(acked))
	}
	return events
}
