package openai

import "encoding/json"

// The Chat Completions request body. The field order of every type is the order in which
// the body has always been sent (testdata/requests pins the bytes), and a field is left out
// exactly when it was before: pointer and omitempty fields are the optional ones, Tools
// distinguishes "no tools" (nil, left out) from an empty list (sent as []).
type chatRequest struct {
	Messages            []message      `json:"messages,omitempty"`
	Model               string         `json:"model,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	PromptCacheKey      string         `json:"prompt_cache_key,omitempty"`
	Store               *bool          `json:"store,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	Tools               []tool         `json:"tools,omitzero"`
	// The thinking dialects of servers other than OpenAI (compat.thinkingFormat).
	Reasoning      *reasoningEffort `json:"reasoning,omitempty"`
	EnableThinking bool             `json:"enable_thinking,omitempty"`
	Thinking       *thinkingType    `json:"thinking,omitempty"`
	Stream         bool             `json:"stream"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// reasoningEffort is OpenRouter's {"effort": ...}.
type reasoningEffort struct {
	Effort string `json:"effort"`
}

// thinkingType is Z.ai's and DeepSeek's {"type": "enabled"}.
type thinkingType struct {
	Type string `json:"type"`
}

// message is every role's message; each role sets only its own fields. Content is a
// string, a []contentPart (user), or nil for an assistant message of only tool calls (sent
// as null: strict servers and chat templates require the key).
type message struct {
	Content    any        `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Role       string     `json:"role"`
	// Name is the tool's name on a tool result (compat requiresToolResultName).
	Name string `json:"name,omitempty"`
	// An assistant's thinking, echoed under the field it came in (its signature).
	ReasoningContent string `json:"reasoning_content,omitempty"`
	Reasoning        string `json:"reasoning,omitempty"`
	ReasoningText    string `json:"reasoning_text,omitempty"`
}

type contentPart struct {
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	Type     string    `json:"type"`
}

type imageURL struct {
	URL string `json:"url"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Function toolCallFunc `json:"function"`
	Type     string       `json:"type"`
}

type toolCallFunc struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type tool struct {
	Function functionDef `json:"function"`
	Type     string      `json:"type"`
}

type functionDef struct {
	Name        string `json:"name"`
	Strict      *bool  `json:"strict,omitempty"`
	Description string `json:"description,omitempty"`
	// Parameters is the tool's schema as declared (its property order is what the model is
	// told), compacted.
	Parameters json.RawMessage `json:"parameters,omitempty"`
}
