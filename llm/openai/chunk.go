package openai

import (
	"encoding/json"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/pi-rpc/pi-rpc/core"
)

// Chunks are decoded by the SDK into [oa.ChatCompletionChunk]. The fields that servers other
// than OpenAI add (the reasoning fields of vLLM, llama.cpp, Ollama and OpenRouter, DeepSeek's
// prompt_cache_hit_tokens, vLLM's per-choice usage, OpenRouter's error object) are the SDK's
// extra fields, read here.

// extra returns the raw JSON of a field the SDK type does not name, or "" when it is absent
// or null.
func extra(fields map[string]respjson.Field, key string) string {
	// The SDK marks every extra field "invalid" (it has no type to check it against), so
	// presence is read from the raw text.
	raw := fields[key].Raw()
	if raw == respjson.Null {
		return ""
	}
	return raw
}

// extraString reads a string extra field ("" when absent, null or not a string).
func extraString(fields map[string]respjson.Field, key string) string {
	raw := extra(fields, key)
	if raw == "" || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return ""
	}
	return s
}

// extraInt reads an integer extra field; false when absent, null or not a number.
func extraInt(fields map[string]respjson.Field, key string) (int, bool) {
	raw := extra(fields, key)
	if raw == "" {
		return 0, false
	}
	var n int
	if json.Unmarshal([]byte(raw), &n) != nil {
		return 0, false
	}
	return n, true
}

// normalizeUsage turns an OpenAI usage object into pi's counts (as pi-ai does): input excludes
// cached tokens, cache writes are counted apart, output includes reasoning tokens.
func normalizeUsage(u *oa.CompletionUsage) core.Usage {
	cached := 0
	cacheWrite := 0
	hit, hasHit := extraInt(u.JSON.ExtraFields, "prompt_cache_hit_tokens")
	if u.JSON.PromptTokensDetails.Valid() {
		d := &u.PromptTokensDetails
		if d.JSON.CachedTokens.Valid() {
			cached = int(d.CachedTokens)
		} else if hasHit {
			cached = hit
		}
		cacheWrite, _ = extraInt(d.JSON.ExtraFields, "cache_write_tokens")
	} else if hasHit {
		cached = hit
	}
	cacheRead := cached
	if cacheWrite > 0 {
		cacheRead = max(0, cached-cacheWrite)
	}
	return core.Usage{
		Input:      max(0, int(u.PromptTokens)-cacheRead-cacheWrite),
		Output:     int(u.CompletionTokens),
		CacheRead:  cacheRead,
		CacheWrite: cacheWrite,
	}
}

// finish is what a finish_reason means.
type finish struct {
	reason core.StopReason
	// failure is set for finish reasons that are errors.
	failure *core.ProviderError
}

// mapFinishReason maps finish_reason (as pi-ai's openai-completions.ts does).
func mapFinishReason(r string) finish {
	switch r {
	case "", "stop", "end":
		return finish{reason: core.StopReasonStop}
	case "length":
		return finish{reason: core.StopReasonLength}
	case "tool_calls", "function_call":
		return finish{reason: core.StopReasonToolUse}
	case "network_error":
		return finish{failure: &core.ProviderError{Kind: core.ErrorRetryable, Message: "Provider finish_reason: network_error"}}
	default:
		return finish{failure: &core.ProviderError{Kind: core.ErrorOther, Message: "Provider finish_reason: " + r}}
	}
}

// mapper applies chunks to a message builder. It holds the state that spans chunks: which
// builder key each tool call has, and what the finish reason said.
type mapper struct {
	b     *core.MessageBuilder
	model string

	// tool calls: builder key by stream index and by id; keyID is each key's call id.
	byIndex map[int]int
	byID    map[string]int
	keyID   map[int]string
	lastKey int
	nextKey int

	chunks     int
	sawFinish  bool
	sawToolUse bool
	failure    *core.ProviderError
}

