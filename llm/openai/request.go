package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/transform"
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

// buildRequest turns a core request into Chat Completions parameters (as pi-ai does) plus the
// per-request options for fields the SDK types cannot express.
func (p *Provider) buildRequest(req *core.Request) (oa.ChatCompletionNewParams, []option.RequestOption, error) {
	model := &req.Model
	params := oa.ChatCompletionNewParams{Model: model.ID}
	extra := map[string]any{}
	var opts []option.RequestOption

	if req.SystemPrompt != "" {
		if model.Reasoning && compatBool(model, "supportsDeveloperRole", true) {
			params.Messages = append(params.Messages, oa.DeveloperMessage(req.SystemPrompt))
		} else {
			params.Messages = append(params.Messages, oa.SystemMessage(req.SystemPrompt))
		}
	}
	msgs, hasToolCalls, err := convertMessages(transformMessages(req.Messages, model), model)
	if err != nil {
		return params, nil, err
	}
	params.Messages = append(params.Messages, msgs...)

	if len(req.Tools) > 0 {
		strict := compatBool(model, "supportsStrictMode", true)
		for _, t := range req.Tools {
			fn := shared.FunctionDefinitionParam{Name: t.Name}
			if t.Description != "" {
				fn.Description = oa.String(t.Description)
			}
			if len(t.Parameters) > 0 {
				// Sent as given: a map would list the properties alphabetically, not in the
				// order the tool declares them (and the model is told).
				schema := bytes.TrimSpace(t.Parameters)
				if len(schema) == 0 || schema[0] != '{' || !json.Valid(schema) {
					return params, nil, fmt.Errorf("tool %s: parameters are not a JSON object", t.Name)
				}
				fn.SetExtraFields(map[string]any{"parameters": json.RawMessage(schema)})
			}
			if strict {
				fn.Strict = oa.Bool(false)
			}
			params.Tools = append(params.Tools, oa.ChatCompletionFunctionTool(fn))
		}
	} else if hasToolCalls {
		// Some servers reject tool calls in the history of a request that declares no tools.
		params.Tools = []oa.ChatCompletionToolUnionParam{}
	}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 && model.MaxTokens > 0 {
		maxTokens = min(model.MaxTokens, defaultMaxTokensCap)
	}
	if maxTokens > 0 {
		if compatString(model, "maxTokensField", "max_completion_tokens") == "max_tokens" {
			params.MaxTokens = oa.Int(int64(maxTokens))
		} else {
			params.MaxCompletionTokens = oa.Int(int64(maxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = oa.Float(*req.Temperature)
	}
	if compatBool(model, "supportsUsageInStreaming", true) {
		params.StreamOptions = oa.ChatCompletionStreamOptionsParam{IncludeUsage: oa.Bool(true)}
	}
	if compatBool(model, "supportsStore", p.isOpenAI()) {
		params.Store = oa.Bool(false)
	}
	if p.isOpenAI() && req.SessionID != "" {
		params.PromptCacheKey = oa.String(req.SessionID)
	}
	p.setReasoning(&params, extra, model, req.ThinkingLevel)

	if len(extra) > 0 {
		params.SetExtraFields(extra)
	}
	for k, v := range model.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	opts = append(opts, option.WithJSONSet("stream", true))
	return params, opts, nil
}

// setReasoning asks for the thinking level in the dialect the server speaks
// (compat.thinkingFormat); off, or a model without reasoning, sends nothing.
func (p *Provider) setReasoning(params *oa.ChatCompletionNewParams, extra map[string]any, model *core.Model, level core.ThinkingLevel) {
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
		extra["reasoning"] = map[string]any{"effort": effort}
	case "qwen":
		extra["enable_thinking"] = true
	case "zai", "deepseek":
		extra["thinking"] = map[string]any{"type": "enabled"}
	default:
		if compatBool(model, "supportsReasoningEffort", true) {
			params.ReasoningEffort = shared.ReasoningEffort(effort)
		}
	}
}

// convertMessages turns transformed messages into Chat Completions messages (pi-ai's
// convertMessages). It reports whether the history holds tool calls.
func convertMessages(msgs []core.Message, model *core.Model) ([]oa.ChatCompletionMessageParamUnion, bool, error) {
	out := make([]oa.ChatCompletionMessageParamUnion, 0, len(msgs))
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
				out = append(out, oa.AssistantMessage("I have processed the tool results."))
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
			out = append(out, oa.ChatCompletionMessageParamUnion{OfAssistant: a})
		case *core.ToolResultMessage:
			// A run of tool results: one tool message each, then their images in one user
			// message (the tool role carries text only).
			run := transform.ResultRun(msgs[i:])
			i += len(run) - 1
			var images []oa.ChatCompletionContentPartUnionParam
			for _, r := range run {
				text := resultText(r.Content)
				tm := oa.ChatCompletionToolMessageParam{ToolCallID: r.ToolCallID}
				tm.Content.OfString = oa.String(text)
				if toolResultName && r.ToolName != "" {
					tm.SetExtraFields(map[string]any{"name": r.ToolName})
				}
				out = append(out, oa.ChatCompletionMessageParamUnion{OfTool: &tm})
				if vision {
					for _, b := range r.Content {
						if b.Type == core.ContentImage {
							images = append(images, imagePart(b))
						}
					}
				}
			}
			lastWasTool = true
			if len(images) > 0 {
				parts := append([]oa.ChatCompletionContentPartUnionParam{oa.TextContentPart(attachedImages)}, images...)
				out = append(out, oa.UserMessage(parts))
				lastWasTool = false
			}
		}
	}
	return out, hasToolCalls, nil
}

