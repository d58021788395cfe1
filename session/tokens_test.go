package session

import (
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

func cptUser(text string, ts int64) *core.UserMessage {
	return &core.UserMessage{Content: []core.Content{core.TextBlock(text)}, Timestamp: ts}
}

func cptAssistant(stop core.StopReason, total int, ts int64, content ...core.Content) *core.AssistantMessage {
	if content == nil {
		content = []core.Content{}
	}
	return &core.AssistantMessage{
		Content: content, Provider: "p", Model: "m", StopReason: stop, Timestamp: ts,
		Usage: core.Usage{TotalTokens: total},
	}
}

func cptToolResult(text string) *core.ToolResultMessage {
	return &core.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []core.Content{core.TextBlock(text)}}
}

func TestEstimateTokens(t *testing.T) {
	img := core.ImageBlock("AAAA", "image/png")
	tests := []struct {
		name string
		msg  core.Message
		want int
	}{
		{"user text rounds up", cptUser("12345", 0), 2},
		{"user empty", &core.UserMessage{}, 0},
		{"user counts UTF-16 units", cptUser("😀😀", 0), 1}, // 4 units
		{"user ignores images (pi 0.73.1)", &core.UserMessage{Content: []core.Content{core.TextBlock("abcd"), img}}, 1},
		{"assistant text and thinking", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock("abcd"), core.Content{Type: core.ContentThinking, Thinking: "efgh"}), 2},
		{"assistant tool call name and JSON args", cptAssistant(core.StopReasonToolUse, 0, 0, core.ToolCallBlock("c1", "bash", map[string]any{"command": "ls"})), 5}, // bash + {"command":"ls"} = 4+16
		{"assistant tool call without args", cptAssistant(core.StopReasonToolUse, 0, 0, core.ToolCallBlock("c1", "ls", nil)), 1},                                     // ls + {}
		{"tool result text and image", &core.ToolResultMessage{Content: []core.Content{core.TextBlock("abcd"), img}}, 1201},
		{"custom with image", &core.CustomMessage{Content: []core.Content{img}}, 1200},
		{"bash execution", &core.BashExecutionMessage{Command: "ls", Output: "a\nb"}, 2},
		{"branch summary", &core.BranchSummaryMessage{Summary: strings.Repeat("x", 9)}, 3},
		{"compaction summary", &core.CompactionSummaryMessage{Summary: strings.Repeat("x", 8)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateTokens(tt.msg); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// pi's calculateContextTokens (packages/coding-agent/test/compaction.test.ts).
func TestCalculateContextTokens(t *testing.T) {
	tests := []struct {
		name string
		u    core.Usage
		want int
	}{
		{"totalTokens wins", core.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 100}, 100},
		{"sum when totalTokens is zero", core.Usage{Input: 1000, Output: 500, CacheRead: 200, CacheWrite: 100}, 1800},
		{"zeros", core.Usage{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CalculateContextTokens(tt.u); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// pi's getLastAssistantUsage (compaction.test.ts): skips aborted (and error) messages, none when
// absent.
func TestLastAssistantUsage(t *testing.T) {
	tests := []struct {
		name   string
		ms     []core.Message
		want   int
		wantOK bool
	}{
		{"none", []core.Message{cptUser("hi", 0)}, 0, false},
		{"empty", nil, 0, false},
		{"last successful", []core.Message{cptAssistant(core.StopReasonStop, 10, 0), cptUser("x", 0), cptAssistant(core.StopReasonToolUse, 20, 0), cptToolResult("r")}, 20, true},
		{"skips aborted", []core.Message{cptAssistant(core.StopReasonStop, 10, 0), cptAssistant(core.StopReasonAborted, 99, 0)}, 10, true},
		{"skips error", []core.Message{cptAssistant(core.StopReasonLength, 10, 0), cptAssistant(core.StopReasonError, 99, 0)}, 10, true},
		{"only aborted", []core.Message{cptAssistant(core.StopReasonAborted, 99, 0)}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, i := lastUsage(tt.ms)
			ok := i >= 0
			if ok != tt.wantOK {
				t.Fatalf("ok: got %v, want %v", ok, tt.wantOK)
			}
			if ok && u.TotalTokens != tt.want {
				t.Errorf("got %v, want %v", u.TotalTokens, tt.want)
			}
		})
	}
}

func TestEstimateContextTokens(t *testing.T) {
	tests := []struct {
		name string
		ms   []core.Message
		want ContextEstimate
	}{
		{"no usage sums estimates", []core.Message{cptUser("12345678", 0), cptAssistant(core.StopReasonError, 500, 0, core.TextBlock("1234"))},
			ContextEstimate{Tokens: 3, TrailingTokens: 3, LastUsageIndex: -1}},
		{"usage plus trailing", []core.Message{cptUser("12345678", 0), cptAssistant(core.StopReasonStop, 500, 0), cptUser("1234", 0), cptToolResult("12345678")},
			ContextEstimate{Tokens: 503, UsageTokens: 500, TrailingTokens: 3, LastUsageIndex: 1}},
		{"usage last", []core.Message{cptAssistant(core.StopReasonStop, 500, 0)},
			ContextEstimate{Tokens: 500, UsageTokens: 500, LastUsageIndex: 0}},
		{"empty", nil, ContextEstimate{LastUsageIndex: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateContextTokens(tt.ms); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// pi's shouldCompact (compaction.test.ts) = tokens > window - reserve, false when disabled.
func TestShouldCompact(t *testing.T) {
	on := CompactionSettings{Enabled: true, ReserveTokens: 10000, KeepRecentTokens: 20000}
	off := on
	off.Enabled = false
	tests := []struct {
		name   string
		tokens int
		window int
		s      CompactionSettings
		want   bool
	}{
		{"over the threshold", 95000, 100000, on, true},
		{"under the threshold", 89000, 100000, on, false},
		{"at the threshold", 90000, 100000, on, false},
		{"one over", 90001, 100000, on, true},
		{"disabled", 95000, 100000, off, false},
		{"defaults", 200000 - 16384 + 1, 200000, DefaultCompactionSettings(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldCompact(tt.tokens, tt.window, tt.s); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDefaultCompactionSettings(t *testing.T) {
	got := DefaultCompactionSettings()
	want := CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// pi's threshold rule, and its AgentSession tests for a failed reply: estimated from the last
// successful usage, skipped without usage or with only pre-compaction usage.
func TestThresholdTokens(t *testing.T) {
	summary := &core.CompactionSummaryMessage{Summary: "s", Timestamp: 2000}
	errMsg := cptAssistant(core.StopReasonError, 0, 3000)
	tests := []struct {
		name   string
		ms     []core.Message
		last   *core.AssistantMessage
		want   int
		wantOK bool
	}{
		{"success uses its own usage",
			[]core.Message{cptUser("hi", 0), cptAssistant(core.StopReasonStop, 150000, 10)},
			cptAssistant(core.StopReasonStop, 150000, 10), 150000, true},
		{"success without totalTokens sums",
			nil, &core.AssistantMessage{StopReason: core.StopReasonLength, Usage: core.Usage{Input: 10, Output: 5}}, 15, true},
		{"C13 error estimates from the last successful usage",
			[]core.Message{cptUser("hi", 0), cptAssistant(core.StopReasonStop, 150000, 10), cptUser("12345678", 20), errMsg},
			errMsg, 150002, true},
		{"C14 error with no usage at all is skipped",
			[]core.Message{cptUser("hi", 0), errMsg},
			errMsg, 0, false},
		{"C15 error with only kept pre-compaction usage is skipped",
			[]core.Message{summary, cptUser("kept", 1000), cptAssistant(core.StopReasonStop, 180000, 1500), cptUser("new", 2500), errMsg},
			errMsg, 0, false},
		{"usage at the compaction time is stale",
			[]core.Message{summary, cptAssistant(core.StopReasonStop, 180000, 2000), errMsg},
			errMsg, 0, false},
		{"error with post-compaction usage estimates",
			[]core.Message{summary, cptUser("kept", 1000), cptAssistant(core.StopReasonStop, 180000, 1500), cptUser("new", 2500), cptAssistant(core.StopReasonStop, 40000, 2600), errMsg},
			errMsg, 40000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ThresholdTokens(tt.ms, tt.last)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("got %v, %v, want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
