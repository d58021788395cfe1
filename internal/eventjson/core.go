package eventjson

import (
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
)

type (
	coreField = field[core.Event, Options]
	coreList  = fieldList[core.Event, Options]
)

func coreF(name string, in Dialect, doc Doc, omit func(*core.Event, Options) bool, put func([]byte, *core.Event, Options) ([]byte, error)) coreField {
	return newField(name, in, doc, omit, put)
}

// The core events' fields, after "type".
var (
	agentEndFields = newList(
		coreF("messages", Both, Doc{Type: "[]Message", Comment: "Messages are the messages the run produced."}, nil,
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendMessages(dst, e.Messages) }),
		coreF("willRetry", Both, Doc{Type: "bool", Comment: "WillRetry is true when the session will retry or compact and continue, " +
			"so another run follows in the same busy period."}, nil,
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendBool(dst, e.WillRetry), nil }),
	)
	turnEndFields = newList(
		messageField.documented(Doc{Type: "AssistantMessage", Comment: "Message is the turn's assistant message."}),
		coreF("toolResults", Both, Doc{Type: "[]ToolResultMessage", Comment: "ToolResults are the results of the turn's tool batch, " +
			"in the order of the calls."}, nil,
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
				results := e.ToolResults
				if results == nil {
					results = []*core.ToolResultMessage{}
				}
				return appendValue(dst, results)
			}),
	)
	messageFields = newList(
		messageField,
		coreF("inputId", JSONRPC, Doc{Type: "string", Comment: "InputID is the input (prompt, steer, followUp) that produced this user message."},
			func(e *core.Event, _ Options) bool { return e.InputID == "" },
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendString(dst, e.InputID), nil }),
	)
	messageUpdateFields = newList(
		// pi 1.6.0's message_update leads with the message's usage so far.
		coreF("usage", Pi, Doc{}, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			var usage core.Usage
			if am, _ := e.Message.(*core.AssistantMessage); am != nil {
				usage = am.Usage
			}
			return appendValue(dst, &usage)
		}),
		coreF("assistantMessageEvent", Both, Doc{Type: "AssistantMessageEvent"}, nil,
			func(dst []byte, e *core.Event, o Options) ([]byte, error) {
				am, _ := e.Message.(*core.AssistantMessage)
				return AppendAssistantEvent(dst, e.Update, am, o.Dialect)
			}),
		coreF("message", JSONRPC, Doc{Type: "*AssistantMessage", Comment: "Message is the whole partial message, only for clients " +
			"that declared the partialMessages capability."},
			func(_ *core.Event, o Options) bool { return !o.PartialMessages },
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendValue(dst, e.Message) }),
	)
	toolStartFields = newList(toolCallIDField, toolNameField,
		argsField.documented(Doc{Type: "map[string]any", Comment: "Args are the call's arguments as the model sent them."}))
	toolUpdateFields = newList(toolCallIDField, toolNameField, argsField,
		coreF("partialResult", Both, Doc{Type: "ToolResult", Comment: "PartialResult is the result so far."}, nil,
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendValue(dst, e.Result) }),
	)
	toolEndFields = newList(toolCallIDField, toolNameField,
		coreF("result", Both, Doc{Type: "ToolResult"}, nil,
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendValue(dst, e.Result) }),
		coreF("isError", Both, Doc{Type: "bool", Comment: "IsError says the tool failed; the result's text says why."}, nil,
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendBool(dst, e.IsError), nil }),
		coreF("durationMs", Both, Doc{Type: "*int64", Comment: "DurationMs is how long the tool ran, in milliseconds; " +
			"absent when it did not run (an unknown tool, invalid arguments, a denied permission)."},
			func(e *core.Event, _ Options) bool { return e.DurationMs == nil },
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
				return strconv.AppendInt(dst, *e.DurationMs, 10), nil
			}),
	)

	messageField = coreF("message", Both, Doc{Type: "Message"}, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		return appendValue(dst, e.Message)
	})
	toolCallIDField = coreF("toolCallId", Both, Doc{Type: "string"}, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		return appendString(dst, e.ToolCallID), nil
	})
	toolNameField = coreF("toolName", Both, Doc{Type: "string"}, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		return appendString(dst, e.ToolName), nil
	})
	argsField = coreF("args", Both, Doc{Type: "map[string]any"}, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		args := e.Args
		if args == nil {
			args = map[string]any{}
		}
		return appendValue(dst, args)
	})
)

