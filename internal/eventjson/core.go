package eventjson

import (
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
)

type coreField = field[core.Event, Options]

func coreF(name string, in Dialect, omit func(*core.Event, Options) bool, put func([]byte, *core.Event, Options) ([]byte, error)) coreField {
	return newField(name, in, omit, put)
}

// The core events' fields, after "type".
var (
	agentEndFields = []coreField{
		coreF("messages", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			return appendMessages(dst, e.Messages)
		}),
		coreF("willRetry", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			return appendBool(dst, e.WillRetry), nil
		}),
	}
	turnEndFields = []coreField{
		messageField,
		coreF("toolResults", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			results := e.ToolResults
			if results == nil {
				results = []*core.ToolResultMessage{}
			}
			return appendValue(dst, results)
		}),
	}
	messageFields = []coreField{
		messageField,
		coreF("inputId", JSONRPC, func(e *core.Event, _ Options) bool { return e.InputID == "" },
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendString(dst, e.InputID), nil }),
	}
	messageUpdateFields = []coreField{
		// pi 1.6.0's message_update leads with the message's usage so far.
		coreF("usage", Pi, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			var usage core.Usage
			if am, _ := e.Message.(*core.AssistantMessage); am != nil {
				usage = am.Usage
			}
			return appendValue(dst, &usage)
		}),
		coreF("assistantMessageEvent", Both, nil, func(dst []byte, e *core.Event, o Options) ([]byte, error) {
			am, _ := e.Message.(*core.AssistantMessage)
			return AppendAssistantEvent(dst, e.Update, am, o.Dialect)
		}),
		coreF("message", JSONRPC, func(_ *core.Event, o Options) bool { return !o.PartialMessages },
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) { return appendValue(dst, e.Message) }),
	}
	toolStartFields  = []coreField{toolCallIDField, toolNameField, argsField}
	toolUpdateFields = []coreField{toolCallIDField, toolNameField, argsField,
		coreF("partialResult", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			return appendValue(dst, e.Result)
		}),
	}
	toolEndFields = []coreField{toolCallIDField, toolNameField,
		coreF("result", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			return appendValue(dst, e.Result)
		}),
		coreF("isError", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
			return appendBool(dst, e.IsError), nil
		}),
		coreF("durationMs", Pi, func(e *core.Event, _ Options) bool { return e.DurationMs == nil },
			func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
				return strconv.AppendInt(dst, *e.DurationMs, 10), nil
			}),
	}

	messageField = coreF("message", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		return appendValue(dst, e.Message)
	})
	toolCallIDField = coreF("toolCallId", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		return appendString(dst, e.ToolCallID), nil
	})
	toolNameField = coreF("toolName", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		return appendString(dst, e.ToolName), nil
	})
	argsField = coreF("args", Both, nil, func(dst []byte, e *core.Event, _ Options) ([]byte, error) {
		args := e.Args
		if args == nil {
			args = map[string]any{}
		}
		return appendValue(dst, args)
	})
)

// coreFields returns the fields of a core event type after "type" (none for agent_start,
// turn_start and types core does not have).
func coreFields(t core.EventType) []coreField {
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
// JSON-RPC's optional partial message): what protocol's schema test compares its
// documentation types with.
func CoreFieldNames(t core.EventType, d Dialect) []string {
	return names(coreFields(t), d)
}
