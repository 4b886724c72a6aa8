// Package agents knows about agents other than the hub's own: which ones the owner added, what
// their cards say, which dialect each endpoint speaks, and the Conn that talks to one of them.
// It is the front door; the rooms behind it have names of their own.
//
// This package, file by file:
//
//	registry.go   Registry: the added agents (remote_agents table, migrations/), their cards fetched
//	              and refreshed; changes published on the bus under Topic.
//	card.go       CheckCard: what is wrong with a card, at a JSON path.
//	dialect.go    Endpoints and Dialect: which JSON-RPC endpoint of a card speaks v1.0, v0.3 or the
//	              v0.1 draft (and whether it is AgentVault's profile of it); Streaming.
//	clients.go    Clients: one cached Conn per agent, made with the agent's credentials and the wire
//	              log; saving and forgetting credentials against the card's schemes; Classify.
//	conn.go       Conn: one agent in whichever dialect it speaks, moving to the next endpoint on
//	              method-not-found; the dialectClient each endpoint's client implements.
//	conn_sdk.go   the v1.0 and v0.3 client, which is a2a-go's own.
//	conn_http.go  the guard in front of a2a-go's clients: capped JSON bodies, a JSON answer to a
//	              streaming request read as a one-event stream.
//	conn_mask.go  everything a Conn returns has the owner's secrets masked (wirelog.Masker).
//	conn_push.go  push notifications: asking an agent to push, reading what it pushes.
//	ext.go        ExtCall and ExtStream: the channels and knowledge extensions on another hub.
//
// The rooms behind it (each a package with its own doc.go):
//
//	agents/credentials  what a card asks for, the owner's secrets, the HTTP client that applies them
//	                    (OAuth2 tokens, same-origin redirects, 401/403 as *credentials.AuthError).
//	agents/wirelog      the wire log (wire_log table) and the masking of every secret in it.
//	agents/draft        the v0.1 draft and AgentVault client (tested here, through Dial).
//	agents/jsonrpc      JSON-RPC over HTTP shared by agents/draft and ext.go: limits, remote errors, SSE.
//
// Imports go one way: agents → credentials → wirelog, agents → draft → jsonrpc, agents → jsonrpc.
// No room behind imports agents. What this package must not touch: the owner's secrets other than
// through credentials' API, the wire_log table (wirelog owns it), a dialect's wire shapes (draft, or
// a2a-go). Callers outside (hub, uiapi) use agents and, for secrets and the wire log,
// credentials and wirelog directly.
package agents
