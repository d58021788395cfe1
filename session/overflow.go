package session

import (
	"regexp"
	"sync"

	"github.com/pi-rpc/pi-rpc/core"
)

// overflowPatterns are pi 0.73.1's error texts for a request larger than the model's context
// window (packages/ai/src/utils/overflow.ts), one or more per provider family.
var overflowPatterns = compileAll(
	`prompt is too long`,                                  // Anthropic
	`request_too_large`,                                   // Anthropic, HTTP 413
	`input is too long for requested model`,               // Amazon Bedrock
	`exceeds the context window`,                          // OpenAI
	`input token count.*exceeds the maximum`,              // Google Gemini
	`maximum prompt length is \d+`,                        // xAI
	`reduce the length of the messages`,                   // Groq
	`maximum context length is \d+ tokens`,                // OpenRouter
	`exceeds the limit of \d+`,                            // GitHub Copilot
	`exceeds the available context size`,                  // llama.cpp
	`greater than the context length`,                     // LM Studio
	`context window exceeds limit`,                        // MiniMax
	`exceeded model token limit`,                          // Kimi For Coding
	`too large for model with \d+ maximum context length`, // Mistral
	`model_context_window_exceeded`,                       // z.ai
	`prompt too long; exceeded (?:max )?context length`,   // Ollama
	`context[_ ]length[_ ]exceeded`,                       // generic
	`too many tokens`,                                     // generic
	`token limit exceeded`,                                // generic
	`^4(?:00|13)\s*(?:status code)?\s*\(no body\)`,        // Cerebras
)

// nonOverflowPatterns mark errors that match an overflow pattern by accident, such as
// Bedrock's "ThrottlingException: Too many tokens, please wait": they are rate limits, and
// compacting would not help.
var nonOverflowPatterns = compileAll(
	`^(Throttling error|Service unavailable):`,
	`rate limit`,
	`too many requests`,
)

// compileAll compiles case-insensitive patterns on first use, not at start-up.
func compileAll(patterns ...string) func() []*regexp.Regexp {
	return sync.OnceValue(func() []*regexp.Regexp {
		res := make([]*regexp.Regexp, len(patterns))
		for i, p := range patterns {
			res[i] = regexp.MustCompile(`(?i)` + p)
		}
		return res
	})
}

func matchesAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// IsContextOverflow reports whether an assistant message shows that its request did not fit
// the model's context window (pi's isContextOverflow): a failed response whose error text
// names an overflow and is not a rate limit; a successful one whose input (with cache reads)
// exceeds the window, because some servers accept an oversized prompt silently; or one cut off
// by the output limit with no output at all and a window at least 99% full, because others
// truncate the prompt to fill the window. contextWindow <= 0 disables the two usage rules.
//
// It looks only at the message's text and usage; a provider's typed classification
// (AssistantMessage.Failure) is the caller's to weigh first.
func IsContextOverflow(m *core.AssistantMessage, contextWindow int) bool {
	if m.StopReason == core.StopReasonError && m.ErrorMessage != "" &&
		!matchesAny(nonOverflowPatterns(), m.ErrorMessage) && matchesAny(overflowPatterns(), m.ErrorMessage) {
		return true
	}
	if contextWindow <= 0 {
		return false
	}
	input := m.Usage.Input + m.Usage.CacheRead
	switch m.StopReason {
	case core.StopReasonStop:
		return input > contextWindow
	case core.StopReasonLength:
		return m.Usage.Output == 0 && float64(input) >= 0.99*float64(contextWindow)
	}
	return false
}
