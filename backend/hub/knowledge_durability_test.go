//go:build unix

package hub_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/agenthub/agenthub/backend/knowledge"
)

// TestKill9KnowledgeGraphAgreesWithLog: `agenthub serve` is killed with SIGKILL while two clients
// stream knowledge/update requests. After a restart every acknowledged update is there, and the
// Cayley graph (read by Gizmo) holds exactly the statements of the log (read by GraphQL from
// hub.db), whatever the kill interrupted.
func TestKill9KnowledgeGraphAgreesWithLog(t *testing.T) {
	data := t.TempDir()
	// Loopback anonymous callers may write in this test.
	rules, _ := json.Marshal(knowledge.Rules{Writers: []string{"*"}, MaxPatchSize: 10})
	if err := os.WriteFile(filepath.Join(data, knowledge.RulesFile), rules, 0o600); err != nil {
		t.Fatal(err)
	}
	p1 := startServe(t, "first serve", data)
	hub := p1.HubRPC()

	var mu sync.Mutex
	var acked []int
	killed := make(chan struct{})
	enough := make(chan struct{}) // 60 updates acknowledged: kill while more are in flight
	var once sync.Once
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += 2 {
				select {
				case <-killed:
					return
				default:
				}
				params := map[string]any{"mutations": []any{
					map[string]any{"op": "add", "statement": map[string]any{"subject": map[string]any{"id": "ex:crash"},
						"predicate": map[string]any{"id": "ex:has"}, "object": map[string]any{"id": fmt.Sprintf("ex:item%d", i)}}},
					map[string]any{"op": "replace", "statement": map[string]any{"subject": map[string]any{"id": "ex:counter"},
						"predicate": map[string]any{"id": "ex:value"}, "object": map[string]any{"value": i}}},
				}}
				if r, err := tryRPC(hub, "knowledge/update", params); err != nil || r.Error != nil {
					return // the kill: this one may or may not have been applied
				}
				mu.Lock()
				acked = append(acked, i)
				if len(acked) >= 60 {
					once.Do(func() { close(enough) })
				}
				mu.Unlock()
			}
		}()
	}
	select {
	case <-enough:
	case <-p1.exited:
		t.Fatal("serve died before the kill")
	}
	p1.kill9()
	close(killed)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()

	p2 := startServe(t, "second serve", data)
	hub = p2.HubRPC()
	var gz struct{ Data []map[string]string }
	json.Unmarshal(call(t, hub, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<ex:crash>").Out("<ex:has>").All()`}), &gz)
	var inGraph []string
	for _, r := range gz.Data {
		inGraph = append(inGraph, r["id"])
	}
	var q struct {
		Data struct {
			Statements struct{ Items []struct{ Object string } }
		}
	}
	json.Unmarshal(call(t, hub, "knowledge/query", map[string]any{"query": `{ statements(subject: "ex:crash", predicate: "ex:has", first: 1000) { items { object } } }`}), &q)
	var inLog []string
	for _, it := range q.Data.Statements.Items {
		inLog = append(inLog, "<"+it.Object+">")
	}
	slices.Sort(inGraph)
	slices.Sort(inLog)
	if !slices.Equal(inGraph, inLog) {
		t.Fatalf("graph and log disagree after kill -9:\ngraph %v\nlog   %v", inGraph, inLog)
	}
	for _, i := range acked {
		if !slices.Contains(inLog, fmt.Sprintf("<ex:item%d>", i)) {
			t.Fatalf("acknowledged update %d is lost (%d acknowledged, %d stored)", i, len(acked), len(inLog))
		}
	}
	// replace left exactly one counter, in the graph as in the log.
	var counter struct{ Data []map[string]any }
	json.Unmarshal(call(t, hub, "knowledge/query", map[string]any{"queryLanguage": "gizmo", "query": `g.V("<ex:counter>").Out("<ex:value>").All()`}), &counter)
	var c struct {
		Data struct {
			Statements struct{ Items []struct{ Value float64 } }
		}
	}
	json.Unmarshal(call(t, hub, "knowledge/query", map[string]any{"query": `{ statements(subject: "ex:counter") { items { value } } }`}), &c)
	if len(counter.Data) != 1 || len(c.Data.Statements.Items) != 1 || counter.Data[0]["id"] != c.Data.Statements.Items[0].Value {
		t.Fatalf("counter: graph %v, log %v", counter.Data, c.Data.Statements.Items)
	}
	t.Logf("%d updates acknowledged before the kill, %d stored", len(acked), len(inLog))
}

// tryRPC is one JSON-RPC call that reports failure instead of failing the test (for goroutines).
func tryRPC(url, method string, params any) (*rpcResponse, error) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": requestSeq.Add(1), "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r rpcResponse
	return &r, json.NewDecoder(resp.Body).Decode(&r)
}
