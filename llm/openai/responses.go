package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/transform"
)

// The Responses API's api values (pi's names): OpenAI's own and Azure OpenAI's.
const (
	ResponsesAPI = "openai-responses"
	AzureAPI     = "azure-openai-responses"
)

// AzureProviderName is pi's provider of Azure OpenAI models.
const AzureProviderName = "azure-openai-responses"

// IsResponsesAPI reports whether api is served by the Responses client of this package.
func IsResponsesAPI(api string) bool { return api == ResponsesAPI || api == AzureAPI }

// responsesPath is the Responses endpoint below the base URL.
const responsesPath = "responses"

// maxItemIDLength is the longest item or call id the Responses API accepts.
const maxItemIDLength = 64

// buildResponsesRequest turns a core request into Responses API parameters (as pi-ai's
// openai-responses provider does): store false, the transcript as input items (each of this
// model's reasoning items sent back as it was returned, before the call it led to), the
// tools, max_output_tokens, reasoning effort and summary with the encrypted reasoning
// included. model is the name the endpoint knows the model by (an Azure deployment).
func (p *Provider) buildResponsesRequest(req *core.Request, model string) (responses.ResponseNewParams, []option.RequestOption, error) {
	m := &req.Model
	params := responses.ResponseNewParams{Model: shared.ResponsesModel(model), Store: oa.Bool(false)}
	var input responses.ResponseInputParam
	if req.SystemPrompt != "" {
		role := responses.EasyInputMessageRoleSystem
		if m.Reasoning {
			role = responses.EasyInputMessageRoleDeveloper
		}
		input = append(input, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
			Role: role, Content: responses.EasyInputMessageContentUnionParam{OfString: oa.String(req.SystemPrompt)},
		}})
	}
	input = append(input, convertResponsesInput(transformResponsesMessages(req.Messages, m), m)...)
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}

	for _, t := range req.Tools {
		fn := responses.FunctionToolParam{Name: t.Name, Strict: oa.Bool(false)}
		if t.Description != "" {
			fn.Description = oa.String(t.Description)
		}
		schema := bytes.TrimSpace(t.Parameters)
		if len(schema) == 0 {
			schema = []byte(`{"type":"object","properties":{}}`)
		}
		if schema[0] != '{' || !json.Valid(schema) {
			return params, nil, fmt.Errorf("tool %s: parameters are not a JSON object", t.Name)
		}
		// Sent as given, in the tool's own property order (a map would sort them).
		fn.SetExtraFields(map[string]any{"parameters": json.RawMessage(schema)})
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: &fn})
	}

	maxTokens := req.MaxTokens
	if maxTokens <= 0 && m.MaxTokens > 0 {
		maxTokens = min(m.MaxTokens, defaultMaxTokensCap)
	}
	if maxTokens > 0 {
		params.MaxOutputTokens = oa.Int(int64(maxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = oa.Float(*req.Temperature)
	}
	if req.SessionID != "" {
		params.PromptCacheKey = oa.String(req.SessionID)
	}
	if m.Reasoning {
		// With store false the server keeps nothing: the reasoning comes back encrypted so
		// that the next request can send it again.
		params.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		if effort, ok := reasoningEffort(m, req.ThinkingLevel); ok {
			params.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(effort), Summary: shared.ReasoningSummaryAuto}
		}
	}
	var opts []option.RequestOption
	for k, v := range m.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	opts = append(opts, option.WithJSONSet("stream", true))
	return params, opts, nil
}

// reasoningEffort is the effort a thinking level asks of a reasoning model: the level clamped
// to those the model supports (pi's clampThinkingLevel), then its thinkingLevelMap value when
// the model has one. Off, or a level the map sends as null, asks for none.
func reasoningEffort(m *core.Model, level core.ThinkingLevel) (string, bool) {
	if !m.Reasoning || level == "" || level == core.ThinkingOff {
		return "", false
	}
	level = m.ClampThinkingLevel(level)
	if level == core.ThinkingOff {
		return "", false
	}
	if v, ok := m.ThinkingLevelMap[level]; ok {
		if v == nil {
			return "", false
		}
		return *v, true
	}
	return string(level), true
}

// transformResponsesMessages prepares a transcript for a Responses model (pi-ai's
// transformMessages with its Responses id rule): another model's thinking goes as text and
// its text without this API's message id; its tool-call ids keep only the call id, sanitised,
// so that no function-call item id is paired with a reasoning item it never had.
func transformResponsesMessages(in []core.Message, m *core.Model) []core.Message {
	return transform.Messages(in, m, transform.Rules{
		Block: func(b core.Content, same bool) (core.Content, bool) {
			if same {
				return b, true
			}
			switch b.Type {
			case core.ContentThinking:
				return transform.ThinkingAsText(b)
			case core.ContentText:
				b.TextSignature = ""
			}
			return b, true
		},
		CallID: func(id string, same bool) string {
			if same {
				return id
			}
			callID, _, _ := strings.Cut(id, "|")
			callID = strings.TrimRight(transform.ReplaceIDChars(callID, maxItemIDLength), "_")
			if callID == "" {
				callID = "call"
			}
			return callID
		},
	})
}

