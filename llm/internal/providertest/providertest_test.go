package providertest

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
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
