package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/agenthub/agenthub/backend/agents/credentials"
	"github.com/agenthub/agenthub/backend/agents/wirelog"
)

// Clients hands out one connection per registered agent, built from its card as last fetched, with
// an HTTP client that applies the owner's saved credentials and records the raw exchange. A refreshed
// card gets a new connection; a removed agent gets none.
type Clients struct {
	registry *Registry
	secrets  credentials.Secrets
	wire     wirelog.Recorder

	mu    sync.Mutex
	conns map[string]cachedConn
}

type cachedConn struct {
	fetchedAt time.Time // of the card it was built from
	binding   Binding   // the owner's choice it was built with
	conn      *Conn
	// hc is the HTTP client conn was dialed with (credentials, wire log, OAuth2 token cache),
	// shared by the agent's extension calls.
	hc *http.Client
}

// NewClients returns the connection cache. wire may be nil.
func NewClients(registry *Registry, secrets credentials.Secrets, wire wirelog.Recorder) *Clients {
	return &Clients{registry: registry, secrets: secrets, wire: wire, conns: map[string]cachedConn{}}
}

// Conn returns the connection to a registered agent (ErrNotFound for any other id). No network I/O.
func (c *Clients) Conn(ctx context.Context, agentID string) (*Conn, error) {
	cached, _, err := c.cached(ctx, agentID)
	return cached.conn, err
}

// client returns a registered agent as registered now and the HTTP client its Conn uses.
func (c *Clients) client(ctx context.Context, agentID string) (Remote, *http.Client, error) {
	cached, rem, err := c.cached(ctx, agentID)
	return rem, cached.hc, err
}

