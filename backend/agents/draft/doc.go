// Package draft is the client of the v0.1 draft dialect and its AgentVault profile: it speaks
// tasks/send, tasks/sendSubscribe, tasks/get, tasks/cancel, tasks/resubscribe and
// tasks/pushNotification/set, and hands back a2a-go v2 types, so agents' Conn treats it like the
// v1.0 and v0.3 clients.
//
// The room, file by file:
//
//	client.go  Client (New, Send, Stream, GetTask, Cancel, Subscribe, Close): the calls, the
//	           AgentVault profile's differences, and the bounded task → sessionId cache.
//	wire.go    the draft's and AgentVault's shapes as read (tasks, messages, parts, artifacts,
//	           states), converted to a2a-go types, tolerantly.
//	sse.go     a draft stream's events (JSON-RPC wrapped or AgentVault's named ones) to a2a-go events.
//	out.go     what the hub sends: its messages in the draft's shapes (backend/a2a01).
//	push.go    SetPush and ParsePush: push notification config and bodies.
//
// Its tests live in backend/agents (draft*_test.go): they drive it through agents.Dial, as the hub
// does, so the fallback between dialects is tested with it.
//
// What it must not touch: credentials, masking and the wire log (all in the http.Client it is
// handed), dialect detection and fallback (agents), the v1.0/v0.3 clients. It stands on
// agents/jsonrpc and must not import backend/agents.
package draft
