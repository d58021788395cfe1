// Package protocol defines pi-rpc's JSON-RPC protocol (docs/protocol.md): method names,
// params and results, error codes, the event shapes, and [EventEncoder], which writes the
// engine's typed events as `event` notification params. protocol/schema.json is generated
// from these types (go generate ./protocol) and a test fails when it is stale.
//
// What an event's JSON holds is described once, in internal/eventjson (its fields per
// dialect); EventEncoder walks that description and adds the envelope. The event types here
// document it, and a test (description_test.go) fails when they list other fields than the
// description writes for this protocol.
//
// It depends on core and sessionapi only, never on the engine itself, so that clients
// (clients/go) can use its types without pulling in sessions, files or logging.
package protocol
