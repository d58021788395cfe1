package mockopenai

import "github.com/pi-rpc/pi-rpc/internal/mockhttp"

// Script is the queue of responses a [Server] plays, one per chat-completions or responses
// request.
type Script = mockhttp.Script[Response]

// Response scripts one answer. The package documentation describes every field.
type Response struct {
	Model   string `json:"model,omitempty"`
	ID      string `json:"id,omitempty"`
	Created int64  `json:"created,omitempty"`

	Reasoning      string     `json:"reasoning,omitempty"`
	ReasoningField string     `json:"reasoningField,omitempty"`
	Text           string     `json:"text,omitempty"`
	ChunkSize      int        `json:"chunkSize,omitempty"`
	ToolCalls      []ToolCall `json:"toolCalls,omitempty"`
	Interleave     bool       `json:"interleave,omitempty"`
	FinishReason   string     `json:"finishReason,omitempty"`
	Usage          *Usage     `json:"usage,omitempty"`

	Events []Event    `json:"events,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`

	// Faults are the fields every dialect shares: a replayed capture, pacing, faults and
	// HTTP answers.
	mockhttp.Faults
}

// ToolCall is a scripted tool call; its arguments are streamed in fragments.
type ToolCall = mockhttp.ToolCall

// Usage is the scripted token usage of the usage chunk.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens,omitempty"`
	ReasoningTokens  int `json:"reasoning_tokens,omitempty"`
}

// Event is one explicit step of a scripted stream; exactly one field is set.
type Event struct {
	Text      string         `json:"text,omitempty"`
	Reasoning string         `json:"reasoning,omitempty"`
	ToolCall  *ToolCallStart `json:"toolCall,omitempty"`
	Args      *ArgsFragment  `json:"args,omitempty"`
	Comment   string         `json:"comment,omitempty"`
	Raw       string         `json:"raw,omitempty"`
	DelayMs   int            `json:"delayMs,omitempty"`
}

// ToolCallStart is the first delta of a tool call (index, id, name, empty arguments);
// ArgsFragment is a later one (only its index and an argument fragment).
type (
	ToolCallStart = mockhttp.ToolCallStart
	ArgsFragment  = mockhttp.ArgsFragment
)

// ErrorBody is OpenAI's error object, sent as {"error": {...}}.
type ErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    any     `json:"code"`
}

// ContextLengthError is the response OpenAI gives for a request over the context window.
func ContextLengthError() Response {
	return Response{Faults: mockhttp.Faults{Status: 400}, Error: &ErrorBody{
		Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130415 tokens. Please reduce the length of the messages.",
		Type:    "invalid_request_error",
		Param:   ptr("messages"),
		Code:    "context_length_exceeded",
	}}
}

// RateLimitError is OpenAI's 429 with a Retry-After header.
func RateLimitError(retryAfter string) Response {
	return Response{Faults: mockhttp.Faults{Status: 429, RetryAfter: retryAfter}, Error: &ErrorBody{
		Message: "Rate limit reached for gpt-4.1 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1000. Please try again in 2s.",
		Type:    "tokens",
		Code:    "rate_limit_exceeded",
	}}
}

func ptr[T any](v T) *T { return &v }

// LoadScript reads a script file. sseFile paths are resolved relative to the script's
// directory. Unknown fields are an error naming the file and line, so a typo does not
// silently change a test.
func LoadScript(path string) (*Script, error) { return mockhttp.LoadScript[Response](path) }

// ParseScript decodes a script, rejecting unknown fields with the line they are on.
func ParseScript(data []byte) (*Script, error) { return mockhttp.ParseScript[Response](data) }
