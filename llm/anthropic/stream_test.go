package anthropic

import (
	"context"
	"math"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestFixtures replays streams in Anthropic's exact wire format, event by event.
func TestFixtures(t *testing.T) {
	mock(t).Replays(t, []providertest.Replay{
		{
			File: "claude_thinking_text_tool.sse", Model: modelByID(t, "claude-sonnet-4-5"),
			Want: []string{
				"start",
				"thinking_start 0", `thinking_delta 0 "The user wants the files"`, `thinking_delta 0 " listed."`, `thinking_end 0 "The user wants the files listed."`,
				"text_start 1", `text_delta 1 "Let me "`, `text_delta 1 "look."`, `text_end 1 "Let me look."`,
				"toolcall_start 2 id=toolu_01T1x1fJ34qAmk2tNTrN7Up6 name=bash",
				`toolcall_delta 2 "{\"comman" {}`, `toolcall_delta 2 "d\": \"ls -la\"}" {"command":"ls -la"}`,
				`toolcall_end 2 toolu_01T1x1fJ34qAmk2tNTrN7Up6 bash {"command":"ls -la"}`,
				"done toolUse",
			},
			Content:       `[{"type":"thinking","thinking":"The user wants the files listed.","thinkingSignature":"EqQBCkgIARABGAIiQL2Fz"},{"type":"text","text":"Let me look."},{"type":"toolCall","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"bash","arguments":{"command":"ls -la"}}]`,
			Usage:         core.Usage{Input: 2679, Output: 89, CacheRead: 3000, CacheWrite: 1200, TotalTokens: 2679 + 89 + 3000 + 1200},
			ResponseModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_01XFDUDYJgAACzvnptvVoYEL",
		},
		{
			File: "claude_redacted_thinking.sse", Model: modelByID(t, "claude-sonnet-4-5"),
			Want: []string{
				"start",
				"thinking_start 0", `thinking_delta 0 "[Reasoning redacted]"`, `thinking_end 0 "[Reasoning redacted]"`,
				"thinking_start 1", `thinking_delta 1 "Visible part."`, `thinking_end 1 "Visible part."`,
				"text_start 2", `text_delta 2 "Done."`, `text_end 2 "Done."`,
				"done stop",
			},
			Content:       `[{"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP","redacted":true},{"type":"thinking","thinking":"Visible part.","thinkingSignature":"c2lnMQ=="},{"type":"text","text":"Done."}]`,
			Usage:         core.Usage{Input: 55, Output: 12, TotalTokens: 67},
			ResponseModel: "claude-3-7-sonnet-20250219", ResponseID: "msg_01Redacted",
		},
		{
			File: "claude_error_midstream.sse", Model: modelByID(t, "claude-sonnet-4-5"),
			Want: []string{
				"start", "text_start 0", `text_delta 0 "Partial"`,
				"error error retryable: Provider error: overloaded_error: Overloaded",
			},
			Content:    `[{"type":"text","text":"Partial"}]`,
			Usage:      core.Usage{Input: 10, Output: 1, TotalTokens: 11},
			ResponseID: "msg_01Err",
		},
		{
			File: "claude_max_tokens.sse", Model: modelByID(t, "claude-haiku-4-5"),
			Want: []string{
				"start", "text_start 0", `text_delta 0 "Once upon"`, `text_end 0 "Once upon"`, "done length",
			},
			Content:    `[{"type":"text","text":"Once upon"}]`,
			Usage:      core.Usage{Input: 20, Output: 16, TotalTokens: 36},
			ResponseID: "msg_01Max",
		},
	})
}

// TestUsagePriced checks that usage is priced with the model's prices, cache reads and
// writes included (claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write).
func TestUsagePriced(t *testing.T) {
	p, _ := newMockProvider(t, Config{}, mockanthropic.Response{Text: "ok",
		Usage: &mockanthropic.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadInputTokens: 2_000_000, CacheCreationInputTokens: 400_000}})
	_, final := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
	c := final.Usage.Cost
	want := core.Cost{Input: 3, Output: 1.5, CacheRead: 0.6, CacheWrite: 1.5, Total: 6.6}
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"input", c.Input, want.Input}, {"output", c.Output, want.Output}, {"cacheRead", c.CacheRead, want.CacheRead}, {"cacheWrite", c.CacheWrite, want.CacheWrite}, {"total", c.Total, want.Total}} {
		if math.Abs(f.got-f.want) > 1e-9 {
			t.Errorf("cost %s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if final.Usage.TotalTokens != 3_500_000 {
		t.Errorf("total tokens = %d", final.Usage.TotalTokens)
	}
}

// TestMockScripted plays the mock's shorthand and explicit events through the provider.
func TestMockScripted(t *testing.T) {
	t.Run("shorthand", func(t *testing.T) {
		p, srv := newMockProvider(t, Config{}, mockanthropic.Response{Reasoning: "hmm", Signature: "sig", Text: "Hi there", ChunkSize: 4,
			ToolCalls: []mockanthropic.ToolCall{{ID: "toolu_1", Name: "read", Arguments: `{"path":"a.txt"}`}}})
		got, final := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
		providertest.DiffLines(t, got, []string{
			"start", "thinking_start 0", `thinking_delta 0 "hmm"`, `thinking_end 0 "hmm"`,
			"text_start 1", `text_delta 1 "Hi t"`, `text_delta 1 "here"`, `text_end 1 "Hi there"`,
			"toolcall_start 2 id=toolu_1 name=read",
			`toolcall_delta 2 "{\"pa" {}`, `toolcall_delta 2 "th\":" {}`, `toolcall_delta 2 "\"a.t" {"path":"a.t"}`, `toolcall_delta 2 "xt\"}" {"path":"a.txt"}`,
			`toolcall_end 2 toolu_1 read {"path":"a.txt"}`, "done toolUse",
		})
		if final.Content[0].ThinkingSignature != "sig" {
			t.Errorf("signature = %q", final.Content[0].ThinkingSignature)
		}
		if r := srv.Requests()[0]; r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "test-key" || r.Header.Get("Authorization") != "" || r.Header.Get("Anthropic-Version") == "" {
			t.Errorf("request path %s, headers %v", r.Path, r.Header)
		}
	})
	t.Run("thinking with only a signature", func(t *testing.T) {
		p, _ := newMockProvider(t, Config{}, mockanthropic.Response{Events: []mockanthropic.Event{{Signature: "opaque"}, {Text: "ok"}}})
		got, final := run(t, context.Background(), p, hiRequest(t, "claude-opus-4-7"))
		providertest.DiffLines(t, got, []string{"start", "thinking_start 0", `thinking_delta 0 ""`, `thinking_end 0 ""`, "text_start 1", `text_delta 1 "ok"`, `text_end 1 "ok"`, "done stop"})
		if c := providertest.ContentJSON(t, final); c != `[{"type":"thinking","thinking":"","thinkingSignature":"opaque"},{"type":"text","text":"ok"}]` {
			t.Errorf("content = %s", c)
		}
	})
	for _, tc := range []struct{ stop, want string }{
		{"end_turn", "done stop"}, {"pause_turn", "done stop"}, {"stop_sequence", "done stop"}, {"max_tokens", "done length"},
		{"refusal", "error error other: Provider stop_reason: refusal"},
		{"model_context_window_exceeded", "error error overflow: Unhandled stop reason: model_context_window_exceeded"},
		{"something_new", "error error other: Unhandled stop reason: something_new"},
	} {
		t.Run("stop_reason "+tc.stop, func(t *testing.T) {
			p, _ := newMockProvider(t, Config{}, mockanthropic.Response{Text: "ab", StopReason: tc.stop})
			got, _ := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
			if last := got[len(got)-1]; last != tc.want {
				t.Errorf("last event = %s, want %s", last, tc.want)
			}
		})
	}
}
