package core

import (
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/partialjson"
	"github.com/pi-rpc/pi-rpc/internal/toolschema"
)

// MessageBuilder builds a streamed assistant message and the [AssistantEvent]s that describe
// it, so that every provider follows the same block rules:
//
//   - a text or thinking block ends when a block of another kind starts or the response
//     finishes; text after a tool call is therefore a new block;
//   - tool-call blocks stay open until the response finishes (servers interleave the argument
//     fragments of parallel calls); then the open blocks end in content order, also when the
//     response is aborted;
//   - a tool call's arguments always hold what the fragments so far parse to.
//
// Text accumulates in a strings.Builder whose String() shares the builder's bytes, so each
// delta costs no allocation beyond the builder's amortised growth, and strings handed out
// earlier stay valid (a strings.Builder never rewrites bytes it has written).
//
// Each method yields its events to the consumer and reports false once the consumer has
// stopped; the provider must then return.
type MessageBuilder struct {
	msg   *AssistantMessage
	yield func(AssistantEvent) bool
	model *Model

	// open is the content index of the open text or thinking block, or -1.
	open    int
	openBuf strings.Builder

	calls     []*streamCall // open tool calls in content order
	callByKey map[int]*streamCall
	started   bool
	ended     bool
}

type streamCall struct {
	index int
	key   int
	// args parses the fragments incrementally: reparsing the whole prefix after every
	// fragment made a long call quadratic.
	args partialjson.Parser
	// announced records whether an event has carried the call's id and name.
	idSent, nameSent bool
}

// finish gives the call's block its arguments for the finished message: a copy, so that the
// message shares no map or slice with the parser's live value, and, when the fragments made
// one complete object, their text (compacted), so the model gets back its own key order.
func (c *streamCall) finish(block *Content) {
	block.Arguments = toolschema.Clone(c.args.Value()).(map[string]any)
	block.RawArguments = nil
	if text, ok := c.args.Complete(); ok {
		block.RawArguments = normalizeArguments(text)
	}
}

// NewMessageBuilder starts a message for model at timestamp (Unix ms). The message's content,
// usage and stop reason are filled in as the stream proceeds.
func NewMessageBuilder(model *Model, timestamp int64, yield func(AssistantEvent) bool) *MessageBuilder {
	return &MessageBuilder{
		msg: &AssistantMessage{
			Content:    []Content{},
			API:        model.API,
			Provider:   model.Provider,
			Model:      model.ID,
			StopReason: StopReasonStop,
			Timestamp:  timestamp,
		},
		yield:     yield,
		model:     model,
		open:      -1,
		callByKey: map[int]*streamCall{},
	}
}

// Message returns the message being built.
func (b *MessageBuilder) Message() *AssistantMessage { return b.msg }

func (b *MessageBuilder) emit(ev AssistantEvent) bool {
	ev.Partial = b.msg
	return b.yield(ev)
}

// Start emits the start event. Every other method calls it first if needed.
func (b *MessageBuilder) Start() bool {
	if b.started {
		return true
	}
	b.started = true
	return b.emit(AssistantEvent{Type: EventStart})
}

// SetUsage records the response's token usage and prices it with the model's prices.
func (b *MessageBuilder) SetUsage(u Usage) {
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	u.Cost = b.model.CostOf(u)
	b.msg.Usage = u
}

// Text appends a text delta, opening a text block if the open block is not text.
func (b *MessageBuilder) Text(delta string) bool {
	return b.appendOpen(ContentText, "", delta)
}

// Thinking appends a thinking delta; signature names its source field (see [Content]).
func (b *MessageBuilder) Thinking(delta, signature string) bool {
	return b.appendOpen(ContentThinking, signature, delta)
}

func (b *MessageBuilder) appendOpen(kind ContentType, signature, delta string) bool {
	if !b.Start() {
		return false
	}
	if b.open >= 0 && b.msg.Content[b.open].Type != kind {
		if !b.closeOpen() {
			return false
		}
	}
	if b.open < 0 {
		b.open = len(b.msg.Content)
		b.openBuf = strings.Builder{}
		start := EventTextStart
		block := Content{Type: kind}
		if kind == ContentThinking {
			start = EventThinkingStart
			block.ThinkingSignature = signature
		}
		b.msg.Content = append(b.msg.Content, block)
		if !b.emit(AssistantEvent{Type: start, ContentIndex: b.open}) {
			return false
		}
	}
	b.openBuf.WriteString(delta)
	block := &b.msg.Content[b.open]
	typ := EventTextDelta
	if kind == ContentThinking {
		block.Thinking = b.openBuf.String()
		typ = EventThinkingDelta
	} else {
		block.Text = b.openBuf.String()
	}
	return b.emit(AssistantEvent{Type: typ, ContentIndex: b.open, Delta: delta})
}

