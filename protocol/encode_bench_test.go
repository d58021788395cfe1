package protocol_test

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// BenchmarkEventEncoder is the JSON-RPC encoding cost per event: the commonest event (a text
// delta, also with partial messages), a tool call's end and a finished message.
func BenchmarkEventEncoder(b *testing.B) {
	msg := &core.AssistantMessage{Content: []core.Content{core.TextBlock("Hello, world")}, API: "openai-completions",
		Provider: "openai", Model: "gpt", Usage: core.Usage{Input: 10, Output: 3, TotalTokens: 13}, StopReason: core.StopReasonStop}
	update := core.AssistantEvent{Type: core.EventTextDelta, Delta: "the "}
	result := &core.ToolResult{Content: []core.Content{core.TextBlock("file.go\n")}}
	delta := &sessionapi.Event{Type: "message_update", RunID: "r1", SessionID: "s1", Core: &core.Event{Type: core.MessageUpdate, Update: &update, Message: msg}}
	cases := []struct {
		name    string
		partial bool
		ev      *sessionapi.Event
	}{
		{"TextDelta", false, delta},
		{"TextDeltaPartial", true, delta},
		{"ToolEnd", false, &sessionapi.Event{Type: "tool_execution_end", RunID: "r1", Core: &core.Event{Type: core.ToolExecutionEnd,
			ToolCallID: "call_1", ToolName: "bash", Result: result}}},
		{"MessageEnd", false, &sessionapi.Event{Type: "message_end", RunID: "r1", Core: &core.Event{Type: core.MessageEnd, Message: msg}}},
		{"QueueUpdate", false, &sessionapi.Event{Type: sessionapi.EventQueueUpdate, Payload: sessionapi.QueueUpdate{}}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			enc := protocol.EventEncoder{PartialMessages: tc.partial}
			buf := make([]byte, 0, 1024)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc.Append(buf[:0], tc.ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
