package openai

import (
	"strconv"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// The placeholders a text-only model gets instead of images (pi-ai's transformMessages).
const (
	imageOmitted     = "(image omitted: model does not support images)"
	toolImageOmitted = "(tool image omitted: model does not support images)"
	noResultProvided = "No result provided"
)

// transformMessages prepares a transcript for model (as pi-ai's transformMessages does):
//   - images become placeholders for text-only models;
//   - assistant messages from another model lose redacted thinking and have their thinking
//     turned into text, and their thought signatures dropped;
//   - errored and aborted assistant messages are removed, and so are tool results whose call
//     is no longer in the transcript (an API rejects a result without its call);
//   - tool calls without a result get a synthetic error result "No result provided";
//   - tool-call ids are sanitised for OpenAI (see sanitizeID), results remapped to match.
//
// The input is not modified.
func transformMessages(in []core.Message, model *core.Model) []core.Message {
	vision := model.SupportsImages()
	out := make([]core.Message, 0, len(in)+2)
	idMap := map[string]string{}
	used := map[string]bool{}
	known := map[string]bool{}
	var pending []core.Content
	answered := map[string]bool{}

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
					if same {
						cp.Content = append(cp.Content, block)
						continue
					}
					if block.Redacted || strings.TrimSpace(block.Thinking) == "" {
						continue
					}
					cp.Content = append(cp.Content, core.TextBlock(block.Thinking))
				case core.ContentToolCall:
					newID := uniqueID(sanitizeID(block.ID), used)
					idMap[block.ID] = newID
					block.ID = newID
					if !same {
						block.ThoughtSignature = ""
					}
					known[newID] = true
					cp.Content = append(cp.Content, block)
					pending = append(pending, block)
				default:
					cp.Content = append(cp.Content, block)
				}
			}
			out = append(out, &cp)
		case *core.ToolResultMessage:
			id, ok := idMap[m.ToolCallID]
			if !ok || !known[id] || answered[id] {
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

// sanitizeID makes a tool-call id acceptable to OpenAI-compatible APIs: ids from the
// Responses API carry "|item" suffixes, other providers use characters OpenAI rejects, and
// OpenAI caps ids at 40 characters.
func sanitizeID(id string) string {
	if i := strings.IndexByte(id, '|'); i >= 0 {
		id = id[:i]
	}
	b := []byte(id)
	for i, c := range b {
		if !idChar(c) {
			b[i] = '_'
		}
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}

// uniqueID keeps sanitised ids distinct within a request (and gives empty ids one).
func uniqueID(id string, used map[string]bool) string {
	if id == "" {
		id = "call"
	}
	cand := id
	for n := 2; used[cand]; n++ {
		suffix := "_" + strconv.Itoa(n)
		base := id
		if len(base)+len(suffix) > 40 {
			base = base[:40-len(suffix)]
		}
		cand = base + suffix
	}
	used[cand] = true
	return cand
}

// idChar reports whether OpenAI accepts c in a tool-call id.
func idChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