// userMessage converts user content: a plain string when it is a single text, parts
// otherwise. Empty content yields no message.
func userMessage(content []core.Content) (oa.ChatCompletionMessageParamUnion, bool) {
	if len(content) == 1 && content[0].Type == core.ContentText {
		if content[0].Text == "" {
			return oa.ChatCompletionMessageParamUnion{}, false
		}
		return oa.UserMessage(content[0].Text), true
	}
	parts := make([]oa.ChatCompletionContentPartUnionParam, 0, len(content))
	for _, b := range content {
		switch b.Type {
		case core.ContentText:
			if b.Text != "" {
				parts = append(parts, oa.TextContentPart(b.Text))
			}
		case core.ContentImage:
			parts = append(parts, imagePart(b))
		}
	}
	if len(parts) == 0 {
		return oa.ChatCompletionMessageParamUnion{}, false
	}
	return oa.UserMessage(parts), true
}

// imagePart sends an image as a data URL.
func imagePart(b core.Content) oa.ChatCompletionContentPartUnionParam {
	return oa.ImageContentPart(oa.ChatCompletionContentPartImageImageURLParam{URL: "data:" + b.MimeType + ";base64," + b.Data})
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
func assistantMessage(m *core.AssistantMessage, thinkingAsText bool) (*oa.ChatCompletionAssistantMessageParam, bool) {
	var text strings.Builder
	var thinking, asText []string
	signature := ""
	a := &oa.ChatCompletionAssistantMessageParam{}
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
			a.ToolCalls = append(a.ToolCalls, oa.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oa.ChatCompletionMessageFunctionToolCallParam{
					ID:       b.ID,
					Function: oa.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: b.ArgumentsJSON()},
				},
			})
		}
	}
	s := text.String()
	if len(asText) > 0 {
		s = strings.Join(append(asText, s), "\n\n")
		s = strings.TrimRight(s, "\n")
	}
	if s != "" {
		a.Content.OfString = oa.String(s)
	} else {
		// OpenAI's own shape for a message of only tool calls: strict servers and chat
		// templates require the key.
		a.Content = param.NullStruct[oa.ChatCompletionAssistantMessageParamContentUnion]()
	}
	if len(thinking) > 0 && isReasoningField(signature) {
		a.SetExtraFields(map[string]any{signature: strings.Join(thinking, "\n")})
	}
	if s == "" && len(a.ToolCalls) == 0 {
		return nil, false
	}
	return a, true
}

// isReasoningField reports whether a thinking signature names a Chat Completions reasoning
// field; signatures from other APIs (encrypted blobs) are not echoed as field names.
func isReasoningField(sig string) bool {
	switch sig {
	case "reasoning_content", "reasoning", "reasoning_text":
		return true
	}
	return false
}
