package push

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	a2apush "github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"github.com/agenthub/agenthub/backend/store"
)

// Who may make the hub POST where. A push config makes the hub send requests to a URL of the
// caller's choosing, so a caller must not be able to aim it at what only the hub can reach: its own
// loopback services, the private network it sits in, or a cloud metadata endpoint. A caller on this
// computer (a loopback request; later also the owner) can reach loopback and the private network
// itself, so it may target them: that is how a local client receives notifications. Everyone else
// may target public addresses only. Link-local addresses and the cloud metadata services are refused
// to everyone: no notification receiver lives there, and the metadata service hands out the
// machine's cloud credentials, which even a local key holder has no business making the hub fetch. The rule is checked when the config is set, so a refused target is an error to the caller
// (-32602 with the reason), and again on every connection a delivery makes, because DNS may have
// changed since.

// ErrTargetRefused means a push notification URL points where its caller may not send the hub.
var ErrTargetRefused = errors.New("push notification target refused")

// sharedSpace is RFC 6598's carrier-grade NAT range, where some clouds put their metadata service
// (100.100.100.200).
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// metadataAddrs are cloud metadata services outside the link-local ranges (which are refused
// whole): AWS's IPv6 endpoint (inside the private fc00::/7) and Alibaba Cloud's (inside 100.64.0.0/10).
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("100.100.100.200"): true,
}

// metadataNames are the host names of cloud metadata services. They resolve to addresses refused
// anyway, but only where the cloud's DNS answers; refusing the names says why at set time.
var metadataNames = map[string]bool{
	"metadata.google.internal":   true, // Google Cloud
	"metadata.goog":              true, // Google Cloud
	"metadata":                   true, // Google Cloud's short name
	"instance-data":              true, // AWS
	"instance-data.ec2.internal": true, // AWS
	"metadata.azure.com":         true, // Azure
	"metadata.tencentyun.com":    true, // Tencent Cloud
}

// checkAddr says whether a config set by a local (loopback) caller or not may connect to ip.
func checkAddr(ip netip.Addr, local bool) error {
	ip = ip.Unmap()
	var why string
	switch {
	case ip.IsUnspecified(), ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		why = "is not a unicast address"
	case ip.IsLinkLocalUnicast():
		why = "is a link-local address (where cloud metadata services live); no push target may use one"
	case metadataAddrs[ip]:
		why = "is a cloud metadata service; no push target may use one"
	case local:
		return nil
	case ip.IsLoopback():
		why = "is a loopback address; only a caller on this computer may use one"
	case ip.IsPrivate():
		why = "is a private network address; only a caller on this computer may use one"
	case sharedSpace.Contains(ip):
		why = "is in the shared address space 100.64.0.0/10 (where some cloud metadata services live); only a caller on this computer may use one"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s %s", ErrTargetRefused, ip, why)
}

// resolveTimeout bounds the DNS lookup of a target at set time.
const resolveTimeout = 5 * time.Second

// CheckTarget checks a push notification URL for a caller that is local (a loopback request) or
// not: an absolute http(s) URL whose host, and every address it resolves to for a remote caller, the
// caller may target. Its errors wrap ErrTargetRefused and a2a.ErrInvalidParams (JSON-RPC -32602).
func CheckTarget(ctx context.Context, rawURL string, local bool) error {
	refuse := func(why string) error {
		return fmt.Errorf("push notification url %q: %s: %w", rawURL, why, a2a.ErrInvalidParams)
	}
	u, err := url.Parse(rawURL)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return refuse("must be an absolute http or https URL")
	}
	if u.User != nil {
		return refuse("must not carry credentials; use the config's token or authentication")
	}
	host := u.Hostname()
	if metadataNames[strings.TrimSuffix(strings.ToLower(host), ".")] {
		return fmt.Errorf("%w: %s is a cloud metadata service; no push target may use one (url %q): %w",
			ErrTargetRefused, host, rawURL, a2a.ErrInvalidParams)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
		defer cancel()
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if (err != nil || len(addrs) == 0) && !local {
			return refuse(fmt.Sprintf("host %s does not resolve", host))
		}
		// A local caller may name a host that does not resolve yet; the connection is checked.
	}
	for _, ip := range addrs {
		if err := checkAddr(ip, local); err != nil {
			return fmt.Errorf("%w (url %q): %w", err, rawURL, a2a.ErrInvalidParams)
		}
	}
	return nil
}

type callerKey struct{}

// WithLocalCaller marks ctx as a request from a loopback caller (local) or not.
func WithLocalCaller(ctx context.Context, local bool) context.Context {
	return context.WithValue(ctx, callerKey{}, local)
}

// LocalCaller reports whether ctx is a request from a loopback caller; a context that says nothing
// is not.
func LocalCaller(ctx context.Context) bool {
	local, _ := ctx.Value(callerKey{}).(bool)
	return local
}

// guard is a push config store that checks each config's target when it is set, remembers who set
// it (for the checks at delivery), and drops what a deleted config had queued.
type guard struct {
	a2apush.ConfigStore
	o *Outbox
}

// Guard wraps the push config store the request handler uses.
func (o *Outbox) Guard(configs a2apush.ConfigStore) a2apush.ConfigStore {
	return guard{ConfigStore: configs, o: o}
}

func (g guard) Save(ctx context.Context, taskID a2a.TaskID, c *a2a.PushConfig) (*a2a.PushConfig, error) {
	if c == nil {
		return g.ConfigStore.Save(ctx, taskID, c)
	}
	local := LocalCaller(ctx)
	if err := CheckTarget(ctx, c.URL, local); err != nil {
		return nil, err
	}
	saved, err := g.ConfigStore.Save(ctx, taskID, c)
	if err != nil {
		return nil, err
	}
	// A URL already validated stays validated; a new URL must pass the v0.1 challenge again.
	// The old row's columns are named with the table: unqualified they are ambiguous in PostgreSQL.
	_, err = g.o.cfg.DB.Writer.ExecContext(ctx, `INSERT INTO push_targets (task_id, config_id, url, caller_local) VALUES (?, ?, ?, ?)
		ON CONFLICT (task_id, config_id) DO UPDATE SET caller_local = excluded.caller_local,
			validated = CASE WHEN push_targets.url = excluded.url THEN push_targets.validated ELSE 0 END, url = excluded.url`,
		taskID, saved.ID, saved.URL, store.Flag(local))
	if err != nil {
		return nil, err
	}
	return saved, nil
}

func (g guard) Delete(ctx context.Context, taskID a2a.TaskID, id string) error {
	if err := g.ConfigStore.Delete(ctx, taskID, id); err != nil {
		return err
	}
	_, err := g.o.cancelLane(ctx, lane{string(taskID), id})
	return err
}

func (g guard) DeleteAll(ctx context.Context, taskID a2a.TaskID) error {
	configs, err := g.ConfigStore.List(ctx, taskID)
	if err != nil {
		return err
	}
	if err := g.ConfigStore.DeleteAll(ctx, taskID); err != nil {
		return err
	}
	for _, c := range configs {
		if _, err := g.o.cancelLane(ctx, lane{string(taskID), c.ID}); err != nil {
			return err
		}
	}
	return nil
}

// Sender is the a2a-go push sender to give the request handler: it does nothing, because every
// notification was already recorded in the outbox by the task store's write hook, in the event's
// own transaction. a2a-go needs a sender to offer the push config methods at all.
type Sender struct{}

func (Sender) SendPush(context.Context, *a2a.PushConfig, a2a.Event) error { return nil }
