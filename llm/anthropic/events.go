package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
)

// event is one Messages stream event (message_start, content_block_start/delta/stop,
// message_delta, message_stop, ping, error). It is decoded with encoding/json into this lean
// struct rather than the SDK's MessageStreamEventUnion: decoding only the fields we map, into
// values rather than pointers, costs a fraction of the SDK's decoder per event (see
// BenchmarkDecodeEvent).
type event struct {
	Type         string       `json:"type"`
	Index        int          `json:"index"`
	Message      eventMessage `json:"message"`
	ContentBlock contentBlock `json:"content_block"`
	Delta        eventDelta   `json:"delta"`
	// Usage is message_delta's cumulative usage.
	Usage *usage `json:"usage"`
	// Error is an error event's error object.
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type eventMessage struct {
	ID    string `json:"id"`
	Model string `json:"model"`
	Usage *usage `json:"usage"`
}

type contentBlock struct {
	Type string `json:"type"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// text, thinking (usually empty at the start), redacted_thinking
	Text      string `json:"text"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
	Data      string `json:"data"`
}

type eventDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
	PartialJSON string `json:"partial_json"`
	// message_delta
	StopReason string `json:"stop_reason"`
}

// usage is Anthropic's token usage. Fields are pointers because message_delta carries only
// the counts that changed (proxies often omit input_tokens there).
type usage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

// redactedText is the thinking text of a redacted_thinking block, whose content is opaque.
const redactedText = "[Reasoning redacted]"

// blockKind is what a stream content block became.
type blockKind int

const (
	kindIgnored blockKind = iota // server tools and block types we do not map
	kindText
	kindThinking
	kindToolCall
)

// streamBlock is the state of one open content block, by its stream index.
type streamBlock struct {
	kind blockKind
	// content is the block's index in the message, or -1 while a text or thinking block has
	// not been opened yet (it opens with its first delta, so no event carries an empty one).
	content int
	// input is a tool_use block's input when content_block_start carried a non-empty one;
	// it is used only if no input_json_delta follows.
	input   []byte
	sawArgs bool
}

// mapper applies events to a message builder (pi's Anthropic mapping): text and thinking
// blocks, thinking signatures appended to their block, redacted thinking as a redacted
// thinking block whose signature is the opaque data, tool_use blocks whose input_json_delta
// fragments go through the builder's partial-JSON parser, usage with cache reads and writes,
// and the stop reason.
type mapper struct {
	b     *core.MessageBuilder
	model *core.Model

	blocks map[int]*streamBlock
	u      core.Usage

	events  int
	stopped bool
	failure *core.ProviderError
}

func newMapper(b *core.MessageBuilder, model *core.Model) *mapper {
	return &mapper{b: b, model: model, blocks: map[int]*streamBlock{}}
}

// apply maps one decoded event. It reports false when the consumer stopped.
func (m *mapper) apply(e *event) bool {
	m.events++
	switch e.Type {
	case "message_start":
		msg := m.b.Message()
		if msg.ResponseID == "" {
			msg.ResponseID = e.Message.ID
		}
		if msg.ResponseModel == "" && e.Message.Model != "" && e.Message.Model != m.model.ID {
			msg.ResponseModel = e.Message.Model
		}
		if e.Message.Usage != nil {
			m.setUsage(e.Message.Usage)
		}
	case "content_block_start":
		return m.start(e)
	case "content_block_delta":
		return m.delta(e)
	case "content_block_stop":
		return m.stop(e.Index)
	case "message_delta":
		if e.Usage != nil {
			m.setUsage(e.Usage)
		}
		if r := e.Delta.StopReason; r != "" {
			reason, fail := mapStopReason(r)
			if fail != nil {
				m.failure = fail
				return true
			}
			m.b.SetStopReason(reason)
		}
	case "message_stop":
		m.stopped = true
	}
	// ping and unknown event types carry nothing to map.
	return true
}

func (m *mapper) start(e *event) bool {
	cb := &e.ContentBlock
	sb := &streamBlock{content: -1}
	m.blocks[e.Index] = sb
	switch cb.Type {
	case "text":
		sb.kind = kindText
		if cb.Text != "" {
			return m.text(sb, cb.Text)
		}
	case "thinking":
		sb.kind = kindThinking
		if cb.Thinking != "" || cb.Signature != "" {
			if !m.thinking(sb, cb.Thinking) {
				return false
			}
			m.sign(sb, cb.Signature)
		}
	case "redacted_thinking":
		sb.kind = kindThinking
		if !m.thinking(sb, redactedText) {
			return false
		}
		block := &m.b.Message().Content[sb.content]
		block.Redacted = true
		block.ThinkingSignature = cb.Data
	case "tool_use":
		sb.kind = kindToolCall
		sb.content = len(m.b.Message().Content)
		if in := bytes.TrimSpace(cb.Input); len(in) > 0 && !bytes.Equal(in, []byte("{}")) && !bytes.Equal(in, []byte("null")) {
			sb.input = in
		}
		return m.b.ToolCall(e.Index, cb.ID, cb.Name, "")
	}
	return true
}

