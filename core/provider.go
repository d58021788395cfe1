package core

import (
	"context"
	"encoding/json"
	"iter"
	"time"
)

// Provider streams one model response. It is the seam between the agent loop and a model API
// (llm/openai, llm/faux).
//
// Stream's contract: the sequence starts with a "start" event and ends with exactly one "done"
// or "error" event; every event in between describes a change to the live partial message
// that the events point at. Failures of any kind (HTTP errors, garbage, dropped connections,
// silence) are encoded as an "error" event, never as a panic or a hang. Cancelling ctx ends
// the stream promptly with an "error" event whose message has StopReasonAborted and the
// partial content. The loop consumes the sequence on its own goroutine, so a slow consumer
// slows the provider (backpressure reaches the HTTP stream). Providers build their events with
// a [MessageBuilder], which keeps these rules in one place.
type Provider interface {
	Stream(ctx context.Context, req *Request) iter.Seq[AssistantEvent]
}

// ToolSpec is what the model is told about a tool.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the tool's JSON schema for its arguments object.
	Parameters json.RawMessage `json:"parameters"`
}

// Request is one model call: the context after transformContext and convertToLLM, and the
// options that shape the response.
type Request struct {
	Model        Model
	SystemPrompt string
	// Messages holds only user, assistant and tool-result messages.
	Messages []Message
	Tools    []ToolSpec
	// ThinkingLevel is the reasoning requested; off means none.
	ThinkingLevel ThinkingLevel
	// SessionID lets providers key prompt caches.
	SessionID string
	// MaxTokens caps the output; 0 means the provider's default.
	MaxTokens int
	// Temperature is sent when set.
	Temperature *float64
}

// AssistantEventType names an [AssistantEvent].
type AssistantEventType string

// The assistant-message events of pi-ai's AssistantMessageEvent (packages/ai/src/types.ts).
const (
	EventStart         AssistantEventType = "start"
	EventTextStart     AssistantEventType = "text_start"
	EventTextDelta     AssistantEventType = "text_delta"
	EventTextEnd       AssistantEventType = "text_end"
	EventThinkingStart AssistantEventType = "thinking_start"
	EventThinkingDelta AssistantEventType = "thinking_delta"
	EventThinkingEnd   AssistantEventType = "thinking_end"
	EventToolCallStart AssistantEventType = "toolcall_start"
	EventToolCallDelta AssistantEventType = "toolcall_delta"
	EventToolCallEnd   AssistantEventType = "toolcall_end"
	EventDone          AssistantEventType = "done"
	EventError         AssistantEventType = "error"
)

// AssistantEvent is one step of a streamed model response. It is passed by value; Partial
// points at the live partial message, valid until the next event.
type AssistantEvent struct {
	Type         AssistantEventType
	ContentIndex int
	// Delta is the appended text, thinking, or raw tool-argument fragment.
	Delta string
	// Content is the finished text of a text_end or thinking_end.
	Content string
	// ID and Name are a tool call's, on toolcall_start when known, and on the first
	// toolcall_delta that learns them when they arrive later.
	ID   string
	Name string
	// ToolCall is the finished call on toolcall_end.
	ToolCall *Content
	// Reason is the stop reason on done and error.
	Reason StopReason
	// Partial is the message being built; on done and error it is the final message.
	Partial *AssistantMessage
}

// ErrorKind classifies a provider failure for the session's retry and compaction policy.
type ErrorKind string

// The failure classes.
const (
	// ErrorRetryable: rate limits, overload, 5xx, timeouts, dropped connections.
	ErrorRetryable ErrorKind = "retryable"
	// ErrorOverflow: the request exceeded the model's context window.
	ErrorOverflow ErrorKind = "overflow"
	// ErrorAuth: the credentials were refused (401/403) or are missing.
	ErrorAuth ErrorKind = "auth"
	// ErrorAborted: the request was cancelled.
	ErrorAborted ErrorKind = "aborted"
	// ErrorOther: anything else; not retried.
	ErrorOther ErrorKind = "other"
)

// ProviderError is a provider's typed classification of a failed response, attached to the
// error message as [AssistantMessage.Failure].
type ProviderError struct {
	// Kind is empty when the provider could not classify the failure; the session then
	// matches Message against pi's retry and overflow patterns.
	Kind ErrorKind
	// Status is the HTTP status, 0 when there was none.
	Status int
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter    time.Duration
	HasRetryAfter bool
	Message       string
	// URL is the URL the failed request went to (without credentials or query), for the
	// log; empty when the provider has none.
	URL string
}

func (e *ProviderError) Error() string { return e.Message }
