package faux

import (
	"context"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// Step is one scripted model call: either a fixed response (Content, StopReason, ...) or, when
// Factory is set, a function that decides the response from the request it is answering.
// Steps are values so that a test can write them as composite literals next to the events it
// expects.
type Step struct {
	// Content is streamed block by block, in order.
	Content []Block
	// StopReason ends the response. Empty means toolUse when Content has a tool call and stop
	// otherwise; error and aborted end the stream with an error event after the content.
	StopReason core.StopReason
	// ErrorMessage is the message of an error or aborted response. An aborted response
	// without one says "Request was aborted", as a real cancellation does.
	ErrorMessage string
	// ErrorKind classifies an error response for the session's retry and compaction policy.
	// Empty leaves it unclassified, so the session falls back to matching ErrorMessage, the
	// way it treats a failure that a real provider could not classify.
	ErrorKind core.ErrorKind
	// RetryAfter, when positive, is reported as the server's Retry-After of an error response.
	RetryAfter time.Duration
	// Usage replaces the estimated usage when set; cost is still priced from the model.
	Usage *core.Usage
	// ResponseID is copied to the message's responseId.
	ResponseID string

	// ChunkSize, when positive, overrides the provider's chunking for this step: every delta
	// is that many runes (the last may be shorter).
	ChunkSize int
	// Delay, when positive, overrides the provider's pause before each delta.
	Delay time.Duration

	// BeforeChunk is a test hook called at every chunk boundary: before the k-th delta
	// (k from 0, so k == 0 is before the first content event) and once more, with k equal to
	// the number of deltas, before the terminal event. A test that blocks in it can cancel
	// the stream at an exact point without sleeping; the stream checks ctx right after the
	// hook returns.
	BeforeChunk func(ctx context.Context, chunk int)
	// Hang makes the stream stop at boundary HangAfter (or before the terminal event, if the
	// response has fewer deltas) and wait for ctx to be cancelled, for tests of a model that
	// never finishes on its own. The stream then ends as aborted.
	Hang      bool
	HangAfter int

	// Factory, when set, is called when the step is reached (on the stream's goroutine) and
	// its result is streamed instead; the other fields of this step are ignored, and so is
	// the Factory of the step it returns. callIndex counts the provider's calls from 0.
	Factory func(ctx context.Context, req *core.Request, callIndex int) Step
}

// Block is one scripted content block of a response.
type Block struct {
	// Type is core.ContentText, core.ContentThinking or core.ContentToolCall.
	Type core.ContentType
	// Text is the text of a text block or the reasoning of a thinking block.
	Text string
	// Signature is a thinking block's thinkingSignature.
	Signature string
	// ID, Name and Arguments describe a tool call. An empty ID is replaced by the provider's
	// next deterministic id ("call_1", "call_2", ...), so transcripts stay stable.
	ID        string
	Name      string
	Arguments map[string]any
	// Deltas, when non-nil, are streamed exactly as given instead of chunking Text (or the
	// JSON of Arguments): one delta each, so a benchmark can script thousands of deltas
	// cheaply and a test can feed a tool call malformed argument fragments.
	Deltas []string
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: core.ContentText, Text: s} }

// TextDeltas returns a text block streamed as exactly these deltas.
func TextDeltas(deltas ...string) Block {
	return Block{Type: core.ContentText, Text: concat(deltas), Deltas: deltas}
}

// Thinking returns a thinking block.
func Thinking(s string) Block { return Block{Type: core.ContentThinking, Text: s} }

// ToolCall returns a tool call whose id the provider assigns when it streams the call.
func ToolCall(name string, args map[string]any) Block {
	return Block{Type: core.ContentToolCall, Name: name, Arguments: args}
}

// ToolCallWithID returns a tool call with a fixed id, for tests that key on it.
func ToolCallWithID(id, name string, args map[string]any) Block {
	return Block{Type: core.ContentToolCall, ID: id, Name: name, Arguments: args}
}

// Reply returns a step that streams blocks and stops with the default stop reason.
func Reply(blocks ...Block) Step { return Step{Content: blocks} }

// Fail returns a step that ends in an error with message, after streaming no content.
func Fail(message string) Step {
	return Step{StopReason: core.StopReasonError, ErrorMessage: message}
}

// Func returns a step that decides its response when the call arrives.
func Func(f func(ctx context.Context, req *core.Request, callIndex int) Step) Step {
	return Step{Factory: f}
}

// stopReason resolves the default stop reason.
func (s *Step) stopReason() core.StopReason {
	if s.StopReason != "" {
		return s.StopReason
	}
	for i := range s.Content {
		if s.Content[i].Type == core.ContentToolCall {
			return core.StopReasonToolUse
		}
	}
	return core.StopReasonStop
}

// failure is the error a scripted error or aborted step ends with.
func (s *Step) failure(reason core.StopReason) *core.ProviderError {
	if reason == core.StopReasonAborted {
		f := core.Aborted()
		if s.ErrorMessage != "" {
			f.Message = s.ErrorMessage
		}
		return f
	}
	f := &core.ProviderError{Kind: s.ErrorKind, Message: s.ErrorMessage}
	if s.RetryAfter > 0 {
		f.RetryAfter, f.HasRetryAfter = s.RetryAfter, true
	}
	return f
}

func concat(parts []string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	buf := make([]byte, 0, n)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	return string(buf)
}

// HeldAt returns step with its stream held at chunk boundary k (see BeforeChunk) until
// release is closed or the request's context ends: a test keeps the run busy exactly there,
// without sleeping.
func HeldAt(step Step, k int, release <-chan struct{}) Step {
	step.BeforeChunk = func(ctx context.Context, chunk int) {
		if chunk == k {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}
	return step
}
