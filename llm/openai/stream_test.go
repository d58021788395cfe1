package openai

import (
	"context"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestFixtures replays streams in the shapes real servers send and checks every event and
// the final message.
func TestFixtures(t *testing.T) {
	mock(t).Replays(t, []providertest.Replay{
		{
			Name: "openai text with cached tokens", File: "openai_text_cached.sse", Model: fixtureModel("gpt-4.1"),
			Want: []string{
				"start",
				"text_start 0",
				`text_delta 0 "Hello"`,
				`text_delta 0 " world"`,
				`text_end 0 "Hello world"`,
				"done stop",
			},
			Content:    `[{"type":"text","text":"Hello world"}]`,
			Usage:      core.Usage{Input: 176, Output: 2, CacheRead: 1024, TotalTokens: 1202},
			ResponseID: "chatcmpl-C1a2b3", ResponseModel: "gpt-4.1-2025-04-14", Stop: core.StopReasonStop,
		},
		{
			Name: "openai parallel tool calls", File: "openai_parallel_tools.sse", Model: fixtureModel("gpt-4.1"),
			Want: []string{
				"start",
				"toolcall_start 0 id=call_AAA name=read",
				`toolcall_delta 0 "{\"pa"`,
				"toolcall_start 1 id=call_BBB name=ls",
				`toolcall_delta 0 "th\": \"a.go\"}"`,
				`toolcall_delta 1 "{}"`,
				`toolcall_end 0 call_AAA read {"path":"a.go"}`,
				`toolcall_end 1 call_BBB ls {}`,
				"done toolUse",
			},
			Content:    `[{"type":"toolCall","id":"call_AAA","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"call_BBB","name":"ls","arguments":{}}]`,
			Usage:      core.Usage{Input: 300, Output: 40, TotalTokens: 340},
			ResponseID: "chatcmpl-C2", ResponseModel: "gpt-4.1-2025-04-14", Stop: core.StopReasonToolUse,
		},
		{
			Name: "openrouter reasoning then text then tool call, with comments", File: "openrouter_reasoning_text_tool.sse", Model: fixtureModel("deepseek/deepseek-r1"),
			Want: []string{
				"start",
				"thinking_start 0",
				`thinking_delta 0 "The user"`,
				`thinking_delta 0 " wants a listing."`,
				`thinking_end 0 "The user wants a listing."`,
				"text_start 1",
				`text_delta 1 "Listing"`,
				`text_delta 1 " now."`,
				`text_end 1 "Listing now."`,
				"toolcall_start 2 id=call_or1 name=ls",
				`toolcall_delta 2 "{\"path\":\".\"}"`,
				`toolcall_end 2 call_or1 ls {"path":"."}`,
				"done toolUse",
			},
			Content:    `[{"type":"thinking","thinking":"The user wants a listing.","thinkingSignature":"reasoning"},{"type":"text","text":"Listing now."},{"type":"toolCall","id":"call_or1","name":"ls","arguments":{"path":"."}}]`,
			Usage:      core.Usage{Input: 300, Output: 60, CacheRead: 200, TotalTokens: 560},
			ResponseID: "gen-1754000002-abc", Stop: core.StopReasonToolUse,
		},
		{
			Name: "vllm reasoning and tool calls interleaved by index", File: "vllm_interleaved_tools.sse", Model: fixtureModel("Qwen/Qwen3-8B"),
			Want: []string{
				"start",
				"thinking_start 0",
				`thinking_delta 0 "Two files."`,
				`thinking_end 0 "Two files."`,
				"toolcall_start 1 id=chatcmpl-tool-a1 name=read",
				"toolcall_start 2 id=chatcmpl-tool-b2 name=read",
				`toolcall_delta 2 "{\"path\": \"b"`,
				`toolcall_delta 1 "{\"path\": \"a"`,
				`toolcall_delta 1 ".go\"}"`,
				`toolcall_delta 2 ".go\"}"`,
				`toolcall_end 1 chatcmpl-tool-a1 read {"path":"a.go"}`,
				`toolcall_end 2 chatcmpl-tool-b2 read {"path":"b.go"}`,
				"done toolUse",
			},
			Content:    `[{"type":"thinking","thinking":"Two files.","thinkingSignature":"reasoning_content"},{"type":"toolCall","id":"chatcmpl-tool-a1","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"chatcmpl-tool-b2","name":"read","arguments":{"path":"b.go"}}]`,
			Usage:      core.Usage{Input: 812, Output: 58, TotalTokens: 870},
			ResponseID: "chatcmpl-8f2e", Stop: core.StopReasonToolUse,
		},
		{
			Name: "llama.cpp reasoning, text, tool call, usage on the finish chunk", File: "llamacpp_reasoning_text_tool.sse", Model: fixtureModel("qwen3-4b"),
			Want: []string{
				"start",
				"thinking_start 0",
				`thinking_delta 0 "Check"`,
				`thinking_delta 0 " the dir."`,
				`thinking_end 0 "Check the dir."`,
				"text_start 1",
				`text_delta 1 "Let me look."`,
				`text_end 1 "Let me look."`,
				"toolcall_start 2 id=9aQbRk2mLcXzYw1p name=bash",
				`toolcall_delta 2 "{\""`,
				`toolcall_delta 2 "command\":\"ls -la\"}"`,
				`toolcall_end 2 9aQbRk2mLcXzYw1p bash {"command":"ls -la"}`,
				"done toolUse",
			},
			Content:    `[{"type":"thinking","thinking":"Check the dir.","thinkingSignature":"reasoning_content"},{"type":"text","text":"Let me look."},{"type":"toolCall","id":"9aQbRk2mLcXzYw1p","name":"bash","arguments":{"command":"ls -la"}}]`,
			Usage:      core.Usage{Input: 420, Output: 31, TotalTokens: 451},
			ResponseID: "chatcmpl-Lc3Xq", Stop: core.StopReasonToolUse,
		},
		{
			Name: "azure empty-choices chunks", File: "azure_empty_choices.sse", Model: fixtureModel("gpt-4o-mini"),
			Want: []string{
				"start",
				"text_start 0",
				`text_delta 0 "Hi"`,
				`text_end 0 "Hi"`,
				"done stop",
			},
			Content:    `[{"type":"text","text":"Hi"}]`,
			Usage:      core.Usage{Input: 9, Output: 1, TotalTokens: 10},
			ResponseID: "chatcmpl-AZ1", ResponseModel: "gpt-4o-mini-2024-07-18", Stop: core.StopReasonStop,
		},
	})
}

// TestUsagePriced checks that usage is priced with the model's prices (cached tokens at the
// cached price).
func TestUsagePriced(t *testing.T) {
	p, _ := newMockProvider(t, Config{}, mockopenai.Response{Faults: mockhttp.Faults{SSE: providertest.Fixture(t, "openai_text_cached.sse")}})
	_, final := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
	c := final.Usage.Cost
	want := core.Cost{Input: 176 * 2 / 1e6, Output: 2 * 8 / 1e6, CacheRead: 1024 * 0.5 / 1e6}
	want.Total = want.Input + want.Output + want.CacheRead
	if c != want {
		t.Errorf("cost = %+v, want %+v", c, want)
	}
}

// TestMockScripted streams the mock server's own generated shapes: role delta, reasoning,
// text, interleaved parallel calls, finish, usage chunk with choices:[].
func TestMockScripted(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockopenai.Response{
		Reasoning: "ok", ReasoningField: "reasoning", Text: "Hi!",
		ToolCalls: []mockopenai.ToolCall{
			{ID: "call_1", Name: "read", Arguments: `{"path":"a"}`},
			{ID: "call_2", Name: "ls", Arguments: `{}`},
		},
		Interleave: true, ChunkSize: 6,
		Usage: &mockopenai.Usage{PromptTokens: 100, CompletionTokens: 20, CachedTokens: 50},
	})
	_ = srv
	got, final := run(t, context.Background(), p, hiRequest(t, "gpt-4.1"))
	want := []string{
		"start",
		"thinking_start 0",
		`thinking_delta 0 "ok"`,
		`thinking_end 0 "ok"`,
		"text_start 1",
		`text_delta 1 "Hi!"`,
		`text_end 1 "Hi!"`,
		"toolcall_start 2 id=call_1 name=read",
		"toolcall_start 3 id=call_2 name=ls",
		`toolcall_delta 2 "{\"path"`,
		`toolcall_delta 3 "{}"`,
		`toolcall_delta 2 "\":\"a\"}"`,
		`toolcall_end 2 call_1 read {"path":"a"}`,
		`toolcall_end 3 call_2 ls {}`,
		"done toolUse",
	}
	providertest.DiffLines(t, got, want)
	if final.Usage.Input != 50 || final.Usage.CacheRead != 50 || final.Usage.Output != 20 {
		t.Errorf("usage = %+v, want input 50, cacheRead 50, output 20", final.Usage)
	}
}

// fixtureModel is a text-only model of a test provider, as the replayed servers serve.
func fixtureModel(id string) core.Model {
	return core.Model{ID: id, API: API, Provider: "test", Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 4096}
}
