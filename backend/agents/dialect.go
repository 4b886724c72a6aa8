package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// Dialect is the A2A protocol version a JSON-RPC endpoint speaks. Each has its own method names and
// shapes: v1.0 SendMessage/GetTask..., v0.3 message/send, tasks/get..., the v0.1 draft tasks/send,
// tasks/sendSubscribe...
type Dialect string

const (
	V10 Dialect = "1.0"
	V03 Dialect = "0.3"
	V01 Dialect = "0.1"
)

// dialectOrder is the order fallbacks are tried in: newest first.
var dialectOrder = []Dialect{V10, V03, V01}

// Binding is how an endpoint is spoken (A2A v1.0 §5): JSON-RPC, HTTP+JSON (REST) or gRPC.
type Binding string

const (
	JSONRPC  Binding = "" // the zero value: every dialect has it
	HTTPJSON Binding = "HTTP+JSON"
	GRPC     Binding = "GRPC"
	// Automatic is no binding chosen: the hub picks (Remote.Binding, DialPreferring).
	Automatic Binding = "auto"
)

// Name is the binding as the A2A specification names it.
func (b Binding) Name() string {
	if b == JSONRPC {
		return "JSONRPC"
	}
	return string(b)
}

// ParseBinding reads a binding by its specification name ("JSONRPC", "HTTP+JSON", "GRPC") or "auto".
func ParseBinding(s string) (Binding, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "JSONRPC":
		return JSONRPC, true
	case "HTTP+JSON":
		return HTTPJSON, true
	case "GRPC":
		return GRPC, true
	case "AUTO", "":
		return Automatic, true
	}
	return "", false
}

// ErrBindingNotOffered is a binding chosen for an agent whose card does not offer it.
var ErrBindingNotOffered = errors.New("binding not offered")

// Bindings are the bindings the hub can speak to the agent a card describes, in the order it picks
// them (JSON-RPC, REST, gRPC); none for a card it cannot use.
func Bindings(card []byte) []Binding {
	eps, err := Endpoints(card)
	if err != nil {
		return nil
	}
	var out []Binding
	for _, ep := range eps {
		if !slices.Contains(out, ep.Binding) {
			out = append(out, ep.Binding)
		}
	}
	return out
}

// Endpoint is one interface an agent card offers, in one dialect and binding: JSON-RPC in every
// dialect, HTTP+JSON in v1.0 and v0.3, gRPC in v1.0 (the hub does not speak v0.3's gRPC as a client).
type Endpoint struct {
	Dialect Dialect
	URL     string // http(s) for JSON-RPC and REST; for gRPC host:port, or a URL whose scheme says TLS
	Binding Binding
	Tenant  string // the interface's tenant, sent in every request (v1.0)
}

// maxCardInterfaces bounds how many interfaces of one list a card may make us consider: a hostile
// card with a million interfaces must not become a million endpoints to try.
const maxCardInterfaces = 32

// ErrNoEndpoint is returned when a card offers no interface the hub can talk to.
var ErrNoEndpoint = errors.New("agent card offers no usable interface (a JSON-RPC or HTTP+JSON http(s) URL, or a gRPC address)")

