package eventjson

import (
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
)

type (
	assistantField = field[core.AssistantEvent, *core.AssistantMessage]
	assistantList  = fieldList[core.AssistantEvent, *core.AssistantMessage]
)

func stepF(name string, in Dialect, doc Doc, omit func(*core.AssistantEvent, *core.AssistantMessage) bool,
	put func([]byte, *core.AssistantEvent, *core.AssistantMessage) ([]byte, error)) assistantField {
	return newField(name, in, doc, omit, put)
}

// The fields of the streamed assistant-message steps (pi-ai's AssistantMessageEvent without
// its partial snapshot), after "type". The writers get the partial message, which may be nil.
var (
	contentIndexField = stepF("contentIndex", Both, Doc{Type: "int"}, nil,
		func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
			return strconv.AppendInt(dst, int64(e.ContentIndex), 10), nil
		})
	deltaField = stepF("delta", Both, Doc{Type: "string"}, nil,
		func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
			return appendString(dst, e.Delta), nil
		})
	// JSON-RPC names a tool call's id and name where the provider sent them, on toolcall_start
	// or the first toolcall_delta that learns them.
	rpcCallIDField = stepF("id", JSONRPC, Doc{Type: "string"}, func(e *core.AssistantEvent, _ *core.AssistantMessage) bool { return e.ID == "" },
		func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
			return appendString(dst, e.ID), nil
		})
	rpcCallNameField = stepF("name", JSONRPC, Doc{Type: "string"}, func(e *core.AssistantEvent, _ *core.AssistantMessage) bool { return e.Name == "" },
		func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
			return appendString(dst, e.Name), nil
		})

	startFields = newList(withIn(contentIndexField, JSONRPC))
	// pi-ai's done and error carry the stop reason and the final message.
	doneFields = newList(withIn(contentIndexField, JSONRPC), reasonField,
		stepF("message", Pi, Doc{}, nil, appendFinal))
	errorFields = newList(withIn(contentIndexField, JSONRPC), reasonField,
		stepF("error", Pi, Doc{}, nil, appendFinal))
	blockStartFields = newList(contentIndexField)
	deltaFields      = newList(contentIndexField, deltaField)
	blockEndFields   = newList(contentIndexField,
		stepF("content", Both, Doc{Type: "string"}, nil, func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
			return appendString(dst, e.Content), nil
		}),
	)
	toolCallStartFields = newList(contentIndexField, rpcCallIDField, rpcCallNameField,
		// pi 1.6.0 always names the call (JsonAssistantMessageEvent).
		stepF("id", Pi, Doc{}, nil, func(dst []byte, e *core.AssistantEvent, msg *core.AssistantMessage) ([]byte, error) {
			id, _ := callOf(e, msg)
			return appendString(dst, id), nil
		}),
		stepF("toolName", Pi, Doc{}, nil, func(dst []byte, e *core.AssistantEvent, msg *core.AssistantMessage) ([]byte, error) {
			_, name := callOf(e, msg)
			return appendString(dst, name), nil
		}),
	)
	toolCallDeltaFields = newList(contentIndexField,
		rpcCallIDField.documented(Doc{Type: "string", Comment: "ID and Name are present on the first delta that learns them, " +
			"when toolcall_start did not carry them."}),
		rpcCallNameField, deltaField)
	toolCallEndFields = newList(contentIndexField,
		stepF("toolCall", Both, Doc{Type: "ToolCall"}, nil, func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
			return appendValue(dst, e.ToolCall)
		}),
	)

	reasonField = stepF("reason", Pi, Doc{}, nil, func(dst []byte, e *core.AssistantEvent, _ *core.AssistantMessage) ([]byte, error) {
		return appendString(dst, string(e.Reason)), nil
	})
)

