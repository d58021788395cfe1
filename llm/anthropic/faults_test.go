package anthropic

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestFaults checks each fault the mock can inject, event by event, with its classification.
func TestFaults(t *testing.T) {
	m := mock(t)
	rateLimit := "429 rate_limit_error: This request would exceed the rate limit for your organization of 30,000 input tokens per minute."
	tool := mockanthropic.ToolCall{ID: "toolu_1", Name: "write", Arguments: `{"path":"a.txt","content":"hello"}`}
	faults := []providertest.Fault[mockanthropic.Response]{
		m.Refused("429 with retry-after", mockanthropic.RateLimitError("7"),
			core.ErrorRetryable, 429, rateLimit).WithRetry(7 * time.Second),
		m.Refused("429 without retry-after", mockanthropic.RateLimitError(""),
			core.ErrorRetryable, 429, rateLimit),
		m.Refused("529 overloaded", func() mockanthropic.Response { r := mockanthropic.OverloadedError(); r.RetryAfter = "3"; return r }(),
			core.ErrorRetryable, 529, "529 overloaded_error: Overloaded").WithRetry(3 * time.Second),
		m.Refused("500 api_error", mockanthropic.Response{Faults: mockhttp.Faults{Status: 500}, Error: &mockanthropic.ErrorBody{Type: "api_error", Message: "Internal server error"}},
			core.ErrorRetryable, 500, "500 api_error: Internal server error"),
		m.Refused("401 names the key source", mockanthropic.AuthError(),
			core.ErrorAuth, 401, "401 authentication_error: invalid x-api-key (API key from the test's Config)"),
		m.Refused("403 permission error", mockanthropic.Response{Faults: mockhttp.Faults{Status: 403}, Error: &mockanthropic.ErrorBody{Type: "permission_error", Message: "Your API key does not have permission to use the specified resource."}},
			core.ErrorAuth, 403, "403 permission_error: Your API key does not have permission to use the specified resource. (API key from the test's Config)"),
		m.Refused("prompt too long", mockanthropic.PromptTooLongError(),
			core.ErrorOverflow, 400, "400 invalid_request_error: prompt is too long: 208310 tokens > 200000 maximum"),
		m.Refused("400 invalid request", mockanthropic.Response{Faults: mockhttp.Faults{Status: 400}, Error: &mockanthropic.ErrorBody{Type: "invalid_request_error", Message: "messages: roles must alternate"}},
			core.ErrorOther, 400, "400 invalid_request_error: messages: roles must alternate"),
		providertest.Dropped("connection dropped mid tool arguments",
			mockanthropic.Response{Text: "ok", ToolCalls: []mockanthropic.ToolCall{tool}, ChunkSize: 8, Faults: mockhttp.Faults{DropAfter: 9}},
			`[{"type":"text","text":"ok"},{"type":"toolCall","id":"toolu_1","name":"write","arguments":{"path":"a.txt"}}]`,
			"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`,
			"toolcall_start 1 id=toolu_1 name=write", `toolcall_delta 1 "{\"path\":" {}`, `toolcall_delta 1 "\"a.txt\"," {"path":"a.txt"}`),
		{
			Name: "garbage lines are skipped, malformed data fails",
			Resp: mockanthropic.Response{Events: []mockanthropic.Event{
				{Text: "ab"},
				{Raw: "this is not SSE\n<html>\n\n"},
				{Comment: "keep-alive"},
				{Text: "cd"},
				{Raw: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"\n\n"},
			}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`,
				`error error retryable: Provider sent malformed data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x" (unexpected end of JSON input)`},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"abcd"}]`,
		},
		providertest.NotJSON("non-JSON data as the first event",
			mockanthropic.Response{Faults: mockhttp.Faults{SSE: "event: message_start\ndata: hello\n\n"}}, "hello (not a JSON object)"),
		{
			Name: "clean close without message_stop",
			Resp: mockanthropic.Response{Text: "par", Faults: mockhttp.Faults{NoDone: true}},
			Want: []string{"start", "text_start 0", `text_delta 0 "par"`, `text_end 0 "par"`, "error error retryable: Anthropic stream ended before message_stop (connection closed early)"},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"par"}]`,
		},
		{
			Name: "error event mid-stream",
			Resp: mockanthropic.Response{Events: []mockanthropic.Event{{Text: "ab"}, {Ping: true}, {Error: &mockanthropic.ErrorBody{Type: "overloaded_error", Message: "Overloaded"}}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: Provider error: overloaded_error: Overloaded"},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab"}]`,
		},
		{
			Name: "invalid_request_error event about the prompt",
			Resp: mockanthropic.Response{Events: []mockanthropic.Event{{Error: &mockanthropic.ErrorBody{Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}}}},
			Want: []string{"start", "error error overflow: Provider error: invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum"},
			Kind: core.ErrorOverflow,
		},
		{
			Name:    "keep-alive comments, pings and per-event delays",
			Resp:    mockanthropic.Response{Faults: mockhttp.Faults{KeepAlive: "keep-alive", ChunkDelayMs: 1}, Events: []mockanthropic.Event{{Ping: true}, {Text: "ok"}, {Comment: "x"}, {Ping: true}}},
			Want:    []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"},
			Content: `[{"type":"text","text":"ok"}]`,
		},
	}
	m.Faults(t, faults, "")
}

// TestShared runs the cases every provider shares (providertest.Mock.Run): cancelling, a
// consumer that stops, a refused connection, a bad base URL, a request without a key.
func TestShared(t *testing.T) { mock(t).Run(t) }

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; pings, comments and a slow consumer
// do not.
func TestIdleTimeout(t *testing.T) { mock(t).Idle(t) }
