package pimode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

func encode(t *testing.T, ev *sessionapi.Event) map[string]any {
	t.Helper()
	data, err := appendEvent(nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	if data == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

// pi 1.6.0's message_update is delta-only: {type, usage, assistantMessageEvent}, no
// cumulative message, no partial; toolcall_start names the call.
func TestMessageUpdateCarriesOnlyTheDelta(t *testing.T) {
	msg := &core.AssistantMessage{Content: []core.Content{
		{Type: core.ContentText, Text: "Hi"},
		{Type: core.ContentToolCall, ID: "call_1", Name: "bash", Arguments: map[string]any{"command": "ls"}},
	}, Usage: core.Usage{Input: 7, Output: 2, TotalTokens: 9}}
	update := func(u core.AssistantEvent) *sessionapi.Event {
		u.Partial = msg
		return &sessionapi.Event{Type: string(core.MessageUpdate), RunID: "r1", SessionID: "s1", Core: &core.Event{
			Type: core.MessageUpdate, Message: msg, Update: &u}}
	}
	data, err := appendEvent(nil, update(core.AssistantEvent{Type: core.EventToolCallDelta, ContentIndex: 1, Delta: `"ls"}`}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"message_update","usage":{"input":7,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":9,` +
		`"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},` +
		`"assistantMessageEvent":{"type":"toolcall_delta","contentIndex":1,"delta":"\"ls\"}"}}`
	if string(data) != want {
		t.Fatalf("got  %s\nwant %s", data, want)
	}
	start := encode(t, update(core.AssistantEvent{Type: core.EventToolCallStart, ContentIndex: 1}))
	ame := start["assistantMessageEvent"].(map[string]any)
	if ame["id"] != "call_1" || ame["toolName"] != "bash" {
		t.Fatalf("toolcall_start = %v", ame)
	}
	if _, ok := ame["partial"]; ok {
		t.Fatalf("toolcall_start carries partial: %v", ame)
	}
}

func TestAssistantStartAndDone(t *testing.T) {
	msg := &core.AssistantMessage{StopReason: core.StopReasonStop}
	start := encode(t, &sessionapi.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventStart, Partial: msg}}})
	ame := start["assistantMessageEvent"].(map[string]any)
	if _, ok := ame["contentIndex"]; ok || ame["partial"] != nil {
		t.Fatalf("start = %v", ame)
	}
	done := encode(t, &sessionapi.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventDone, Reason: core.StopReasonStop, Partial: msg}}})
	ame = done["assistantMessageEvent"].(map[string]any)
	if ame["reason"] != "stop" || ame["message"] == nil {
		t.Fatalf("done = %v", ame)
	}
}

func TestSessionEventsInPiShape(t *testing.T) {
	q := encode(t, &sessionapi.Event{Type: sessionapi.EventQueueUpdate, Payload: sessionapi.QueueUpdate{
		Steering: []sessionapi.QueuedInput{{InputID: "in_1", Text: "a"}}, FollowUp: []sessionapi.QueuedInput{}}})
	data, _ := json.Marshal(q)
	if string(data) != `{"followUp":[],"steering":["a"],"type":"queue_update"}` {
		t.Fatalf("queue_update = %s", data)
	}
	st := encode(t, &sessionapi.Event{Type: sessionapi.EventAgentSettled, Payload: &sessionapi.Settled{Aborted: true,
		Inputs: []sessionapi.InputOutcome{{InputID: "in_1", Outcome: session.OutcomeAborted}}}})
	data, _ = json.Marshal(st)
	if string(data) != `{"aborted":true,"type":"agent_settled"}` {
		t.Fatalf("agent_settled = %s", data)
	}
	end := encode(t, &sessionapi.Event{Type: string(core.AgentEnd), Core: &core.Event{Type: core.AgentEnd, WillRetry: true}})
	if end["willRetry"] != true || end["messages"] == nil {
		t.Fatalf("agent_end = %v", end)
	}
	for _, typ := range []string{sessionapi.EventModelChanged, sessionapi.EventSessionChanged, sessionapi.EventBashUpdate,
		sessionapi.EventPermissionRequested, sessionapi.EventPermissionResolved} {
		if m := encode(t, &sessionapi.Event{Type: typ, Payload: struct{}{}}); m != nil {
			t.Errorf("%s is not a pi event, got %v", typ, m)
		}
	}
	tl := encode(t, &sessionapi.Event{Type: sessionapi.EventThinkingLevelChanged, Payload: sessionapi.ThinkingLevelChanged{Level: "high"}})
	if tl["level"] != "high" {
		t.Fatalf("thinking_level_changed = %v", tl)
	}
}

func TestWriterKeepsOneOrder(t *testing.T) {
	var out strings.Builder
	pr, pw := newPipe()
	w := NewWriter(pw, 1<<20, testLogger())
	w.Emit(&sessionapi.Event{Type: string(core.AgentStart), Core: &core.Event{Type: core.AgentStart}})
	w.Write([]byte(`{"type":"response","command":"abort","success":true}`))
	seq := w.Emit(&sessionapi.Event{Type: sessionapi.EventBashUpdate, Payload: sessionapi.BashUpdate{}})
	w.Emit(&sessionapi.Event{Type: sessionapi.EventAgentSettled, Payload: &sessionapi.Settled{}})
	if seq != 2 || w.LastSeq() != 3 {
		t.Fatalf("seq %d, last %d: events pi does not write still get their seq", seq, w.LastSeq())
	}
	go func() { w.Close(hangTimeout); _ = pw.Close() }()
	buf := make([]byte, 4096)
	for {
		n, err := pr.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	want := "{\"type\":\"agent_start\"}\n{\"type\":\"response\",\"command\":\"abort\",\"success\":true}\n{\"type\":\"agent_settled\",\"aborted\":false}\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}

// A text_delta late in a 20,000-delta reply (5 bytes each) is as small as the first: updates
// carry no snapshot of the message.
func TestLargestLineOf20000Deltas(t *testing.T) {
	text := strings.Repeat("word ", 20000)
	msg := &core.AssistantMessage{Content: []core.Content{{Type: core.ContentText, Text: text}},
		API: "openai-completions", Provider: "openai", Model: "gpt-4.1", StopReason: core.StopReasonStop}
	data, err := appendEvent(nil, &sessionapi.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventTextDelta, Delta: "word ", Partial: msg}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("largest line of a 20,000-delta reply (%d bytes of text): %d bytes", len(text), len(data)+1)
	if len(data)+1 >= 512 {
		t.Fatalf("line of %d bytes", len(data)+1)
	}
}
