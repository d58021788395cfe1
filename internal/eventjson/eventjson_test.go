package eventjson

import (
	"slices"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The dialects' documented differences (package doc) are the description's.
func TestDialectDifferences(t *testing.T) {
	tests := []struct {
		typ     core.EventType
		rpc, pi []string
	}{
		{core.MessageStart, []string{"message", "inputId"}, []string{"message"}},
		{core.MessageUpdate, []string{"assistantMessageEvent", "message"}, []string{"usage", "assistantMessageEvent"}},
		{core.ToolExecutionEnd, []string{"toolCallId", "toolName", "result", "isError"},
			[]string{"toolCallId", "toolName", "result", "isError", "durationMs"}},
		{core.AgentEnd, []string{"messages", "willRetry"}, []string{"messages", "willRetry"}},
	}
	for _, tc := range tests {
		if got := CoreFieldNames(tc.typ, JSONRPC); !slices.Equal(got, tc.rpc) {
			t.Errorf("%s JSON-RPC fields %v, want %v", tc.typ, got, tc.rpc)
		}
		if got := CoreFieldNames(tc.typ, Pi); !slices.Equal(got, tc.pi) {
			t.Errorf("%s pi fields %v, want %v", tc.typ, got, tc.pi)
		}
	}
	if got := AssistantFieldNames(core.EventToolCallStart, Pi); !slices.Equal(got, []string{"contentIndex", "id", "toolName"}) {
		t.Errorf("pi toolcall_start fields %v", got)
	}
	if got := AssistantFieldNames(core.EventDone, Pi); !slices.Equal(got, []string{"reason", "message"}) {
		t.Errorf("pi done fields %v", got)
	}
}

func TestOptionalFields(t *testing.T) {
	d := int64(7)
	msg := &core.AssistantMessage{Content: []core.Content{{Type: core.ContentToolCall, ID: "call_1", Name: "bash"}}}
	update := core.AssistantEvent{Type: core.EventToolCallStart}
	tests := []struct {
		name string
		e    core.Event
		o    Options
		want string
	}{
		{"pi names the call from the message", core.Event{Type: core.MessageUpdate, Message: msg, Update: &update}, Options{Dialect: Pi},
			`"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},` +
				`"assistantMessageEvent":{"type":"toolcall_start","contentIndex":0,"id":"call_1","toolName":"bash"}`},
		{"JSON-RPC leaves an unknown id out", core.Event{Type: core.MessageUpdate, Message: msg, Update: &update}, Options{Dialect: JSONRPC},
			`"type":"message_update","assistantMessageEvent":{"type":"toolcall_start","contentIndex":0}`},
		{"inputId", core.Event{Type: core.MessageEnd, InputID: "in_1"}, Options{Dialect: JSONRPC},
			`"type":"message_end","message":null,"inputId":"in_1"`},
		{"durationMs", core.Event{Type: core.ToolExecutionEnd, ToolCallID: "c", ToolName: "n", DurationMs: &d}, Options{Dialect: Pi},
			`"type":"tool_execution_end","toolCallId":"c","toolName":"n","result":null,"isError":false,"durationMs":7`},
	}
	for _, tc := range tests {
		got, err := AppendCore(nil, &tc.e, tc.o)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v\nwant %s", tc.name, got, err, tc.want)
		}
	}
}

func TestSessionEventsByDialect(t *testing.T) {
	ev := &sessionapi.Event{Seq: 9, Type: sessionapi.EventAgentSettled, Payload: &sessionapi.Settled{Aborted: true}}
	got, ok, err := AppendSession(nil, ev, Pi)
	if err != nil || !ok || string(got) != `"type":"agent_settled","aborted":true` {
		t.Errorf("pi agent_settled = %s, %v, %v", got, ok, err)
	}
	got, ok, err = AppendSession(nil, ev, JSONRPC)
	if err != nil || !ok || string(got) != `"type":"agent_settled","inputs":null,"aborted":true,"lastSeq":9` {
		t.Errorf("JSON-RPC agent_settled = %s, %v, %v", got, ok, err)
	}
	if _, ok, _ := AppendSession(nil, &sessionapi.Event{Type: sessionapi.EventModelChanged}, Pi); ok {
		t.Errorf("pi writes model_changed")
	}
	if _, ok, _ := AppendSession(nil, &sessionapi.Event{Type: "some_future_event"}, JSONRPC); !ok {
		t.Errorf("JSON-RPC drops an undescribed event")
	}
}