func (m *mapper) delta(e *event) bool {
	sb := m.blocks[e.Index]
	if sb == nil {
		// A delta for a block that never started: map it by its type.
		sb = &streamBlock{content: -1}
		switch e.Delta.Type {
		case "text_delta":
			sb.kind = kindText
		case "thinking_delta", "signature_delta":
			sb.kind = kindThinking
		case "input_json_delta":
			sb.kind = kindToolCall
		}
		m.blocks[e.Index] = sb
	}
	d := &e.Delta
	switch {
	case d.Type == "text_delta" && sb.kind == kindText:
		return m.text(sb, d.Text)
	case d.Type == "thinking_delta" && sb.kind == kindThinking:
		return m.thinking(sb, d.Thinking)
	case d.Type == "signature_delta" && sb.kind == kindThinking:
		if sb.content < 0 && !m.thinking(sb, "") {
			return false
		}
		m.sign(sb, d.Signature)
	case d.Type == "input_json_delta" && sb.kind == kindToolCall:
		sb.sawArgs = true
		return m.b.ToolCall(e.Index, "", "", d.PartialJSON)
	}
	return true
}

// text appends to a text block, opening it first if needed.
func (m *mapper) text(sb *streamBlock, s string) bool {
	if s == "" {
		return true
	}
	if sb.content < 0 {
		sb.content = len(m.b.Message().Content)
	}
	return m.b.Text(s)
}

// thinking appends to a thinking block, opening it first if needed (with an empty delta
// when a signature arrives for a block that has no text, as with thinking display omitted).
func (m *mapper) thinking(sb *streamBlock, s string) bool {
	if s == "" && sb.content >= 0 {
		return true
	}
	if sb.content < 0 {
		sb.content = len(m.b.Message().Content)
	}
	return m.b.Thinking(s, "")
}

// sign appends a signature fragment to an open thinking block; it is sent back unchanged on
// the next request.
func (m *mapper) sign(sb *streamBlock, sig string) {
	if sig == "" || sb.content < 0 {
		return
	}
	m.b.Message().Content[sb.content].ThinkingSignature += sig
}

// stop ends a block: its end event now, as Anthropic ends blocks one by one.
func (m *mapper) stop(index int) bool {
	sb := m.blocks[index]
	delete(m.blocks, index)
	if sb == nil {
		return true
	}
	if sb.kind == kindToolCall && !sb.sawArgs && sb.input != nil {
		if !m.b.ToolCall(index, "", "", string(sb.input)) {
			return false
		}
	}
	if sb.kind == kindIgnored || sb.content < 0 {
		return true
	}
	return m.b.EndBlocks()
}

// setUsage records the counts present in u (message_start has them all, message_delta the
// cumulative ones that changed) and prices them.
func (m *mapper) setUsage(u *usage) {
	setPresent(&m.u.Input, u.InputTokens)
	setPresent(&m.u.Output, u.OutputTokens)
	setPresent(&m.u.CacheRead, u.CacheReadInputTokens)
	setPresent(&m.u.CacheWrite, u.CacheCreationInputTokens)
	m.b.SetUsage(m.u)
}

// setPresent sets *count to the event's count, when the event has one (sent is not nil).
func setPresent(count, sent *int) {
	if sent != nil {
		*count = *sent
	}
}

// mapStopReason maps stop_reason as pi does: end_turn, pause_turn (resubmitting continues)
// and stop_sequence stop; max_tokens is length; tool_use asks for tools; refusal and
// sensitive end the message with an error; an unknown reason is an error naming it (so
// model_context_window_exceeded is recognised as an overflow).
func mapStopReason(r string) (core.StopReason, *core.ProviderError) {
	switch r {
	case "end_turn", "pause_turn", "stop_sequence":
		return core.StopReasonStop, nil
	case "max_tokens":
		return core.StopReasonLength, nil
	case "tool_use":
		return core.StopReasonToolUse, nil
	case "refusal", "sensitive":
		return "", &core.ProviderError{Kind: core.ErrorOther, Message: "Provider stop_reason: " + r}
	}
	return "", failure.ClassifyMessage("Unhandled stop reason: " + r)
}
