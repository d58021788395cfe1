package pimode

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
)

func encode(t *testing.T, ev *session.Event) map[string]any {
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

func TestMessageUpdateCarriesPartial(t *testing.T) {
	msg := &core.AssistantMessage{Content: []core.Content{
		{Type: core.ContentText, Text: "Hi"},
		{Type: core.ContentToolCall, ID: "call_1", Name: "bash", Arguments: map[string]any{"command": "ls"}},
	}}
	ev := &session.Event{Type: string(core.MessageUpdate), RunID: "r1", SessionID: "s1", Core: &core.Event{
		Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventToolCallDelta, ContentIndex: 1, Delta: `"ls"}`, Partial: msg},
	}}
	m := encode(t, ev)
	for _, k := range []string{"seq", "runId", "sessionId"} {
		if _, ok := m[k]; ok {
			t.Errorf("pi events carry no %s: %v", k, m)
		}
	}
	ame := m["assistantMessageEvent"].(map[string]any)
	partial := ame["partial"].(map[string]any)
	call := partial["content"].([]any)[1].(map[string]any)
	if call["id"] != "call_1" || call["name"] != "bash" {
		t.Fatalf("partial.content[contentIndex] = %v", call)
	}
	if ame["contentIndex"] != float64(1) || ame["delta"] != `"ls"}` {
		t.Fatalf("assistantMessageEvent = %v", ame)
	}
	if _, ok := m["message"].(map[string]any); !ok {
		t.Fatalf("message missing: %v", m)
	}
	// The keys in pi's order (its agent loop builds {type, assistantMessageEvent, message}),
	// for clients that compare lines.
	data, err := appendEvent(nil, ev)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"type":"message_update","assistantMessageEvent":{`) ||
		strings.Index(string(data), `"message":`) < strings.Index(string(data), `"assistantMessageEvent":`) {
		t.Fatalf("key order differs from pi's: %.120s", data)
	}
}

func TestAssistantStartAndDone(t *testing.T) {
	msg := &core.AssistantMessage{StopReason: core.StopReasonStop}
	start := encode(t, &session.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventStart, Partial: msg}}})
	ame := start["assistantMessageEvent"].(map[string]any)
	if _, ok := ame["contentIndex"]; ok || ame["partial"] == nil {
		t.Fatalf("start = %v", ame)
	}
	done := encode(t, &session.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventDone, Reason: core.StopReasonStop, Partial: msg}}})
	ame = done["assistantMessageEvent"].(map[string]any)
	if ame["reason"] != "stop" || ame["message"] == nil {
		t.Fatalf("done = %v", ame)
	}
}

func TestSessionEventsInPiShape(t *testing.T) {
	q := encode(t, &session.Event{Type: session.EventQueueUpdate, Payload: session.QueueUpdate{
		Steering: []session.QueuedInput{{InputID: "in_1", Text: "a"}}, FollowUp: []session.QueuedInput{}}})
	data, _ := json.Marshal(q)
	if string(data) != `{"followUp":[],"steering":["a"],"type":"queue_update"}` {
		t.Fatalf("queue_update = %s", data)
	}
	st := encode(t, &session.Event{Type: session.EventAgentSettled, Payload: &session.Settled{Aborted: true,
		Inputs: []session.InputOutcome{{InputID: "in_1", Outcome: session.OutcomeAborted}}}})
	data, _ = json.Marshal(st)
	if string(data) != `{"aborted":true,"type":"agent_settled"}` {
		t.Fatalf("agent_settled = %s", data)
	}
	end := encode(t, &session.Event{Type: string(core.AgentEnd), Core: &core.Event{Type: core.AgentEnd, WillRetry: true}})
	if end["willRetry"] != true || end["messages"] == nil {
		t.Fatalf("agent_end = %v", end)
	}
	for _, typ := range []string{session.EventModelChanged, session.EventSessionChanged, session.EventBashUpdate,
		session.EventPermissionRequested, session.EventPermissionResolved} {
		if m := encode(t, &session.Event{Type: typ, Payload: struct{}{}}); m != nil {
			t.Errorf("%s is not a pi event, got %v", typ, m)
		}
	}
	tl := encode(t, &session.Event{Type: session.EventThinkingLevelChanged, Payload: session.ThinkingLevelChanged{Level: "high"}})
	if tl["level"] != "high" {
		t.Fatalf("thinking_level_changed = %v", tl)
	}
}

func TestWriterKeepsOneOrder(t *testing.T) {
	var out strings.Builder
	pr, pw := newPipe()
	w := NewWriter(pw, 1<<20, testLogger())
	w.Emit(&session.Event{Type: string(core.AgentStart), Core: &core.Event{Type: core.AgentStart}})
	w.Write([]byte(`{"type":"response","command":"abort","success":true}`))
	seq := w.Emit(&session.Event{Type: session.EventBashUpdate, Payload: session.BashUpdate{}})
	w.Emit(&session.Event{Type: session.EventAgentSettled, Payload: &session.Settled{}})
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

// The last text_delta of a 20,000-delta reply (5 bytes each) is the largest line of the
// reply; it stays under a Go SDK scanner's 4 MiB.
func TestLargestLineOf20000Deltas(t *testing.T) {
	text := strings.Repeat("word ", 20000)
	msg := &core.AssistantMessage{Content: []core.Content{{Type: core.ContentText, Text: text}},
		API: "openai-completions", Provider: "openai", Model: "gpt-4.1", StopReason: core.StopReasonStop}
	data, err := appendEvent(nil, &session.Event{Type: "message_update", Core: &core.Event{Type: core.MessageUpdate, Message: msg,
		Update: &core.AssistantEvent{Type: core.EventTextDelta, Delta: "word ", Partial: msg}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("largest line of a 20,000-delta reply (%d bytes of text): %d bytes", len(text), len(data)+1)
	if len(data)+1 >= 4<<20 {
		t.Fatalf("line of %d bytes", len(data)+1)
	}
}
