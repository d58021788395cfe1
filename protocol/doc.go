// Package protocol defines pi-rpc's JSON-RPC protocol (docs/protocol.md): method names,
// params and results, error codes, the event shapes, and [EventEncoder], which writes the
// engine's typed events as `event` notification params. protocol/schema.json is generated
// from these types (go generate ./protocol) and a test fails when it is stale.
//
// It depends on core and sessionapi only, never on the engine itself, so that clients
// (clients/go) can use its types without pulling in sessions, files or logging.
package protocol
