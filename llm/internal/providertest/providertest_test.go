package providertest

import (
	"fmt"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// TestDescribeToolCallEnd: only DescribeEventSig shows a finished call's thought signature.
func TestDescribeToolCallEnd(t *testing.T) {
	call := core.ToolCallBlock("c1", "ls", map[string]any{"path": "."})
	call.ThoughtSignature = "s1"
	ev := core.AssistantEvent{Type: core.EventToolCallEnd, ContentIndex: 2, ToolCall: &call}
	if got, want := DescribeEvent(ev), `toolcall_end 2 c1 ls {"path":"."}`; got != want {
		t.Errorf("DescribeEvent = %s, want %s", got, want)
	}
	if got, want := DescribeEventSig(ev), `toolcall_end 2 c1 ls {"path":"."} sig="s1"`; got != want {
		t.Errorf("DescribeEventSig = %s, want %s", got, want)
	}
}

// TestDescriberOptions: StartReason names a start message's failure, DeltaIDs shows a
// tool-call delta's id and name instead of its arguments, and Start renders a failed start
// as each describer does.
func TestDescriberOptions(t *testing.T) {
	failed := core.AssistantEvent{Type: core.EventStart, Partial: &core.AssistantMessage{StopReason: core.StopReasonError}}
	call := core.ToolCallBlock("c1", "ls", map[string]any{"path": "."})
	delta := core.AssistantEvent{Type: core.EventToolCallDelta, ContentIndex: 0, Delta: `"."}`, ID: "c1", Name: "ls",
		Partial: &core.AssistantMessage{Content: []core.Content{call}}}
	openai := Describer{StartReason: true, DeltaIDs: true}
	for _, tc := range []struct{ got, want string }{
		{Describer{}.Event(failed), "start"},
		{openai.Event(failed), "start error"},
		{Describer{}.Start(core.StopReasonAborted), "start"},
		{openai.Start(core.StopReasonAborted), "start aborted"},
		{Describer{}.Event(delta), `toolcall_delta 0 "\".\"}" {"path":"."}`},
		{openai.Event(delta), `toolcall_delta 0 "\".\"}" id=c1 name=ls`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// TestIdleMock: each scenario gets its response (the stall after the dialect's preamble and
// first delta), and Beats waits ten times before "done".
func TestIdleMock(t *testing.T) {
	m := Mock[string]{
		Text: func(text string, f mockhttp.Faults) string {
			return fmt.Sprintf("%s stall=%d before=%v", text, f.StallAfter, f.StallBeforeHeaders)
		},
		Preamble:  2,
		KeepAlive: "beats",
	}
	for s, want := range map[IdleScenario]string{StallMidStream: "abcd stall=3 before=false", StallBeforeHeaders: "x stall=0 before=true", KeepAlive: "beats", Steady: "abcd stall=0 before=false"} {
		if got := m.IdleResponse(s); got != want {
			t.Errorf("scenario %d: %s, want %s", s, got, want)
		}
	}
	if b := Beats("w", "b", "d"); len(b) != 21 || b[0] != "w" || b[1] != "b" || b[20] != "d" {
		t.Errorf("Beats = %v", b)
	}
}
