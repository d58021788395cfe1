package pimode

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// benchEvents are the scenarios of the encoder benchmarks: the commonest event (a text
// delta), a tool call's end and a finished message.
func benchEvents() map[string]*sessionapi.Event {
	msg := &core.AssistantMessage{Content: []core.Content{core.TextBlock("Hello, world")}, API: "openai-completions",
		Provider: "openai", Model: "gpt", Usage: core.Usage{Input: 10, Output: 3, TotalTokens: 13}, StopReason: core.StopReasonStop}
	update := core.AssistantEvent{Type: core.EventTextDelta, Delta: "the "}
	result := &core.ToolResult{Content: []core.Content{core.TextBlock("file.go\n")}}
	return map[string]*sessionapi.Event{
		"TextDelta": {Type: "message_update", RunID: "r1", Core: &core.Event{Type: core.MessageUpdate, Update: &update, Message: msg}},
		"ToolEnd": {Type: "tool_execution_end", RunID: "r1", Core: &core.Event{Type: core.ToolExecutionEnd, ToolCallID: "call_1",
			ToolName: "bash", Result: result}},
		"MessageEnd": {Type: "message_end", RunID: "r1", Core: &core.Event{Type: core.MessageEnd, Message: msg}},
	}
}

// BenchmarkAppendEvent is pi mode's encoding cost per event.
func BenchmarkAppendEvent(b *testing.B) {
	for name, ev := range benchEvents() {
		b.Run(name, func(b *testing.B) {
			buf := make([]byte, 0, 1024)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := appendEvent(buf[:0], ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
