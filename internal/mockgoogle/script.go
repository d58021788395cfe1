package mockgoogle

import "github.com/pi-rpc/pi-rpc/internal/mockhttp"

// Script is the queue of responses a [Server] plays, one per streamGenerateContent request.
type Script = mockhttp.Script[Response]

// Response scripts one answer. The package documentation describes every field.
type Response struct {
	Model string `json:"model,omitempty"`
	ID    string `json:"id,omitempty"`

	Reasoning    string     `json:"reasoning,omitempty"`
	Signature    string     `json:"signature,omitempty"`
	Text         string     `json:"text,omitempty"`
	ChunkSize    int        `json:"chunkSize,omitempty"`
	ToolCalls    []ToolCall `json:"toolCalls,omitempty"`
	FinishReason string     `json:"finishReason,omitempty"`
	Usage        *Usage     `json:"usage,omitempty"`

	Events []Event    `json:"events,omitempty"`
	Error  *ErrorBody `json:"error,omitempty"`

	// Faults are the fields every dialect shares: a replayed capture, pacing, faults and
	// HTTP answers.
	mockhttp.Faults
}

// ToolCall is a scripted functionCall part. Arguments is a JSON object's text; ID is sent
// only when set (Gemini sends none); Signature is the part's thoughtSignature.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Signature string `json:"signature,omitempty"`
}

// Usage is the scripted usageMetadata, sent in full on the last chunk (earlier chunks carry
// the prompt count only).
type Usage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
}

// Event is one explicit step of a scripted stream; each content step is one chunk with one
// part. Signature goes on the step's part.
type Event struct {
	Text      string     `json:"text,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	Signature string     `json:"signature,omitempty"`
	ToolCall  *ToolCall  `json:"toolCall,omitempty"`
	Error     *ErrorBody `json:"error,omitempty"`
	Comment   string     `json:"comment,omitempty"`
	Raw       string     `json:"raw,omitempty"`
	DelayMs   int        `json:"delayMs,omitempty"`
}

// ErrorBody is Google's error object, sent as {"error":{...}}. RetryDelay ("37s") adds the
// google.rpc.RetryInfo detail Gemini sends with RESOURCE_EXHAUSTED; Reason adds a
// google.rpc.ErrorInfo detail (API_KEY_INVALID for a wrong key).
type ErrorBody struct {
	Code       int    `json:"code"`
	Message    string `json:"message"`
	Status     string `json:"status"`
	RetryDelay string `json:"retryDelay,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// RateLimitError is Gemini's 429 RESOURCE_EXHAUSTED, with a RetryInfo delay when retryDelay
// is set ("2s").
func RateLimitError(retryDelay string) Response {
	return Response{Faults: mockhttp.Faults{Status: 429}, Error: &ErrorBody{Code: 429, Status: "RESOURCE_EXHAUSTED", RetryDelay: retryDelay,
		Message: "You exceeded your current quota, please check your plan and billing details."}}
}

// OverloadedError is Gemini's 503 UNAVAILABLE when the model is overloaded.
func OverloadedError() Response {
	return Response{Faults: mockhttp.Faults{Status: 503}, Error: &ErrorBody{Code: 503, Status: "UNAVAILABLE", Message: "The model is overloaded. Please try again later."}}
}

// PromptTooLongError is Gemini's answer to an input over the context window.
func PromptTooLongError() Response {
	return Response{Faults: mockhttp.Faults{Status: 400}, Error: &ErrorBody{Code: 400, Status: "INVALID_ARGUMENT",
		Message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}}
}

// AuthError is Gemini's answer to a wrong API key: 400 INVALID_ARGUMENT with reason
// API_KEY_INVALID.
func AuthError() Response {
	return Response{Faults: mockhttp.Faults{Status: 400}, Error: &ErrorBody{Code: 400, Status: "INVALID_ARGUMENT", Reason: "API_KEY_INVALID",
		Message: "API key not valid. Please pass a valid API key."}}
}

// LoadScript reads a script file. sseFile paths are resolved relative to the script's
// directory. Unknown fields are an error naming the file and line, so a typo does not
// silently change a test.
func LoadScript(path string) (*Script, error) { return mockhttp.LoadScript[Response](path) }

// ParseScript decodes a script, rejecting unknown fields with the line they are on.
func ParseScript(data []byte) (*Script, error) { return mockhttp.ParseScript[Response](data) }
