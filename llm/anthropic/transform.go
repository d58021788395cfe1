package anthropic

import (
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// The placeholders a text-only model gets instead of images, as every pi provider sends them.
const (
	imageOmitted     = "(image omitted: model does not support images)"
	toolImageOmitted = "(tool image omitted: model does not support images)"
	noResultProvided = "No result provided"
)

// maxIDLength is the longest tool-use id Anthropic accepts.
const maxIDLength = 64

// transformMessages prepares a transcript for model as pi's transformMessages does for
// Anthropic:
//   - images become placeholders for text-only models;
//   - assistant messages from another model (provider, api or id differ) lose redacted
//     thinking, have their thinking turned into text and their thought signatures dropped,
//     and have their tool-call ids normalised to Anthropic's pattern ^[a-zA-Z0-9_-]{1,64}$,
//     with the matching tool results remapped;
//   - errored and aborted assistant messages are removed, and so are tool results whose call
//     is no longer in the transcript (the API rejects a result without its call);
//   - tool calls without a result get a synthetic error result "No result provided".
//
// The input is not modified.
func transformMessages(in []core.Message, model *core.Model) []core.Message {
	vision := model.SupportsImages()
	out := make([]core.Message, 0, len(in)+2)
	idMap := map[string]string{}
	known := map[string]bool{}
	answered := map[string]bool{}
	var pending []core.Content

	flush := func() {
		for _, call := range pending {
			if !answered[call.ID] {
				out = append(out, &core.ToolResultMessage{
					ToolCallID: call.ID,
					ToolName:   call.Name,
					Content:    []core.Content{core.TextBlock(noResultProvided)},
					IsError:    true,
				})
				answered[call.ID] = true
			}
		}
		pending = nil
	}

	for _, msg := range in {
		switch m := msg.(type) {
		case *core.UserMessage:
			flush()
			cp := *m
			cp.Content = placeholders(m.Content, vision, imageOmitted)
			out = append(out, &cp)
		case *core.AssistantMessage:
			flush()
			if m.StopReason == core.StopReasonError || m.StopReason == core.StopReasonAborted {
				continue
			}
			same := m.Provider == model.Provider && m.API == model.API && m.Model == model.ID
			cp := *m
			cp.Content = make([]core.Content, 0, len(m.Content))
			for _, block := range m.Content {
				switch block.Type {
				case core.ContentThinking:
					switch {
					case block.Redacted:
						if same {
							cp.Content = append(cp.Content, block)
						}
					case same && block.ThinkingSignature != "":
						cp.Content = append(cp.Content, block)
					case strings.TrimSpace(block.Thinking) == "":
					case same:
						cp.Content = append(cp.Content, block)
					default:
						cp.Content = append(cp.Content, core.TextBlock(block.Thinking))
					}
				case core.ContentText:
					if !same {
						block = core.TextBlock(block.Text)
					}
					cp.Content = append(cp.Content, block)
				case core.ContentToolCall:
					if !same {
						block.ThoughtSignature = ""
						id := normalizeID(block.ID)
						idMap[block.ID] = id
						block.ID = id
					}
					known[block.ID] = true
					cp.Content = append(cp.Content, block)
					pending = append(pending, block)
				default:
					cp.Content = append(cp.Content, block)
				}
			}
			out = append(out, &cp)
		case *core.ToolResultMessage:
			id := m.ToolCallID
			if mapped, ok := idMap[id]; ok {
				id = mapped
			}
			if !known[id] || answered[id] {
				continue
			}
			answered[id] = true
			cp := *m
			cp.ToolCallID = id
			cp.Content = placeholders(m.Content, vision, toolImageOmitted)
			out = append(out, &cp)
		default:
			// Only user, assistant and tool-result messages reach a provider (core.ConvertToLLM).
		}
	}
	flush()
	return out
}

// normalizeID makes a tool-call id from another provider acceptable to Anthropic: characters
// outside [a-zA-Z0-9_-] become "_", and the id is cut at 64 characters.
func normalizeID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !idChar(c) {
			b[i] = '_'
		}
	}
	if len(b) > maxIDLength {
		b = b[:maxIDLength]
	}
	if len(b) == 0 {
		return "toolu_empty"
	}
	return string(b)
}

func idChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// placeholders replaces images by a text placeholder when the model cannot see them,
// collapsing consecutive placeholders into one.
func placeholders(blocks []core.Content, vision bool, text string) []core.Content {
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