// Endpoints reads a card (raw JSON as fetched) and returns where and how to talk to the agent, best
// first: the card's v1.0 supportedInterfaces (JSONRPC binding), then its v0.3 url and
// additionalInterfaces, or, for a v0.1 draft / AgentVault card (a url and neither protocolVersion
// nor supportedInterfaces), its url in v0.1. After the detected ones come fallbacks: every URL again
// in the dialects not yet listed for it (1.0, 0.3, 0.1), so a method-not-found answer can move on.
// Last come the card's v1.0 HTTP+JSON interfaces, then its v1.0 gRPC ones: JSON-RPC when offered,
// else REST, else gRPC (a Conn moves on to them when an address cannot be reached).
// A relative URL is an error: the hub does not guess what a card's URL is relative to.
func Endpoints(card []byte) ([]Endpoint, error) {
	if len(card) > MaxCardBytes {
		return nil, fmt.Errorf("agent card is %d bytes, more than the %d-byte limit", len(card), MaxCardBytes)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(card, &doc); err != nil {
		return nil, fmt.Errorf("agent card is not a JSON object: %w", err)
	}
	var found []Endpoint
	tenants := map[string]string{} // a JSON-RPC URL's tenant, from its v1.0 interface
	add := func(d Dialect, u string) {
		if ep := (Endpoint{Dialect: d, URL: u, Tenant: tenants[u]}); !slices.Contains(found, ep) {
			found = append(found, ep)
		}
	}
	var rest, grpc []Endpoint

	// v1.0: the interfaces, in the card's order of preference.
	for i, iface := range objectList(doc["supportedInterfaces"]) {
		path := fmt.Sprintf("supportedInterfaces[%d]", i)
		binding, _ := stringField(iface, "protocolBinding")
		d := V10 // a v1.0 interface that forgot its version is most likely v1.0
		if v, ok := stringField(iface, "protocolVersion"); ok {
			if d, ok = dialectOfVersion(v); !ok {
				continue // a version this hub does not know: nothing to say to it
			}
		}
		tenant, _ := stringField(iface, "tenant")
		switch {
		case strings.EqualFold(binding, "JSONRPC"):
			u, err := endpointURL(iface, path)
			if err != nil {
				return nil, err
			}
			if u != "" {
				if _, seen := tenants[u]; !seen {
					tenants[u] = tenant
				}
				add(d, u)
			}
		case strings.EqualFold(binding, string(HTTPJSON)) && (d == V10 || d == V03):
			u, err := endpointURL(iface, path)
			if err != nil {
				return nil, err
			}
			if ep := (Endpoint{Dialect: d, URL: u, Binding: HTTPJSON, Tenant: tenant}); u != "" && !slices.Contains(rest, ep) {
				rest = append(rest, ep)
			}
		case strings.EqualFold(binding, string(GRPC)) && d == V10:
			if ep := (Endpoint{Dialect: V10, URL: grpcAddress(iface), Binding: GRPC, Tenant: tenant}); ep.URL != "" && !slices.Contains(grpc, ep) {
				grpc = append(grpc, ep)
			}
		}
	}

	// v0.3: the main url (when its transport is JSON-RPC) and the additional JSON-RPC interfaces.
	mainURL, err := endpointURL(doc, "")
	if err != nil {
		return nil, err
	}
	if v, ok := stringField(doc, "protocolVersion"); ok {
		if d, known := dialectOfVersion(v); known {
			addREST := func(u string) {
				if ep := (Endpoint{Dialect: d, URL: u, Binding: HTTPJSON}); u != "" && d != V01 && !slices.Contains(rest, ep) {
					rest = append(rest, ep)
				}
			}
			t, ok := stringField(doc, "preferredTransport")
			switch {
			case mainURL != "" && (!ok || strings.EqualFold(t, "JSONRPC")):
				add(d, mainURL)
			case strings.EqualFold(t, string(HTTPJSON)):
				addREST(mainURL)
			}
			for i, iface := range objectList(doc["additionalInterfaces"]) {
				t, _ := stringField(iface, "transport")
				if !strings.EqualFold(t, "JSONRPC") && !strings.EqualFold(t, string(HTTPJSON)) {
					continue
				}
				u, err := endpointURL(iface, fmt.Sprintf("additionalInterfaces[%d]", i))
				if err != nil {
					return nil, err
				}
				if strings.EqualFold(t, string(HTTPJSON)) {
					addREST(u)
				} else if u != "" {
					add(d, u)
				}
			}
		}
	}

	// v0.1 draft and AgentVault: a bare url. Also the last resort for a card whose other fields
	// are unusable, since the fallbacks below try every dialect there anyway; not for a card with
	// REST or gRPC interfaces, whose url is one of those.
	if len(found) == 0 && len(rest)+len(grpc) == 0 && mainURL != "" {
		add(V01, mainURL)
	}
	if len(found)+len(rest)+len(grpc) == 0 {
		return nil, ErrNoEndpoint
	}

	var urls []string
	for _, ep := range found {
		if !slices.Contains(urls, ep.URL) {
			urls = append(urls, ep.URL)
		}
	}
	for _, u := range urls {
		for _, d := range dialectOrder {
			add(d, u)
		}
	}
	return append(append(found, rest...), grpc...), nil
}

// grpcAddress reads a gRPC interface's url: host:port, or an http(s) or grpc(s) URL with a host
// (its scheme says whether to use TLS, see grpcTarget); "" when it is neither.
func grpcAddress(iface map[string]json.RawMessage) string {
	s, _ := stringField(iface, "url")
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && u.Host != "" && slices.Contains([]string{"http", "https", "grpc", "grpcs"}, u.Scheme) {
		return s
	}
	if host, port, err := net.SplitHostPort(s); err == nil && host != "" && port != "" {
		return s
	}
	return ""
}

// Streaming reports the card's capabilities.streaming (false when absent or not a boolean).
func Streaming(card []byte) bool {
	var doc struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(card, &doc) != nil {
		return false
	}
	var streaming bool
	return json.Unmarshal(doc.Capabilities["streaming"], &streaming) == nil && streaming
}

// AgentVault reports a card in the AgentVault profile's shape (AgentVault A2A Protocol Profile v0.2): it
// carries the profile's required authSchemes or humanReadableId. Such an agent speaks the v0.1
// method names with its own shapes, chooses its tasks' ids, and streams (SSE is part of the profile,
// though its cards have no capabilities.streaming).
func AgentVault(card []byte) bool {
	var doc map[string]json.RawMessage
	if json.Unmarshal(card, &doc) != nil {
		return false
	}
	_, auth := doc["authSchemes"]
	_, hrid := doc["humanReadableId"]
	return auth || hrid
}

// dialectOfVersion maps a card's protocolVersion ("1.0", "0.3.0", "v0.2.5"...) to the dialect whose
// method names that version uses: v0.2 already had v0.3's names.
func dialectOfVersion(v string) (Dialect, bool) {
	v = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v")
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	switch {
	case major == "1":
		return V10, true
	case major == "0" && (minor == "2" || minor == "3"):
		return V03, true
	case major == "0" && minor == "1":
		return V01, true
	}
	return "", false
}

// endpointURL reads obj.url: "" when it is absent, empty, not a string or not http(s) (nothing to
// talk to there), an error when it is relative.
func endpointURL(obj map[string]json.RawMessage, path string) (string, error) {
	s, ok := stringField(obj, "url")
	s = strings.TrimSpace(s)
	if !ok || s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", nil
	}
	if !u.IsAbs() || u.Host == "" {
		if u.Scheme == "" {
			return "", fmt.Errorf("agent card %s is the relative URL %q; a card must give absolute URLs", join(path, "url"), s)
		}
		return "", nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", nil
	}
	return s, nil
}

// stringField reads obj[key] when it is a JSON string.
func stringField(obj map[string]json.RawMessage, key string) (string, bool) {
	var s string
	if raw, ok := obj[key]; !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// objectList reads a JSON array of objects, skipping items that are not objects; nil when raw is
// not an array. At most maxCardInterfaces items are read.
func objectList(raw json.RawMessage) []map[string]json.RawMessage {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []map[string]json.RawMessage
	for _, item := range items[:min(len(items), maxCardInterfaces)] {
		var obj map[string]json.RawMessage
		if json.Unmarshal(item, &obj) == nil && obj != nil {
			out = append(out, obj)
		}
	}
	return out
}
