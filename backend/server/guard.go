package server

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// The guard runs before every route of the hub's server (JSON-RPC, SSE, the well-known cards, the UI
// and its websocket): a web page the user visits must not read or write through the hub, either by
// DNS rebinding (its own name resolving to 127.0.0.1, so the browser calls the hub "same-origin") or
// by a cross-site request (a form or a simple fetch, which browsers send without asking first).

// codeForbidden is the JSON-RPC code of a request refused for who sent it (HTTP 403).
const codeForbidden = -32031

// LoopbackHost reports whether a Host header (name or name:port) names this machine by a loopback
// name: localhost or a loopback IP.
func LoopbackHost(hostport string) bool {
	host := hostOnly(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackRemote reports whether a request's RemoteAddr (ip:port) is on this computer.
func loopbackRemote(remoteAddr string) bool {
	ip, err := netip.ParseAddrPort(remoteAddr)
	return err == nil && ip.Addr().Unmap().IsLoopback()
}

// onThisComputer reports whether a request comes from a program on this computer, which decides
// whether a caller without a key may be admitted as anonymous and where its push configs may point.
// A loopback connection is not enough: a reverse proxy on the same machine connects from loopback
// for every caller it relays, so a request that names a relayed client (Forwarded, X-Forwarded-For,
// X-Real-IP, which proxies add) or arrives under a name that is not a loopback one (the public name
// of --public-url, which only a relayed request carries) comes from elsewhere.
func onThisComputer(r *http.Request) bool {
	return loopbackRemote(r.RemoteAddr) && LoopbackHost(r.Host) && !relayed(r.Header)
}

// relayed reports whether a proxy says it relayed the request for another client.
func relayed(h http.Header) bool {
	return h.Get("Forwarded") != "" || h.Get("X-Forwarded-For") != "" || h.Get("X-Real-Ip") != ""
}

func hostOnly(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

// guard holds the allow-lists of the middleware.
type guard struct {
	hosts   []string // host names allowed besides loopback ones, lower case, no port
	origins []string // page origins allowed besides the hub's own
}

func (g guard) hostAllowed(hostport string) bool {
	return LoopbackHost(hostport) || slices.Contains(g.hosts, strings.ToLower(hostOnly(hostport)))
}

// originAllowed: no Origin is a client that is not a browser (SDKs, curl), which DNS rebinding and
// cross-site forms cannot be; a browser page on the hub's own origin is the UI.
func (g guard) originAllowed(origin, host string) bool {
	return origin == "" || origin == "http://"+host || slices.Contains(g.origins, origin)
}

// cardPath: the cards are public documents browser clients on any page read (with CORS), so a foreign
// Origin may GET them; the Host check still applies.
func cardPath(p string) bool {
	return p == a2asrv.WellKnownAgentCardPath || p == legacyCardPath
}

func (g guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			forbid(w, r, "host not allowed: the hub answers on loopback names only (127.0.0.1, ::1, localhost)")
			return
		}
		if origin := r.Header.Get("Origin"); !g.originAllowed(origin, r.Host) && !cardPath(r.URL.Path) {
			forbid(w, r, "origin not allowed: "+origin)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// forbid answers 403: with a JSON-RPC error body on the JSON-RPC endpoint, so a client sees the
// reason in protocol terms, and as plain text elsewhere.
func forbid(w http.ResponseWriter, r *http.Request, reason string) {
	if r.URL.Path == RPCPath {
		writeJSON(w, http.StatusForbidden, errorResponse(nil, &rpcError{Code: codeForbidden, Message: "forbidden: " + reason}))
		return
	}
	if strings.HasPrefix(r.URL.Path, RESTPath+"/") {
		writeRESTStatus(w, http.StatusForbidden, a2a.ErrUnauthorized, "forbidden: "+reason)
		return
	}
	http.Error(w, reason, http.StatusForbidden)
}
