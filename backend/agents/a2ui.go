package agents

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// A2UI (a2ui-project/a2ui): agents that draw UI send A2UI messages as data parts; the hub's UI renders
// them, in v0.9 (extension v0.9.1 or v0.9) and in v0.8. For an agent whose card declares one of those
// extensions (capabilities.extensions), every request names the ones it declares in both activation
// headers (A2A v1.0's A2A-Extensions, and X-A2A-Extensions as the A2UI extension texts spell it) and
// every message carries the client's capabilities in metadata["a2uiClientCapabilities"]: the
// catalogs the UI renders, for each version activated, in the shape that version's schema gives.

const (
	// A2UIExtensionPrefix starts every A2UI extension URI; the version follows (v0.9.1, v0.9, v0.8).
	A2UIExtensionPrefix = "https://a2ui.org/a2a-extension/a2ui/"
	// A2UIMediaType marks a data part whose data is a list of A2UI messages; A2UILegacyMediaType is
	// the spelling of older agents.
	A2UIMediaType       = "application/a2ui+json"
	A2UILegacyMediaType = "application/json+a2ui"
	// A2UIBasicCatalog is the one v0.9 catalog the UI renders (the basic catalog of @a2ui/react).
	A2UIBasicCatalog = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
	// A2UIStandardCatalogV08 is the one v0.8 catalog the UI renders (@a2ui/react/v0_8's).
	A2UIStandardCatalogV08 = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"

	// The extension URIs the UI renders: v0.9.1 (v0.9's messages), v0.9, and v0.8.
	A2UIExtensionV091 = A2UIExtensionPrefix + "v0.9.1"
	A2UIExtensionV09  = A2UIExtensionPrefix + "v0.9"
	A2UIExtensionV08  = A2UIExtensionPrefix + "v0.8"
)

// A2UISupported are the A2UI extension URIs the hub's UI renders.
var A2UISupported = []string{A2UIExtensionV091, A2UIExtensionV09, A2UIExtensionV08}

// A2UIExtensions are the A2UI extension URIs a card (raw JSON) declares that the UI renders, in the
// card's order (a version the UI does not render is not activated).
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
		if slices.Contains(A2UISupported, e.URI) && !slices.Contains(out, e.URI) {
			out = append(out, e.URI)
		}
	}
	return out
}

// A2UIClientCapabilities is what the hub's UI renders for the extensions activated, as
// metadata["a2uiClientCapabilities"]. v0.9's client_capabilities.json keys it by protocol version
// ("v0.9", also for v0.9.1); v0.8's a2ui_client_capabilities_schema.json puts supportedCatalogIds at
// the top. Neither schema forbids the other's keys, so one object serves an agent of both.
func A2UIClientCapabilities(uris []string) map[string]any {
	out := map[string]any{}
	if slices.Contains(uris, A2UIExtensionV091) || slices.Contains(uris, A2UIExtensionV09) {
		out["v0.9"] = map[string]any{"supportedCatalogIds": []any{A2UIBasicCatalog}}
	}
	if slices.Contains(uris, A2UIExtensionV08) {
		out["supportedCatalogIds"] = []any{A2UIStandardCatalogV08}
	}
	return out
}

// withA2UICapabilities returns m's metadata with the client capabilities for uris added (m's own map
// is not changed; a value the caller set is kept).
func withA2UICapabilities(meta map[string]any, uris []string) map[string]any {
	out := maps.Clone(meta)
	if out == nil {
		out = map[string]any{}
	}
	if _, ok := out["a2uiClientCapabilities"]; !ok {
		out["a2uiClientCapabilities"] = A2UIClientCapabilities(uris)
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
