package agents

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
)

// A2UI (a2ui-project/a2ui): agents that draw UI send A2UI messages as data parts; the hub's UI renders
// them. For an agent whose card declares the A2UI extension (capabilities.extensions, a URI under
// A2UIExtensionPrefix), every request names the extension in both activation headers (A2A v1.0's
// A2A-Extensions, and X-A2A-Extensions as the A2UI extension text spells it) and every message
// carries the client's capabilities in metadata["a2uiClientCapabilities"]: the catalogs the UI
// renders.

const (
	// A2UIExtensionPrefix starts every A2UI extension URI; the version follows (v0.9.1, v0.9, v0.8).
	A2UIExtensionPrefix = "https://a2ui.org/a2a-extension/a2ui/"
	// A2UIMediaType marks a data part whose data is a list of A2UI messages; A2UILegacyMediaType is
	// the spelling of older agents.
	A2UIMediaType       = "application/a2ui+json"
	A2UILegacyMediaType = "application/json+a2ui"
	// A2UIBasicCatalog is the one catalog the UI renders (the basic catalog of @a2ui/react).
	A2UIBasicCatalog = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
)

// A2UIExtensions are the A2UI extension URIs a card (raw JSON) declares, in its order.
func A2UIExtensions(card []byte) []string {
	var doc struct {
		Capabilities struct {
			Extensions []struct {
				URI string `json:"uri"`
			} `json:"extensions"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(card, &doc) // a card of another shape declares nothing
	var out []string
	for _, e := range doc.Capabilities.Extensions {
		if strings.HasPrefix(e.URI, A2UIExtensionPrefix) && len(e.URI) > len(A2UIExtensionPrefix) {
			out = append(out, e.URI)
		}
	}
	return out
}

// A2UIClientCapabilities is what the hub's UI renders, as metadata["a2uiClientCapabilities"]
// (client_capabilities.json of A2UI v0.9: the key is the protocol version "v0.9", also for v0.9.1).
func A2UIClientCapabilities() map[string]any {
	return map[string]any{"v0.9": map[string]any{"supportedCatalogIds": []any{A2UIBasicCatalog}}}
}

// withA2UICapabilities returns m's metadata with the client capabilities added (m's own map is not
// changed; a value the caller set is kept).
func withA2UICapabilities(meta map[string]any) map[string]any {
	out := maps.Clone(meta)
	if out == nil {
		out = map[string]any{}
	}
	if _, ok := out["a2uiClientCapabilities"]; !ok {
		out["a2uiClientCapabilities"] = A2UIClientCapabilities()
	}
	return out
}

// extensionHeaders returns a copy of hc whose requests carry the extension URIs in both activation
// headers (the URIs the caller set already are kept).
func extensionHeaders(hc *http.Client, uris []string) *http.Client {
	c := *hc
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = extHeader{base: base, value: strings.Join(uris, ", ")}
	return &c
}

type extHeader struct {
	base  http.RoundTripper
	value string
}

func (h extHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	for _, name := range []string{"A2A-Extensions", "X-A2A-Extensions"} {
		if v := req.Header.Get(name); v != "" {
			req.Header.Set(name, v+", "+h.value)
		} else {
			req.Header.Set(name, h.value)
		}
	}
	return h.base.RoundTrip(req)
}
