package session

import (
	"github.com/pi-rpc/pi-rpc/core"
)

// interruptedToolText is the result recorded for a tool call whose result never was: the
// process ended (kill -9, a crash) while the tool ran, after the call was written.
const interruptedToolText = "Tool call was interrupted: no result was recorded (the process ended before the tool finished)"

// interruptedToolResults returns error results for the tool calls of the context's last
// assistant message that have none, when the context ends in that message and some of its
// results (the state a process killed mid-tool leaves behind). Continuing from there records
// them as real entries, so the file becomes consistent and the model learns of the
// interruption; nil when nothing is missing.
func interruptedToolResults(ms []core.Message, now int64) []*core.ToolResultMessage {
	i := len(ms) - 1
	answered := map[string]bool{}
	for ; i >= 0; i-- {
		tr, ok := ms[i].(*core.ToolResultMessage)
		if !ok {
			break
		}
		answered[tr.ToolCallID] = true
	}
	if i < 0 {
		return nil
	}
	a, ok := ms[i].(*core.AssistantMessage)
	if !ok || a.StopReason == core.StopReasonError || a.StopReason == core.StopReasonAborted {
		return nil
	}
	var missing []*core.ToolResultMessage
	for _, call := range a.ToolCalls() {
		if answered[call.ID] {
			continue
		}
		missing = append(missing, &core.ToolResultMessage{
			ToolCallID: call.ID,
			ToolName:   call.Name,
			Content:    []core.Content{core.TextBlock(interruptedToolText)},
			IsError:    true,
			Timestamp:  now,
		})
	}
	return missing
}