func newMapper(b *core.MessageBuilder, model string) *mapper {
	return &mapper{b: b, model: model, byIndex: map[int]int{}, byID: map[string]int{}, keyID: map[int]string{}, lastKey: -1}
}

// apply maps one decoded chunk. It reports false when the consumer stopped.
func (m *mapper) apply(c *oa.ChatCompletionChunk) bool {
	m.chunks++
	msg := m.b.Message()
	if msg.ResponseID == "" && c.ID != "" {
		msg.ResponseID = c.ID
	}
	if msg.ResponseModel == "" && c.Model != "" && c.Model != m.model {
		msg.ResponseModel = c.Model
	}
	hasUsage := c.JSON.Usage.Valid()
	if hasUsage {
		m.b.SetUsage(normalizeUsage(&c.Usage))
	}
	if len(c.Choices) == 0 {
		return true
	}
	ch := &c.Choices[0]
	if raw := extra(ch.JSON.ExtraFields, "usage"); raw != "" && !hasUsage {
		// vLLM with continuous usage stats puts usage on the choice.
		var u oa.CompletionUsage
		if json.Unmarshal([]byte(raw), &u) == nil {
			m.b.SetUsage(normalizeUsage(&u))
		}
	}
	d := &ch.Delta
	if d.Content != "" {
		if !m.b.Text(d.Content) {
			return false
		}
	}
	if field, text := reasoningOf(d); text != "" {
		if !m.b.Thinking(text, field) {
			return false
		}
	}
	for i := range d.ToolCalls {
		tc := &d.ToolCalls[i]
		var index *int
		if tc.JSON.Index.Valid() {
			i := int(tc.Index)
			index = &i
		}
		key := m.keyFor(index, tc.ID)
		m.sawToolUse = true
		if !m.b.ToolCall(key, tc.ID, tc.Function.Name, tc.Function.Arguments) {
			return false
		}
	}
	if ch.FinishReason != "" {
		m.sawFinish = true
		f := mapFinishReason(ch.FinishReason)
		if f.failure != nil {
			m.failure = f.failure
			return true
		}
		m.b.SetStopReason(f.reason)
		return m.b.EndBlocks()
	}
	return true
}

// reasoningOf returns the first non-empty reasoning field of a delta and its name.
func reasoningOf(d *oa.ChatCompletionChunkChoiceDelta) (field, text string) {
	if len(d.JSON.ExtraFields) == 0 {
		return "", ""
	}
	for _, f := range reasoningFields {
		if s := extraString(d.JSON.ExtraFields, f); s != "" {
			return f, s
		}
	}
	return "", ""
}

// reasoningFields are the delta fields that carry reasoning, in the order they are read.
var reasoningFields = [...]string{"reasoning_content", "reasoning", "reasoning_text"}

// keyFor finds the builder key of a tool-call delta: by stream index, else by id, else the
// call seen last. A delta whose index is taken by a call with a different id starts a new
// call (some servers send every parallel call with index 0).
func (m *mapper) keyFor(index *int, id string) int {
	if index != nil {
		if key, ok := m.byIndex[*index]; ok {
			if id == "" || m.keyID[key] == "" || m.keyID[key] == id {
				if id != "" && m.keyID[key] == "" {
					m.keyID[key] = id
					m.byID[id] = key
				}
				m.lastKey = key
				return key
			}
		} else if key, ok := m.byID[id]; ok && id != "" {
			m.byIndex[*index] = key
			m.lastKey = key
			return key
		}
	} else {
		if key, ok := m.byID[id]; ok && id != "" {
			m.lastKey = key
			return key
		}
		if id == "" && m.lastKey >= 0 {
			return m.lastKey
		}
	}
	key := m.nextKey
	m.nextKey++
	if index != nil {
		m.byIndex[*index] = key
	}
	if id != "" {
		m.byID[id] = key
		m.keyID[key] = id
	}
	m.lastKey = key
	return key
}
