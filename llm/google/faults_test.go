package google

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
)

// TestFaults checks each fault the mock can inject, event by event, with its classification.
func TestFaults(t *testing.T) {
	quota := "429 RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan and billing details."
	tests := []struct {
		name    string
		resp    mockgoogle.Response
		want    []string
		kind    core.ErrorKind
		status  int
		retry   time.Duration
		content string
	}{
		{
			name: "429 with the server's retry delay",
			resp: mockgoogle.RateLimitError("37s"),
			want: []string{"start", "error error retryable: " + quota},
			kind: core.ErrorRetryable, status: 429, retry: 37 * time.Second,
		},
		{
			name: "429 with a fractional retry delay and a Retry-After header: the delay wins",
			resp: func() mockgoogle.Response { r := mockgoogle.RateLimitError("1.5s"); r.RetryAfter = "9"; return r }(),
			want: []string{"start", "error error retryable: " + quota},
			kind: core.ErrorRetryable, status: 429, retry: 1500 * time.Millisecond,
		},
		{
			name: "429 with Retry-After only",
			resp: func() mockgoogle.Response { r := mockgoogle.RateLimitError(""); r.RetryAfter = "7"; return r }(),
			want: []string{"start", "error error retryable: " + quota},
			kind: core.ErrorRetryable, status: 429, retry: 7 * time.Second,
		},
		{
			name: "503 overloaded",
			resp: mockgoogle.OverloadedError(),
			want: []string{"start", "error error retryable: 503 UNAVAILABLE: The model is overloaded. Please try again later."},
			kind: core.ErrorRetryable, status: 503,
		},
		{
			name: "500 without a body",
			resp: mockgoogle.Response{Status: 500},
			want: []string{"start", "error error retryable: 500 status code (no body)"},
			kind: core.ErrorRetryable, status: 500,
		},
		{
			name: "502 with an HTML body",
			resp: mockgoogle.Response{Status: 502, Body: "<html>\n<body>Bad gateway</body>\n</html>", ContentType: "text/html"},
			want: []string{"start", "error error retryable: 502 Bad Gateway: <html> <body>Bad gateway</body> </html>"},
			kind: core.ErrorRetryable, status: 502,
		},
		{
			name: "invalid key (400 API_KEY_INVALID) names the key source",
			resp: mockgoogle.AuthError(),
			want: []string{"start", "error error auth: 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (API key from the test's Config)"},
			kind: core.ErrorAuth, status: 400,
		},
		{
			name: "403 permission denied",
			resp: mockgoogle.Response{Status: 403, Error: &mockgoogle.ErrorBody{Code: 403, Status: "PERMISSION_DENIED", Message: "Method doesn't allow unregistered callers."}},
			want: []string{"start", "error error auth: 403 PERMISSION_DENIED: Method doesn't allow unregistered callers. (API key from the test's Config)"},
			kind: core.ErrorAuth, status: 403,
		},
		{
			name: "input over the context window",
			resp: mockgoogle.PromptTooLongError(),
			want: []string{"start", "error error overflow: 400 INVALID_ARGUMENT: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."},
			kind: core.ErrorOverflow, status: 400,
		},
		{
			name: "400 invalid argument",
			resp: mockgoogle.Response{Status: 400, Error: &mockgoogle.ErrorBody{Code: 400, Status: "INVALID_ARGUMENT", Message: "Please ensure that function call turn comes immediately after a user turn."}},
			want: []string{"start", "error error other: 400 INVALID_ARGUMENT: Please ensure that function call turn comes immediately after a user turn."},
			kind: core.ErrorOther, status: 400,
		},
		{
			name: "200 with a body that is not an event stream",
			resp: mockgoogle.Response{Body: "<html>maintenance</html>", ContentType: "text/html"},
			want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/html"): <html>maintenance</html> (iterateResponseStream: invalid stream chunk: <html>maintenance</html>:)`},
			kind: core.ErrorOther, status: 200,
		},
		{
			name: "200 with an empty body",
			resp: mockgoogle.Response{SSE: "\r\n"},
			want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/event-stream; charset=utf-8"): empty body`},
			kind: core.ErrorOther, status: 200,
		},
		{
			name: "connection dropped mid-stream",
			resp: mockgoogle.Response{Text: "abcdef", ChunkSize: 2, DropAfter: 2},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, "error error retryable: Connection to provider lost mid-stream: unexpected EOF"},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"abcd"}]`,
		},
		{
			name: "malformed data mid-stream",
			resp: mockgoogle.Response{Events: []mockgoogle.Event{{Text: "ab"}, {Raw: "data: {\"candidates\":[{\"content\"\r\n\r\n"}}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`,
				`error error retryable: Provider sent malformed data: iterateResponseStream: error unmarshalling data data: {"candidates":[{"content". error: unexpected end of JSON input`},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name: "non-JSON data as the first chunk",
			resp: mockgoogle.Response{SSE: "data: hello\r\n\r\n"},
			want: []string{"start", "error error other: Provider sent malformed data: iterateResponseStream: error unmarshalling data data: hello. error: invalid character 'h' looking for beginning of value"},
			kind: core.ErrorOther,
		},
		{
			// The SDK panics on it: the panic is the request's failure, not the process's.
			name: "a chunk of the wrong shape",
			resp: mockgoogle.Response{Events: []mockgoogle.Event{{Text: "ab"}, {Raw: "data: {\"candidates\":\"none\"}\r\n\r\n"}}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`,
				`error error retryable: Provider sent malformed data: the SDK could not read a chunk: interface conversion: interface {} is string, not []interface {}`},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name: "a field of the wrong type",
			resp: mockgoogle.Response{Events: []mockgoogle.Event{{Raw: "data: {\"responseId\":5}\r\n\r\n"}}},
			want: []string{"start", `error error other: Provider sent malformed data: mapToStruct: error unmarshalling input map[string]interface {}{"responseId":5}: json: cannot unmarshal number into Go struct field .Alias.responseId of type string`},
			kind: core.ErrorOther,
		},
		{
			name: "clean close without a finishReason",
			resp: mockgoogle.Response{Text: "par", NoDone: true},
			want: []string{"start", "text_start 0", `text_delta 0 "par"`, "error error retryable: Gemini stream ended before a finishReason (connection closed early)"},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"par"}]`,
		},
		{
			name: "error object mid-stream",
			resp: mockgoogle.Response{Events: []mockgoogle.Event{{Text: "ab"}, {Error: &mockgoogle.ErrorBody{Code: 503, Status: "UNAVAILABLE", Message: "The model is overloaded."}}}},
			want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: Provider error: 503 UNAVAILABLE: The model is overloaded."},
			kind: core.ErrorRetryable, content: `[{"type":"text","text":"ab"}]`,
		},
		{
			name: "error object with a retry delay as the first chunk",
			resp: mockgoogle.Response{Events: []mockgoogle.Event{{Error: &mockgoogle.ErrorBody{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: "Quota exceeded.", RetryDelay: "4s"}}}},
			want: []string{"start", "error error retryable: Provider error: 429 RESOURCE_EXHAUSTED: Quota exceeded."},
			kind: core.ErrorRetryable, retry: 4 * time.Second,
		},
		{
			name: "keep-alive comments and other SSE fields are skipped",
			resp: mockgoogle.Response{KeepAlive: "keep-alive", Events: []mockgoogle.Event{
				{Text: "ab"},
				{Comment: "still working"},
				{Raw: "event: message\r\nid: 7\r\nretry: 100\r\n\r\n"},
				{Text: "cd"},
			}},
			want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "done stop"},
			content: `[{"type":"text","text":"abcd"}]`,
		},
		{
			name:    "per-chunk delays",
			resp:    mockgoogle.Response{ChunkDelayMs: 1, Events: []mockgoogle.Event{{DelayMs: 1}, {Text: "ok"}}},
			want:    []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"},
			content: `[{"type":"text","text":"ok"}]`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := newMockProvider(t, Config{}, tc.resp)
			got, final := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
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

// TestNoKeyConfigured: an auth failure without a key names the variables pi-rpc reads, and
// the request went without a key.
func TestNoKeyConfigured(t *testing.T) {
	srv := mockgoogle.New(&mockgoogle.Script{Responses: []mockgoogle.Response{{Status: 403, Error: &mockgoogle.ErrorBody{Code: 403, Status: "PERMISSION_DENIED", Message: "Method doesn't allow unregistered callers."}}}})
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL(), IdleTimeout: -1, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
	if !strings.HasSuffix(final.ErrorMessage, "(no API key was configured: set GEMINI_API_KEY or GOOGLE_API_KEY)") {
		t.Errorf("error = %q", final.ErrorMessage)
	}
	if h := srv.Requests()[0].Header; h.Get("X-Goog-Api-Key") != "" {
		t.Errorf("x-goog-api-key = %q, want none", h.Get("X-Goog-Api-Key"))
	}
}

// TestCancel cancels the context mid-stream: the stream ends aborted with the partial
// content, and the server sees the client go away.
func TestCancel(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockgoogle.Response{Text: "abcdef", ChunkSize: 2, StallAfter: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	var final *core.AssistantMessage
	for ev := range p.Stream(ctx, hiRequest(t, "gemini-2.5-flash")) {
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
	p, srv := newMockProvider(t, Config{}, mockgoogle.Response{StallBeforeHeaders: true, Text: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	srv.OnRequest = func(*mockgoogle.Request) { cancel() }
	got, final := run(t, ctx, p, hiRequest(t, "gemini-2.5-flash"))
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
	p, srv := newMockProvider(t, Config{}, mockgoogle.Response{Text: "abcdef", ChunkSize: 2, StallAfter: 2})
	n := 0
	for ev := range p.Stream(context.Background(), hiRequest(t, "gemini-2.5-flash")) {
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
	srv := mockgoogle.New(nil)
	url := srv.URL()
	srv.Close()
	p, err := New(Config{BaseURL: url, APIKey: "k", KeySource: "test", IdleTimeout: -1, HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	_, final := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
	if final.Failure == nil || final.Failure.Kind != core.ErrorRetryable || !strings.HasPrefix(final.ErrorMessage, "Connection error: ") {
		t.Errorf("failure = %+v (%s), want retryable connection error", final.Failure, final.ErrorMessage)
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "generativelanguage.googleapis.com", "ftp://x"} {
		if _, err := New(Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}
