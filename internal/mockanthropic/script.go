package mockanthropic

import "github.com/pi-rpc/pi-rpc/internal/mockhttp"

// Script is the queue of responses a [Server] plays, one per Messages request.
type Script = mockhttp.Script[Response]

// Response scripts one answer. The package documentation describes every field.
type Response struct {
	Model string `json:"model,omitempty"`
	ID    string `json:"id,omitempty"`

	RedactedThinking string     `json:"redactedThinking,omitempty"`
	Reasoning        string     `json:"reasoning,omitempty"`
	Signature        string     `json:"signature,omitempty"`
	Text             string     `json:"text,omitempty"`
	ChunkSize        int        `json:"chunkSize,omitempty"`
	ToolCalls        []ToolCall `json:"toolCalls,omitempty"`
	StopReason       string     `json:"stopReason,omitempty"`
	Usage            *Usage     `json:"usage,omitempty"`

	Events []Event    `json:"events,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`

	// Faults are the fields every dialect shares: a replayed capture, pacing, faults and
	// HTTP answers.
	mockhttp.Faults
}

// ToolCall is a scripted tool_use block; its input is streamed in input_json_delta
// fragments.
type ToolCall = mockhttp.ToolCall

// Usage is the scripted token usage: input and cache counts go in message_start, output in
// message_delta.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens,omitempty"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
}

// Event is one explicit step of a scripted stream; exactly one field is set. Text,
// reasoning, signature and args continue the open block of their kind or start one.
type Event struct {
	Text             string         `json:"text,omitempty"`
	Reasoning        string         `json:"reasoning,omitempty"`
	Signature        string         `json:"signature,omitempty"`
	RedactedThinking string         `json:"redactedThinking,omitempty"`
	ToolCall         *ToolCallStart `json:"toolCall,omitempty"`
	Args             *ArgsFragment  `json:"args,omitempty"`
	Ping             bool           `json:"ping,omitempty"`
	Error            *ErrorBody     `json:"error,omitempty"`
	Comment          string         `json:"comment,omitempty"`
	Raw              string         `json:"raw,omitempty"`
	DelayMs          int            `json:"delayMs,omitempty"`
}

// ToolCallStart starts a tool_use block; ArgsFragment is an input_json_delta for the call
// started with the same Index.
type (
	ToolCallStart = mockhttp.ToolCallStart
	ArgsFragment  = mockhttp.ArgsFragment
)

// ErrorBody is Anthropic's error object, sent as {"type":"error","error":{...}}.
type ErrorBody struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// OverloadedError is Anthropic's 529 answer when its servers are overloaded.
func OverloadedError() Response {
	return Response{Faults: mockhttp.Faults{Status: 529}, Error: &ErrorBody{Type: "overloaded_error", Message: "Overloaded"}}
}

// RateLimitError is Anthropic's 429, with a retry-after header when retryAfter is set.
func RateLimitError(retryAfter string) Response {
	return Response{Faults: mockhttp.Faults{Status: 429, RetryAfter: retryAfter}, Error: &ErrorBody{Type: "rate_limit_error",
		Message: "This request would exceed the rate limit for your organization of 30,000 input tokens per minute."}}
}

// PromptTooLongError is Anthropic's answer to a request over the context window.
func PromptTooLongError() Response {
	return Response{Faults: mockhttp.Faults{Status: 400}, Error: &ErrorBody{Type: "invalid_request_error", Message: "prompt is too long: 208310 tokens > 200000 maximum"}}
}

// AuthError is Anthropic's answer to a wrong API key.
func AuthError() Response {
	return Response{Faults: mockhttp.Faults{Status: 401}, Error: &ErrorBody{Type: "authentication_error", Message: "invalid x-api-key"}}
}

// LoadScript reads a script file. sseFile paths are resolved relative to the script's
// directory. Unknown fields are an error naming the file and line, so a typo does not
// silently change a test.
func LoadScript(path string) (*Script, error) { return mockhttp.LoadScript[Response](path) }

// ParseScript decodes a script, rejecting unknown fields with the line they are on.
func ParseScript(data []byte) (*Script, error) { return mockhttp.ParseScript[Response](data) }
