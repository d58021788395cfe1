package google

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"google.golang.org/genai"

	"github.com/pi-rpc/pi-rpc/core"
)

// Request defaults, as pi sends them.
const (
	// defaultMaxTokensCap bounds the default output budget: min(model.maxTokens, 32000).
	defaultMaxTokensCap = 32000
	// seeImage stands in for the text of a tool result that has only images.
	seeImage = "(see attached image)"
	// toolImageIntro introduces a tool result's images sent in a user turn of their own, for
	// models before Gemini 3 that take no images inside a function response.
	toolImageIntro = "Tool result image:"
)

// Gemini 3 models by family, as pi recognises them.
var (
	gemini3Pro   = regexp.MustCompile(`gemini-3(?:\.\d+)?-pro`)
	gemini3Flash = regexp.MustCompile(`gemini-3(?:\.\d+)?-flash`)
)

func isGemini3Pro(id string) bool { return gemini3Pro.MatchString(strings.ToLower(id)) }

func isGemini3Flash(id string) bool {
	id = strings.ToLower(id)
	return gemini3Flash.MatchString(id) || id == "gemini-flash-latest" || id == "gemini-flash-lite-latest"
}

func isGemini3(id string) bool { return strings.Contains(strings.ToLower(id), "gemini-3") }

// thinkingBudgets are the thinkingBudget pi sends per level to Gemini 2.5 Pro and Flash
// (xhigh is sent as high); other models get -1, the API's dynamic budget.
var thinkingBudgets = map[string]map[core.ThinkingLevel]int32{
	"2.5-pro":   {core.ThinkingMinimal: 128, core.ThinkingLow: 2048, core.ThinkingMedium: 8192, core.ThinkingHigh: 32768},
	"2.5-flash": {core.ThinkingMinimal: 128, core.ThinkingLow: 2048, core.ThinkingMedium: 8192, core.ThinkingHigh: 24576},
}

// buildRequest turns a core request into GenerateContent's contents and config as pi builds
// them.
func buildRequest(req *core.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	model := &req.Model
	config := &genai.GenerateContentConfig{
		// The SDK would reconnect a broken stream by itself: retries belong to the session.
		AutomaticContinuation: genai.Ptr(false),
	}
	contents, err := convertMessages(transformMessages(req.Messages, model), model)
	if err != nil {
		return nil, nil, err
	}
	if req.SystemPrompt != "" {
		config.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.SystemPrompt}}}
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			schema, err := convertSchema(t.Parameters)
			if err != nil {
				return nil, nil, fmt.Errorf("tool %s: %w", t.Name, err)
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, &genai.FunctionDeclaration{
				Name: t.Name, Description: t.Description, Parameters: schema,
			})
		}
		config.Tools = []*genai.Tool{tool}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 && model.MaxTokens > 0 {
		maxTokens = min(model.MaxTokens, defaultMaxTokensCap)
	}
	if maxTokens > 0 {
		config.MaxOutputTokens = int32(maxTokens)
	}
	if req.Temperature != nil {
		config.Temperature = genai.Ptr(float32(*req.Temperature))
	}
	config.ThinkingConfig = thinkingConfig(model, req.ThinkingLevel)
	if len(model.Headers) > 0 {
		h := http.Header{}
		for k, v := range model.Headers {
			h.Set(k, v)
		}
		config.HTTPOptions = &genai.HTTPOptions{Headers: h}
	}
	return contents, config, nil
}

// thinkingConfig maps a thinking level as pi does: Gemini 3 Pro takes thinkingLevel LOW or
// HIGH, Gemini 3 Flash MINIMAL, LOW, MEDIUM or HIGH; other models a thinkingBudget; thoughts
// are included. At level off a reasoning model gets its lowest setting without thoughts:
// LOW (3 Pro), MINIMAL (3 Flash) or a budget of 0. A model that does not reason gets none.
func thinkingConfig(model *core.Model, level core.ThinkingLevel) *genai.ThinkingConfig {
	if !model.Reasoning {
		return nil
	}
	id := model.ID
	if level == "" || level == core.ThinkingOff {
		switch {
		case isGemini3Pro(id):
			return &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}
		case isGemini3Flash(id):
			return &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelMinimal}
		}
		return &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](0)}
	}
	if level == core.ThinkingXHigh {
		level = core.ThinkingHigh
	}
	tc := &genai.ThinkingConfig{IncludeThoughts: true}
	switch {
	case isGemini3Pro(id):
		tc.ThinkingLevel = genai.ThinkingLevelHigh
		if level == core.ThinkingMinimal || level == core.ThinkingLow {
			tc.ThinkingLevel = genai.ThinkingLevelLow
		}
	case isGemini3Flash(id):
		tc.ThinkingLevel = map[core.ThinkingLevel]genai.ThinkingLevel{
			core.ThinkingMinimal: genai.ThinkingLevelMinimal, core.ThinkingLow: genai.ThinkingLevelLow,
			core.ThinkingMedium: genai.ThinkingLevelMedium, core.ThinkingHigh: genai.ThinkingLevelHigh,
		}[level]
	default:
		budget := int32(-1)
		for family, budgets := range thinkingBudgets {
			if strings.Contains(id, family) {
				budget = budgets[level]
			}
		}
		tc.ThinkingBudget = &budget
	}
	return tc
}

