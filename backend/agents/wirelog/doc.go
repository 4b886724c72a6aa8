// Package wirelog is the wire log: what went over the wire with each remote agent, every secret
// masked, kept in hub.db and shown in the UI.
//
// The room, file by file:
//
//	log.go   Log (Open, Record, Flush, List, DeleteAgent, Close): the wire_log table, written by one
//	         goroutine in batches and pruned to the newest 20000 rows; each stored Entry is published
//	         on the bus under Topic. Recorder is what a Tap writes to (a Log, or a test's memory).
//	tap.go   Tap: sends a request through the base transport and records it, its response and each
//	         event of a stream, bodies clipped to 64 KiB (ClipBody).
//	mask.go  Masker: hides secrets in recorded text, URLs and headers, in every encoding they travel
//	         in; agents also uses it (through its Text) to mask what an agent echoes back.
//	migrations/  the wire_log table (component "agents_wire").
//
// What it must not touch: credentials and cards. It is handed the secret values to mask (by
// agents' auth transport) and never reads the credential store, chooses a scheme or knows an
// agent's dialect; it must not import backend/agents (which imports it).
package wirelog
