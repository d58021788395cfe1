package session

import (
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

func cptFailed(msg string) *core.AssistantMessage {
	return &core.AssistantMessage{StopReason: core.StopReasonError, ErrorMessage: msg}
}

// pi-ai's isContextOverflow (packages/ai/src/utils/overflow.ts): one real provider message per
// overflow pattern, then the exclusions.
func TestIsContextOverflowPatterns(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"prompt is too long: 213462 tokens > 200000 maximum", true},
		{`413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}`, true},
		{"Input is too long for requested model.", true},
		{"Your input exceeds the context window of this model", true},
		{"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)", true},
		{"This model's maximum prompt length is 131072 but the request contains 537812 tokens", true},
		{"Please reduce the length of the messages or completion", true},
		{"This endpoint's maximum context length is 128000 tokens. However, you requested about 140000 tokens", true},
		{"prompt token count of 150000 exceeds the limit of 128000", true},
		{"the request exceeds the available context size, try increasing it", true},
		{"tokens to keep from the initial prompt is greater than the context length", true},
		{"invalid params, context window exceeds limit", true},
		{"Your request exceeded model token limit: 262144 (requested: 300000)", true},
		{"Prompt contains 140000 tokens, too large for model with 131072 maximum context length", true},
		{"model_context_window_exceeded", true},
		{"prompt too long; exceeded max context length by 1200 tokens", true},
		{"prompt too long; exceeded context length by 1200 tokens", true},
		{"context_length_exceeded", true},
		{"Context length exceeded", true},
		{"Too many tokens in request", true},
		{"Token limit exceeded for this request", true},
		{"400 status code (no body)", true},
		{"413 (no body)", true},
		{"PROMPT IS TOO LONG", true},
		// Not overflows.
		{"500 status code (no body)", false},
		{"error 400 status code (no body)", false},
		{"Throttling error: Too many tokens, please wait before trying again.", false},
		{"Service unavailable: too many tokens", false},
		{"Rate limit reached: too many tokens per minute", false},
		{"429 Too Many Requests: too many tokens", false},
		{"overloaded_error", false},
		{"maximum context length is large tokens", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			if got := IsContextOverflow(cptFailed(tt.msg), 0); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// isContextOverflow's usage rules (a stop over the window, an empty length stop at 99% of it):
// silent overflow detected from usage, only with a context window.
func TestIsContextOverflowUsage(t *testing.T) {
	usage := func(input, cacheRead, output int) core.Usage {
		return core.Usage{Input: input, CacheRead: cacheRead, Output: output}
	}
	tests := []struct {
		name   string
		stop   core.StopReason
		u      core.Usage
		window int
		text   string
		want   bool
	}{
		{"stop with input over the window", core.StopReasonStop, usage(90000, 20000, 100), 100000, "", true},
		{"stop with input at the window", core.StopReasonStop, usage(90000, 10000, 100), 100000, "", false},
		{"stop without a window", core.StopReasonStop, usage(900000, 0, 100), 0, "", false},
		{"stop with a negative window", core.StopReasonStop, usage(900000, 0, 100), -1, "", false},
		{"toolUse over the window is not checked", core.StopReasonToolUse, usage(200000, 0, 100), 100000, "", false},
		{"length with no output and a full window", core.StopReasonLength, usage(98000, 1000, 0), 100000, "", true},
		{"length with no output just under 99%", core.StopReasonLength, usage(98000, 999, 0), 100000, "", false},
		{"length with output", core.StopReasonLength, usage(100000, 0, 1), 100000, "", false},
		{"length without a window", core.StopReasonLength, usage(100000, 0, 0), 0, "", false},
		{"overflow text on a successful response", core.StopReasonStop, usage(10, 0, 10), 100000, "prompt is too long", false},
		{"aborted", core.StopReasonAborted, usage(200000, 0, 0), 100000, "prompt is too long", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &core.AssistantMessage{StopReason: tt.stop, Usage: tt.u, ErrorMessage: tt.text}
			if got := IsContextOverflow(m, tt.window); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
