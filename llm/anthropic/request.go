package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/transform"
)

// Request defaults, as pi sends them.
const (
	// defaultMaxTokensCap bounds the default output budget: min(model.maxTokens, 32000).
	defaultMaxTokensCap = 32000
	// fallbackMaxTokens is sent for a model that states no output limit (the API requires one).
	fallbackMaxTokens = 4096
	// minOutputTokens is what a thinking budget leaves for the answer when the output limit
	// is tight.
	minOutputTokens = 1024
	// seeImage stands in for the text of a tool result that has only images.
	seeImage = "(see attached image)"
)

// The beta features pi asks for: interleaved thinking on models without adaptive thinking,
// and fine-grained tool streaming for endpoints that do not take eager_input_streaming.
const (
	betaInterleavedThinking = "interleaved-thinking-2025-05-14"
	betaFineGrainedTools    = "fine-grained-tool-streaming-2025-05-14"
)

// thinkingBudgets are the budget_tokens pi sends per level to models with budget-based
// thinking (xhigh is sent as high).
var thinkingBudgets = map[core.ThinkingLevel]int{
	core.ThinkingMinimal: 1024,
	core.ThinkingLow:     2048,
	core.ThinkingMedium:  8192,
	core.ThinkingHigh:    16384,
	core.ThinkingXHigh:   16384,
}

// ephemeral is the cache_control pi puts on the system prompt, the last tool and the last
// user turn (the default 5-minute retention).
func ephemeral() sdk.CacheControlEphemeralParam { return sdk.NewCacheControlEphemeralParam() }

// compatBool reads a boolean compat flag (pi's models.json "compat"), or def when unset.
func compatBool(m *core.Model, key string, def bool) bool {
	if v, ok := m.Compat[key].(bool); ok {
		return v
	}
	return def
}

