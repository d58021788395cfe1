// Package transform prepares a transcript for one provider's model, as pi-ai's
// transformMessages does for every provider. The skeleton is the same everywhere; what
// differs (how thinking and text from this or another model are sent back, and what a
// tool-call id may look like) is each provider's [Rules].
package transform

import (
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// The placeholders a text-only model gets instead of images, and the result a tool call
// without one gets, as every pi provider sends them.
const (
	ImageOmitted     = "(image omitted: model does not support images)"
	ToolImageOmitted = "(tool image omitted: model does not support images)"
	NoResultProvided = "No result provided"
)

// Rules are a provider's choices. same reports whether the assistant message came from the
// target model (provider, api and model id all equal).
type Rules struct {
	// Block decides what a non-tool-call block of an assistant message becomes; false drops
	// it. Nil keeps every block.
	Block func(b core.Content, same bool) (core.Content, bool)
	// CallID gives a tool call's id as the target API must see it; the matching results
	// are remapped to it. Nil keeps ids.
	CallID func(id string, same bool) string
}

// Messages returns the transcript for model:
//   - images become placeholders for text-only models;
//   - assistant blocks pass through rules.Block, tool-call ids through rules.CallID, and
//     tool calls from another model lose their thought signatures;
//   - errored and aborted assistant messages are removed, and so are tool results whose call
//     is no longer in the transcript (an API rejects a result without its call);
//   - tool calls without a result get a synthetic error result "No result provided".
//
// The input is not modified.
func Messages(in []core.Message, model *core.Model, rules Rules) []core.Message {
	t := transcript{
		vision:   model.SupportsImages(),
		rules:    rules,
		out:      make([]core.Message, 0, len(in)+2),
		idMap:    map[string]string{},
		known:    map[string]bool{},
		answered: map[string]bool{},
	}
	for _, msg := range in {
		switch m := msg.(type) {
		case *core.UserMessage:
			t.flush()
			cp := *m
			cp.Content = Placeholders(m.Content, t.vision, ImageOmitted)
			t.out = append(t.out, &cp)
		case *core.AssistantMessage:
			t.flush()
			if m.StopReason == core.StopReasonError || m.StopReason == core.StopReasonAborted {
				continue
			}
			t.assistant(m, m.Provider == model.Provider && m.API == model.API && m.Model == model.ID)
		case *core.ToolResultMessage:
			id, ok := t.idMap[m.ToolCallID]
			if !ok || !t.known[id] || t.answered[id] {
				continue
			}
			t.answered[id] = true
			cp := *m
			cp.ToolCallID = id
			cp.Content = Placeholders(m.Content, t.vision, ToolImageOmitted)
			t.out = append(t.out, &cp)
		default:
			// Only user, assistant and tool-result messages reach a provider (core.ConvertToLLM).
		}
	}
	t.flush()
	return t.out
}

// transcript is the state of one Messages call.
type transcript struct {
	vision bool
	rules  Rules
	out    []core.Message
	// idMap maps a call's original id to the id sent; known holds the ids sent, answered
	// those with a result so far; pending are the calls of the last assistant message.
	idMap    map[string]string
	known    map[string]bool
	answered map[string]bool
	pending  []core.Content
}

func (t *transcript) assistant(m *core.AssistantMessage, same bool) {
	cp := *m
	cp.Content = make([]core.Content, 0, len(m.Content))
	for _, block := range m.Content {
		if block.Type != core.ContentToolCall {
			if t.rules.Block != nil {
				var keep bool
				if block, keep = t.rules.Block(block, same); !keep {
					continue
				}
			}
			cp.Content = append(cp.Content, block)
			continue
		}
		id := block.ID
		if t.rules.CallID != nil {
			id = t.rules.CallID(block.ID, same)
		}
		t.idMap[block.ID] = id
		block.ID = id
		if !same {
			block.ThoughtSignature = ""
		}
		t.known[id] = true
		cp.Content = append(cp.Content, block)
		t.pending = append(t.pending, block)
	}
	t.out = append(t.out, &cp)
}

// flush gives every unanswered call of the last assistant message its synthetic result.
func (t *transcript) flush() {
	for _, call := range t.pending {
		if !t.answered[call.ID] {
			t.out = append(t.out, &core.ToolResultMessage{
				ToolCallID: call.ID,
				ToolName:   call.Name,
				Content:    []core.Content{core.TextBlock(NoResultProvided)},
				IsError:    true,
			})
			t.answered[call.ID] = true
		}
	}
	t.pending = nil
}

// ResultRun is the run of tool results msgs starts with: the results of one turn's calls,
// which the APIs take together.
func ResultRun(msgs []core.Message) []*core.ToolResultMessage {
	var run []*core.ToolResultMessage
	for _, m := range msgs {
		r, ok := m.(*core.ToolResultMessage)
		if !ok {
			break
		}
		run = append(run, r)
	}
	return run
}

// Placeholders replaces images by a text placeholder when the model cannot see them,
// collapsing consecutive placeholders into one.
func Placeholders(blocks []core.Content, vision bool, text string) []core.Content {
	if vision {
		return blocks
	}
	out := make([]core.Content, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == core.ContentImage {
			if n := len(out); n > 0 && out[n-1].Type == core.ContentText && out[n-1].Text == text {
				continue
			}
			b = core.TextBlock(text)
		}
		out = append(out, b)
	}
	return out
}

// SendBlock is the Block rule of the APIs that take a model's own thinking back (Anthropic,
// Gemini): another model's text loses its signature and its thinking goes as text (see
// [ThinkingAsText]); the same model's thinking is kept when keep says so (nil: never), else
// when it is not blank.
func SendBlock(keep func(core.Content) bool) func(b core.Content, same bool) (core.Content, bool) {
	return func(b core.Content, same bool) (core.Content, bool) {
		switch {
		case b.Type == core.ContentText && !same:
			return core.TextBlock(b.Text), true
		case b.Type != core.ContentThinking:
			return b, true
		case !same:
			return ThinkingAsText(b)
		case keep != nil && keep(b):
			return b, true
		default:
			return b, strings.TrimSpace(b.Thinking) != ""
		}
	}
}

// ThinkingAsText is the rule most providers apply to another model's thinking: redacted or
// blank thinking is dropped, the rest is sent as text.
func ThinkingAsText(b core.Content) (core.Content, bool) {
	if b.Redacted || strings.TrimSpace(b.Thinking) == "" {
		return b, false
	}
	return core.TextBlock(b.Thinking), true
}

// IDChar reports whether c is in [a-zA-Z0-9_-], the characters OpenAI and Anthropic both
// accept in a tool-call id.
func IDChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// ReplaceIDChars returns id with every character outside [a-zA-Z0-9_-] replaced by "_",
// cut at max bytes.
func ReplaceIDChars(id string, max int) string {
	b := []byte(id)
	for i, c := range b {
		if !IDChar(c) {
			b[i] = '_'
		}
	}
	if len(b) > max {
		b = b[:max]
	}
	return string(b)
}
