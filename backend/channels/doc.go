// Package channels is the hub's channels extension (see docs/channels.md): durable
// multi-agent channels with ordered message events, implicit direct channels, history pages and
// live streams with resume. It owns its tables in hub.db and serves its JSON-RPC methods through
// the server's Extension interface; every rule (membership, visibility, limits, ordering,
// idempotency) lives here, so the UI gateway gets the same answers as a remote agent.
//
// # Map of the package
//
// One package, one file per concern; each file holds the SQL it runs.
//
//   - service.go: the Service, Open (migrations, prepared statements, quota, page-token key), the
//     writer's plumbing every write goes through (write, announce, the bus Change) and the
//     caller's identity (caller, mustWrite).
//   - access.go: who may see and do what: the access query, load (a channel under the caller's
//     rights; missing and private-to-others answer alike), requireMember/requireOwner, Readable
//     and Concerns (whether a principal may hear of a change).
//   - channel.go: a channel's life: create, get, list, update, delete, and the checks of a name,
//     visibility and metadata.
//   - membership.go: roles, members and who may be one: AddMember, RemoveMember, Members,
//     RemoveEverywhere, removeMembership (on the hub's own authority) and the remote-agent check.
//   - principals.go: memberships follow the hub's principals: the Directory, checkKnown, and
//     ForgetFormer (memberships of removed or re-added names).
//   - direct.go: direct channels: DirectID, their creation on first publish, and the peer of a
//     direct id a client derived itself.
//   - publish.go: the publish path: its statements prepared on the writer, the batch the publishes
//     of one transaction share, idempotency (request hash) and Publish.
//   - publish_batch.go: on PostgreSQL, the publishes of a transaction queued and then decided and
//     stored together, in two statements, before it commits (or before another channels write).
//   - event.go: MessageEvent and its JSON, encoded once before the writer and completed with its
//     sequence and timestamp.
//   - history.go: History and its page encoding, the reads without a caller's rights (EventsAfter).
//   - cursor.go: signed, opaque history page tokens and the hub's key for them.
//   - lastseq.go: a channel's newest sequence, read once access is known.
//   - replicas.go: several replicas on one PostgreSQL database: the notes each change announces to
//     the other replicas and their turning into bus Changes, the resync after the listener
//     reconnects, and the advisory lock that runs the replicas' channels batches one at a time (a
//     deadlock's victim, should one still happen, runs again in the store's writer).
//   - stream.go: channels/stream: backlog then live events from the bus, heartbeats, and the
//     placeholder for an event too large for a stream.
//   - limit.go: the spec's limits, the per-principal rate limiter, the size one event may be.
//   - quota.go: per-principal quotas on stored events and bytes (usage kept by triggers).
//   - audit.go: the audit rows every change writes, and Audit to list them.
//   - errors.go: the extension's JSON-RPC error codes (-32020…-32024, -32602).
//   - extension.go: the JSON-RPC methods and the card entry, thin over the Service.
//   - migrations/: the package's tables (channels, channel_members, channel_events, channel_audit,
//     channel_settings, channel_usage), numbered goose files: add one, never edit an old one.
//
// # What it must not touch
//
// Outside its tests, only this package reads or writes its tables, and it touches no other
// package's tables. It knows the hub's principals only through the Directory interface
// (auth.Principals, set by the hub with SetPrincipals) and the added agents only through the check
// given to SetRemoteAgents. It tells the rest of the hub what changed only by the bus (Topic, a
// *Change per write), once the change is durable, and the other replicas on the same PostgreSQL
// database by notes (store.Announce), which they turn into the same Changes on their own bus. The channel bridge (package bridge) is a separate
// package: it reads and writes channels through the Service (Get, Members, EventsAfter, Publish) and
// hears of them on the bus, never through the tables; the UI gateway (package uiapi) calls the same
// extension methods (Methods) as the JSON-RPC endpoint. Nothing here imports the hub, the UI
// gateway or the bridge.
package channels
