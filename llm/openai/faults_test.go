package openai

import (
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestFaults checks each fault the mock can inject, event by event, with its classification.
func TestFaults(t *testing.T) {
	m := mock(t)
	text := func(s string) mockopenai.Response { return mockopenai.Response{Text: s, ChunkSize: 2} }
	faults := []providertest.Fault[mockopenai.Response]{
		m.Refused("429 with Retry-After", mockopenai.RateLimitError("7"),
			core.ErrorRetryable, 429, "429 Rate limit reached for gpt-4.1 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1000. Please try again in 2s.").WithRetry(7 * time.Second),
		m.Refused("401 names the key source", mockopenai.Response{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Incorrect API key provided: test-key.", Type: "invalid_request_error", Code: "invalid_api_key"}},
			core.ErrorAuth, 401, "401 Incorrect API key provided: test-key. (API key from the test's Config)"),
		m.Refused("context length exceeded", mockopenai.ContextLengthError(),
			core.ErrorOverflow, 400, "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 130415 tokens. Please reduce the length of the messages."),
		{
			Name: "malformed SSE line mid-stream",
			Resp: mockopenai.Response{Events: []mockopenai.Event{{Text: "ab"}, {Raw: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"\n\n"}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `error error retryable: Provider sent malformed data: {"choices":[{"delta":{"content":"x" (unexpected end of JSON input)`},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab"}]`,
		},
		providertest.NotJSON("non-JSON data as the first event",
			mockopenai.Response{Faults: mockhttp.Faults{SSE: "data: hello\n\n"}}, "hello (not a JSON object)"),
		providertest.Dropped("connection dropped after 3 chunks",
			func() mockopenai.Response { r := text("abcdefgh"); r.DropAfter = 3; return r }(), `[{"type":"text","text":"abcd"}]`,
			"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`),
		{
			Name: "clean close without finish reason",
			Resp: mockopenai.Response{Faults: mockhttp.Faults{SSE: "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n"}},
			Want: []string{"start", "text_start 0", `text_delta 0 "par"`, "error error retryable: Provider stream ended without a finish reason (connection closed early)"},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"par"}]`,
		},
		{
			Name: "error object inside the stream",
			Resp: mockopenai.Response{Events: []mockopenai.Event{{Text: "ab"}, {Raw: `data: {"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream timeout","provider_name":"X"}}}` + "\n\n"}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: Provider error: Provider returned error\nupstream timeout"},
			Kind: core.ErrorRetryable, Status: 502, Content: `[{"type":"text","text":"ab"}]`,
		},
		{
			Name: "content_filter finish reason",
			Resp: mockopenai.Response{Text: "ab", FinishReason: "content_filter"},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error other: Provider finish_reason: content_filter"},
			Kind: core.ErrorOther, Content: `[{"type":"text","text":"ab"}]`,
		},
		{
			Name:    "length finish reason",
			Resp:    mockopenai.Response{Text: "ab", FinishReason: "length"},
			Want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_end 0 "ab"`, "done length"},
			Content: `[{"type":"text","text":"ab"}]`,
		},
		{
			Name:    "keep-alive comments and per-chunk delays",
			Resp:    mockopenai.Response{Faults: mockhttp.Faults{KeepAlive: "OPENROUTER PROCESSING", ChunkDelayMs: 1}, Events: []mockopenai.Event{{Comment: "OPENROUTER PROCESSING"}, {Text: "ok"}, {Comment: "ping"}}},
			Want:    []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"},
			Content: `[{"type":"text","text":"ok"}]`,
		},
	}
	m.Faults(t, faults, "")
}

// TestShared runs the cases every provider shares (providertest.Mock.Run): cancelling, a
// consumer that stops, a refused connection, a bad base URL, a request without a key.
func TestShared(t *testing.T) { mock(t).Run(t) }

// TestIdleTimeout runs in fake time: silence longer than the idle timeout fails the stream
// with a retryable error naming the duration; keep-alive comments and a slow consumer do not.
func TestIdleTimeout(t *testing.T) { mock(t).Idle(t) }

// TestCancel cancels the context mid-stream in the blocks only OpenAI's tests stream (the
// text case is TestShared's): the stream ends aborted with the partial content, the open
// blocks end first (with their content as it stood), and the server sees the client go away.
func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		resp mockopenai.Response
		providertest.Cancel
	}{
		{mockopenai.Response{Reasoning: "abcdef", Text: "xy", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 3}}, providertest.Cancel{
			Name: "mid thinking", Trigger: `thinking_delta 0 "cd"`,
			Want:    []string{"start", "thinking_start 0", `thinking_delta 0 "ab"`, `thinking_delta 0 "cd"`, `thinking_end 0 "abcd"`, "error aborted aborted: Request was aborted"},
			Content: `[{"type":"thinking","thinking":"abcd","thinkingSignature":"reasoning_content"}]`,
		}},
		{mockopenai.Response{Text: "ok", ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "read", Arguments: `{"path":"a.txt"}`}}, ChunkSize: 4, Faults: mockhttp.Faults{StallAfter: 6}}, providertest.Cancel{
			Name: "mid tool arguments", Trigger: `toolcall_delta 1 "\"a.t"`,
			Want: []string{
				"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "toolcall_start 1 id=call_1 name=read",
				`toolcall_delta 1 "{\"pa"`, `toolcall_delta 1 "th\":"`, `toolcall_delta 1 "\"a.t"`,
				`toolcall_end 1 call_1 read {"path":"a.t"}`, "error aborted aborted: Request was aborted",
			},
			Content: `[{"type":"text","text":"ok"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.t"}}]`,
		}},
	} {
		t.Run(tc.Name, func(t *testing.T) {
			p, srv := newMockProvider(t, Config{}, tc.resp)
			tc.Run(t, p, hiRequest(t, "gpt-4.1"), describer)
			providertest.AwaitGone(t, srv.Requests()[0].Gone())
		})
	}
}
