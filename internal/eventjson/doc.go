// Package eventjson is the one description of the engine's events on the wire: for each core
// event, each streamed assistant-message step and each session event, the list of its JSON
// fields in order, each with the dialects that write it, when it is left out, how its value
// is written and, for the JSON-RPC dialect, how it is documented ([Doc]: its Go type in
// package protocol, its doc comment, its jsonschema tag). Every front end that writes events
// as JSON walks these lists: protocol.EventEncoder for pi-rpc's JSON-RPC protocol
// (docs/events.md) and pimode for pi 1.6.0's RPC mode. protocol's documentation types
// (protocol/events_gen.go: AgentStartEvent, TextDelta, ...) are generated from them by
// protocol/internal/genevents, and schema.json and clients/ts's types from those.
//
// Adding a field to an event is one entry in its list here (core.go, assistant.go), then
// `make generate`: the entry names the field, its dialects (Both, or the one that has it),
// an omit function if it may be absent (it is then optional in the documentation), its
// writer and its Doc. `make generate` rewrites events_gen.go, schema.json and the TypeScript
// types; TestEventsUpToDate and TestSchemaUpToDate fail (in make check too) until it has run.
// docs/events.md, written for people, lists the field by hand, and the golden transcripts
// show it once regenerated (-update). A session event's fields are its payload's (a
// sessionapi type, embedded by its documentation type): a field is added there.
//
// The dialects differ in what surrounds the fields and in a few fields:
//   - [JSONRPC] objects are followed by the envelope the caller adds (seq, runId, sessionId);
//     message_start/end carry inputId; message_update carries the partial message only when
//     [Options.PartialMessages] is set; every assistant-message step has contentIndex; every
//     session event is written, with its payload's fields (agent_settled's lastSeq is its
//     own seq).
//   - [Pi] objects are bare; message_update leads with the cumulative usage; toolcall_start
//     always names the call (id, toolName), taken from the partial message when the
//     provider sent them later; start, done and error steps are pi-ai's; only the session
//     events pi 1.6.0 has are written, some with pi's own payload (agent_settled's aborted,
//     queue_update's texts, entry_appended's entry).
//
// Messages are not described here: their JSON is core's (the struct tags and MarshalJSON of
// core's message types), the same in every dialect, and each field list writes a message
// with encoding/json. protocol documents them by hand (messages.go), and its tests hold those
// types to core's: a field added to a core message without its documentation fails them.
//
// A text or thinking delta, the commonest event, is written without reflection or
// allocation: the lists are static, keys are written from precomputed bytes and strings with
// internal/jsonstring.
package eventjson