// documentedSteps are the steps a JSON-RPC message_update carries, in order, with their
// documentation; their fields are assistantFields'. core's loop turns a stream's start, done
// and error into message_start and message_end, so no message_update carries them; pi mode
// writes pi-ai's own.
var documentedSteps = []struct {
	t   core.AssistantEventType
	doc typeDoc
}{
	{core.EventTextStart, typeDoc{goName: "TextStart", comment: "TextStart opens text block contentIndex of the streamed message."}},
	{core.EventTextDelta, typeDoc{goName: "TextDelta", comment: "TextDelta appends delta to text block contentIndex."}},
	{core.EventTextEnd, typeDoc{goName: "TextEnd", comment: "TextEnd closes text block contentIndex; content is its whole text."}},
	{core.EventThinkingStart, typeDoc{goName: "ThinkingStart", comment: "ThinkingStart opens thinking block contentIndex of the streamed message."}},
	{core.EventThinkingDelta, typeDoc{goName: "ThinkingDelta", comment: "ThinkingDelta appends delta to thinking block contentIndex."}},
	{core.EventThinkingEnd, typeDoc{goName: "ThinkingEnd", comment: "ThinkingEnd closes thinking block contentIndex; content is its whole reasoning."}},
	{core.EventToolCallStart, typeDoc{goName: "ToolCallStart", comment: "ToolCallStart opens tool-call block contentIndex. The call's id " +
		"and name are present when the provider sent them first; otherwise they come on the first toolcall_delta that knows them."}},
	{core.EventToolCallDelta, typeDoc{goName: "ToolCallDelta", comment: "ToolCallDelta appends a raw fragment of the arguments' JSON " +
		"to tool-call block contentIndex."}},
	{core.EventToolCallEnd, typeDoc{goName: "ToolCallEnd", comment: "ToolCallEnd closes tool-call block contentIndex with the finished call."}},
}

func withIn(f assistantField, in Dialect) assistantField {
	f.in = in
	return f
}

func appendFinal(dst []byte, _ *core.AssistantEvent, msg *core.AssistantMessage) ([]byte, error) {
	return appendValue(dst, msg)
}

// callOf is a toolcall_start's call id and name: the event's, else the partial message's
// block at contentIndex.
func callOf(e *core.AssistantEvent, msg *core.AssistantMessage) (id, name string) {
	id, name = e.ID, e.Name
	if msg != nil && e.ContentIndex >= 0 && e.ContentIndex < len(msg.Content) {
		if id == "" {
			id = msg.Content[e.ContentIndex].ID
		}
		if name == "" {
			name = msg.Content[e.ContentIndex].Name
		}
	}
	return id, name
}

// assistantFields returns the fields of a step type after "type" (contentIndex alone for a
// type core does not have).
func assistantFields(t core.AssistantEventType) *assistantList {
	switch t {
	case core.EventTextDelta, core.EventThinkingDelta:
		return deltaFields
	case core.EventTextStart, core.EventThinkingStart:
		return blockStartFields
	case core.EventTextEnd, core.EventThinkingEnd:
		return blockEndFields
	case core.EventToolCallStart:
		return toolCallStartFields
	case core.EventToolCallDelta:
		return toolCallDeltaFields
	case core.EventToolCallEnd:
		return toolCallEndFields
	case core.EventStart:
		return startFields
	case core.EventDone:
		return doneFields
	case core.EventError:
		return errorFields
	}
	return blockStartFields
}

// AppendAssistantEvent appends a message_update's assistantMessageEvent object in dialect d;
// msg is the partial message (pi's toolcall_start names the call from it; done and error
// carry it), nil when there is none.
func AppendAssistantEvent(dst []byte, e *core.AssistantEvent, msg *core.AssistantMessage, d Dialect) ([]byte, error) {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, e.Type...)
	dst = append(dst, '"')
	dst, err := appendFields(dst, assistantFields(e.Type), d, e, msg)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// AssistantFieldNames lists a step type's fields in dialect d, after "type".
func AssistantFieldNames(t core.AssistantEventType, d Dialect) []string {
	return names(assistantFields(t), d)
}
