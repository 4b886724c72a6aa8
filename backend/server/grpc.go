package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/agenthub/agenthub/backend/auth"
	"github.com/agenthub/agenthub/backend/tasks"
)

// The gRPC binding (A2A v1.0 §10) is a2a-go's gRPC handlers (v1.0's lf.a2a.v1.A2AService and
// v0.3's a2a.v1.A2AService, on one server) over the same request handler as JSON-RPC and REST. What
// the JSON-RPC router and the REST binding give every call, the interceptors and grpcChecks give
// every RPC: the caller's principal (the same authenticate, run on the call's metadata as headers),
// the dialect of the tasks it creates, the version header, the message size limit
// (RESOURCE_EXHAUSTED), the nesting limit, the send and subscribe prechecks, the stream limits,
// the end of a stream whose key is revoked, and no internal cause in an error. Refusals carry a
// google.rpc.ErrorInfo with the A2A reason, as a2a-go's client reads it.
//
// There is no Host/Origin guard: gRPC is HTTP/2 with prior knowledge, which no web page can speak,
// so neither a cross-site POST nor a rebound DNS name reaches a method (a browser's HTTP/1.1 request
// ends at the connection preface).

// grpcServices are the gRPC services the binding serves, and the dialect of each.
const (
	grpcServiceV1  = "/lf.a2a.v1.A2AService/"
	grpcServiceV03 = "/a2a.v1.A2AService/"
)

type grpcBinding struct {
	rt        *router      // streams and log: shared with JSON-RPC and REST
	admitCall http.Handler // authenticate and callerLocality over a call's metadata (see admit)
	// v1 and v03 are each service's prechecks, as JSON-RPC's methods of that dialect have them.
	v1, v03 grpcChecks
}

// GRPCServer is a gRPC server with the agent's binding registered; the caller serves it on its own
// listener (opts: e.g. grpc.Creds for TLS). Nil when the agent has no gRPC interface (Config.GRPCURL).
func (s *Server) GRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	if s.grpc == nil {
		return nil
	}
	b := s.grpc
	opts = append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(int(b.rt.maxBody)),
		grpc.ChainUnaryInterceptor(b.unary),
		grpc.ChainStreamInterceptor(b.stream),
	}, opts...)
	srv := grpc.NewServer(opts...)
	grpcv1.NewHandler(b.v1).RegisterWith(srv)
	grpcv0.NewHandler(b.v03).RegisterWith(srv)
	return srv
}

func newGRPCBinding(cfg Config, rt *router, handler a2asrv.RequestHandler, v1, v03 grpcChecks) *grpcBinding {
	v1.RequestHandler, v03.RequestHandler = handler, handler
	b := &grpcBinding{rt: rt, v1: v1, v03: v03}
	// The terminal handler hands the admitted context back through the admission it is given.
	var admitted http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(*grpcAdmission).ctx = r.Context()
	})
	if cfg.Auth != nil {
		admitted = authenticate(cfg.Auth, tokenURL(cfg), cfg.Logger, grpcRefuse, admitted)
	}
	b.admitCall = callerLocality(admitted)
	return b
}

// grpcAdmission is the http.ResponseWriter of a call's admission: authenticate answers a refusal
// into it (grpcRefuse), the terminal handler the admitted context.
type grpcAdmission struct {
	header  http.Header
	ctx     context.Context
	refusal error
}

func (a *grpcAdmission) Header() http.Header {
	if a.header == nil {
		a.header = http.Header{}
	}
	return a.header
}
func (a *grpcAdmission) Write(p []byte) (int, error) { return len(p), nil }
func (a *grpcAdmission) WriteHeader(int)             {}

