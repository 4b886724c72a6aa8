// Package interop holds interoperability tests of AgentHub's A2A server against official A2A SDKs
// written in other languages: each test starts an agent on our stack and drives it with that SDK's
// own client, so a wire-format disagreement shows up as a failing scenario. The SDKs live in
// subdirectories with pinned versions (js: @a2a-js/sdk, installed with `npm ci --prefix
// backend/interop/js`).
package interop
