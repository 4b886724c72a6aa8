package agents

import (
	"context"
	"fmt"
	"iter"
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
)

// sdkClient speaks v1.0 or v0.3 through a2a-go/v2's own client: its v1.0 JSON-RPC transport, or
// its a2av0 compat transport, which converts v0.3 shapes to v1.0 types at the edge.
type sdkClient struct {
	client  *a2aclient.Client
	dialect Dialect
}

func newSDKClient(ctx context.Context, ep Endpoint, hc *http.Client, g grpcSetup) (*sdkClient, error) {
	iface := &a2a.AgentInterface{URL: ep.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, Tenant: ep.Tenant}
	var transport a2aclient.FactoryOption
	switch {
	case ep.Binding == HTTPJSON && ep.Dialect == V10:
		iface.ProtocolBinding, iface.ProtocolVersion = a2a.TransportProtocolHTTPJSON, a2a.Version
		transport = a2aclient.WithRESTTransport(hc)
	case ep.Binding == HTTPJSON && ep.Dialect == V03:
		iface.ProtocolBinding, iface.ProtocolVersion = a2a.TransportProtocolHTTPJSON, a2av0.Version
		transport = a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc})
	case ep.Binding == GRPC && ep.Dialect == V10:
		iface.ProtocolBinding, iface.ProtocolVersion = a2a.TransportProtocolGRPC, a2a.Version
		iface.URL, _ = grpcTarget(ep.URL)
		transport = grpcTransport(ep, g)
	case ep.Binding != JSONRPC:
		return nil, fmt.Errorf("the hub does not speak %s in %s", ep.Binding, ep.Dialect)
	case ep.Dialect == V10:
		iface.ProtocolVersion = a2a.Version
		transport = a2aclient.WithJSONRPCTransport(hc)
	case ep.Dialect == V03:
		iface.ProtocolVersion = a2av0.Version
		transport = a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc})
	default:
		return nil, fmt.Errorf("a2a-go has no client for dialect %q", ep.Dialect)
	}
	return newSDKClientWith(ctx, ep, iface, transport)
}

func newSDKClientWith(ctx context.Context, ep Endpoint, iface *a2a.AgentInterface, transport a2aclient.FactoryOption) (*sdkClient, error) {
	// Defaults disabled: they would add a second JSON-RPC transport with a 3-minute timeout.
	client, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{iface}, a2aclient.WithDefaultsDisabled(), transport)
	if err != nil {
		return nil, err
	}
	return &sdkClient{client: client, dialect: ep.Dialect}, nil
}

// returnImmediatelyKey marks a send context of a Conn with ReturnImmediately set.
type returnImmediatelyKey struct{}

func (s *sdkClient) Send(ctx context.Context, msg *a2a.Message) (a2a.SendMessageResult, error) {
	req := &a2a.SendMessageRequest{Message: msg}
	if now, _ := ctx.Value(returnImmediatelyKey{}).(bool); now {
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	}
	return s.client.SendMessage(ctx, req)
}

func (s *sdkClient) Stream(ctx context.Context, msg *a2a.Message) iter.Seq2[a2a.Event, error] {
	return s.client.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: msg})
}

func (s *sdkClient) GetTask(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	return s.client.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
}

func (s *sdkClient) Cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	return s.client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
}

func (s *sdkClient) Subscribe(ctx context.Context, id a2a.TaskID) iter.Seq2[a2a.Event, error] {
	return s.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id})
}

func (s *sdkClient) Close() error { return s.client.Destroy() }
