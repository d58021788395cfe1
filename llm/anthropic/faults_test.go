package anthropic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockanthropic"
)

// TestFaults checks each fault the mock can inject, event by event, with its classification.
func TestFaults(t *testing.T) {
	tool := mockanthropic.ToolCall{ID: "toolu_1", Name: "write", Arguments: `{"path":"a.txt","content":"hello"}`}
	tests := []struct {
		name    string
		resp    mockanthropic.Response
		want    []string
		kind    core.ErrorKind
		status  int
		retry   time.Duration
		content string
	}{
		{
			name: "429 with retry-after",
			resp: mockanthropic.RateLimitError("7"),
			want: []string{"start", "error error retryable: 429 rate_limit_error: This request would exceed the rate limit for your organization of 30,000 input tokens per minute."},
			kind: core.ErrorRetryable, status: 429, retry: 7 * time.Second,
		},
		{
			name: "429 without retry-after",
			resp: mockanthropic.RateLimitError(""),
			want: []string{"start", "error error retryable: 429 rate_limit_error: This request would exceed the rate limit for your organization of 30,000 input tokens per minute."},
			kind: core.ErrorRetryable, status: 429,
		},
		{
			name: "529 overloaded",
			resp: func() mockanthropic.Response { r := mockanthropic.OverloadedError(); r.RetryAfter = "3"; return r }(),
			want: []string{"start", "error error retryable: 529 overloaded_error: Overloaded"},
			kind: core.ErrorRetryable, status: 529, retry: 3 * time.Second,
		},
		{
			name: "500 api_error",
			resp: mockanthropic.Response{Status: 500, Error: &mockanthropic.ErrorBody{Type: "api_error", Message: "Internal server error"}},
			want: []string{"start", "error error retryable: 500 api_error: Internal server error"},
			kind: core.ErrorRetryable, status: 500,
		},
		{
			name: "500 without a body",
			resp: mockanthropic.Response{Status: 500},
			want: []string{"start", "error error retryable: 500 status code (no body)"},
			kind: core.ErrorRetryable, status: 500,
		},
		{
			name: "502 with an HTML body",
			resp: mockanthropic.Response{Status: 502, Body: "<html>\n<body>Bad gateway</body>\n</html>", ContentType: "text/html"},
			want: []string{"start", "error error retryable: 502 Bad Gateway: <html> <body>Bad gateway</body> </html>"},
			kind: core.ErrorRetryable, status: 502,
		},
		{
			name: "401 names the key source",
			resp: mockanthropic.AuthError(),
			want: []string{"start", "error error auth: 401 authentication_error: invalid x-api-key (API key from the test's Config)"},
			kind: core.ErrorAuth, status: 401,
		},
		{
			name: "403 permission error",
			resp: mockanthropic.Response{Status: 403, Error: &mockanthropic.ErrorBody{Type: "permission_error", Message: "Your API key does not have permission to use the specified resource."}},
			want: []string{"start", "error error auth: 403 permission_error: Your API key does not have permission to use the specified resource. (API key from the test's Config)"},
			kind: core.ErrorAuth, status: 403,
		},
		{
			name: "prompt too long",
			resp: mockanthropic.PromptTooLongError(),
			want: []string{"start", "error error overflow: 400 invalid_request_error: prompt is too long: 208310 tokens > 200000 maximum"},
			kind: core.ErrorOverflow, status: 400,
		},
		{
			name: "400 invalid request",
			resp: mockanthropic.Response{Status: 400, Error: &mockanthropic.ErrorBody{Type: "invalid_request_error", Message: "messages: roles must alternate"}},
			want: []string{"start", "error error other: 400 invalid_request_error: messages: roles must alternate"},
			kind: core.ErrorOther, status: 400,
		},
		{
			name: "200 with a body that is not an event stream",
			resp: mockanthropic.Response{Body: "<html>maintenance</html>", ContentType: "text/html"},
			want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/html"): <html>maintenance</html>`},
			kind: core.ErrorOther, status: 200,
		},
		{
			name: "connection dropped mid tool arguments",
			resp: mockanthropic.Response{Text: "ok", ToolCalls: []mockanthropic.ToolCall{tool}, ChunkSize: 8, DropAfter: 9},
			want: []string{
				"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`,
				"toolcall_start 1 id=toolu_1 name=write", `toolcall_delta 1 "{\"path\":" {}`, `toolcall_delta 1 "\"a.txt\"," {"path":"a.txt"}`,
				"error error retryable: Connection to provider lost mid-stream: unexpected EOF",
			},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"ok"},{"type":"toolCall","id":"toolu_1","name":"write","arguments":{"path":"a.txt"}}]`,
		},
		{
			name: "garbage lines are skipped, malformed data fails",
			resp: mockanthropic.Response{Events: []mockanthropic.Event{
				{Text: "ab"},
				{Raw: "this is not SSE\n<html>\n\n"},
				{Comment: "keep-alive"},
				{Text: "cd"},
				{Raw: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"\n\n"},
			}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`,
				`error error retryable: Provider sent malformed data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x" (unexpected end of JSON input)`},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"abcd"}]`,
		},
		{
			name: "non-JSON data as the first event",
			resp: mockanthropic.Response{SSE: "event: message_start\ndata: hello\n\n"},
			want: []string{"start", "error error other: Provider sent malformed data: hello (not a JSON object)"},
			kind: core.ErrorOther,
		},
		{
			name: "clean close without message_stop",
			resp: mockanthropic.Response{Text: "par", NoDone: true},
			want: []string{"start", "text_start 0", `text_delta 0 "par"`, `text_end 0 "par"`, "error error retryable: Anthropic stream ended before message_stop (connection closed early)"},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"par"}]`,
		},
		{
			name: "error event mid-stream",
			resp: mockanthropic.Response{Events: []mockanthropic.Event{{Text: "ab"}, {Ping: true}, {Error: &mockanthropic.ErrorBody{Type: "overloaded_error", Message: "Overloaded"}}}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: Provider error: overloaded_error: Overloaded"},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name: "invalid_request_error event about the prompt",
			resp: mockanthropic.Response{Events: []mockanthropic.Event{{Error: &mockanthropic.ErrorBody{Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}}}},
			want: []string{"start", "error error overflow: Provider error: invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum"},
			kind: core.ErrorOverflow,
		},
		{
			name:    "keep-alive comments, pings and per-event delays",
			resp:    mockanthropic.Response{KeepAlive: "keep-alive", ChunkDelayMs: 1, Events: []mockanthropic.Event{{Ping: true}, {Text: "ok"}, {Comment: "x"}, {Ping: true}}},
			want:    []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"},
			content: `[{"type":"text","text":"ok"}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newMockProvider(t, Config{}, tc.resp)
			got, final := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
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

// TestNoKeyConfigured checks that a 401 without a key says none was configured.
func TestNoKeyConfigured(t *testing.T) {
	srv := mockanthropic.New(&mockanthropic.Script{Responses: []mockanthropic.Response{mockanthropic.AuthError()}})
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL(), IdleTimeout: -1, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
	if !strings.HasSuffix(final.ErrorMessage, "(no API key was configured)") || srv.Requests()[0].Header.Get("X-Api-Key") != "" {
		t.Errorf("error = %q", final.ErrorMessage)
	}
}

// A 401 on a request sent without a key (an ANTHROPIC_BASE_URL server, no
// ANTHROPIC_API_KEY) says no key was sent and which setting was empty, never that the key
// came from it.
func TestNoKeySentNamesEmptySetting(t *testing.T) {
	srv := mockanthropic.New(&mockanthropic.Script{Responses: []mockanthropic.Response{mockanthropic.AuthError()}})
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL(), KeySource: "ANTHROPIC_API_KEY", IdleTimeout: -1, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
	want := "401 authentication_error: invalid x-api-key (no API key was sent: ANTHROPIC_API_KEY is not set)"
	if final.ErrorMessage != want || srv.Requests()[0].Header.Get("X-Api-Key") != "" {
		t.Errorf("error = %q, want %q", final.ErrorMessage, want)
	}
}

// TestCancel cancels the context mid-stream: the open text block ends (as pi ends it), the
// stream ends aborted with the partial content, and the server sees the client go away (the HTTP request was closed).
func TestCancel(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockanthropic.Response{Text: "abcdef", ChunkSize: 2, StallAfter: 5})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	var final *core.AssistantMessage
	for ev := range p.Stream(ctx, hiRequest(t, "claude-sonnet-4-5")) {
		got = append(got, describeEvent(ev))
		if ev.Type == core.EventTextDelta && ev.Delta == "cd" {
			cancel()
		}
		if ev.Type == core.EventError || ev.Type == core.EventDone {
			final = ev.Partial
		}
	}
	diffLines(t, got, []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "error aborted aborted: Request was aborted"})
	if final == nil || final.StopReason != core.StopReasonAborted || core.TextOf(final.Content) != "abcd" {
		t.Fatalf("final = %+v, want aborted with text abcd", final)
	}
	select {
	case <-srv.Requests()[0].Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the client go away")
	}
}

// TestCancelBeforeHeaders cancels while the server has not answered yet.
func TestCancelBeforeHeaders(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockanthropic.Response{StallBeforeHeaders: true, Text: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	srv.OnRequest = func(*mockanthropic.Request) { cancel() }
	got, final := run(t, ctx, p, hiRequest(t, "claude-sonnet-4-5"))
	diffLines(t, got, []string{"start", "error aborted aborted: Request was aborted"})
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
	p, srv := newMockProvider(t, Config{}, mockanthropic.Response{Text: "abcdef", ChunkSize: 2, StallAfter: 5})
	n := 0
	for ev := range p.Stream(context.Background(), hiRequest(t, "claude-sonnet-4-5")) {
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

// TestConnectionRefused checks a transport error before any response.
func TestConnectionRefused(t *testing.T) {
	srv := mockanthropic.New(nil)
	url := srv.URL()
	srv.Close()
	p, err := New(Config{BaseURL: url, APIKey: "k", KeySource: "test", IdleTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "claude-sonnet-4-5"))
	if final.Failure == nil || final.Failure.Kind != core.ErrorRetryable || !strings.HasPrefix(final.ErrorMessage, "Connection error: ") {
		t.Errorf("failure = %+v, want retryable connection error", final.Failure)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "api.anthropic.com", "ftp://x"} {
		if _, err := New(Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}
