package server_test

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/agenthub/agenthub/backend/bus"
	"github.com/agenthub/agenthub/backend/demoagent"
	"github.com/agenthub/agenthub/backend/server"
	"github.com/agenthub/agenthub/backend/store"
	"github.com/agenthub/agenthub/backend/tasks"
)

// BenchmarkSendMessage measures a full v1.0 SendMessage round trip (a2a-go client → HTTP on loopback →
// server → demo agent echo in 4 artifact chunks → completed) on AgentHub's stack, where every event is
// committed to SQLite with synchronous=FULL before it is answered, beside the peer: a2a-go's own
// JSON-RPC server with its default in-memory task store, running the same executor under the same load.
//
//	go test ./backend/server -run '^$' -bench SendMessage -benchtime 3s
func BenchmarkSendMessage(b *testing.B) {
	agent := &demoagent.Agent{Tick: 0}
	b.Run("agenthub-sqlite", func(b *testing.B) {
		db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		ts, err := tasks.Open(b.Context(), db, bus.New(), "bench")
		if err != nil {
			b.Fatal(err)
		}
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		srv, err := server.New(server.Config{Name: "bench", Executor: agent, Store: ts, PushConfigs: tasks.NewPushConfigs(db),
			BaseURL: "http://" + ln.Addr().String(), Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv.HTTPHandler()}}
		hs.Start()
		defer hs.Close()
		runSendMessage(b, hs.URL+server.RPCPath)
	})
	b.Run("a2a-go-inmemory", func(b *testing.B) {
		h := a2asrv.NewHandler(agent, a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
		hs := httptest.NewServer(a2asrv.NewJSONRPCHandler(h))
		defer hs.Close()
		runSendMessage(b, hs.URL)
	})
}

func runSendMessage(b *testing.B, url string) {
	client, err := a2aclient.NewFromEndpoints(b.Context(), []*a2a.AgentInterface{a2a.NewAgentInterface(url, a2a.TransportProtocolJSONRPC)})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		res, err := client.SendMessage(b.Context(), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("benchmark echo text"))})
		if err != nil {
			b.Fatal(err)
		}
		if task, ok := res.(*a2a.Task); !ok || task.Status.State != a2a.TaskStateCompleted {
			b.Fatalf("result %#v", res)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}