func (c *Clients) cached(ctx context.Context, agentID string) (cachedConn, Remote, error) {
	rem, err := c.registry.Get(ctx, agentID)
	if err != nil {
		c.drop(agentID)
		return cachedConn{}, Remote{}, err
	}
	if !rem.Trust.Usable() {
		return cachedConn{}, Remote{}, rem.Trust.untrusted(rem.Name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.conns[agentID]; ok && cached.fetchedAt.Equal(rem.FetchedAt) && cached.binding == rem.Binding {
		return cached, rem, nil
	}
	hc := credentials.NewHTTPClient(agentID, rem.Card, c.secrets, c.wire)
	conn, err := DialPreferring(ctx, rem.Card, hc, rem.Binding)
	if err != nil {
		return cachedConn{}, Remote{}, err
	}
	conn.ReturnImmediately = true // conversations poll agents that don't stream, showing progress
	if old, ok := c.conns[agentID]; ok {
		old.conn.Close()
	}
	cached := cachedConn{fetchedAt: rem.FetchedAt, binding: rem.Binding, conn: conn, hc: hc}
	c.conns[agentID] = cached
	return cached, rem, nil
}

// Dialect is the dialect the agent's connection uses now, "" when none was opened yet.
func (c *Clients) Dialect(agentID string) Dialect {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.conns[agentID]; ok {
		return cached.conn.Dialect()
	}
	return ""
}

// DialOnly opens a connection of its own to the added agent, with its saved credentials and the wire
// log, kept to dialect d ("" for any) and binding b (Automatic: any, the owner's choice first): for a
// scenario run, which must neither share nor move the conversations' connection. The caller closes it.
func (c *Clients) DialOnly(ctx context.Context, agentID string, d Dialect, b Binding) (*Conn, error) {
	rem, err := c.registry.Get(ctx, agentID)
	if err != nil {
		return nil, err
	}
	if !rem.Trust.Usable() {
		return nil, rem.Trust.untrusted(rem.Name)
	}
	hc := credentials.NewHTTPClient(agentID, rem.Card, c.secrets, c.wire)
	if b == Automatic {
		return dialWith(ctx, rem.Card, hc, d, rem.Binding, false)
	}
	return DialOnly(ctx, rem.Card, hc, d, b)
}

// Binding is the binding the agent's connection uses now, and whether one was opened.
func (c *Clients) Binding(agentID string) (Binding, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.conns[agentID]; ok {
		return cached.conn.Endpoint().Binding, true
	}
	return "", false
}

// Secrets is where the owner's credentials are kept.
func (c *Clients) Secrets() credentials.Secrets { return c.secrets }

// ErrBadCredential means a credential that does not fit: the card declares no such scheme, the scheme
// cannot be used, or a field its kind needs is empty.
var ErrBadCredential = errors.New("credential does not fit the agent's card")

// SaveCredential keeps the owner's credential for one scheme of a registered agent's card. Only the
// fields the scheme's kind uses are kept.
func (c *Clients) SaveCredential(ctx context.Context, agentID, scheme string, s credentials.Secret) error {
	rem, err := c.registry.Get(ctx, agentID)
	if err != nil {
		return err
	}
	sc, ok := credentials.CardAuth(rem.Card).Scheme(scheme)
	if !ok {
		return fmt.Errorf("%w: it declares no security scheme %q", ErrBadCredential, scheme)
	}
	var kept credentials.Secret
	switch sc.Kind {
	case credentials.SchemeAPIKey:
		kept.APIKey = s.APIKey
	case credentials.SchemeBearer:
		kept.Token = s.Token
	case credentials.SchemeOAuth2:
		kept.ClientID, kept.ClientSecret = s.ClientID, s.ClientSecret
	default:
		return fmt.Errorf("%w: scheme %q cannot be used by AgentHub: %s", ErrBadCredential, scheme, sc.Unsupported)
	}
	if !credentials.Covers(kept, sc) {
		return fmt.Errorf("%w: scheme %q needs the %s", ErrBadCredential, scheme, sc.Hint())
	}
	return c.secrets.Put(agentID, scheme, kept)
}

// ForgetCredential drops the owner's credential for one scheme of a registered agent.
func (c *Clients) ForgetCredential(ctx context.Context, agentID, scheme string) error {
	if _, err := c.registry.Get(ctx, agentID); err != nil {
		return err
	}
	return c.secrets.Delete(agentID, scheme)
}

// AuthStatus is what a registered agent's card asks for, and what of it the owner has saved.
type AuthStatus struct {
	Needs     credentials.AuthNeeds
	Saved     map[string]bool // by scheme name
	Satisfied bool            // no credential is required, or the saved ones cover an alternative
}

// AuthStatus reads the agent's needs from its card and checks them against the saved credentials.
func (c *Clients) AuthStatus(rem Remote) AuthStatus {
	st := AuthStatus{Needs: credentials.CardAuth(rem.Card), Saved: map[string]bool{}}
	secrets := map[string]credentials.Secret{}
	for _, s := range st.Needs.Schemes {
		if sec, ok, _ := c.secrets.Get(rem.ID, s.Name); ok && credentials.Covers(sec, s) {
			secrets[s.Name], st.Saved[s.Name] = sec, true
		}
	}
	st.Satisfied = !st.Needs.Required || st.Needs.Choose(secrets) != nil
	return st
}

// Forget drops what is kept for a removed agent: its connection and its saved credentials.
func (c *Clients) Forget(agentID string) error {
	c.drop(agentID)
	return c.secrets.DeleteAgent(agentID)
}

func (c *Clients) drop(agentID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.conns[agentID]; ok {
		cached.conn.Close()
		delete(c.conns, agentID)
	}
}

// Failure kinds of a call to an agent, as Classify names them.
const (
	FailAuth     = "auth"     // the agent wants credentials, or refused the ones given
	FailNetwork  = "network"  // the agent could not be reached, or the connection broke
	FailRemote   = "remote"   // the agent answered with an A2A / JSON-RPC error
	FailProtocol = "protocol" // the agent answered something that is not A2A
	FailTrust    = "trust"    // the agent's card signature is invalid or its key changed, not yet confirmed
)

// a2aErrors are the protocol's own errors; a call failing with one of them was answered by the agent.
var a2aErrors = []error{a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrPushNotificationNotSupported,
	a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType, a2a.ErrInvalidAgentResponse, a2a.ErrMethodNotFound,
	a2a.ErrInvalidParams, a2a.ErrInvalidRequest, a2a.ErrParseError, a2a.ErrInternalError, a2a.ErrServerError,
	a2a.ErrExtendedCardNotConfigured, a2a.ErrExtensionSupportRequired, a2a.ErrVersionNotSupported,
	a2a.ErrUnauthenticated, a2a.ErrUnauthorized}

// Classify says what kind of failure err is, and in words the owner can act on.
func Classify(err error) (kind, message string) {
	if errors.Is(err, ErrCardUntrusted) {
		return FailTrust, err.Error()
	}
	var auth *credentials.AuthError
	if errors.As(err, &auth) {
		return FailAuth, auth.Error()
	}
	if errors.Is(err, a2a.ErrUnauthenticated) || errors.Is(err, a2a.ErrUnauthorized) {
		return FailAuth, err.Error()
	}
	for _, known := range a2aErrors {
		if errors.Is(err, known) {
			return FailRemote, "the agent answered: " + err.Error()
		}
	}
	var netErr net.Error
	var urlErr *url.Error
	if errors.As(err, &netErr) || errors.As(err, &urlErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return FailNetwork, "cannot reach the agent: " + err.Error()
	}
	return FailProtocol, err.Error()
}
