// Package sessionapi holds the engine's value types that front ends show their clients: the
// typed [Event] a session emits to its [Sink], the session events' payloads (agent_settled,
// queue_update, compaction, permissions, ...), and the results of session methods (state,
// trees, stats, listings). It has no behaviour and depends only on core, so that a protocol
// package and its clients can use these types without the session engine (its files, locks
// and logging). Package session re-exports every type under the same name.
package sessionapi
