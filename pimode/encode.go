package pimode

import (
	"encoding/json"
	"strconv"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
	"github.com/pi-rpc/pi-rpc/session"
)

// appendEvent appends ev as pi writes it: a bare object with pi's fields and nothing else
// (no seq, runId or sessionId). It returns nil, nil for engine events pi has no counterpart
// for (model_changed, session_changed, bash_update, permission_*), which are not written.
func appendEvent(dst []byte, ev *session.Event) ([]byte, error) {
	if ev.Core != nil {
		return appendCore(dst, ev.Core)
	}
	var payload any
	switch ev.Type {
	case session.EventAgentSettled:
		st, _ := ev.Payload.(*session.Settled)
		aborted := st != nil && st.Aborted
		dst = append(dst, `{"type":"agent_settled","aborted":`...)
		dst = strconv.AppendBool(dst, aborted)
		return append(dst, '}'), nil
	case session.EventEntryAppended:
		payload = struct {
			Entry any `json:"entry"`
		}{ev.Payload}
	case session.EventQueueUpdate:
		q, _ := ev.Payload.(session.QueueUpdate)
		payload = piQueue{Steering: queueTexts(q.Steering), FollowUp: queueTexts(q.FollowUp)}
	case session.EventAutoRetryStart, session.EventAutoRetryEnd, session.EventCompactionStart,
		session.EventCompactionEnd, session.EventThinkingLevelChanged, session.EventSummarizationRetryScheduled,
		session.EventSummarizationRetryAttemptStart, session.EventSummarizationRetryFinished:
		payload = ev.Payload
	default:
		return nil, nil
	}
	dst = append(dst, `{"type":`...)
	dst = jsonstring.Append(dst, ev.Type)
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	if len(body) > 2 {
		dst = append(dst, ',')
		dst = append(dst, body[1:len(body)-1]...)
	}
	return append(dst, '}'), nil
}

// piQueue is pi's queue_update: the queued messages' texts.
type piQueue struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"followUp"`
}

func queueTexts(qs []session.QueuedInput) []string {
	out := make([]string, 0, len(qs))
	for _, q := range qs {
		out = append(out, q.Text)
	}
	return out
}

// appendCore appends a core event in pi 1.6.0's JSON event shape (docs/json.md of pi's
// package). message_update carries only the delta: {type, usage, assistantMessageEvent}, the
// latest cumulative usage and the provider event without its partial snapshot; toolcall_start
// names the call (id, toolName), as pi 1.6.0's JsonAssistantMessageEvent does.
func appendCore(dst []byte, e *core.Event) ([]byte, error) {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, e.Type...)
	dst = append(dst, '"')
	var err error
	switch e.Type {
	case core.AgentStart, core.TurnStart:
	case core.AgentEnd:
		msgs := e.Messages
		if msgs == nil {
			msgs = []core.Message{}
		}
		if dst, err = appendField(dst, "messages", msgs); err != nil {
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
	case core.MessageUpdate:
		am, _ := e.Message.(*core.AssistantMessage)
		var usage core.Usage
		if am != nil {
			usage = am.Usage
		}
		if dst, err = appendField(dst, "usage", &usage); err != nil {
			return nil, err
		}
		dst = append(dst, `,"assistantMessageEvent":`...)
		if dst, err = appendAssistantEvent(dst, e.Update, am); err != nil {
			return nil, err
		}
	case core.ToolExecutionStart, core.ToolExecutionUpdate, core.ToolExecutionEnd:
		dst = append(dst, `,"toolCallId":`...)
		dst = jsonstring.Append(dst, e.ToolCallID)
		dst = append(dst, `,"toolName":`...)
		dst = jsonstring.Append(dst, e.ToolName)
		args := e.Args
		if args == nil {
			args = map[string]any{}
		}
		switch e.Type {
		case core.ToolExecutionStart:
			dst, err = appendField(dst, "args", args)
		case core.ToolExecutionUpdate:
			if dst, err = appendField(dst, "args", args); err == nil {
				dst, err = appendField(dst, "partialResult", e.Result)
			}
		case core.ToolExecutionEnd:
			if dst, err = appendField(dst, "result", e.Result); err == nil {
				dst = append(dst, `,"isError":`...)
				dst = strconv.AppendBool(dst, e.IsError)
				if e.DurationMs != nil {
					dst = append(dst, `,"durationMs":`...)
					dst = strconv.AppendInt(dst, *e.DurationMs, 10)
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendAssistantEvent appends pi's AssistantMessageEvent without its partial snapshot. start
// has no contentIndex; done carries the final message as "message" and error as "error", as
// pi-ai's stream does; toolcall_start adds the call's id and toolName from msg.
func appendAssistantEvent(dst []byte, e *core.AssistantEvent, msg *core.AssistantMessage) ([]byte, error) {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, e.Type...)
	dst = append(dst, '"')
	var err error
	switch e.Type {
	case core.EventStart:
		return append(dst, '}'), nil
	case core.EventDone, core.EventError:
		dst = append(dst, `,"reason":`...)
		dst = jsonstring.Append(dst, string(e.Reason))
		name := "message"
		if e.Type == core.EventError {
			name = "error"
		}
		if dst, err = appendField(dst, name, msg); err != nil {
			return nil, err
		}
		return append(dst, '}'), nil
	}
	dst = append(dst, `,"contentIndex":`...)
	dst = strconv.AppendInt(dst, int64(e.ContentIndex), 10)
	switch e.Type {
	case core.EventToolCallStart:
		id, name := e.ID, e.Name
		if msg != nil && e.ContentIndex >= 0 && e.ContentIndex < len(msg.Content) {
			if id == "" {
				id = msg.Content[e.ContentIndex].ID
			}
			if name == "" {
				name = msg.Content[e.ContentIndex].Name
			}
		}
		dst = append(dst, `,"id":`...)
		dst = jsonstring.Append(dst, id)
		dst = append(dst, `,"toolName":`...)
		dst = jsonstring.Append(dst, name)
	case core.EventTextDelta, core.EventThinkingDelta, core.EventToolCallDelta:
		dst = append(dst, `,"delta":`...)
		dst = jsonstring.Append(dst, e.Delta)
	case core.EventTextEnd, core.EventThinkingEnd:
		dst = append(dst, `,"content":`...)
		dst = jsonstring.Append(dst, e.Content)
	case core.EventToolCallEnd:
		if dst, err = appendField(dst, "toolCall", e.ToolCall); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
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
