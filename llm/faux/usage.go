package faux

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pi-rpc/pi-rpc/core"
)

// estimateUsage counts tokens as pi's faux provider does: ceil(chars/4) of the serialized
// context and of the output, with chars counted in UTF-16 code units like JavaScript's
// String.length, so the numbers match pi's. With a session id, the prefix shared with the
// session's previous prompt counts as a cache read and the rest as a cache write.
func (p *Provider) estimateUsage(req *core.Request, blocks []prepared) core.Usage {
	prompt := serializeContext(req)
	promptTokens := estimateTokens(prompt)
	u := core.Usage{Input: promptTokens, Output: estimateTokens(outputText(blocks))}
	if req.SessionID == "" {
		return u
	}
	p.mu.Lock()
	prev, seen := p.prompts[req.SessionID]
	p.prompts[req.SessionID] = prompt
	p.mu.Unlock()
	if !seen {
		u.CacheWrite = promptTokens
		return u
	}
	n := commonPrefix(prev, prompt)
	u.CacheRead = estimateTokens(prev[:n])
	u.CacheWrite = estimateTokens(prompt[n:])
	u.Input = max(0, promptTokens-u.CacheRead)
	return u
}

func estimateTokens(s string) int {
	return (utf16Len(s) + 3) / 4
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // 1 or 2: ranging over a string yields no surrogates
	}
	return n
}

// commonPrefix returns the length in bytes of the common prefix of a and b, backed off to a
// rune boundary.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	return i
}

// serializeContext is pi's serializeContext: the text the usage estimate is taken from.
func serializeContext(req *core.Request) string {
	var parts []string
	if req.SystemPrompt != "" {
		parts = append(parts, "system:"+req.SystemPrompt)
	}
	for _, m := range req.Messages {
		parts = append(parts, string(m.Role())+":"+messageText(m))
	}
	if len(req.Tools) > 0 {
		parts = append(parts, "tools:"+toolsJSON(req.Tools))
	}
	return strings.Join(parts, "\n\n")
}

func messageText(m core.Message) string {
	switch m := m.(type) {
	case *core.UserMessage:
		return contentText(m.Content)
	case *core.AssistantMessage:
		return assistantText(m.Content)
	case *core.ToolResultMessage:
		parts := make([]string, 0, 1+len(m.Content))
		parts = append(parts, m.ToolName)
		for i := range m.Content {
			parts = append(parts, contentText(m.Content[i:i+1]))
		}
		return strings.Join(parts, "\n")
	default:
		// Requests carry only the three model roles; anything else is counted by its JSON.
		data, _ := json.Marshal(m)
		return string(data)
	}
}

// contentText renders user and tool-result content: text as is, images as a placeholder.
func contentText(blocks []core.Content) string {
	parts := make([]string, len(blocks))
	for i := range blocks {
		if blocks[i].Type == core.ContentText {
			parts[i] = blocks[i].Text
		} else {
			parts[i] = "[image:" + blocks[i].MimeType + ":" + strconv.Itoa(len(blocks[i].Data)) + "]"
		}
	}
	return strings.Join(parts, "\n")
}

func assistantText(blocks []core.Content) string {
	parts := make([]string, len(blocks))
	for i := range blocks {
		switch blocks[i].Type {
		case core.ContentText:
			parts[i] = blocks[i].Text
		case core.ContentThinking:
			parts[i] = blocks[i].Thinking
		default:
			args, _ := marshalArguments(blocks[i].Arguments)
			parts[i] = blocks[i].Name + ":" + args
		}
	}
	return strings.Join(parts, "\n")
}

// outputText is assistantText for the blocks about to be streamed.
func outputText(blocks []prepared) string {
	parts := make([]string, len(blocks))
	for i := range blocks {
		if blocks[i].kind == core.ContentToolCall {
			parts[i] = blocks[i].name + ":" + blocks[i].payload
		} else {
			parts[i] = blocks[i].payload
		}
	}
	return strings.Join(parts, "\n")
}

// toolsJSON writes the tools as pi's JSON.stringify(context.tools) would.
func toolsJSON(tools []core.ToolSpec) string {
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	out := make([]tool, len(tools))
	for i, t := range tools {
		out[i] = tool{Name: t.Name, Description: t.Description}
		if json.Valid(t.Parameters) {
			out[i].Parameters = t.Parameters
		}
	}
	data, _ := json.Marshal(out)
	return string(data)
}
