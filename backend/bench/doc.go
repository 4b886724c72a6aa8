// Package bench holds AgentHub's throughput benchmark (`make bench`): the hub's durable stack beside
// a2a-go's in-memory server under the same concurrent load. It has no code of its own outside tests.
package bench