// grpcRefuse turns authenticate's refusals into gRPC statuses.
func grpcRefuse(w http.ResponseWriter, status int, e *rpcError) {
	a := w.(*grpcAdmission)
	switch status {
	case http.StatusUnauthorized:
		a.refusal = grpcError(codes.Unauthenticated, a2a.ErrUnauthenticated, e.Message)
	case http.StatusForbidden:
		a.refusal = grpcError(codes.PermissionDenied, a2a.ErrUnauthorized, e.Message)
	case http.StatusServiceUnavailable:
		a.refusal = grpcError(codes.Unavailable, a2a.ErrInternalError, storageMessage)
	default:
		a.refusal = grpcError(codes.Internal, a2a.ErrInternalError, "internal error")
	}
}

// admit is what every call goes through before its method: the version it speaks, the dialect of
// the tasks it creates (by its service), and who it acts for. The call's metadata are its headers
// and its peer its remote address, so authenticate decides exactly as it does over HTTP (a loopback
// peer with no credential is anonymous, as far as the owner's policy allows).
func (b *grpcBinding) admit(ctx context.Context, fullMethod string) (context.Context, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	dialect := tasks.DialectV1
	if strings.HasPrefix(fullMethod, grpcServiceV03) {
		dialect = tasks.DialectV03
	} else if v := first(md, "a2a-version"); majorMinor(v) != "" && majorMinor(v) != "1.0" {
		return nil, grpcError(codes.FailedPrecondition, a2a.ErrVersionNotSupported,
			fmt.Sprintf("%v: a2a-version %q (lf.a2a.v1.A2AService speaks 1.0)", a2a.ErrVersionNotSupported, v))
	}
	ctx = tasks.WithDialect(ctx, dialect)
	r := (&http.Request{Method: http.MethodPost, URL: &url.URL{Path: fullMethod}, Header: http.Header{}, RemoteAddr: peerAddr(ctx),
		Host: first(md, ":authority")}).WithContext(ctx)
	for k, vs := range md {
		if !strings.HasPrefix(k, ":") {
			r.Header[textproto.CanonicalMIMEHeaderKey(k)] = vs
		}
	}
	adm := &grpcAdmission{}
	b.admitCall.ServeHTTP(adm, r)
	if adm.refusal != nil {
		return nil, adm.refusal
	}
	if adm.ctx == nil { // cannot happen: authenticate either refuses or calls the terminal handler
		return nil, grpcError(codes.Internal, a2a.ErrInternalError, "internal error")
	}
	return adm.ctx, nil
}

func (b *grpcBinding) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			logPanic(b.rt.log, "grpc binding", p)
			resp, err = nil, grpcError(codes.Internal, a2a.ErrInternalError, "internal error")
		}
	}()
	if ctx, err = b.admit(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	resp, err = handler(ctx, req)
	return resp, b.answer(info.FullMethod, err)
}

func (b *grpcBinding) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			logPanic(b.rt.log, "grpc binding", p)
			err = grpcError(codes.Internal, a2a.ErrInternalError, "internal error")
		}
	}()
	ctx, err := b.admit(ss.Context(), info.FullMethod)
	if err != nil {
		return err
	}
	release, rerr := b.rt.streams.acquire(peerAddr(ctx))
	if rerr != nil {
		return grpcError(codes.ResourceExhausted, errStreamLimit, rerr.Message)
	}
	defer release()
	// As on SSE: a stream ends, UNAUTHENTICATED, once the key or token it was opened with is revoked.
	ctx, stop := auth.UntilRevoked(ctx)
	defer stop()
	err = handler(srv, &grpcStream{ServerStream: ss, ctx: ctx})
	if errors.Is(context.Cause(ctx), auth.ErrRevoked) {
		return grpcError(codes.Unauthenticated, a2a.ErrUnauthenticated, auth.ErrRevoked.Error())
	}
	return b.answer(info.FullMethod, err)
}

// grpcStream is a server stream whose handler runs in the admitted context.
type grpcStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *grpcStream) Context() context.Context { return s.ctx }

