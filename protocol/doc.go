// Package protocol defines pi-rpc's JSON-RPC protocol (docs/protocol.md): method names,
// params and results, error codes, the event shapes, and [EventEncoder], which writes the
// engine's typed events as `event` notification params. protocol/schema.json is generated
// from these types (go generate ./protocol) and a test fails when it is stale.
//
// What an event's JSON holds is described once, in internal/eventjson (its fields per
// dialect, and what this protocol's documentation says of them); EventEncoder walks that
// description and adds the envelope, and go generate writes the event types that document it
// (events_gen.go, by protocol/internal/genevents) before reflecting schema.json from them. A
// test fails when events_gen.go is stale; description_test.go holds to core the message types,
// which are still written here by hand.
//
// It depends on core and sessionapi only, never on the engine itself, so that clients
// (clients/go) can use its types without pulling in sessions, files or logging.
package protocol