// coreEvents documents the core events, in the order of docs/events.md; their fields are
// coreFields'.
var coreEvents = []struct {
	t   core.EventType
	doc typeDoc
}{
	{core.AgentStart, typeDoc{goName: "AgentStartEvent", comment: "AgentStartEvent starts a run.",
		envelope: runEnvelope, sessionID: "SessionID is the session the run works in."}},
	{core.AgentEnd, typeDoc{goName: "AgentEndEvent", comment: "AgentEndEvent ends a run.", envelope: runEnvelope}},
	{core.TurnStart, typeDoc{goName: "TurnStartEvent", comment: "TurnStartEvent starts a turn: one model response and its tool batch.",
		envelope: runEnvelope}},
	{core.TurnEnd, typeDoc{goName: "TurnEndEvent", comment: "TurnEndEvent ends a turn.", envelope: runEnvelope}},
	{core.MessageStart, typeDoc{goName: "MessageStartEvent", comment: "MessageStartEvent starts a message: for an assistant message, " +
		"the start of its stream.", envelope: runEnvelope}},
	{core.MessageUpdate, typeDoc{goName: "MessageUpdateEvent", comment: "MessageUpdateEvent is one step of a streamed assistant message.",
		envelope: runEnvelope}},
	{core.MessageEnd, typeDoc{goName: "MessageEndEvent", comment: "MessageEndEvent ends a message; its message is the final, " +
		"authoritative one.", envelope: runEnvelope}},
	{core.ToolExecutionStart, typeDoc{goName: "ToolExecutionStartEvent", comment: "ToolExecutionStartEvent starts the execution of a tool call.",
		envelope: runEnvelope}},
	{core.ToolExecutionUpdate, typeDoc{goName: "ToolExecutionUpdateEvent", comment: "ToolExecutionUpdateEvent reports a running " +
		"tool's progress; each update replaces the last.", envelope: runEnvelope}},
	{core.ToolExecutionEnd, typeDoc{goName: "ToolExecutionEndEvent", comment: "ToolExecutionEndEvent ends the execution of a tool call.",
		envelope: runEnvelope}},
}

// coreFields returns the fields of a core event type after "type" (none for agent_start,
// turn_start and types core does not have).
func coreFields(t core.EventType) *coreList {
	switch t {
	case core.AgentEnd:
		return agentEndFields
	case core.TurnEnd:
		return turnEndFields
	case core.MessageStart, core.MessageEnd:
		return messageFields
	case core.MessageUpdate:
		return messageUpdateFields
	case core.ToolExecutionStart:
		return toolStartFields
	case core.ToolExecutionUpdate:
		return toolUpdateFields
	case core.ToolExecutionEnd:
		return toolEndFields
	}
	return nil
}

// AppendCore appends a core event's fields in o's dialect, "type" first, without the
// enclosing braces (the JSON-RPC envelope follows them).
func AppendCore(dst []byte, e *core.Event, o Options) ([]byte, error) {
	dst = append(dst, `"type":"`...)
	dst = append(dst, e.Type...)
	dst = append(dst, '"')
	return appendFields(dst, coreFields(e.Type), o.Dialect, e, o)
}

// CoreFieldNames lists a core event type's fields in dialect d, after "type" (with
// JSON-RPC's optional partial message).
func CoreFieldNames(t core.EventType, d Dialect) []string {
	return names(coreFields(t), d)
}
