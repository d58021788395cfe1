package openai

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/core"
)

// chunk is one chat.completion.chunk: only the fields we map, including the reasoning fields
// that vLLM, llama.cpp, Ollama and OpenRouter send. Its json tags define its decoding;
// chunkDecoder reads the usual shape faster, with the same result (see BenchmarkMapChunk).
type chunk struct {
	ID      string        `json:"id"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *chunkUsage   `json:"usage"`
	// Error is an error object sent inside the stream (OpenRouter).
	Error json.RawMessage `json:"error"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason string     `json:"finish_reason"`
	// Usage is where some servers (vLLM with continuous usage stats) put usage.
	Usage *chunkUsage `json:"usage"`
}

type chunkDelta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ReasoningText    string          `json:"reasoning_text"`
	ToolCalls        []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	// Index is the call's position among the parallel calls; nil when a server omits it.
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chunkUsage struct {
	PromptTokens         int           `json:"prompt_tokens"`
	CompletionTokens     int           `json:"completion_tokens"`
	PromptCacheHitTokens *int          `json:"prompt_cache_hit_tokens"`
	PromptTokensDetails  *usageDetails `json:"prompt_tokens_details"`
}

type usageDetails struct {
	CachedTokens     *int `json:"cached_tokens"`
	CacheWriteTokens int  `json:"cache_write_tokens"`
}

// normalize turns an OpenAI usage object into pi's counts (as pi-ai does): input excludes cached
// tokens, cache writes are counted apart, output includes reasoning tokens.
func (u *chunkUsage) normalize() core.Usage {
	cached := 0
	cacheWrite := 0
	if d := u.PromptTokensDetails; d != nil {
		if d.CachedTokens != nil {
			cached = *d.CachedTokens
		} else if u.PromptCacheHitTokens != nil {
			cached = *u.PromptCacheHitTokens
		}
		cacheWrite = d.CacheWriteTokens
	} else if u.PromptCacheHitTokens != nil {
		cached = *u.PromptCacheHitTokens
	}
	cacheRead := cached
	if cacheWrite > 0 {
		cacheRead = max(0, cached-cacheWrite)
	}
	return core.Usage{
		Input:      max(0, u.PromptTokens-cacheRead-cacheWrite),
		Output:     u.CompletionTokens,
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
func (m *mapper) apply(c *chunk) bool {
	m.chunks++
	msg := m.b.Message()
	if msg.ResponseID == "" && c.ID != "" {
		msg.ResponseID = c.ID
	}
	if msg.ResponseModel == "" && c.Model != "" && c.Model != m.model {
		msg.ResponseModel = c.Model
	}
	if c.Usage != nil {
		m.b.SetUsage(c.Usage.normalize())
	}
	if len(c.Choices) == 0 {
		return true
	}
	ch := &c.Choices[0]
	if ch.Usage != nil && c.Usage == nil {
		m.b.SetUsage(ch.Usage.normalize())
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
		key := m.keyFor(tc)
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
func reasoningOf(d *chunkDelta) (field, text string) {
	switch {
	case d.ReasoningContent != "":
		return "reasoning_content", d.ReasoningContent
	case d.Reasoning != "":
		return "reasoning", d.Reasoning
	case d.ReasoningText != "":
		return "reasoning_text", d.ReasoningText
	}
	return "", ""
}

// keyFor finds the builder key of a tool-call delta: by stream index, else by id, else the
// call seen last. A delta whose index is taken by a call with a different id starts a new
// call (some servers send every parallel call with index 0).
func (m *mapper) keyFor(tc *toolCallDelta) int {
	if tc.Index != nil {
		if key, ok := m.byIndex[*tc.Index]; ok {
			if tc.ID == "" || m.keyID[key] == "" || m.keyID[key] == tc.ID {
				if tc.ID != "" && m.keyID[key] == "" {
					m.keyID[key] = tc.ID
					m.byID[tc.ID] = key
				}
				m.lastKey = key
				return key
			}
		} else if key, ok := m.byID[tc.ID]; ok && tc.ID != "" {
			m.byIndex[*tc.Index] = key
			m.lastKey = key
			return key
		}
	} else {
		if key, ok := m.byID[tc.ID]; ok && tc.ID != "" {
			m.lastKey = key
			return key
		}
		if tc.ID == "" && m.lastKey >= 0 {
			return m.lastKey
		}
	}
	key := m.nextKey
	m.nextKey++
	if tc.Index != nil {
		m.byIndex[*tc.Index] = key
	}
	if tc.ID != "" {
		m.byID[tc.ID] = key
		m.keyID[key] = tc.ID
	}
	m.lastKey = key
	return key
}
