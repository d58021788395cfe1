package openai

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestFaults checks each fault the mock can inject, event by event, with its classification.
func TestFaults(t *testing.T) {
	text := func(s string) mockopenai.Response { return mockopenai.Response{Text: s, ChunkSize: 2} }
	tests := []struct {
		name    string
		resp    mockopenai.Response
		want    []string
		kind    core.ErrorKind
		status  int
		retry   time.Duration
		content string
	}{
		{
			name: "429 with Retry-After",
			resp: mockopenai.RateLimitError("7"),
			want: []string{"start error", "error error retryable: 429 Rate limit reached for gpt-4.1 in organization org-mock on tokens per min (TPM): Limit 30000, Used 30000, Requested 1000. Please try again in 2s."},
			kind: core.ErrorRetryable, status: 429, retry: 7 * time.Second,
		},
		{
			name: "401 names the key source",
			resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Incorrect API key provided: test-key.", Type: "invalid_request_error", Code: "invalid_api_key"}},
			want: []string{"start error", "error error auth: 401 Incorrect API key provided: test-key. (API key from the test's Config)"},
			kind: core.ErrorAuth, status: 401,
		},
		{
			name: "context length exceeded",
			resp: mockopenai.ContextLengthError(),
			want: []string{"start error", "error error overflow: 400 This model's maximum context length is 128000 tokens. However, your messages resulted in 130415 tokens. Please reduce the length of the messages."},
			kind: core.ErrorOverflow, status: 400,
		},
		{
			name: "502 with an HTML body",
			resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 502, Body: "<html>\n<body>Bad gateway</body>\n</html>", ContentType: "text/html"}},
			want: []string{"start error", "error error retryable: 502 Bad Gateway: <html> <body>Bad gateway</body> </html>"},
			kind: core.ErrorRetryable, status: 502,
		},
		{
			name: "500 without a body",
			resp: mockopenai.Response{Faults: mockhttp.Faults{Status: 500}},
			want: []string{"start error", "error error retryable: 500 status code (no body)"},
			kind: core.ErrorRetryable, status: 500,
		},
		{
			name: "200 with a body that is not an event stream",
			resp: mockopenai.Response{Faults: mockhttp.Faults{Body: "<html>maintenance</html>", ContentType: "text/html"}},
			want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/html"): <html>maintenance</html>`},
			kind: core.ErrorOther, status: 200,
		},
		{
			name: "malformed SSE line mid-stream",
			resp: mockopenai.Response{Events: []mockopenai.Event{{Text: "ab"}, {Raw: "data: {\"choices\":[{\"delta\":{\"content\":\"x\"\n\n"}}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `error error retryable: Provider sent malformed data: {"choices":[{"delta":{"content":"x" (unexpected end of JSON input)`},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name: "non-JSON data as the first event",
			resp: mockopenai.Response{Faults: mockhttp.Faults{SSE: "data: hello\n\n"}},
			want: []string{"start", "error error other: Provider sent malformed data: hello (not a JSON object)"},
			kind: core.ErrorOther,
		},
		{
			name: "connection dropped after 3 chunks",
			resp: func() mockopenai.Response { r := text("abcdefgh"); r.DropAfter = 3; return r }(),
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, "error error retryable: Connection to provider lost mid-stream: unexpected EOF"},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"abcd"}]`,
		},
		{
			name: "clean close without finish reason",
			resp: mockopenai.Response{Faults: mockhttp.Faults{SSE: "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"par\"}}]}\n\n"}},
			want: []string{"start", "text_start 0", `text_delta 0 "par"`, "error error retryable: Provider stream ended without a finish reason (connection closed early)"},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"par"}]`,
		},
		{
			name: "error object inside the stream",
			resp: mockopenai.Response{Events: []mockopenai.Event{{Text: "ab"}, {Raw: `data: {"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream timeout","provider_name":"X"}}}` + "\n\n"}}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: Provider error: Provider returned error\nupstream timeout"},
			kind: core.ErrorRetryable, status: 502, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name: "content_filter finish reason",
			resp: mockopenai.Response{Text: "ab", FinishReason: "content_filter"},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error other: Provider finish_reason: content_filter"},
			kind: core.ErrorOther, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name:    "length finish reason",
			resp:    mockopenai.Response{Text: "ab", FinishReason: "length"},
			want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_end 0 "ab"`, "done length"},
			content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name:    "keep-alive comments and per-chunk delays",
			resp:    mockopenai.Response{Faults: mockhttp.Faults{KeepAlive: "OPENROUTER PROCESSING", ChunkDelayMs: 1}, Events: []mockopenai.Event{{Comment: "OPENROUTER PROCESSING"}, {Text: "ok"}, {Comment: "ping"}}},
			want:    []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"},
			content: `[{"type":"text","text":"ok"}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newMockProvider(t, Config{}, tc.resp)
			got, final := run(t, context.Background(), p, &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
			diffLines(t, got, tc.want)
			if tc.kind != "" {
				f := final.Failure
				if f == nil {
					t.Fatalf("final message has no failure")
				}
				if f.Kind != tc.kind || f.Status != tc.status {
					t.Errorf("failure kind, status = %s, %d, want %s, %d", f.Kind, f.Status, tc.kind, tc.status)
				}
				if f.HasRetryAfter != (tc.retry != 0) || f.RetryAfter != tc.retry {
					t.Errorf("retryAfter = %v (%v), want %v", f.RetryAfter, f.HasRetryAfter, tc.retry)
				}
			}
			if tc.content == "" {
				tc.content = "[]"
			}
			if c := contentJSON(t, final); c != tc.content {
				t.Errorf("content = %s, want %s", c, tc.content)
			}
		})
	}
}

