package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// failingHandler fails GetTask on the store and ListTasks on something else.
type failingHandler struct{ a2asrv.RequestHandler }

func (failingHandler) GetTask(context.Context, *a2a.GetTaskRequest) (*a2a.Task, error) {
	return nil, storeDown
}

func (failingHandler) ListTasks(context.Context, *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	return nil, notStorage
}

// The REST binding tells a client no more of an internal failure than JSON-RPC does: the database
// down is 503 with Retry-After and the storage message, anything else a bare internal error; the log
// keeps the cause.
func TestRESTHidesInternalErrors(t *testing.T) {
	var logged bytes.Buffer
	rt := &router{maxBody: 1 << 20, log: slog.New(slog.NewTextHandler(&logged, nil)), bodyTimeout: time.Second,
		writeTimeout: time.Second, streams: newStreamLimits(4, 4)}
	pass := func(context.Context, *request) error { return nil }
	srv := httptest.NewServer(newRESTBinding(failingHandler{}, rt, nil, pass, pass, pass))
	defer srv.Close()
	get := func(path string) (*http.Response, string) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := get("/tasks/t1")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, storageMessage) ||
		!strings.Contains(body, `"code":503`) {
		t.Errorf("the store down: HTTP %d %s", resp.StatusCode, body)
	}
	noInternals(t, "get", body)
	resp, body = get("/tasks")
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, `"message":"internal error"`) || strings.Contains(body, "unexpected end") {
		t.Errorf("an internal error: HTTP %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(logged.String(), "10.0.0.7") || !strings.Contains(logged.String(), "unexpected end") {
		t.Errorf("the log lost the causes:\n%s", logged.String())
	}
}

// The gRPC binding hides them as well: the database down is UNAVAILABLE with the storage message,
// anything else a bare INTERNAL; the log keeps the cause.
func TestGRPCHidesInternalErrors(t *testing.T) {
	var logged bytes.Buffer
	rt := &router{maxBody: 1 << 20, log: slog.New(slog.NewTextHandler(&logged, nil)), streams: newStreamLimits(4, 4)}
	pass := func(context.Context, *request) error { return nil }
	s := &Server{Handler: failingHandler{}, grpc: newGRPCBinding(Config{Logger: rt.log}, rt, failingHandler{}, grpcChecks{send: pass, subscribe: pass}, grpcChecks{send: pass})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := s.GRPCServer()
	go srv.Serve(ln)
	defer srv.Stop()
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := a2apb.NewA2AServiceClient(conn)
	_, err = client.GetTask(t.Context(), &a2apb.GetTaskRequest{Id: "t1"})
	if st, _ := status.FromError(err); st.Code() != codes.Unavailable || st.Message() != storageMessage {
		t.Errorf("the store down: %v", err)
	}
	noInternals(t, "get", fmt.Sprint(err))
	_, err = client.ListTasks(t.Context(), &a2apb.ListTasksRequest{})
	if st, _ := status.FromError(err); st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Errorf("an internal error: %v", err)
	}
	if !strings.Contains(logged.String(), "10.0.0.7") || !strings.Contains(logged.String(), "unexpected end") {
		t.Errorf("the log lost the causes:\n%s", logged.String())
	}
}
