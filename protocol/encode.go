package protocol

import (
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/eventjson"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// EventEncoder writes the engine's events as this protocol's `event` notification params
// (docs/events.md): one flat object with the event's own fields, as internal/eventjson
// describes them for the JSON-RPC dialect, then seq, runId and, where the description says
// it belongs, sessionId. The engine emits typed values and knows no wire; what a client asked
// for (partial messages) and what the connection needs (a sessionId on every event once it
// has several sessions) are this encoder's options.
//
// Encoding happens when the event is emitted, synchronously: the message of a message_update
// is the live partial message, valid only during the sink call.
type EventEncoder struct {
	// PartialMessages adds the whole partial message to message_update as "message".
	PartialMessages bool
	// EverySessionID writes sessionId on every event, not only on agent_start,
	// agent_settled and session_changed.
	EverySessionID bool
}

// Append appends the params object of ev's notification to dst.
func (e *EventEncoder) Append(dst []byte, ev *sessionapi.Event) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	if ev.Core != nil {
		dst, err = eventjson.AppendCore(dst, ev.Core, eventjson.Options{Dialect: eventjson.JSONRPC, PartialMessages: e.PartialMessages})
	} else {
		dst, _, err = eventjson.AppendSession(dst, ev, eventjson.JSONRPC)
	}
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"seq":`...)
	dst = strconv.AppendInt(dst, ev.Seq, 10)
	if ev.RunID != "" {
		dst = append(dst, `,"runId":`...)
		dst = jsonstring.Append(dst, ev.RunID)
	}
	if ev.SessionID != "" && (e.EverySessionID || eventjson.CarriesSessionID(ev.Type)) {
		dst = append(dst, `,"sessionId":`...)
		dst = jsonstring.Append(dst, ev.SessionID)
	}
	return append(dst, '}'), nil
}

// AppendCoreFields appends a core event's fields, without the enclosing braces and the
// envelope. With partial, a message_update also carries the whole partial message as
// "message".
func AppendCoreFields(dst []byte, e *core.Event, partial bool) ([]byte, error) {
	return eventjson.AppendCore(dst, e, eventjson.Options{Dialect: eventjson.JSONRPC, PartialMessages: partial})
}

// AppendAssistantEvent appends a message_update's assistantMessageEvent: pi's
// assistant-message event without "partial" (docs/events.md).
func AppendAssistantEvent(dst []byte, e *core.AssistantEvent) ([]byte, error) {
	return eventjson.AppendAssistantEvent(dst, e, nil, eventjson.JSONRPC)
}
