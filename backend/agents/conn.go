package agents

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/draft"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// dialectClient is one endpoint's client, speaking one dialect; results are always a2a-go v2 types.
type dialectClient interface {
	Send(ctx context.Context, msg *a2a.Message) (a2a.SendMessageResult, error)
	Stream(ctx context.Context, msg *a2a.Message) iter.Seq2[a2a.Event, error]
	GetTask(ctx context.Context, id a2a.TaskID) (*a2a.Task, error)
	Cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error)
	Subscribe(ctx context.Context, id a2a.TaskID) iter.Seq2[a2a.Event, error]
	SetPush(ctx context.Context, cfg *a2a.PushConfig) error
	ParsePush(body []byte) (a2a.Event, error)
	Close() error
}

// Conn talks to one remote agent, in whichever dialect its card and its answers say it speaks. Safe
// for concurrent use.
//
// A call that fails with JSON-RPC -32601 (method not found) before anything was yielded moves the
// Conn to the next of the card's Endpoints, retries the call there, and the Conn stays there. So does
// a call whose endpoint cannot be reached at all (nothing was sent), to the next endpoint at another
// address: JSON-RPC, then REST, then gRPC (A2A v1.0 §5.2).
type Conn struct {
	endpoints []Endpoint
	clients   []dialectClient // one per endpoint, same order
	streaming bool
	push      bool // the card says it sends push notifications
	// masker, when the Conn was dialed with credentials.NewHTTPClient's client, masks the agent's
	// secrets in everything the Conn returns.
	masker func() (*wirelog.Masker, error)
	// ReturnImmediately asks agents (v1.0 and v0.3) to answer a non-streaming send as soon as the task
	// exists rather than when it ends, so a caller that polls can show progress and cancel. Set it
	// before the first call.
	ReturnImmediately bool
	// a2ui: the A2UI extension URIs the card declares that the UI renders; each message carries the
	// UI's capabilities for them (a2ui.go)
	a2ui []string

	mu  sync.Mutex
	cur int // index into endpoints of the one in use
}

// Dial prepares a Conn for the agent the card (raw JSON as fetched) describes; it does no network
// I/O. hc carries credentials and logging; nil means a plain client. Either way no overall Timeout
// is added, since streams are long-lived: bound calls with ctx.
func Dial(ctx context.Context, card []byte, hc *http.Client) (*Conn, error) {
	return dial(ctx, card, hc, "")
}

// DialDialect is Dial keeping only the card's endpoints in dialect d (fallbacks included): for a
// caller that must talk one protocol version and never fall back to another. ErrNoEndpoint when
// there is none.
func DialDialect(ctx context.Context, card []byte, hc *http.Client, d Dialect) (*Conn, error) {
	return DialOnly(ctx, card, hc, d, Automatic)
}

// DialOnly is Dial keeping only the card's endpoints in dialect d ("" for any) over binding b
// (Automatic for any): for a caller that must not fall back to another (agenthub scenario run's
// dialect: and binding:). ErrNoEndpoint when there is none.
func DialOnly(ctx context.Context, card []byte, hc *http.Client, d Dialect, b Binding) (*Conn, error) {
	return dialWith(ctx, card, hc, d, b, true)
}

// DialPreferring is Dial with the card's endpoints of binding b tried first (in their order), then
// the others as Dial orders them: the binding the owner chose for the agent (Automatic: Dial's order).
func DialPreferring(ctx context.Context, card []byte, hc *http.Client, b Binding) (*Conn, error) {
	return dialWith(ctx, card, hc, "", b, false)
}

func dial(ctx context.Context, card []byte, hc *http.Client, only Dialect) (*Conn, error) {
	return dialWith(ctx, card, hc, only, Automatic, false)
}