// convertResponsesInput turns transformed messages into input items (pi-ai's
// convertResponsesMessages).
func convertResponsesInput(msgs []core.Message, m *core.Model) responses.ResponseInputParam {
	vision := m.SupportsImages()
	var out responses.ResponseInputParam
	for i, msg := range msgs {
		switch msg := msg.(type) {
		case *core.UserMessage:
			if parts := inputContent(msg.Content, vision); len(parts) > 0 {
				out = append(out, userItem(parts))
			}
		case *core.AssistantMessage:
			out = append(out, assistantItems(msg, i)...)
		case *core.ToolResultMessage:
			callID, _, _ := strings.Cut(msg.ToolCallID, "|")
			fo := &responses.ResponseInputItemFunctionCallOutputParam{CallID: oa.String(callID)}
			fo.Output.OfString = oa.String(resultText(msg.Content))
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: fo})
			if !vision {
				continue
			}
			var images responses.ResponseInputMessageContentListParam
			for _, b := range msg.Content {
				if b.Type == core.ContentImage {
					images = append(images, inputImage(b))
				}
			}
			if len(images) > 0 {
				parts := append(responses.ResponseInputMessageContentListParam{inputText(attachedImages)}, images...)
				out = append(out, userItem(parts))
			}
		}
	}
	return out
}

func userItem(parts responses.ResponseInputMessageContentListParam) responses.ResponseInputItemUnionParam {
	return responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
		Role: responses.EasyInputMessageRoleUser, Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: parts},
	}}
}

// inputContent converts user content to input_text and input_image parts; images are left
// out for a model without vision (transform has already put a placeholder in their place).
func inputContent(content []core.Content, vision bool) responses.ResponseInputMessageContentListParam {
	var parts responses.ResponseInputMessageContentListParam
	for _, b := range content {
		switch b.Type {
		case core.ContentText:
			parts = append(parts, inputText(b.Text))
		case core.ContentImage:
			if vision {
				parts = append(parts, inputImage(b))
			}
		}
	}
	return parts
}

func inputText(s string) responses.ResponseInputContentUnionParam {
	return responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: s}}
}

func inputImage(b core.Content) responses.ResponseInputContentUnionParam {
	return responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
		Detail: responses.ResponseInputImageDetailAuto, ImageURL: oa.String("data:" + b.MimeType + ";base64," + b.Data),
	}}
}

// assistantItems converts one assistant message to output items in content order: each
// thinking block's reasoning item exactly as the model returned it, each text block as an
// output message under its message id, each tool call as a function call. index numbers
// messages whose text has no id. A function call keeps its item id only when the reasoning
// before it is sent too: the API checks that a function call's id is paired with its
// reasoning item.
func assistantItems(msg *core.AssistantMessage, index int) []responses.ResponseInputItemUnionParam {
	var out []responses.ResponseInputItemUnionParam
	skippedThinking := false
	for _, b := range msg.Content {
		switch b.Type {
		case core.ContentThinking:
			raw, ok := reasoningItemJSON(b.ThinkingSignature)
			if !ok {
				skippedThinking = true
				continue
			}
			var item responses.ResponseReasoningItemParam
			param.SetJSON(raw, &item)
			out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: &item})
		case core.ContentText:
			if b.Text == "" {
				continue
			}
			id, phase := textItemID(b.TextSignature)
			if id == "" {
				id = "msg_" + strconv.Itoa(index)
			} else if len(id) > maxItemIDLength {
				h := fnv.New64a()
				_, _ = h.Write([]byte(id))
				id = "msg_" + strconv.FormatUint(h.Sum64(), 36)
			}
			out = append(out, responses.ResponseInputItemUnionParam{OfOutputMessage: &responses.ResponseOutputMessageParam{
				ID:     id,
				Phase:  responses.ResponseOutputMessagePhase(phase),
				Status: responses.ResponseOutputMessageStatusCompleted,
				Content: []responses.ResponseOutputMessageContentUnionParam{{OfOutputText: &responses.ResponseOutputTextParam{
					Text: b.Text, Annotations: []responses.ResponseOutputTextAnnotationUnionParam{},
				}}},
			}})
		case core.ContentToolCall:
			callID, itemID, _ := strings.Cut(b.ID, "|")
			fc := &responses.ResponseFunctionToolCallParam{CallID: callID, Name: b.Name, Arguments: b.ArgumentsJSON()}
			if itemID != "" && (!skippedThinking || !strings.HasPrefix(itemID, "fc")) {
				fc.ID = oa.String(itemID)
			}
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCall: fc})
		}
	}
	return out
}

// reasoningItemJSON returns a thinking signature that is a Responses reasoning item (the
// JSON object the model returned), or false for signatures of other APIs.
func reasoningItemJSON(sig string) ([]byte, bool) {
	if !strings.HasPrefix(sig, "{") {
		return nil, false
	}
	var item struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal([]byte(sig), &item) != nil || item.Type != "reasoning" || item.ID == "" {
		return nil, false
	}
	return []byte(sig), true
}

// textSignature is the signature of a text block from an output message: pi's
// TextSignatureV1, {"v":1,"id":...} with the message's phase when it has one.
func textSignature(id, phase string) string {
	sig := struct {
		V     int    `json:"v"`
		ID    string `json:"id"`
		Phase string `json:"phase,omitempty"`
	}{1, id, phase}
	b, _ := json.Marshal(sig)
	return string(b)
}

// textItemID reads a text signature's message id and phase: pi's TextSignatureV1 JSON, or
// (older pi) the id itself. Only the phases the API knows are kept.
func textItemID(sig string) (id, phase string) {
	if strings.HasPrefix(sig, "{") {
		var v struct {
			V     int    `json:"v"`
			ID    string `json:"id"`
			Phase string `json:"phase"`
		}
		if json.Unmarshal([]byte(sig), &v) == nil && v.V == 1 {
			if v.Phase != "commentary" && v.Phase != "final_answer" {
				v.Phase = ""
			}
			return v.ID, v.Phase
		}
	}
	return sig, ""
}
