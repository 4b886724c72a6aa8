package agents

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	grpccreds "google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/jsonrpc"
)

// grpcTarget reads a gRPC endpoint's address: the host:port to dial, and whether over TLS. A URL's
// scheme says it (https and grpcs: TLS; http and grpc: plaintext); a bare host:port is plaintext on
// loopback only, as a hub without --tls-cert serves it, and TLS anywhere else, so no credential
// crosses a network in the clear.
func grpcTarget(address string) (target string, secure bool) {
	if u, err := url.Parse(address); err == nil && u.Host != "" {
		port := u.Port()
		if port == "" {
			port = map[string]string{"https": "443", "grpcs": "443", "http": "80", "grpc": "80"}[u.Scheme]
		}
		return net.JoinHostPort(u.Hostname(), port), u.Scheme == "https" || u.Scheme == "grpcs"
	}
	host, _, _ := net.SplitHostPort(address)
	ip := net.ParseIP(host)
	return address, !(host == "localhost" || (ip != nil && ip.IsLoopback()))
}

// grpcSetup is what a gRPC connection to the agent carries that its HTTP client carries over HTTP:
// hc is the client as dialed (credentials.NewHTTPClient's: credentials and wire log), extensions the
// extension URIs every request activates.
type grpcSetup struct {
	hc         *http.Client
	extensions []string
}

// grpcTransport is a2a-go/v2's v1.0 gRPC transport to ep's target, with g's credentials and wire log
// (credentials.GRPCDialOptions), its extensions in both activation headers as metadata, and the same
// cap on what one message may be.
func grpcTransport(ep Endpoint, g grpcSetup) a2aclient.FactoryOption {
	_, secure := grpcTarget(ep.URL)
	creds := insecure.NewCredentials()
	if secure {
		creds = grpccreds.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(jsonrpc.MaxJSONBody))}, credentials.GRPCDialOptions(g.hc)...)
	if len(g.extensions) > 0 {
		value := strings.Join(g.extensions, ", ")
		md := func(ctx context.Context) context.Context {
			return metadata.AppendToOutgoingContext(ctx, "a2a-extensions", value, "x-a2a-extensions", value)
		}
		opts = append(opts,
			grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, o ...grpc.CallOption) error {
				return invoker(md(ctx), method, req, reply, cc, o...)
			}),
			grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, o ...grpc.CallOption) (grpc.ClientStream, error) {
				return streamer(md(ctx), desc, cc, method, o...)
			}))
	}
	return grpcv1.WithGRPCTransport(opts...)
}