// dialWith keeps the card's endpoints in dialect only ("" for all), and puts those over binding
// prefer first, or with onlyPrefer keeps only those.
func dialWith(ctx context.Context, card []byte, hc *http.Client, only Dialect, prefer Binding, onlyPrefer bool) (*Conn, error) {
	endpoints, err := Endpoints(card)
	if err != nil {
		return nil, err
	}
	if onlyPrefer && prefer != Automatic {
		endpoints = slices.DeleteFunc(endpoints, func(ep Endpoint) bool { return ep.Binding != prefer })
		if len(endpoints) == 0 {
			return nil, fmt.Errorf("%w over %s", ErrNoEndpoint, prefer.Name())
		}
	}
	if prefer != Automatic {
		rank := func(ep Endpoint) int {
			if ep.Binding == prefer {
				return 0
			}
			return 1
		}
		slices.SortStableFunc(endpoints, func(a, b Endpoint) int { return rank(a) - rank(b) })
	}
	if only != "" {
		endpoints = slices.DeleteFunc(endpoints, func(ep Endpoint) bool { return ep.Dialect != only })
		if len(endpoints) == 0 {
			return nil, fmt.Errorf("%w in dialect %s", ErrNoEndpoint, only)
		}
	}
	vault := AgentVault(card)
	c := &Conn{endpoints: endpoints, streaming: Streaming(card) || vault, push: PushNotifications(card)}
	c.masker = credentials.MaskerOf(hc)
	// gRPC calls carry what hc carries over HTTP (credentials, wire log, extension headers) as
	// metadata of their own: its dial options are made from hc as given.
	g := grpcSetup{hc: hc}
	hc = guardedClient(hc)
	if uris := A2UIExtensions(card); len(uris) > 0 {
		c.a2ui = uris
		hc = extensionHeaders(hc, uris)
		g.extensions = uris
	}
	for _, ep := range endpoints {
		var dc dialectClient
		if ep.Dialect == V01 {
			dc = draft.New(ep.URL, hc, vault)
		} else if dc, err = newSDKClient(ctx, ep, hc, g); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s endpoint %s: %w", ep.Dialect, ep.URL, err)
		}
		c.clients = append(c.clients, dc)
	}
	return c, nil
}

// Dialect is the dialect in use now; it changes when a method-not-found answer moves the Conn on.
func (c *Conn) Dialect() Dialect { return c.Endpoint().Dialect }

// Endpoint is the endpoint in use now.
func (c *Conn) Endpoint() Endpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.endpoints[c.cur]
}

// Streaming reports whether the agent's card says it streams (an AgentVault card always does).
func (c *Conn) Streaming() bool { return c.streaming }

// Send sends msg: a new task when msg.TaskID is empty, else a turn of that task; msg.ContextID
// continues a conversation. With stream true and a streaming agent, events are yielded as they
// arrive; otherwise the one result (*a2a.Task or *a2a.Message) is yielded once. An error is yielded
// at most once, and ends the sequence. Here and in every other call, the agent's saved secrets are
// masked in what is returned (see conn_mask.go).
func (c *Conn) Send(ctx context.Context, msg *a2a.Message, stream bool) iter.Seq2[a2a.Event, error] {
	return maskedSeq(c, c.send(ctx, msg, stream))
}

func (c *Conn) send(ctx context.Context, msg *a2a.Message, stream bool) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if msg == nil {
			yield(nil, fmt.Errorf("%w: no message to send", a2a.ErrInvalidParams))
			return
		}
		m := *msg // the caller's message is not changed
		if m.ID == "" {
			m.ID = a2a.NewMessageID()
		}
		if m.Role == a2a.MessageRoleUnspecified {
			m.Role = a2a.MessageRoleUser
		}
		if len(c.a2ui) > 0 {
			m.Metadata = withA2UICapabilities(m.Metadata, c.a2ui)
		}
		if stream && c.streaming {
			c.streamWithFallback(yield, func(dc dialectClient) iter.Seq2[a2a.Event, error] { return dc.Stream(ctx, &m) })
			return
		}
		if c.ReturnImmediately {
			ctx = context.WithValue(ctx, returnImmediatelyKey{}, true)
		}
		res, err := withFallback(c, func(dc dialectClient) (a2a.SendMessageResult, error) { return dc.Send(ctx, &m) })
		if err != nil {
			yield(nil, err)
			return
		}
		switch r := res.(type) {
		case *a2a.Task:
			if r != nil {
				yield(r, nil)
				return
			}
		case *a2a.Message:
			if r != nil {
				yield(r, nil)
				return
			}
		}
		yield(nil, fmt.Errorf("%w: agent sent no task or message", a2a.ErrInvalidAgentResponse))
	}
}

