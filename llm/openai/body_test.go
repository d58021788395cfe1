package openai

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestRequestBodies pins the exact bytes of the request body for every request option and
// compat setting the provider reads: key order, escaping and number formatting included, so
// that no server sees a different body after a change of the encoder. The files were
// recorded from the openai-go SDK the package used before it had its own request types.
func TestRequestBodies(t *testing.T) {
	str := func(s string) *string { return &s }
	user := func(s string) core.Message { return core.NewUserMessage(s, nil, 1) }
	plain := core.Model{ID: "m", API: API, Provider: "local", Input: []string{"text"}, ContextWindow: 8192, MaxTokens: 4096}
	vision := plain
	vision.Input = []string{"text", "image"}
	reasoning := plain
	reasoning.Reasoning = true
	withCompat := func(m core.Model, kv ...any) core.Model {
		m.Compat = map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m.Compat[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	png := core.ImageBlock("iVBORw0KGgo=", "image/png")
	callThenResult := []core.Message{
		user("list"),
		&core.AssistantMessage{API: API, Provider: "local", Model: "m", StopReason: core.StopReasonToolUse, Timestamp: 2,
			Content: []core.Content{
				{Type: core.ContentThinking, Thinking: "Think <first> & then act.", ThinkingSignature: "reasoning"},
				core.TextBlock("Listing."),
				core.ToolCallBlock("call_1", "ls", map[string]any{"path": "."}),
				core.ToolCallBlock("call_2", "read", map[string]any{"path": "a.png"}),
			}},
		&core.ToolResultMessage{ToolCallID: "call_1", ToolName: "ls", Timestamp: 3, Content: []core.Content{core.TextBlock("a.png\nb.go")}},
		&core.ToolResultMessage{ToolCallID: "call_2", ToolName: "read", Timestamp: 3, Content: []core.Content{png}},
		user("thanks"),
	}
	temp, zero := 0.7, 0.0
	tools := []core.ToolSpec{
		{Name: "ls", Description: "List <dir> & more", Parameters: []byte(`{ "type": "object", "properties": {"path": {"type": "string", "description": "a <dir> & \u003cmore\u003e é"}} }`)},
		{Name: "now"},
	}
	tests := []struct {
		name    string
		baseURL string
		req     core.Request
	}{
		{name: "minimal", req: core.Request{Model: plain, Messages: []core.Message{user("hi")}}},
		{name: "system_role", req: core.Request{Model: plain, SystemPrompt: "Be brief.", Messages: []core.Message{user("hi")}}},
		{name: "developer_role", req: core.Request{Model: reasoning, SystemPrompt: "Be brief.", Messages: []core.Message{user("hi")}}},
		{name: "developer_role_unsupported", req: core.Request{Model: withCompat(reasoning, "supportsDeveloperRole", false), SystemPrompt: "Be brief.", Messages: []core.Message{user("hi")}}},
		{name: "tools_strict", req: core.Request{Model: plain, Messages: []core.Message{user("hi")}, Tools: tools}},
		{name: "tools_no_strict", req: core.Request{Model: withCompat(plain, "supportsStrictMode", false), Messages: []core.Message{user("hi")}, Tools: tools}},
		{name: "max_tokens_field", req: core.Request{Model: withCompat(plain, "maxTokensField", "max_tokens"), Messages: []core.Message{user("hi")}, MaxTokens: 100}},
		{name: "no_max_tokens", req: core.Request{Model: func() core.Model { m := plain; m.MaxTokens = 0; return m }(), Messages: []core.Message{user("hi")}}},
		{name: "max_tokens_capped", req: core.Request{Model: func() core.Model { m := plain; m.MaxTokens = 100000; return m }(), Messages: []core.Message{user("hi")}}},
		{name: "no_usage_in_streaming", req: core.Request{Model: withCompat(plain, "supportsUsageInStreaming", false), Messages: []core.Message{user("hi")}}},
		{name: "temperature_zero", req: core.Request{Model: plain, Messages: []core.Message{user("hi")}, Temperature: &zero}},
		{name: "no_messages", req: core.Request{Model: plain}},
		{name: "unnamed_result_and_call", req: core.Request{Model: withCompat(plain, "requiresToolResultName", true), Messages: []core.Message{
			user("go"),
			&core.AssistantMessage{API: API, Provider: "local", Model: "m", StopReason: core.StopReasonToolUse, Timestamp: 2,
				Content: []core.Content{core.ToolCallBlock("", "", nil)}},
			&core.ToolResultMessage{ToolCallID: "", Timestamp: 3, Content: []core.Content{core.TextBlock("")}},
		}}},
		{name: "temperature", req: core.Request{Model: plain, Messages: []core.Message{user("hi")}, Temperature: &temp}},
		{name: "openai_store_cache_key", baseURL: "https://api.openai.com/v1", req: core.Request{Model: plain, Messages: []core.Message{user("hi")}, SessionID: "sess-1"}},
		{name: "openai_store_off", baseURL: "https://api.openai.com/v1", req: core.Request{Model: withCompat(plain, "supportsStore", false), Messages: []core.Message{user("hi")}}},
		{name: "store_elsewhere", req: core.Request{Model: withCompat(plain, "supportsStore", true), Messages: []core.Message{user("hi")}, SessionID: "sess-1"}},
		{name: "effort", req: core.Request{Model: reasoning, Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingMedium}},
		{name: "effort_off", req: core.Request{Model: reasoning, Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingOff}},
		{name: "effort_not_reasoning", req: core.Request{Model: plain, Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingHigh}},
		{name: "effort_mapped", req: core.Request{Model: func() core.Model {
			m := reasoning
			m.ThinkingLevelMap = map[core.ThinkingLevel]*string{core.ThinkingHigh: str("max"), core.ThinkingLow: nil}
			return m
		}(), Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingHigh}},
		{name: "effort_mapped_nil", req: core.Request{Model: func() core.Model {
			m := reasoning
			m.ThinkingLevelMap = map[core.ThinkingLevel]*string{core.ThinkingLow: nil}
			return m
		}(), Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingLow}},
		{name: "effort_unsupported", req: core.Request{Model: withCompat(reasoning, "supportsReasoningEffort", false), Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingHigh}},
		{name: "thinking_openrouter", baseURL: "https://openrouter.ai/api/v1", req: core.Request{Model: reasoning, Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingLow, Tools: tools}},
		{name: "thinking_qwen", req: core.Request{Model: withCompat(reasoning, "thinkingFormat", "qwen"), Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingLow}},
		{name: "thinking_zai", req: core.Request{Model: withCompat(reasoning, "thinkingFormat", "zai"), Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingLow}},
		{name: "thinking_deepseek", req: core.Request{Model: withCompat(reasoning, "thinkingFormat", "deepseek"), Messages: []core.Message{user("hi")}, ThinkingLevel: core.ThinkingLow}},
		{name: "history_no_tools", req: core.Request{Model: vision, Messages: callThenResult}},
		{name: "history_text_only_model", req: core.Request{Model: plain, Messages: callThenResult, Tools: tools}},
		{name: "history_compat", req: core.Request{Model: withCompat(vision, "requiresToolResultName", true, "requiresAssistantAfterToolResult", true, "requiresThinkingAsText", true), Messages: callThenResult}},
		{name: "user_parts", req: core.Request{Model: vision, Messages: []core.Message{
			core.NewUserMessage("look", []core.Content{png}, 1),
			&core.UserMessage{Content: []core.Content{core.TextBlock(""), png}, Timestamp: 2},
			&core.UserMessage{Content: []core.Content{core.TextBlock("")}, Timestamp: 3},
			user("go"),
		}}},
		{name: "escaping", req: core.Request{Model: plain, SystemPrompt: "<tag> & \"quotes\" \\ \u2028\u2029 \t\x01 é 😀 \xff", Messages: []core.Message{user("a<b && c>d")}}},
		{name: "assistant_only_thinking_skipped", req: core.Request{Model: reasoning, Messages: []core.Message{
			user("hi"),
			&core.AssistantMessage{API: API, Provider: "local", Model: "m", StopReason: core.StopReasonStop, Timestamp: 2,
				Content: []core.Content{{Type: core.ContentThinking, Thinking: "hmm", ThinkingSignature: "reasoning_text"}, core.TextBlock("Hello.")}},
			&core.AssistantMessage{API: API, Provider: "local", Model: "m", StopReason: core.StopReasonStop, Timestamp: 3,
				Content: []core.Content{{Type: core.ContentThinking, Thinking: "only", ThinkingSignature: "reasoning_text"}}},
			&core.AssistantMessage{API: API, Provider: "local", Model: "m", StopReason: core.StopReasonStop, Timestamp: 4,
				Content: []core.Content{{Type: core.ContentThinking, Thinking: "blob", ThinkingSignature: "enc:abc"}, core.TextBlock("Again.")}},
			user("again"),
		}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.baseURL
			if base == "" {
				base = "http://127.0.0.1:8080/v1"
			}
			ct := capturer.Capture(t, llm.Endpoint{BaseURL: base, APIKey: "k", KeySource: "test"}, &tc.req)
			path := filepath.Join("testdata", "requests", tc.name+".json")
			providertest.Golden(t, path, append(bytes.Clone(ct.Body), '\n'), *providertest.Update)
		})
	}
}
