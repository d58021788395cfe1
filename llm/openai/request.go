package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// defaultMaxTokensCap bounds the default output budget (pi-ai: min(model.maxTokens, 32000)).
const defaultMaxTokensCap = 32000

// attachedImages introduces the images of tool results, which the tool role cannot carry.
const attachedImages = "Attached image(s) from tool result:"

// compatBool reads a boolean compat flag (pi's models.json "compat"), or def when unset.
func compatBool(m *core.Model, key string, def bool) bool {
	if v, ok := m.Compat[key].(bool); ok {
		return v
	}
	return def
}

// compatString reads a string compat setting, or def when unset.
func compatString(m *core.Model, key, def string) string {
	if v, ok := m.Compat[key].(string); ok && v != "" {
		return v
	}
	return def
}

// isOpenAI reports whether requests go to OpenAI itself, which accepts store and
// prompt_cache_key; other compatible servers may reject unknown fields.
func (p *Provider) isOpenAI() bool { return p.host == "api.openai.com" }

// buildRequest turns a core request into a Chat Completions request body (as pi-ai does).
func (p *Provider) buildRequest(req *core.Request) (*chatRequest, error) {
	model := &req.Model
	body := &chatRequest{Model: model.ID, Stream: true}

	if req.SystemPrompt != "" {
		role := "system"
		if model.Reasoning && compatBool(model, "supportsDeveloperRole", true) {
			role = "developer"
		}
		body.Messages = append(body.Messages, message{Role: role, Content: req.SystemPrompt})
	}
	msgs, hasToolCalls := convertMessages(transformMessages(req.Messages, model), model)
	body.Messages = append(body.Messages, msgs...)

	if len(req.Tools) > 0 {
		var strict *bool
		if compatBool(model, "supportsStrictMode", true) {
			strict = new(false)
		}
		body.Tools = make([]tool, 0, len(req.Tools))
		for _, t := range req.Tools {
			fn := functionDef{Name: t.Name, Strict: strict, Description: t.Description}
			if len(t.Parameters) > 0 {
				// Sent as given: a map would list the properties alphabetically, not in the
				// order the tool declares them (and the model is told).
				schema := bytes.TrimSpace(t.Parameters)
				if len(schema) == 0 || schema[0] != '{' || !json.Valid(schema) {
					return nil, fmt.Errorf("tool %s: parameters are not a JSON object", t.Name)
				}
				// Compacted with <, > and & escaped, as the schema has always been sent.
				compact, err := json.Marshal(json.RawMessage(schema))
				if err != nil {
					return nil, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
				}
				fn.Parameters = compact
			}
			body.Tools = append(body.Tools, tool{Function: fn, Type: "function"})
		}
	} else if hasToolCalls {
		// Some servers reject tool calls in the history of a request that declares no tools.
		body.Tools = []tool{}
	}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 && model.MaxTokens > 0 {
		maxTokens = min(model.MaxTokens, defaultMaxTokensCap)
	}
	if maxTokens > 0 {
		if compatString(model, "maxTokensField", "max_completion_tokens") == "max_tokens" {
			body.MaxTokens = maxTokens
		} else {
			body.MaxCompletionTokens = maxTokens
		}
	}
	body.Temperature = req.Temperature
	if compatBool(model, "supportsUsageInStreaming", true) {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if compatBool(model, "supportsStore", p.isOpenAI()) {
		body.Store = new(false)
	}
	if p.isOpenAI() && req.SessionID != "" {
		body.PromptCacheKey = req.SessionID
	}
	p.setReasoning(body, model, req.ThinkingLevel)
	return body, nil
}

// setReasoning asks for the thinking level in the dialect the server speaks
// (compat.thinkingFormat); off, or a model without reasoning, sends nothing.
func (p *Provider) setReasoning(body *chatRequest, model *core.Model, level core.ThinkingLevel) {
	if !model.Reasoning || level == "" || level == core.ThinkingOff {
		return
	}
	effort := string(level)
	if v, ok := model.ThinkingLevelMap[level]; ok {
		if v == nil {
			return
		}
		effort = *v
	}
	def := "openai"
	if strings.Contains(p.host, "openrouter.ai") {
		def = "openrouter"
	}
	switch compatString(model, "thinkingFormat", def) {
	case "openrouter":
		body.Reasoning = &reasoningEffort{Effort: effort}
	case "qwen":
		body.EnableThinking = true
	case "zai", "deepseek":
		body.Thinking = &thinkingType{Type: "enabled"}
	default:
		if compatBool(model, "supportsReasoningEffort", true) {
			body.ReasoningEffort = effort
		}
	}
}

// convertMessages turns transformed messages into Chat Completions messages (pi-ai's
// convertMessages). It reports whether the history holds tool calls.
func convertMessages(msgs []core.Message, model *core.Model) ([]message, bool) {
	out := make([]message, 0, len(msgs))
	vision := model.SupportsImages()
	thinkingAsText := compatBool(model, "requiresThinkingAsText", false)
	toolResultName := compatBool(model, "requiresToolResultName", false)
	assistantAfterTool := compatBool(model, "requiresAssistantAfterToolResult", false)
	hasToolCalls := false
	lastWasTool := false

	for i := 0; i < len(msgs); i++ {
		switch m := msgs[i].(type) {
		case *core.UserMessage:
			if lastWasTool && assistantAfterTool {
				out = append(out, message{Role: "assistant", Content: "I have processed the tool results."})
			}
			lastWasTool = false
			if u, ok := userMessage(m.Content); ok {
				out = append(out, u)
			}
		case *core.AssistantMessage:
			lastWasTool = false
			a, ok := assistantMessage(m, thinkingAsText)
			if !ok {
				continue
			}
			if len(a.ToolCalls) > 0 {
				hasToolCalls = true
			}
			out = append(out, a)
		case *core.ToolResultMessage:
			// A run of tool results: one tool message each, then their images in one user
			// message (the tool role carries text only).
			var images []contentPart
			for ; i < len(msgs); i++ {
				r, ok := msgs[i].(*core.ToolResultMessage)
				if !ok {
					break
				}
				tm := message{Role: "tool", Content: resultText(r.Content), ToolCallID: r.ToolCallID}
				if toolResultName {
					tm.Name = r.ToolName
				}
				out = append(out, tm)
				if vision {
					for _, b := range r.Content {
						if b.Type == core.ContentImage {
							images = append(images, imagePart(b))
						}
					}
				}
			}
			i--
			lastWasTool = true
			if len(images) > 0 {
				parts := append([]contentPart{{Type: "text", Text: attachedImages}}, images...)
				out = append(out, message{Role: "user", Content: parts})
				lastWasTool = false
			}
		}
	}
	return out, hasToolCalls
}

// userMessage converts user content: a plain string when it is a single text, parts
// otherwise. Empty content yields no message.
func userMessage(content []core.Content) (message, bool) {
	if len(content) == 1 && content[0].Type == core.ContentText {
		if content[0].Text == "" {
			return message{}, false
		}
		return message{Role: "user", Content: content[0].Text}, true
	}
	parts := make([]contentPart, 0, len(content))
	for _, b := range content {
		switch b.Type {
		case core.ContentText:
			if b.Text != "" {
				parts = append(parts, contentPart{Type: "text", Text: b.Text})
			}
		case core.ContentImage:
			parts = append(parts, imagePart(b))
		}
	}
	if len(parts) == 0 {
		return message{}, false
	}
	return message{Role: "user", Content: parts}, true
}

// imagePart sends an image as a data URL.
func imagePart(b core.Content) contentPart {
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + b.MimeType + ";base64," + b.Data}}
}