// answer keeps the cause of an internal failure from the client, as JSON-RPC and REST do: a2a-go
// puts err.Error() (a database's error, a conversion's) in an INTERNAL status. The cause is logged;
// the client gets a bare internal error, or UNAVAILABLE when the database cannot be reached.
func (b *grpcBinding) answer(method string, err error) error {
	st, ok := status.FromError(err)
	if err == nil || !ok || (st.Code() != codes.Internal && st.Code() != codes.Unknown) {
		return err
	}
	if storageText(st.Message()) {
		b.rt.log.Warn("grpc call failed: storage unavailable", "method", method, "error", st.Message())
		return grpcError(codes.Unavailable, a2a.ErrInternalError, storageMessage)
	}
	if strings.Contains(st.Message(), listDataText) {
		// a2a-go's proto conversion takes only an object as a data part's value (the proto field is a
		// google.protobuf.Value): a list, as A2UI messages are, cannot be answered over gRPC here.
		b.rt.log.Warn("grpc call failed: a data part holds a list", "method", method, "error", st.Message())
		return grpcError(codes.Unimplemented, a2a.ErrUnsupportedOperation,
			"the answer holds a data part whose value is a list (A2UI messages are), which this hub's gRPC binding cannot carry yet; ask over JSON-RPC or HTTP+JSON")
	}
	b.rt.log.Error("grpc call failed", "method", method, "error", st.Message())
	return grpcError(codes.Internal, a2a.ErrInternalError, "internal error")
}

// listDataText is how a2a-go's proto conversion refuses a data part whose value is not an object.
const listDataText = "DataPart value must be a map for protobuf conversion"

// grpcError is a status with code and message, and the A2A reason of kind (a2a.ErrorReason) as a
// google.rpc.ErrorInfo, which a2a-go's client turns back into that error.
func grpcError(code codes.Code, kind error, message string) error {
	reason := a2a.ErrorReason(kind)
	if kind == errStreamLimit {
		reason = "STREAM_LIMIT"
	}
	st, err := status.New(code, message).WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: a2a.ProtocolDomain,
		Metadata: map[string]string{"timestamp": time.Now().UTC().Format(time.RFC3339)}})
	if err != nil {
		return status.Error(code, message)
	}
	return st.Err()
}

func first(md metadata.MD, key string) string {
	if vs := md.Get(key); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func peerAddr(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}

// grpcChecks runs a send's and a subscription's prechecks before the request handler, as the
// JSON-RPC router does before its methods, so their errors reach the client in a2a-go's mapping (a
// message to an ended task: FAILED_PRECONDITION). A send is read as its JSON, which is also where
// the nesting limit applies: a proto Struct nests as deep as JSON does.
type grpcChecks struct {
	a2asrv.RequestHandler
	send      func(ctx context.Context, r *request) error
	subscribe func(ctx context.Context, r *request) error // nil: none (v0.3, as on JSON-RPC)
}

func (h grpcChecks) checkSend(ctx context.Context, req *a2a.SendMessageRequest) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%w: %v", a2a.ErrInvalidParams, err)
	}
	if nestingDepth(body, MaxNestingDepth) > MaxNestingDepth {
		return fmt.Errorf("%w: the message nests deeper than the limit of %d levels", a2a.ErrInvalidRequest, MaxNestingDepth)
	}
	return h.send(ctx, &request{Params: body})
}

func (h grpcChecks) SendMessage(ctx context.Context, req *a2a.SendMessageRequest) (a2a.SendMessageResult, error) {
	if err := h.checkSend(ctx, req); err != nil {
		return nil, err
	}
	return h.RequestHandler.SendMessage(ctx, req)
}

func (h grpcChecks) SendStreamingMessage(ctx context.Context, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	if err := h.checkSend(ctx, req); err != nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
	}
	return h.RequestHandler.SendStreamingMessage(ctx, req)
}

func (h grpcChecks) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	if h.subscribe == nil {
		return h.RequestHandler.SubscribeToTask(ctx, req)
	}
	if err := h.subscribe(ctx, &request{Params: mustJSON(map[string]string{"id": string(req.ID)})}); err != nil {
		return func(yield func(a2a.Event, error) bool) { yield(nil, err) }
	}
	return h.RequestHandler.SubscribeToTask(ctx, req)
}