// convertMessages turns transformed messages into contents as pi's convertMessages does for
// Google: user text and images (inline data) as a user turn; assistant text, thinking
// (thought: true) and function calls as a model turn, each part with its thought signature;
// tool results as functionResponse parts ({"output": text} or {"error": text}), consecutive
// ones in one user turn, their images inside the function response on Gemini 3 and in a user
// turn of their own after it on older models.
func convertMessages(msgs []core.Message, model *core.Model) ([]*genai.Content, error) {
	var out []*genai.Content
	for _, msg := range msgs {
		switch m := msg.(type) {
		case *core.UserMessage:
			var parts []*genai.Part
			for _, b := range m.Content {
				switch b.Type {
				case core.ContentText:
					parts = append(parts, &genai.Part{Text: b.Text})
				case core.ContentImage:
					p, err := imagePart(b)
					if err != nil {
						return nil, err
					}
					parts = append(parts, p)
				}
			}
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
			}
		case *core.AssistantMessage:
			if parts := assistantParts(m, model); len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleModel, Parts: parts})
			}
		case *core.ToolResultMessage:
			var err error
			if out, err = appendToolResult(out, m, model); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// assistantParts converts an assistant message's content. Signatures that are not base64
// (another API's, or none) are not sent; Gemini 3 rejects a function call without its
// signature, so such a call (from another model) is sent as a note in text instead.
func assistantParts(m *core.AssistantMessage, model *core.Model) []*genai.Part {
	var parts []*genai.Part
	for _, b := range m.Content {
		switch b.Type {
		case core.ContentText:
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			parts = append(parts, &genai.Part{Text: b.Text, ThoughtSignature: signature(b.TextSignature)})
		case core.ContentThinking:
			if strings.TrimSpace(b.Thinking) == "" {
				continue
			}
			parts = append(parts, &genai.Part{Text: b.Thinking, Thought: true, ThoughtSignature: signature(b.ThinkingSignature)})
		case core.ContentToolCall:
			args := b.Arguments
			if args == nil {
				args = map[string]any{}
			}
			sig := signature(b.ThoughtSignature)
			if isGemini3(model.ID) && sig == nil {
				argsJSON, _ := json.MarshalIndent(args, "", "  ")
				parts = append(parts, &genai.Part{Text: fmt.Sprintf(
					"[Historical context: a different model called tool %q with arguments: %s. Do not mimic this format - use proper function calling.]",
					b.Name, argsJSON)})
				continue
			}
			parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: b.Name, Args: args}, ThoughtSignature: sig})
		}
	}
	return parts
}

// signature decodes a thought signature kept on a block (base64, as Gemini sends it); the
// SDK encodes it back to the same text. Anything else is not Gemini's and is not sent.
func signature(s string) []byte {
	if s == "" || len(s)%4 != 0 {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || base64.StdEncoding.EncodeToString(b) != s {
		return nil
	}
	return b
}

// appendToolResult adds one tool result's functionResponse, to the last user turn when it
// holds function responses already.
func appendToolResult(out []*genai.Content, r *core.ToolResultMessage, model *core.Model) ([]*genai.Content, error) {
	var texts []string
	var images []core.Content
	for _, b := range r.Content {
		switch b.Type {
		case core.ContentText:
			texts = append(texts, b.Text)
		case core.ContentImage:
			if model.SupportsImages() {
				images = append(images, b)
			}
		}
	}
	value := strings.Join(texts, "\n")
	if value == "" && len(images) > 0 {
		value = seeImage
	}
	resp := &genai.FunctionResponse{Name: r.ToolName, Response: map[string]any{"output": value}}
	if r.IsError {
		resp.Response = map[string]any{"error": value}
	}
	nested := len(images) > 0 && isGemini3(model.ID)
	var imageParts []*genai.Part
	for _, img := range images {
		p, err := imagePart(img)
		if err != nil {
			return nil, err
		}
		if nested {
			resp.Parts = append(resp.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: p.InlineData.MIMEType, Data: p.InlineData.Data}})
		} else {
			imageParts = append(imageParts, p)
		}
	}
	part := &genai.Part{FunctionResponse: resp}
	if n := len(out); n > 0 && out[n-1].Role == genai.RoleUser && hasFunctionResponse(out[n-1]) {
		out[n-1].Parts = append(out[n-1].Parts, part)
	} else {
		out = append(out, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{part}})
	}
	if len(imageParts) > 0 {
		out = append(out, &genai.Content{Role: genai.RoleUser, Parts: append([]*genai.Part{{Text: toolImageIntro}}, imageParts...)})
	}
	return out, nil
}

func hasFunctionResponse(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}

// imagePart is an image block as inline data.
func imagePart(b core.Content) (*genai.Part, error) {
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return nil, fmt.Errorf("image (%s) is not valid base64: %w", b.MimeType, err)
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: b.MimeType, Data: data}}, nil
}