// closeOpen ends the open text or thinking block.
func (b *MessageBuilder) closeOpen() bool {
	idx := b.open
	b.open = -1
	block := &b.msg.Content[idx]
	if block.Type == ContentThinking {
		return b.emit(AssistantEvent{Type: EventThinkingEnd, ContentIndex: idx, Content: block.Thinking})
	}
	return b.emit(AssistantEvent{Type: EventTextEnd, ContentIndex: idx, Content: block.Text})
}

// ToolCall adds an argument fragment to the tool call identified by key (the provider's
// stream index), opening the call on first sight. id and name may be empty until the provider
// learns them; the first event that knows them carries them.
func (b *MessageBuilder) ToolCall(key int, id, name, fragment string) bool {
	if !b.Start() {
		return false
	}
	c := b.callByKey[key]
	if c == nil {
		if b.open >= 0 && !b.closeOpen() {
			return false
		}
		c = &streamCall{index: len(b.msg.Content), key: key}
		b.callByKey[key] = c
		b.calls = append(b.calls, c)
		b.msg.Content = append(b.msg.Content, ToolCallBlock(id, name, nil))
		c.idSent, c.nameSent = id != "", name != ""
		if !b.emit(AssistantEvent{Type: EventToolCallStart, ContentIndex: c.index, ID: id, Name: name}) {
			return false
		}
	}
	block := &b.msg.Content[c.index]
	ev := AssistantEvent{Type: EventToolCallDelta, ContentIndex: c.index, Delta: fragment}
	if id != "" && block.ID == "" {
		block.ID = id
	}
	if name != "" && block.Name == "" {
		block.Name = name
	}
	if !c.idSent && block.ID != "" {
		ev.ID, c.idSent = block.ID, true
	}
	if !c.nameSent && block.Name != "" {
		ev.Name, c.nameSent = block.Name, true
	}
	if fragment != "" {
		c.args.Write(fragment)
		block.Arguments = c.args.Value() // live: the partial message is valid until the next event
	}
	if fragment == "" && ev.ID == "" && ev.Name == "" {
		return true
	}
	return b.emit(ev)
}

// EndBlocks ends every open block in content order: the open text or thinking block and the
// tool calls, each tool call with its arguments as finally parsed. Providers call it when the
// finish reason arrives; Done calls it too, and Fail on an abort.
func (b *MessageBuilder) EndBlocks() bool {
	if !b.Start() {
		return false
	}
	calls := b.calls
	b.calls = nil
	b.callByKey = map[int]*streamCall{}
	for _, c := range calls {
		if b.open >= 0 && b.open < c.index && !b.closeOpen() {
			return false
		}
		block := &b.msg.Content[c.index]
		c.finish(block)
		if !b.emit(AssistantEvent{Type: EventToolCallEnd, ContentIndex: c.index, ToolCall: block}) {
			return false
		}
	}
	if b.open >= 0 && !b.closeOpen() {
		return false
	}
	return true
}

// SetStopReason records the stop reason the finish reason maps to.
func (b *MessageBuilder) SetStopReason(r StopReason) { b.msg.StopReason = r }

// Done ends open blocks and emits the done event with the message's stop reason.
func (b *MessageBuilder) Done() bool {
	if !b.EndBlocks() {
		return false
	}
	b.ended = true
	return b.emit(AssistantEvent{Type: EventDone, Reason: b.msg.StopReason})
}

// Fail ends the stream with an error event: stop reason error, or aborted when failure's
// kind is [ErrorAborted].
//
// An abort ends the open blocks first, as a finished response does, each with its content as
// it stood (a tool call with the arguments parsed so far), so that a client sees every block
// it was shown start also end. Any other failure cuts the stream off: open blocks keep their
// partial content and get no end events; tool calls keep the arguments parsed so far.
//
// A failure before Start (the request failed before any content) sets the stop reason and
// error first, so the start event's message already says how the response ended.
func (b *MessageBuilder) Fail(failure *ProviderError) bool {
	reason := StopReasonError
	if failure.Kind == ErrorAborted {
		reason = StopReasonAborted
	}
	ok := true
	switch {
	case !b.started:
		b.setFailure(reason, failure)
		ok = b.Start()
	case reason == StopReasonAborted:
		ok = b.EndBlocks()
	default:
		for _, c := range b.calls {
			c.finish(&b.msg.Content[c.index])
		}
		b.calls = nil
		b.open = -1
	}
	b.setFailure(reason, failure)
	b.ended = true
	if !ok {
		return false
	}
	return b.emit(AssistantEvent{Type: EventError, Reason: reason})
}

func (b *MessageBuilder) setFailure(reason StopReason, failure *ProviderError) {
	b.msg.StopReason = reason
	b.msg.ErrorMessage = failure.Message
	b.msg.Failure = failure
}

// Aborted is the failure a provider reports when its context is cancelled.
func Aborted() *ProviderError {
	return &ProviderError{Kind: ErrorAborted, Message: "Request was aborted"}
}
