package credentials

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// GRPCDialOptions are what a gRPC connection to the agent needs to behave as hc (a NewHTTPClient
// client) does over HTTP: the same saved credentials on every call (as metadata: x-api-key,
// authorization), an OAuth2 token fetched and refreshed the same way, an UNAUTHENTICATED or
// PERMISSION_DENIED answer turned into an *AuthError, and every call in the wire log (method,
// status, each message as JSON), masked. Nil for a client that is not NewHTTPClient's.
func GRPCDialOptions(hc *http.Client) []grpc.DialOption {
	if hc == nil {
		return nil
	}
	t, ok := hc.Transport.(*authTransport)
	if !ok {
		return nil
	}
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(t.grpcUnary), grpc.WithChainStreamInterceptor(t.grpcStream)}
}

// grpcCall prepares one call: the credentials of the chosen schemes as outgoing metadata.
func (t *authTransport) grpcCall(ctx context.Context, callID, target, method string) (context.Context, map[string]string, []Scheme, map[string]Secret, *wirelog.Masker, http.Header, error) {
	saved, err := t.load()
	if err != nil {
		return nil, nil, nil, nil, nil, nil, err
	}
	alt := t.needs.Choose(saved)
	// The schemes write headers on a request; the same headers go as metadata (a query-string key
	// has no place in gRPC and is not sent).
	req := &http.Request{Header: http.Header{}, URL: &url.URL{Scheme: "grpc", Host: target, Path: method}}
	used, err := t.apply(context.WithValue(ctx, callIDKey{}, callID), req, alt, saved)
	m := t.masker(saved)
	if err != nil {
		t.tap.RecordCall(wirelog.Entry{CallID: callID, Kind: "error", Method: method, URL: target, Body: m.Text(err.Error())})
		return nil, nil, nil, nil, nil, nil, err
	}
	var pairs []string
	for k, vs := range req.Header {
		for _, v := range vs {
			pairs = append(pairs, strings.ToLower(k), v)
		}
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...), used, alt, saved, m, req.Header, nil
}

func (t *authTransport) grpcUnary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	callID := uuid.NewString()
	for attempt := 0; ; attempt++ {
		cctx, used, alt, saved, m, header, err := t.grpcCall(ctx, callID, cc.Target(), method)
		if err != nil {
			return err
		}
		start := time.Now()
		t.tap.RecordCall(wirelog.Entry{CallID: callID, At: start, Kind: "request", Method: method, URL: cc.Target(),
			Header: m.Header(header), Body: m.Text(messageJSON(req))})
		err = invoker(cctx, method, req, reply, cc, opts...)
		st := status.Convert(err)
		body := st.Message()
		if err == nil {
			body = messageJSON(reply)
		}
		t.tap.RecordCall(wirelog.Entry{CallID: callID, Kind: "response", Method: method, URL: cc.Target(), Duration: time.Since(start),
			Header: map[string]string{"grpc-status": st.Code().String()}, Body: m.Text(body)})
		if st.Code() == codes.Unauthenticated && attempt == 0 && len(used) > 0 {
			for scheme, access := range used {
				t.tokens[scheme].drop(access) // fetched again on the retry
			}
			continue
		}
		return t.grpcRefused(err, alt, saved, m)
	}
}

func (t *authTransport) grpcStream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	callID := uuid.NewString()
	cctx, used, alt, saved, m, header, err := t.grpcCall(ctx, callID, cc.Target(), method)
	if err != nil {
		return nil, err
	}
	s := &loggedStream{t: t, callID: callID, method: method, target: cc.Target(), start: time.Now(), used: used, alt: alt, saved: saved, m: m, header: header}
	cs, err := streamer(cctx, desc, cc, method, opts...)
	if err != nil {
		s.end(err)
		return nil, t.grpcRefused(err, alt, saved, m)
	}
	s.ClientStream = cs
	return s, nil
}

// loggedStream records a streaming call: its request when sent, each message received as an event,
// and how it ended.
type loggedStream struct {
	grpc.ClientStream
	t              *authTransport
	callID, method string
	target         string
	start          time.Time
	used           map[string]string
	alt            []Scheme
	saved          map[string]Secret
	m              *wirelog.Masker
	header         http.Header
	ended          bool
}

func (s *loggedStream) SendMsg(msg any) error {
	s.t.tap.RecordCall(wirelog.Entry{CallID: s.callID, At: s.start, Kind: "request", Method: s.method, URL: s.target,
		Header: s.m.Header(s.header), Body: s.m.Text(messageJSON(msg))})
	return s.ClientStream.SendMsg(msg)
}

func (s *loggedStream) RecvMsg(msg any) error {
	err := s.ClientStream.RecvMsg(msg)
	if err == nil {
		s.t.tap.RecordCall(wirelog.Entry{CallID: s.callID, Kind: "event", Method: s.method, Duration: time.Since(s.start), Body: s.m.Text(messageJSON(msg))})
		return nil
	}
	s.end(err)
	if errors.Is(err, io.EOF) {
		return err
	}
	if status.Code(err) == codes.Unauthenticated {
		for scheme, access := range s.used {
			s.t.tokens[scheme].drop(access) // the next call fetches a fresh one
		}
	}
	return s.t.grpcRefused(err, s.alt, s.saved, s.m)
}

func (s *loggedStream) end(err error) {
	if s.ended {
		return
	}
	s.ended = true
	code := codes.OK
	body := ""
	if !errors.Is(err, io.EOF) {
		st := status.Convert(err)
		code, body = st.Code(), st.Message()
	}
	s.t.tap.RecordCall(wirelog.Entry{CallID: s.callID, Kind: "response", Method: s.method, URL: s.target, Duration: time.Since(s.start),
		Header: map[string]string{"grpc-status": code.String()}, Body: s.m.Text(body)})
}

// grpcRefused turns UNAUTHENTICATED and PERMISSION_DENIED into the *AuthError a 401 or 403 is over
// HTTP, so the person is asked for the same credentials whichever binding the hub speaks.
func (t *authTransport) grpcRefused(err error, alt []Scheme, saved map[string]Secret, m *wirelog.Masker) error {
	switch st := status.Convert(err); {
	case err == nil:
		return nil
	case st.Code() == codes.Unauthenticated:
		return t.refused(http.StatusUnauthorized, m.Text(st.Message()), alt, saved)
	case st.Code() == codes.PermissionDenied:
		return t.refused(http.StatusForbidden, m.Text(st.Message()), alt, saved)
	}
	return err
}

// messageJSON is a gRPC message as JSON for the wire log.
func messageJSON(msg any) string {
	if pm, ok := msg.(proto.Message); ok {
		if b, err := protojson.Marshal(pm); err == nil {
			return string(b)
		}
	}
	return ""
}