// resultText is the text a tool result sends: its text blocks joined by newlines, or a
// pointer to the attached images when it has only images.
func resultText(content []core.Content) string {
	var texts []string
	hasImage := false
	for _, b := range content {
		switch b.Type {
		case core.ContentText:
			texts = append(texts, b.Text)
		case core.ContentImage:
			hasImage = true
		}
	}
	if len(texts) == 0 && hasImage {
		return "(see attached image)"
	}
	return strings.Join(texts, "\n")
}

// assistantMessage converts an assistant message: its text as one plain string, its
// thinking echoed under the field it came from (or as text when the server requires it),
// its tool calls with JSON arguments. A message with none of these is skipped.
func assistantMessage(m *core.AssistantMessage, thinkingAsText bool) (message, bool) {
	var text strings.Builder
	var thinking, asText []string
	signature := ""
	a := message{Role: "assistant"}
	for _, b := range m.Content {
		switch b.Type {
		case core.ContentText:
			if b.Text == "" {
				continue
			}
			if text.Len() > 0 {
				// Blocks split by a tool call or by thinking are separate paragraphs.
				text.WriteString("\n\n")
			}
			text.WriteString(b.Text)
		case core.ContentThinking:
			if b.Thinking == "" {
				continue
			}
			if thinkingAsText {
				asText = append(asText, b.Thinking)
				continue
			}
			if b.ThinkingSignature != "" {
				signature = b.ThinkingSignature
				thinking = append(thinking, b.Thinking)
			}
		case core.ContentToolCall:
			// The arguments as the model wrote them (its key order), as pi sends them back.
			a.ToolCalls = append(a.ToolCalls, toolCall{ID: b.ID, Type: "function",
				Function: toolCallFunc{Name: b.Name, Arguments: b.ArgumentsJSON()}})
		}
	}
	s := text.String()
	if len(asText) > 0 {
		s = strings.Join(append(asText, s), "\n\n")
		s = strings.TrimRight(s, "\n")
	}
	if s != "" {
		a.Content = s
	}
	// Otherwise Content stays nil: null, OpenAI's own shape for a message of only tool
	// calls; strict servers and chat templates require the key.
	if len(thinking) > 0 {
		joined := strings.Join(thinking, "\n")
		switch signature {
		case "reasoning_content":
			a.ReasoningContent = joined
		case "reasoning":
			a.Reasoning = joined
		case "reasoning_text":
			a.ReasoningText = joined
		}
		// Signatures from other APIs (encrypted blobs) are not echoed as field names.
	}
	if s == "" && len(a.ToolCalls) == 0 {
		return message{}, false
	}
	return a, true
}
