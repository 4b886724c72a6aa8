// Package jsonrpc is the JSON-RPC plumbing the hub's own callers of a remote agent share: the
// v0.1 draft client (agents/draft) and the extension calls (agents' ext.go). The v1.0 and v0.3
// dialects go through a2a-go's client instead and use only the limits here.
//
// The room, file by file:
//
//	http.go    the limits on what an agent may send in one piece (MaxJSONBody, MaxSSEEvent), Post
//	           (one request, a non-200 answer read as the agent's JSON-RPC error or its HTTP
//	           status), ReadBody and CapBody (a body past the cap is ErrBodyTooLarge, never cut).
//	errors.go  ErrorObject: a remote JSON-RPC error, mapped to the a2a-go error of its code.
//	sse.go     ReadSSE and ScanSSE: Server-Sent Events, an event past MaxSSEEvent refused
//	           (ErrEventTooLarge) or, with pass, passed as its head.
//
// What it must not touch: any dialect's shapes (tasks, messages, parts), credentials or the wire
// log; those are in the http.Client it is handed. It must not import backend/agents or its other
// sub-packages.
package jsonrpc
