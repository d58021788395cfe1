package anthropic

import (
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

const png = "iVBORw0KGgoAAAANSUhEUg=="

var readTool = core.ToolSpec{Name: "read", Description: "Read a file",
	Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}
var lsTool = core.ToolSpec{Name: "ls", Description: "List a directory", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}

// claudeConversation is a conversation with claude-sonnet-4-5 itself: signed and redacted
// thinking, a tool call, a tool result with an image, and a new user turn.
func claudeConversation() []core.Message {
	return []core.Message{
		core.NewUserMessage("What is in a.png?", nil, 1),
		&core.AssistantMessage{
			API: API, Provider: ProviderName, Model: "claude-sonnet-4-5", StopReason: core.StopReasonToolUse, Timestamp: 2,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: redactedText, ThinkingSignature: "EmwKAhgBEgy3va3p", Redacted: true},
				{Type: core.ContentThinking, Thinking: "I should read the file.", ThinkingSignature: "EqQBCkgIARABGAIiQL2Fz"},
				{Type: core.ContentThinking, Thinking: "Unsigned (from an aborted stream)."},
				core.TextBlock("Reading it."),
				core.TextBlock("  "),
				core.ToolCallBlock("toolu_01A", "read", map[string]any{"path": "a.png"}),
			},
		},
		&core.ToolResultMessage{ToolCallID: "toolu_01A", ToolName: "read", Timestamp: 3,
			Content: []core.Content{core.ImageBlock(png, "image/png")}},
		&core.AssistantMessage{
			API: API, Provider: ProviderName, Model: "claude-sonnet-4-5", StopReason: core.StopReasonToolUse, Timestamp: 4,
			Content: []core.Content{
				core.ToolCallBlock("toolu_01B", "ls", map[string]any{}),
				core.ToolCallBlock("toolu_01C", "read", map[string]any{"path": "b.txt"}),
			},
		},
		&core.ToolResultMessage{ToolCallID: "toolu_01B", ToolName: "ls", Timestamp: 5, Content: []core.Content{core.TextBlock("a.png\nb.txt")}},
		&core.ToolResultMessage{ToolCallID: "toolu_01C", ToolName: "read", Timestamp: 6, IsError: true, Content: []core.Content{core.TextBlock("ENOENT"), core.TextBlock("b.txt")}},
		core.NewUserMessage("Describe it in one word.", []core.Content{core.ImageBlock(png, "image/png")}, 7),
	}
}

// switchedConversation started on an OpenAI model: its thinking must become text, its
// tool-call ids Anthropic's pattern, its errored reply and orphaned call handled.
func switchedConversation() []core.Message {
	return []core.Message{
		core.NewUserMessage("List the files.", nil, 1),
		&core.AssistantMessage{
			API: "openai-completions", Provider: "openai", Model: "o4-mini", StopReason: core.StopReasonToolUse, Timestamp: 2,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: "I should call ls.", ThinkingSignature: "reasoning_content"},
				{Type: core.ContentThinking, Thinking: "   ", ThinkingSignature: "reasoning_content"},
				{Type: core.ContentText, Text: "Listing.", TextSignature: "msg_abc"},
				{Type: core.ContentToolCall, ID: "call_1|fc_abc+/=", Name: "ls", Arguments: map[string]any{"path": "."}, ThoughtSignature: "opaque"},
				core.ToolCallBlock("call_"+strings.Repeat("x", 70), "read", map[string]any{"path": "a.txt"}),
			},
		},
		&core.ToolResultMessage{ToolCallID: "call_1|fc_abc+/=", ToolName: "ls", Timestamp: 3, Content: []core.Content{core.TextBlock("a.txt")}},
		&core.ToolResultMessage{ToolCallID: "call_" + strings.Repeat("x", 70), ToolName: "read", Timestamp: 4, Content: []core.Content{core.TextBlock("hello")}},
		&core.AssistantMessage{
			API: "openai-completions", Provider: "openai", Model: "o4-mini", StopReason: core.StopReasonError, ErrorMessage: "500 boom", Timestamp: 5,
			Content: []core.Content{core.TextBlock("partial"), core.ToolCallBlock("call_err", "ls", nil)},
		},
		&core.ToolResultMessage{ToolCallID: "call_err", ToolName: "ls", Timestamp: 6, Content: []core.Content{core.TextBlock("orphan")}},
		&core.AssistantMessage{
			API: "openai-completions", Provider: "openai", Model: "o4-mini", StopReason: core.StopReasonToolUse, Timestamp: 7,
			Content: []core.Content{core.ToolCallBlock("call_2", "ls", map[string]any{"path": "sub"})},
		},
		core.NewUserMessage("Now in Claude: what did you find?", []core.Content{core.ImageBlock(png, "image/png")}, 8),
	}
}

func TestRequestGolden(t *testing.T) {
	textOnly := core.Model{ID: "glm-4.6", Name: "GLM", API: API, Provider: "zai", Input: []string{"text"}, Reasoning: true, ContextWindow: 200000, MaxTokens: 8192,
		Headers: map[string]string{"X-Custom": "1"}, Compat: map[string]any{"supportsEagerToolInputStreaming": false}}
	temp := 0.3
	tests := []struct {
		name string
		req  core.Request
		beta string
	}{
		{
			// Budget-based thinking, system prompt, tools, cache_control on the system
			// prompt, the last tool and the last user turn.
			name: "budget_thinking_tools",
			req: core.Request{Model: modelByID(t, "claude-sonnet-4-5"), SystemPrompt: "You are pi.", Messages: claudeConversation(),
				Tools: []core.ToolSpec{readTool, lsTool}, ThinkingLevel: core.ThinkingMedium, Temperature: &temp},
			beta: betaInterleavedThinking,
		},
		{
			// Adaptive thinking with the model's effort for xhigh; no tools, no system prompt.
			name: "adaptive_effort",
			req:  core.Request{Model: modelByID(t, "claude-opus-4-6"), Messages: []core.Message{core.NewUserMessage("Think hard.", nil, 1)}, ThinkingLevel: core.ThinkingXHigh},
		},
		{
			// A conversation that switched from an OpenAI model, to a text-only
			// Anthropic-compatible model with thinking off and fine-grained tool streaming.
			name: "switched_from_openai",
			req: core.Request{Model: textOnly, SystemPrompt: "You are pi.", Messages: switchedConversation(),
				Tools: []core.ToolSpec{lsTool}, ThinkingLevel: core.ThinkingOff, Temperature: &temp, MaxTokens: 2000},
			beta: betaFineGrainedTools + "," + betaInterleavedThinking,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := capturer.Capture(t, llm.Endpoint{BaseURL: DefaultBaseURL, APIKey: "k"}, &tc.req)
			ct.CheckHeaders(t, tc.req.Model.Headers)
			if got := ct.Header.Get("Anthropic-Beta"); got != tc.beta {
				t.Errorf("anthropic-beta = %q, want %q", got, tc.beta)
			}
			providertest.GoldenRequest(t, tc.name, append(providertest.IndentJSON(t, ct.Body), '\n'))
		})
	}
}
