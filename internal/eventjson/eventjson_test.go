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
		{core.ToolExecutionEnd, []string{"toolCallId", "toolName", "result", "isError", "durationMs"},
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
		{"JSON-RPC durationMs", core.Event{Type: core.ToolExecutionEnd, ToolCallID: "c", ToolName: "n", DurationMs: &d}, Options{Dialect: JSONRPC},
			`"type":"tool_execution_end","toolCallId":"c","toolName":"n","result":null,"isError":false,"durationMs":7`},
		{"no durationMs for a tool that did not run", core.Event{Type: core.ToolExecutionEnd, ToolCallID: "c", ToolName: "n", IsError: true}, Options{Dialect: JSONRPC},
			`"type":"tool_execution_end","toolCallId":"c","toolName":"n","result":null,"isError":true`},
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

// Every core event type is documented, in core's order, and every step a message_update
// carries; the session events JSON-RPC writes are documented, pi's alone are not.
func TestDocumentedTypes(t *testing.T) {
	var events, steps []string
	for _, d := range EventDocs() {
		events = append(events, d.Type)
	}
	for _, d := range StepDocs() {
		steps = append(steps, d.Type)
	}
	for i, typ := range core.EventTypes {
		if i >= len(events) || events[i] != string(typ) {
			t.Fatalf("documented events %v do not start with core's %v", events, core.EventTypes)
		}
	}
	for _, typ := range []core.AssistantEventType{core.EventTextStart, core.EventTextDelta, core.EventTextEnd,
		core.EventThinkingStart, core.EventThinkingDelta, core.EventThinkingEnd,
		core.EventToolCallStart, core.EventToolCallDelta, core.EventToolCallEnd} {
		if !slices.Contains(steps, string(typ)) {
			t.Errorf("step %s is not documented (%v)", typ, steps)
		}
	}
	for _, se := range sessionEvents {
		if documented := slices.Contains(events, se.t); documented != Writes(se.t, JSONRPC) {
			t.Errorf("%s: documented %v, written by JSON-RPC %v", se.t, documented, Writes(se.t, JSONRPC))
		}
	}
	if Writes(sessionapi.EventEntryAppended, JSONRPC) || !Writes(sessionapi.EventEntryAppended, Pi) {
		t.Errorf("entry_appended is pi mode's alone")
	}
}

// A documented field says its Go type, its Go name follows from its JSON name, and it is
// optional exactly when the dialect may leave it out.
func TestFieldDocs(t *testing.T) {
	for _, d := range append(EventDocs(), StepDocs()...) {
		for _, f := range d.Fields {
			if f.Type == "" {
				t.Errorf("%s.%s has no Doc.Type", d.Type, f.Name)
			}
		}
	}
	var end TypeDoc
	for _, d := range EventDocs() {
		if d.Type == string(core.MessageEnd) {
			end = d
		}
	}
	want := []FieldDoc{{Name: "message", GoName: "Message", Doc: Doc{Type: "Message"}},
		{Name: "inputId", GoName: "InputID", Doc: Doc{Type: "string", Comment: "InputID is the input (prompt, steer, followUp) that produced this user message."}, OmitEmpty: true}}
	if !slices.Equal(end.Fields, want) || end.Envelope != runEnvelope || end.SessionID != "" {
		t.Errorf("message_end documented as %+v", end)
	}
	for name, want := range map[string]string{"toolCallId": "ToolCallID", "id": "ID", "durationMs": "DurationMs", "args": "Args"} {
		if got := goName(name); got != want {
			t.Errorf("goName(%q) = %q, want %q", name, got, want)
		}
	}
}

// The events that carry sessionId on a connection with one session are the documented ones.
func TestCarriesSessionID(t *testing.T) {
	var got []string
	for _, d := range EventDocs() {
		if CarriesSessionID(d.Type) {
			got = append(got, d.Type)
		}
	}
	if want := []string{"agent_start", "agent_settled", "session_changed"}; !slices.Equal(got, want) {
		t.Errorf("sessionId on %v, want %v", got, want)
	}
}