// GetTask fetches a task as the agent has it now.
func (c *Conn) GetTask(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	t, err := withFallback(c, func(dc dialectClient) (*a2a.Task, error) { return dc.GetTask(ctx, id) })
	return masked(c, t, err)
}

// Cancel asks the agent to cancel a task and returns the task as it then is.
func (c *Conn) Cancel(ctx context.Context, id a2a.TaskID) (*a2a.Task, error) {
	t, err := withFallback(c, func(dc dialectClient) (*a2a.Task, error) { return dc.Cancel(ctx, id) })
	return masked(c, t, err)
}

// Subscribe resubscribes to a running task's events.
func (c *Conn) Subscribe(ctx context.Context, id a2a.TaskID) iter.Seq2[a2a.Event, error] {
	return maskedSeq(c, func(yield func(a2a.Event, error) bool) {
		c.streamWithFallback(yield, func(dc dialectClient) iter.Seq2[a2a.Event, error] { return dc.Subscribe(ctx, id) })
	})
}

// Close releases the endpoints' clients.
func (c *Conn) Close() error {
	var errs []error
	for _, dc := range c.clients {
		errs = append(errs, dc.Close())
	}
	return errors.Join(errs...)
}

func (c *Conn) current() (int, dialectClient) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur, c.clients[c.cur]
}

// moveOn is called when a call to endpoint i failed with err. Method-not-found moves the Conn to the
// next endpoint; an address that cannot be reached, to the next endpoint at another address (the
// others at the same one cannot be reached either). Unless a concurrent call already moved it. It
// reports whether there is another endpoint to try.
func (c *Conn) moveOn(i int, err error) bool {
	notFound := isMethodNotFound(err)
	if !notFound && !unreachable(err) {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != i {
		return true
	}
	for j := i + 1; j < len(c.endpoints); j++ {
		if notFound || address(c.endpoints[j]) != address(c.endpoints[i]) {
			c.cur = j
			return true
		}
	}
	return false
}

func isMethodNotFound(err error) bool { return errors.Is(err, a2a.ErrMethodNotFound) }

// unreachable reports an error that says the call never reached the agent: its connection could not
// be made (refused, no route, no such host), so nothing was sent and trying elsewhere is safe.
func unreachable(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	// gRPC reports a connection it could not make as UNAVAILABLE "connection error: …"; a server's
	// own UNAVAILABLE (its database down) is an answer, and is not a reason to move on.
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Unavailable && strings.Contains(st.Message(), "connection error")
}

// address is where an endpoint is reached: its URL's scheme and host, or its gRPC target.
func address(ep Endpoint) string {
	if ep.Binding == GRPC {
		target, _ := grpcTarget(ep.URL)
		return "grpc://" + target
	}
	if u, err := url.Parse(ep.URL); err == nil {
		return u.Scheme + "://" + u.Host
	}
	return ep.URL
}

func withFallback[T any](c *Conn, call func(dialectClient) (T, error)) (T, error) {
	for {
		i, dc := c.current()
		v, err := call(dc)
		if err != nil && c.moveOn(i, err) {
			continue
		}
		return v, err
	}
}

// streamWithFallback yields open's events; a method-not-found error before the first event moves
// the Conn on and opens the stream again there.
func (c *Conn) streamWithFallback(yield func(a2a.Event, error) bool, open func(dialectClient) iter.Seq2[a2a.Event, error]) {
	for {
		i, dc := c.current()
		yielded, retry := false, false
		for ev, err := range open(dc) {
			if err != nil {
				if !yielded && c.moveOn(i, err) {
					retry = true
					break
				}
				yield(nil, err)
				return
			}
			if ev == nil {
				continue
			}
			yielded = true
			if !yield(ev, nil) {
				return
			}
		}
		if !retry {
			return
		}
	}
}
