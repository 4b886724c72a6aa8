package agents

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/url"

	"github.com/a2aproject/a2a-go/v2/a2aclient"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	grpccreds "google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

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

// grpcTransport is a2a-go/v2's v1.0 gRPC transport to ep's target, carrying what hc carries over HTTP
// (its credentials, its wire log: see credentials.GRPCDialOptions) and the same cap on what one
// message may be.
func grpcTransport(ep Endpoint, hc *http.Client) a2aclient.FactoryOption {
	_, secure := grpcTarget(ep.URL)
	creds := insecure.NewCredentials()
	if secure {
		creds = grpccreds.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	if g, ok := hc.Transport.(streamGuard); ok { // the guard is for HTTP bodies; gRPC caps its messages itself
		hc = &http.Client{Transport: g.base}
	}
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(jsonrpc.MaxJSONBody))}, credentials.GRPCDialOptions(hc)...)
	return grpcv1.WithGRPCTransport(opts...)
}
