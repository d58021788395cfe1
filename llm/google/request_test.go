package google

import (
	"context"
	"net/http"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

const png = "iVBORw0KGgoAAAANSUhEUg=="

// Signatures as Gemini sends them: opaque base64.
const (
	sigThinking = "c2lnLXRoaW5raW5n"
	sigText     = "c2lnLXRleHQ="
	sigCall     = "c2lnLWNhbGwtMQ=="
	sigCall2    = "c2lnLWNhbGwtMg=="
)

var readTool = core.ToolSpec{Name: "read", Description: "Read a file",
	Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string","description":"File to read"},"offset":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false}`)}
var lsTool = core.ToolSpec{Name: "ls", Description: "List a directory", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}

// editTool uses the JSON Schema keywords Gemini does not take: $schema, $defs and $ref,
// additionalProperties, oneOf, const, a type array with null, allOf, not, exclusiveMinimum,
// multipleOf, uniqueItems, patternProperties, examples, and properties out of sorted order.
var editTool = core.ToolSpec{Name: "edit", Description: "Edit a file", Parameters: []byte(`{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"properties": {
		"path": {"type": "string", "examples": ["a.txt"]},
		"edits": {"type": "array", "uniqueItems": true, "minItems": 1, "items": {"$ref": "#/$defs/edit"}},
		"mode": {"oneOf": [{"const": "replace"}, {"const": "append"}]},
		"backup": {"type": ["boolean", "null"], "default": false},
		"count": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 1},
		"meta": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "string"}},
		"extra": {"allOf": [{"type": "string"}], "not": {"const": ""}}
	},
	"required": ["path", "edits"],
	"additionalProperties": false,
	"$defs": {"edit": {"type": "object", "properties": {"old": {"type": "string"}, "new": {"type": "string"}}, "required": ["old", "new"]}}
}`)}

// geminiConversation is a conversation with gemini-3-pro-preview itself: signed thinking,
// signed text, signed function calls, a tool result with an image, parallel calls with an
// error result, and a new user turn with an image.
func geminiConversation(model string) []core.Message {
	return []core.Message{
		core.NewUserMessage("What is in a.png?", nil, 1),
		&core.AssistantMessage{
			API: API, Provider: ProviderName, Model: model, StopReason: core.StopReasonToolUse, Timestamp: 2,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: "I should read the file.", ThinkingSignature: sigThinking},
				{Type: core.ContentThinking, Thinking: "  "},
				{Type: core.ContentText, Text: "Reading it.", TextSignature: sigText},
				{Type: core.ContentToolCall, ID: "read_1700000000000_1", Name: "read", Arguments: map[string]any{"path": "a.png"}, ThoughtSignature: sigCall},
			},
		},
		&core.ToolResultMessage{ToolCallID: "read_1700000000000_1", ToolName: "read", Timestamp: 3,
			Content: []core.Content{core.ImageBlock(png, "image/png")}},
		&core.AssistantMessage{
			API: API, Provider: ProviderName, Model: model, StopReason: core.StopReasonToolUse, Timestamp: 4,
			Content: []core.Content{
				{Type: core.ContentToolCall, ID: "ls_1700000000000_2", Name: "ls", Arguments: map[string]any{}, ThoughtSignature: sigCall2},
				core.ToolCallBlock("read_1700000000000_3", "read", map[string]any{"path": "b.txt"}),
			},
		},
		&core.ToolResultMessage{ToolCallID: "ls_1700000000000_2", ToolName: "ls", Timestamp: 5, Content: []core.Content{core.TextBlock("a.png\nb.txt")}},
		&core.ToolResultMessage{ToolCallID: "read_1700000000000_3", ToolName: "read", Timestamp: 6, IsError: true, Content: []core.Content{core.TextBlock("ENOENT"), core.TextBlock("b.txt")}},
		core.NewUserMessage("Describe it in one word.", []core.Content{core.ImageBlock(png, "image/png")}, 7),
	}
}

// claudeConversation started on Claude: its signed thinking must become text, its
// signatures and unsigned calls must not reach Gemini 3 as calls.
func claudeConversation() []core.Message {
	return []core.Message{
		core.NewUserMessage("List the files.", nil, 1),
		&core.AssistantMessage{
			API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: core.StopReasonToolUse, Timestamp: 2,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: "I should call ls.", ThinkingSignature: "EqQBCkgIARAB"},
				{Type: core.ContentThinking, Thinking: "[Reasoning redacted]", ThinkingSignature: "EmwKAhgB", Redacted: true},
				{Type: core.ContentText, Text: "Listing.", TextSignature: "msg_abc"},
				core.ToolCallBlock("toolu_01A", "ls", map[string]any{"path": "."}),
			},
		},
		&core.ToolResultMessage{ToolCallID: "toolu_01A", ToolName: "ls", Timestamp: 3, Content: []core.Content{core.TextBlock("a.txt")}},
		&core.AssistantMessage{
			API: "anthropic-messages", Provider: "anthropic", Model: "claude-sonnet-4-5", StopReason: core.StopReasonError, ErrorMessage: "529 overloaded", Timestamp: 4,
			Content: []core.Content{core.TextBlock("partial")},
		},
		core.NewUserMessage("Now in Gemini: what did you find?", nil, 5),
	}
}

