// Package interop holds interoperability tests against official A2A SDKs and independent servers, in
// both directions:
//
//   - the SDKs' clients drive AgentHub's server: a2a-go/v2 (v1.0), a2a-go v0.3, and @a2a-js/sdk over
//     its v1.0 and v0.3 bindings (gosdk_test.go, js_test.go with js/client.mjs);
//   - AgentHub's client (backend/agents) drives real servers: an a2a-go/v2 server in v1.0 and behind its
//     v0.3 compat handler, an @a2a-js/sdk server (js/server.mjs) in both its dialects, and the hub's own
//     server behind a v0.1-draft card (client_dialects_test.go); and the whole hub, as a client, talks
//     to an a2a-go/v2 server that demands each credential scheme a card can declare
//     (client_auth_test.go).
//
// A wire-format disagreement shows up as a failing scenario. The JavaScript SDK lives in js/ with
// pinned versions, installed with `npm ci --prefix backend/interop/js`.
package interop
