package protocol

import (
	"encoding/json"
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// EventEncoder writes the engine's events as this protocol's `event` notification params
// (docs/events.md): one flat object with the event's own fields, then seq, runId and, where
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

// sessionIDEvents are the events that carry sessionId on a connection with one session.
var sessionIDEvents = map[string]bool{
	string(core.AgentStart):        true,
	sessionapi.EventAgentSettled:   true,
	sessionapi.EventSessionChanged: true,
}

// Append appends the params object of ev's notification to dst.
func (e *EventEncoder) Append(dst []byte, ev *sessionapi.Event) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	if ev.Core != nil {
		dst, err = AppendCoreFields(dst, ev.Core, e.PartialMessages)
	} else {
		dst, err = appendSessionFields(dst, ev)
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
	if ev.SessionID != "" && (e.EverySessionID || sessionIDEvents[ev.Type]) {
		dst = append(dst, `,"sessionId":`...)
		dst = jsonstring.Append(dst, ev.SessionID)
	}
	return append(dst, '}'), nil
}

// appendSessionFields writes a session event: its type, then the payload's fields.
// agent_settled's lastSeq is its own seq, which the sink assigns.
func appendSessionFields(dst []byte, ev *sessionapi.Event) ([]byte, error) {
	dst = append(dst, `"type":`...)
	dst = jsonstring.Append(dst, ev.Type)
	payload := ev.Payload
	if st, ok := payload.(*sessionapi.Settled); ok {
		cp := *st
		cp.LastSeq = ev.Seq
		payload = &cp
	}
	if payload == nil {
		return dst, nil
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:len(body)-1]...)
	}
	return dst, nil
}

// AppendCoreFields appends a core event's fields, without the enclosing braces. With
// partial, a message_update also carries the whole partial message as "message".
func AppendCoreFields(dst []byte, e *core.Event, partial bool) ([]byte, error) {
	dst = append(dst, `"type":"`...)
	dst = append(dst, e.Type...)
	dst = append(dst, '"')
	var err error
	switch e.Type {
	case core.AgentStart, core.TurnStart:
	case core.AgentEnd:
		dst = append(dst, `,"messages":`...)
		if dst, err = appendMessages(dst, e.Messages); err != nil {
			return nil, err
		}
		dst = append(dst, `,"willRetry":`...)
		dst = strconv.AppendBool(dst, e.WillRetry)
	case core.TurnEnd:
		if dst, err = appendField(dst, "message", e.Message); err != nil {
			return nil, err
		}
		results := e.ToolResults
		if results == nil {
			results = []*core.ToolResultMessage{}
		}
		if dst, err = appendField(dst, "toolResults", results); err != nil {
			return nil, err
		}
	case core.MessageStart, core.MessageEnd:
		if dst, err = appendField(dst, "message", e.Message); err != nil {
			return nil, err
		}
		if e.InputID != "" {
			dst = append(dst, `,"inputId":`...)
			dst = jsonstring.Append(dst, e.InputID)
		}
	case core.MessageUpdate:
		dst = append(dst, `,"assistantMessageEvent":`...)
		if dst, err = AppendAssistantEvent(dst, e.Update); err != nil {
			return nil, err
		}
		if partial {
			if dst, err = appendField(dst, "message", e.Message); err != nil {
				return nil, err
			}
		}
	case core.ToolExecutionStart, core.ToolExecutionUpdate, core.ToolExecutionEnd:
		dst = append(dst, `,"toolCallId":`...)
		dst = jsonstring.Append(dst, e.ToolCallID)
		dst = append(dst, `,"toolName":`...)
		dst = jsonstring.Append(dst, e.ToolName)
		switch e.Type {
		case core.ToolExecutionStart:
			dst, err = appendField(dst, "args", argsOrEmpty(e.Args))
		case core.ToolExecutionUpdate:
			if dst, err = appendField(dst, "args", argsOrEmpty(e.Args)); err == nil {
				dst, err = appendField(dst, "partialResult", e.Result)
			}
		case core.ToolExecutionEnd:
			if dst, err = appendField(dst, "result", e.Result); err == nil {
				dst = append(dst, `,"isError":`...)
				dst = strconv.AppendBool(dst, e.IsError)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return dst, nil
}

func argsOrEmpty(args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

func appendField(dst []byte, name string, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return append(dst, data...), nil
}

func appendMessages(dst []byte, ms []core.Message) ([]byte, error) {
	dst = append(dst, '[')
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		data, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		dst = append(dst, data...)
	}
	return append(dst, ']'), nil
}

// AppendAssistantEvent appends a message_update's assistantMessageEvent: pi's
// assistant-message event without "partial" (docs/events.md). It is the hot path of a
// streamed reply, so text and thinking deltas are written without reflection or allocation.
func AppendAssistantEvent(dst []byte, e *core.AssistantEvent) ([]byte, error) {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, e.Type...)
	dst = append(dst, `","contentIndex":`...)
	dst = strconv.AppendInt(dst, int64(e.ContentIndex), 10)
	switch e.Type {
	case core.EventTextDelta, core.EventThinkingDelta:
		dst = append(dst, `,"delta":`...)
		dst = jsonstring.Append(dst, e.Delta)
	case core.EventTextEnd, core.EventThinkingEnd:
		dst = append(dst, `,"content":`...)
		dst = jsonstring.Append(dst, e.Content)
	case core.EventToolCallStart, core.EventToolCallDelta:
		if e.ID != "" {
			dst = append(dst, `,"id":`...)
			dst = jsonstring.Append(dst, e.ID)
		}
		if e.Name != "" {
			dst = append(dst, `,"name":`...)
			dst = jsonstring.Append(dst, e.Name)
		}
		if e.Type == core.EventToolCallDelta {
			dst = append(dst, `,"delta":`...)
			dst = jsonstring.Append(dst, e.Delta)
		}
	case core.EventToolCallEnd:
		var err error
		if dst, err = appendField(dst, "toolCall", e.ToolCall); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