// supportsAdaptiveThinking reports the models that take thinking {type: adaptive} with an
// effort instead of a token budget (Opus 4.6 and later, Sonnet 4.6), as pi recognises them.
func supportsAdaptiveThinking(id string) bool {
	for _, s := range []string{"opus-4-6", "opus-4.6", "opus-4-7", "opus-4.7", "sonnet-4-6", "sonnet-4.6"} {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// buildRequest turns a core request into Messages parameters as pi builds them, plus the
// per-request options (headers, stream, fields the SDK types cannot express).
func buildRequest(req *core.Request) (sdk.MessageNewParams, []option.RequestOption, error) {
	model := &req.Model
	params := sdk.MessageNewParams{Model: sdk.Model(model.ID)}
	extra := map[string]any{}
	var opts []option.RequestOption

	if req.SystemPrompt != "" {
		params.System = []sdk.TextBlockParam{{Text: req.SystemPrompt, CacheControl: ephemeral()}}
	}
	params.Messages = convertMessages(transformMessages(req.Messages, model))

	eager := compatBool(model, "supportsEagerToolInputStreaming", true)
	for i, t := range req.Tools {
		tool, err := convertTool(t, eager)
		if err != nil {
			return params, nil, err
		}
		if i == len(req.Tools)-1 {
			tool.CacheControl = ephemeral()
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 && model.MaxTokens > 0 {
		maxTokens = min(model.MaxTokens, defaultMaxTokensCap)
	}
	thinking := model.Reasoning && req.ThinkingLevel != "" && req.ThinkingLevel != core.ThinkingOff
	adaptive := supportsAdaptiveThinking(model.ID)
	switch {
	case thinking && adaptive:
		params.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{
			Display: sdk.ThinkingConfigAdaptiveDisplaySummarized,
		}}
		params.OutputConfig = sdk.OutputConfigParam{Effort: sdk.OutputConfigEffort(effortFor(model, req.ThinkingLevel))}
	case thinking:
		budget := thinkingBudgets[req.ThinkingLevel]
		if model.MaxTokens > 0 {
			maxTokens = min(maxTokens+budget, model.MaxTokens)
		} else {
			maxTokens += budget
		}
		if maxTokens <= budget {
			budget = max(0, maxTokens-minOutputTokens)
		}
		params.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{
			BudgetTokens: int64(budget), Display: sdk.ThinkingConfigEnabledDisplaySummarized,
		}}
	case model.Reasoning:
		params.Thinking = sdk.ThinkingConfigParamUnion{OfDisabled: &sdk.ThinkingConfigDisabledParam{}}
	}
	if maxTokens <= 0 {
		maxTokens = fallbackMaxTokens
	}
	params.MaxTokens = int64(maxTokens)
	// Temperature is incompatible with extended thinking; this SDK's params have no field.
	if req.Temperature != nil && !thinking {
		extra["temperature"] = *req.Temperature
	}
	if len(extra) > 0 {
		params.SetExtraFields(extra)
	}

	var betas []string
	if len(req.Tools) > 0 && !eager {
		betas = append(betas, betaFineGrainedTools)
	}
	if !adaptive {
		betas = append(betas, betaInterleavedThinking)
	}
	if len(betas) > 0 {
		opts = append(opts, option.WithHeader("anthropic-beta", strings.Join(betas, ",")))
	}
	for k, v := range model.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	opts = append(opts, option.WithJSONSet("stream", true))
	return params, opts, nil
}

// effortFor maps a thinking level to an adaptive-thinking effort: the model's
// thinkingLevelMap value when it has one, else minimal and low → low, medium, high, and
// anything else → high.
func effortFor(model *core.Model, level core.ThinkingLevel) string {
	if v, ok := model.ThinkingLevelMap[level]; ok && v != nil {
		return *v
	}
	switch level {
	case core.ThinkingMinimal, core.ThinkingLow:
		return "low"
	case core.ThinkingMedium:
		return "medium"
	}
	return "high"
}

// convertTool sends a tool's schema as pi does: an object schema with only its properties
// and required list.
func convertTool(t core.ToolSpec, eager bool) (sdk.ToolParam, error) {
	var schema struct {
		Properties any      `json:"properties"`
		Required   []string `json:"required"`
	}
	if len(t.Parameters) > 0 {
		if err := json.Unmarshal(t.Parameters, &schema); err != nil {
			return sdk.ToolParam{}, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
		}
	}
	if schema.Properties == nil {
		schema.Properties = map[string]any{}
	}
	if schema.Required == nil {
		schema.Required = []string{}
	}
	tool := sdk.ToolParam{
		Name:        t.Name,
		InputSchema: sdk.ToolInputSchemaParam{Properties: schema.Properties, Required: schema.Required},
	}
	if t.Description != "" {
		tool.Description = sdk.String(t.Description)
	}
	if eager {
		tool.EagerInputStreaming = sdk.Bool(true)
	}
	return tool, nil
}

// convertMessages turns transformed messages into Messages parameters as pi's
// convertMessages does: empty text is dropped, thinking goes back with its signature (or as
// text when it has none, e.g. from an aborted stream), redacted thinking as its opaque data,
// consecutive tool results as one user message; the last user turn's last block gets
// cache_control.
func convertMessages(msgs []core.Message) []sdk.MessageParam {
	out := make([]sdk.MessageParam, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		switch m := msgs[i].(type) {
		case *core.UserMessage:
			var blocks []sdk.ContentBlockParamUnion
			for _, b := range m.Content {
				switch b.Type {
				case core.ContentText:
					if strings.TrimSpace(b.Text) != "" {
						blocks = append(blocks, sdk.NewTextBlock(b.Text))
					}
				case core.ContentImage:
					blocks = append(blocks, sdk.NewImageBlockBase64(b.MimeType, b.Data))
				}
			}
			if len(blocks) > 0 {
				out = append(out, sdk.NewUserMessage(blocks...))
			}
		case *core.AssistantMessage:
			if blocks := assistantBlocks(m); len(blocks) > 0 {
				out = append(out, sdk.NewAssistantMessage(blocks...))
			}
		case *core.ToolResultMessage:
			run := transform.ResultRun(msgs[i:])
			i += len(run) - 1
			blocks := make([]sdk.ContentBlockParamUnion, len(run))
			for j, r := range run {
				blocks[j] = toolResult(r)
			}
			out = append(out, sdk.NewUserMessage(blocks...))
		}
	}
	if n := len(out); n > 0 && out[n-1].OfUser != nil {
		content := out[n-1].OfUser.Content
		last := &content[len(content)-1]
		switch {
		case last.OfText != nil:
			last.OfText.CacheControl = ephemeral()
		case last.OfImage != nil:
			last.OfImage.CacheControl = ephemeral()
		case last.OfToolResult != nil:
			last.OfToolResult.CacheControl = ephemeral()
		}
	}
	return out
}

// assistantBlocks converts an assistant message's content.
func assistantBlocks(m *core.AssistantMessage) []sdk.ContentBlockParamUnion {
	var blocks []sdk.ContentBlockParamUnion
	for _, b := range m.Content {
		switch b.Type {
		case core.ContentText:
			if strings.TrimSpace(b.Text) != "" {
				blocks = append(blocks, sdk.NewTextBlock(b.Text))
			}
		case core.ContentThinking:
			switch {
			case b.Redacted:
				blocks = append(blocks, sdk.NewRedactedThinkingBlock(b.ThinkingSignature))
			case strings.TrimSpace(b.Thinking) == "":
			case strings.TrimSpace(b.ThinkingSignature) == "":
				blocks = append(blocks, sdk.NewTextBlock(b.Thinking))
			default:
				blocks = append(blocks, sdk.NewThinkingBlock(b.ThinkingSignature, b.Thinking))
			}
		case core.ContentToolCall:
			args := b.Arguments
			if args == nil {
				args = map[string]any{}
			}
			blocks = append(blocks, sdk.NewToolUseBlock(b.ID, args, b.Name))
		}
	}
	return blocks
}

// toolResult converts one tool result: its text blocks joined by newlines when it has no
// images, else its blocks with a "(see attached image)" text first when it has no text.
func toolResult(r *core.ToolResultMessage) sdk.ContentBlockParamUnion {
	res := &sdk.ToolResultBlockParam{ToolUseID: r.ToolCallID, IsError: sdk.Bool(r.IsError)}
	hasImage, hasText := false, false
	for _, b := range r.Content {
		hasImage = hasImage || b.Type == core.ContentImage
		hasText = hasText || b.Type == core.ContentText
	}
	if !hasImage {
		texts := make([]string, 0, len(r.Content))
		for _, b := range r.Content {
			if b.Type == core.ContentText {
				texts = append(texts, b.Text)
			}
		}
		// The API rejects an empty text block; a result with no text has no content.
		if s := strings.Join(texts, "\n"); s != "" {
			res.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: s}}}
		}
		return sdk.ContentBlockParamUnion{OfToolResult: res}
	}
	if !hasText {
		res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: seeImage}})
	}
	for _, b := range r.Content {
		switch b.Type {
		case core.ContentText:
			res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
		case core.ContentImage:
			res.Content = append(res.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &sdk.ImageBlockParam{
				Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{Data: b.Data, MediaType: sdk.Base64ImageSourceMediaType(b.MimeType)}},
			}})
		}
	}
	return sdk.ContentBlockParamUnion{OfToolResult: res}
}