// TestCancel cancels the context mid-stream: the stream ends aborted with the partial
// content, the open blocks end first (with their content as it stood), and the server sees
// the client go away (the HTTP request was closed).
func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		resp    mockopenai.Response
		trigger string // the event after which the consumer cancels
		want    []string
		content string
	}{
		{
			name:    "mid text",
			resp:    mockopenai.Response{Text: "abcdef", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 3}},
			trigger: `text_delta 0 "cd"`,
			want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "error aborted aborted: Request was aborted"},
			content: `[{"type":"text","text":"abcd"}]`,
		},
		{
			name:    "mid thinking",
			resp:    mockopenai.Response{Reasoning: "abcdef", Text: "xy", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 3}},
			trigger: `thinking_delta 0 "cd"`,
			want:    []string{"start", "thinking_start 0", `thinking_delta 0 "ab"`, `thinking_delta 0 "cd"`, `thinking_end 0 "abcd"`, "error aborted aborted: Request was aborted"},
			content: `[{"type":"thinking","thinking":"abcd","thinkingSignature":"reasoning_content"}]`,
		},
		{
			name:    "mid tool arguments",
			resp:    mockopenai.Response{Text: "ok", ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "read", Arguments: `{"path":"a.txt"}`}}, ChunkSize: 4, Faults: mockhttp.Faults{StallAfter: 6}},
			trigger: `toolcall_delta 1 "\"a.t"`,
			want: []string{
				"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "toolcall_start 1 id=call_1 name=read",
				`toolcall_delta 1 "{\"pa"`, `toolcall_delta 1 "th\":"`, `toolcall_delta 1 "\"a.t"`,
				`toolcall_end 1 call_1 read {"path":"a.t"}`, "error aborted aborted: Request was aborted",
			},
			content: `[{"type":"text","text":"ok"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a.t"}}]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, srv := newMockProvider(t, Config{}, tc.resp)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []string
			var final *core.AssistantMessage
			for ev := range p.Stream(ctx, &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}) {
				got = append(got, describe(ev))
				if got[len(got)-1] == tc.trigger {
					cancel()
				}
				if ev.Type == core.EventError || ev.Type == core.EventDone {
					final = ev.Partial
				}
			}
			diffLines(t, got, tc.want)
			if final == nil || final.StopReason != core.StopReasonAborted {
				t.Fatalf("final = %+v, want aborted", final)
			}
			if c := contentJSON(t, final); c != tc.content {
				t.Errorf("content = %s, want %s", c, tc.content)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("requests = %d, want 1", len(reqs))
			}
			select {
			case <-reqs[0].Gone():
			case <-time.After(10 * time.Second):
				t.Fatal("the server never saw the client go away")
			}
		})
	}
}

// TestCancelBeforeHeaders cancels while the server has not answered yet.
func TestCancelBeforeHeaders(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockopenai.Response{Faults: mockhttp.Faults{StallBeforeHeaders: true}, Text: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	srv.OnRequest = func(*mockopenai.Request) { cancel() }
	got, final := run(t, ctx, p, &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
	diffLines(t, got, []string{"start aborted", "error aborted aborted: Request was aborted"})
	if final.Failure == nil || final.Failure.Kind != core.ErrorAborted {
		t.Errorf("failure = %+v, want aborted", final.Failure)
	}
	select {
	case <-srv.Requests()[0].Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the client go away")
	}
}

// TestConsumerStops checks that a consumer breaking out of the loop ends the request.
func TestConsumerStops(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockopenai.Response{Text: "abcdef", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 3}})
	n := 0
	for ev := range p.Stream(context.Background(), &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}}) {
		n++
		if ev.Type == core.EventTextDelta {
			break
		}
	}
	if n != 3 {
		t.Errorf("events before break = %d, want 3", n)
	}
	select {
	case <-srv.Requests()[0].Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the client go away")
	}
}

// A 401 on a request sent without a key (an OPENAI_BASE_URL server, no OPENAI_API_KEY) says
// no key was sent and which setting was empty, never that the key came from it.
func TestNoKeySentNamesEmptySetting(t *testing.T) {
	srv := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Faults: mockhttp.Faults{Status: 401}, Error: &mockopenai.ErrorBody{Message: "Missing bearer token"}}}})
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL(), KeySource: "OPENAI_API_KEY", IdleTimeout: -1, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
	want := "401 Missing bearer token (no API key was sent: OPENAI_API_KEY is not set)"
	if final.ErrorMessage != want || srv.Requests()[0].Header.Get("Authorization") != "" {
		t.Errorf("error = %q, want %q", final.ErrorMessage, want)
	}
}

// TestConnectionRefused checks a transport error before any response.
func TestConnectionRefused(t *testing.T) {
	srv := mockopenai.New(nil)
	url := srv.URL()
	srv.Close()
	p, err := New(Config{BaseURL: url, APIKey: "k", KeySource: "test", IdleTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, &core.Request{Model: modelByID(t, "gpt-4.1"), Messages: []core.Message{core.NewUserMessage("hi", nil, 1)}})
	if final.Failure == nil || final.Failure.Kind != core.ErrorRetryable || !strings.HasPrefix(final.ErrorMessage, "Connection error: ") {
		t.Errorf("failure = %+v, want retryable connection error", final.Failure)
	}
}
