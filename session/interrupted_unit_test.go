package session

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

func TestInterruptedToolResults(t *testing.T) {
	calls := func(stop core.StopReason, ids ...string) *core.AssistantMessage {
		a := &core.AssistantMessage{StopReason: stop}
		for _, id := range ids {
			a.Content = append(a.Content, core.Content{Type: core.ContentToolCall, ID: id, Name: "tool_" + id})
		}
		return a
	}
	result := func(id string) *core.ToolResultMessage { return &core.ToolResultMessage{ToolCallID: id} }
	user := core.NewUserMessage("go on", nil, 1)
	tests := []struct {
		name string
		ms   []core.Message
		want []string
	}{
		{"empty", nil, nil},
		{"no results", []core.Message{user, calls(core.StopReasonToolUse, "a", "b")}, []string{"a", "b"}},
		{"one of two", []core.Message{user, calls(core.StopReasonToolUse, "a", "b"), result("b")}, []string{"a"}},
		{"all answered", []core.Message{user, calls(core.StopReasonToolUse, "a"), result("a")}, nil},
		{"finished reply", []core.Message{user, calls(core.StopReasonStop)}, nil},
		{"failed reply (continue drops it)", []core.Message{user, calls(core.StopReasonError, "a")}, nil},
		{"aborted reply (continue drops it)", []core.Message{user, calls(core.StopReasonAborted, "a")}, nil},
		{"a prompt came after (sent with pi's placeholder)", []core.Message{calls(core.StopReasonToolUse, "a"), user}, nil},
		{"only results", []core.Message{result("a")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range interruptedToolResults(tt.ms, 42) {
				if !r.IsError || r.Timestamp != 42 || r.ToolName != "tool_"+r.ToolCallID || core.TextOf(r.Content) != interruptedToolText {
					t.Fatalf("result %+v", r)
				}
				got = append(got, r.ToolCallID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
