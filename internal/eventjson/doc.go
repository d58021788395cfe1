// Package eventjson is the one description of the engine's events on the wire: for each core
// event, each streamed assistant-message step and each session event, the list of its JSON
// fields in order, each with the dialects that write it, when it is left out, and how its
// value is written. Every front end that writes events as JSON walks these lists:
// protocol.EventEncoder for pi-rpc's JSON-RPC protocol (docs/events.md) and pimode for pi
// 1.6.0's RPC mode. Adding a field to an event is one entry here; a field one dialect lacks
// says so in its entry.
//
// The dialects differ in what surrounds the fields and in a few fields:
//   - [JSONRPC] objects are followed by the envelope the caller adds (seq, runId, sessionId);
//     message_start/end carry inputId; message_update carries the partial message only when
//     [Options.PartialMessages] is set; every assistant-message step has contentIndex; every
//     session event is written, with its payload's fields (agent_settled's lastSeq is its
//     own seq).
//   - [Pi] objects are bare; message_update leads with the cumulative usage; toolcall_start
//     always names the call (id, toolName), taken from the partial message when the
//     provider sent them later; tool_execution_end has durationMs; start, done and error
//     steps are pi-ai's; only the session events pi 1.6.0 has are written, some with pi's
//     own payload (agent_settled's aborted, queue_update's texts, entry_appended's entry).
//
// Messages are not described here: their JSON is core's (the struct tags and MarshalJSON of
// core's message types), the same in every dialect, and each field list writes a message
// with encoding/json. protocol's documentation types (and schema.json) are checked against
// both by protocol's tests: a field here or in core that the schema lacks fails them.
//
// A text or thinking delta, the commonest event, is written without reflection or
// allocation: the lists are static, keys are written from precomputed bytes and strings with
// internal/jsonstring.
package eventjson