func TestRequestGolden(t *testing.T) {
	flash25 := modelByID(t, "gemini-2.5-flash")
	flash25.Headers = map[string]string{"X-Custom": "1"}
	temp := 0.3
	tests := []struct {
		name string
		req  core.Request
	}{
		{
			// Gemini 3 Pro at medium: thinkingLevel HIGH; system instruction; tools with a
			// schema reduced to Gemini's subset; signatures back on their parts; the tool
			// result's image inside the functionResponse.
			name: "gemini3_signatures_tools",
			req: core.Request{Model: modelByID(t, "gemini-3-pro-preview"), SystemPrompt: "You are pi.", Messages: geminiConversation("gemini-3-pro-preview"),
				Tools: []core.ToolSpec{readTool, lsTool, editTool}, ThinkingLevel: core.ThinkingMedium, Temperature: &temp},
		},
		{
			// Gemini 2.5 Flash at low: thinkingBudget 2048; the tool result's image in a user
			// turn of its own; the model's headers.
			name: "gemini25_budget_image_turn",
			req: core.Request{Model: flash25, Messages: geminiConversation("gemini-2.5-flash"),
				Tools: []core.ToolSpec{readTool}, ThinkingLevel: core.ThinkingLow},
		},
		{
			// Switched from Claude to Gemini 3 Flash with thinking off (thinkingLevel
			// MINIMAL, no thoughts) and an explicit output budget.
			name: "switched_from_claude",
			req: core.Request{Model: modelByID(t, "gemini-3-flash-preview"), SystemPrompt: "You are pi.", Messages: claudeConversation(),
				Tools: []core.ToolSpec{lsTool}, ThinkingLevel: core.ThinkingOff, MaxTokens: 2000},
		},
		{
			// Gemini 2.5 Pro with thinking off: thinkingBudget 0.
			name: "gemini25_pro_off",
			req:  core.Request{Model: modelByID(t, "gemini-2.5-pro"), Messages: []core.Message{core.NewUserMessage("Hi.", nil, 1)}},
		},
		{
			// A model that does not reason: no thinkingConfig; xhigh is ignored.
			name: "gemini20_no_thinking",
			req:  core.Request{Model: modelByID(t, "gemini-2.0-flash"), Messages: []core.Message{core.NewUserMessage("Hi.", nil, 1)}, ThinkingLevel: core.ThinkingXHigh},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := capturer.Capture(t, llm.Endpoint{BaseURL: DefaultBaseURL, APIKey: "k"}, &tc.req)
			if want := DefaultBaseURL + "/models/" + tc.req.Model.ID + ":streamGenerateContent?alt=sse"; ct.URL != want {
				t.Errorf("url = %s, want %s", ct.URL, want)
			}
			if got := ct.Header.Get("X-Goog-Api-Key"); got != "k" {
				t.Errorf("x-goog-api-key = %q", got)
			}
			ct.CheckHeaders(t, tc.req.Model.Headers)
			providertest.GoldenRequest(t, tc.name, providertest.IndentJSON(t, ct.Body))
		})
	}
}

// TestNoKeyNoHeader: without a key the request carries no x-goog-api-key (the SDK's
// placeholder is removed), and a base URL without a version gets /v1beta.
func TestNoKeyNoHeader(t *testing.T) {
	ct := capturer.Transport()
	p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://127.0.0.1:9/proxy", HTTPClient: &http.Client{Transport: ct}, IdleTimeout: -1, Headers: map[string]string{"X-Proxy": "p"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_API_KEY", "from-env")
	t.Setenv("GOOGLE_API_KEY", "from-env")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:8/env")
	_, final := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
	if final.StopReason != core.StopReasonStop {
		t.Fatalf("stream failed: %s", final.ErrorMessage)
	}
	if _, ok := ct.Header["X-Goog-Api-Key"]; ok {
		t.Errorf("x-goog-api-key sent: %q", ct.Header.Get("X-Goog-Api-Key"))
	}
	if ct.Header.Get("X-Proxy") != "p" {
		t.Errorf("provider header X-Proxy = %q", ct.Header.Get("X-Proxy"))
	}
	if want := "http://127.0.0.1:9/proxy/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"; ct.URL != want {
		t.Errorf("url = %s, want %s", ct.URL, want)
	}
}
