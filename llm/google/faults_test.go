package google

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestFaults checks each fault the mock can inject, event by event, with its classification.
func TestFaults(t *testing.T) {
	m := mock(t)
	quota := "429 RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan and billing details."
	faults := []providertest.Fault[mockgoogle.Response]{
		m.Refused("429 with the server's retry delay", mockgoogle.RateLimitError("37s"),
			core.ErrorRetryable, 429, quota).WithRetry(37 * time.Second),
		m.Refused("429 with a fractional retry delay and a Retry-After header: the delay wins", func() mockgoogle.Response { r := mockgoogle.RateLimitError("1.5s"); r.RetryAfter = "9"; return r }(),
			core.ErrorRetryable, 429, quota).WithRetry(1500 * time.Millisecond),
		m.Refused("429 with Retry-After only", func() mockgoogle.Response { r := mockgoogle.RateLimitError(""); r.RetryAfter = "7"; return r }(),
			core.ErrorRetryable, 429, quota).WithRetry(7 * time.Second),
		m.Refused("503 overloaded", mockgoogle.OverloadedError(),
			core.ErrorRetryable, 503, "503 UNAVAILABLE: The model is overloaded. Please try again later."),
		m.Refused("invalid key (400 API_KEY_INVALID) names the key source", mockgoogle.AuthError(),
			core.ErrorAuth, 400, "400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (API key from the test's Config)"),
		m.Refused("403 permission denied", mockgoogle.Response{Faults: mockhttp.Faults{Status: 403}, Error: &mockgoogle.ErrorBody{Code: 403, Status: "PERMISSION_DENIED", Message: "Method doesn't allow unregistered callers."}},
			core.ErrorAuth, 403, "403 PERMISSION_DENIED: Method doesn't allow unregistered callers. (API key from the test's Config)"),
		m.Refused("input over the context window", mockgoogle.PromptTooLongError(),
			core.ErrorOverflow, 400, "400 INVALID_ARGUMENT: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
		m.Refused("400 invalid argument", mockgoogle.Response{Faults: mockhttp.Faults{Status: 400}, Error: &mockgoogle.ErrorBody{Code: 400, Status: "INVALID_ARGUMENT", Message: "Please ensure that function call turn comes immediately after a user turn."}},
			core.ErrorOther, 400, "400 INVALID_ARGUMENT: Please ensure that function call turn comes immediately after a user turn."),
		{
			Name: "200 with an empty body",
			Resp: mockgoogle.Response{Faults: mockhttp.Faults{SSE: "\r\n"}},
			Want: []string{"start", `error error other: Provider returned 200 with a body that is not an event stream (Content-Type "text/event-stream; charset=utf-8"): empty body`},
			Kind: core.ErrorOther, Status: 200,
		},
		providertest.Dropped("connection dropped mid-stream",
			mockgoogle.Response{Text: "abcdef", ChunkSize: 2, Faults: mockhttp.Faults{DropAfter: 2}}, `[{"type":"text","text":"abcd"}]`,
			"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`),
		{
			Name: "malformed data mid-stream",
			Resp: mockgoogle.Response{Events: []mockgoogle.Event{{Text: "ab"}, {Raw: "data: {\"candidates\":[{\"content\"\r\n\r\n"}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`,
				`error error retryable: Provider sent malformed data: iterateResponseStream: error unmarshalling data data: {"candidates":[{"content". error: unexpected end of JSON input`},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab"}]`,
		},
		providertest.NotJSON("non-JSON data as the first chunk", mockgoogle.Response{Faults: mockhttp.Faults{SSE: "data: hello\r\n\r\n"}},
			"iterateResponseStream: error unmarshalling data data: hello. error: invalid character 'h' looking for beginning of value"),
		{
			// The SDK panics on it: the panic is the request's failure, not the process's.
			Name: "a chunk of the wrong shape",
			Resp: mockgoogle.Response{Events: []mockgoogle.Event{{Text: "ab"}, {Raw: "data: {\"candidates\":\"none\"}\r\n\r\n"}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`,
				`error error retryable: Provider sent malformed data: the SDK could not read a chunk: interface conversion: interface {} is string, not []interface {}`},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab"}]`,
		},
		{
			Name: "a field of the wrong type",
			Resp: mockgoogle.Response{Events: []mockgoogle.Event{{Raw: "data: {\"responseId\":5}\r\n\r\n"}}},
			Want: []string{"start", `error error other: Provider sent malformed data: mapToStruct: error unmarshalling input map[string]interface {}{"responseId":5}: json: cannot unmarshal number into Go struct field .Alias.responseId of type string`},
			Kind: core.ErrorOther,
		},
		{
			Name: "clean close without a finishReason",
			Resp: mockgoogle.Response{Text: "par", Faults: mockhttp.Faults{NoDone: true}},
			Want: []string{"start", "text_start 0", `text_delta 0 "par"`, "error error retryable: Gemini stream ended before a finishReason (connection closed early)"},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"par"}]`,
		},
		{
			Name: "error object mid-stream",
			Resp: mockgoogle.Response{Events: []mockgoogle.Event{{Text: "ab"}, {Error: &mockgoogle.ErrorBody{Code: 503, Status: "UNAVAILABLE", Message: "The model is overloaded."}}}},
			Want: []string{"start", "text_start 0", `text_delta 0 "ab"`, "error error retryable: Provider error: 503 UNAVAILABLE: The model is overloaded."},
			Kind: core.ErrorRetryable, Content: `[{"type":"text","text":"ab"}]`,
		},
		{
			Name: "error object with a retry delay as the first chunk",
			Resp: mockgoogle.Response{Events: []mockgoogle.Event{{Error: &mockgoogle.ErrorBody{Code: 429, Status: "RESOURCE_EXHAUSTED", Message: "Quota exceeded.", RetryDelay: "4s"}}}},
			Want: []string{"start", "error error retryable: Provider error: 429 RESOURCE_EXHAUSTED: Quota exceeded."},
			Kind: core.ErrorRetryable, Retry: 4 * time.Second,
		},
		{
			Name: "keep-alive comments and other SSE fields are skipped",
			Resp: mockgoogle.Response{Faults: mockhttp.Faults{KeepAlive: "keep-alive"}, Events: []mockgoogle.Event{
				{Text: "ab"},
				{Comment: "still working"},
				{Raw: "event: message\r\nid: 7\r\nretry: 100\r\n\r\n"},
				{Text: "cd"},
			}},
			Want:    []string{"start", "text_start 0", `text_delta 0 "ab"`, `text_delta 0 "cd"`, `text_end 0 "abcd"`, "done stop"},
			Content: `[{"type":"text","text":"abcd"}]`,
		},
		{
			Name:    "per-chunk delays",
			Resp:    mockgoogle.Response{Faults: mockhttp.Faults{ChunkDelayMs: 1}, Events: []mockgoogle.Event{{DelayMs: 1}, {Text: "ok"}}},
			Want:    []string{"start", "text_start 0", `text_delta 0 "ok"`, `text_end 0 "ok"`, "done stop"},
			Content: `[{"type":"text","text":"ok"}]`,
		},
	}
	m.Faults(t, faults, " (iterateResponseStream: invalid stream chunk: <html>maintenance</html>:)")
}

// TestShared runs the cases every provider shares (providertest.Mock.Run): cancelling, a
// consumer that stops, a refused connection, a bad base URL, a request without a key.
func TestShared(t *testing.T) { mock(t).Run(t) }

// TestIdleTimeout runs in fake time: a silent backend fails the stream after the idle
// timeout with a retryable error naming the duration; chunks slower than it and a slow
// consumer do not.
func TestIdleTimeout(t *testing.T) { mock(t).Idle(t) }

// FuzzStream feeds arbitrary bodies to the provider: whatever the server sends, the stream
// ends with exactly one done or error event and nothing panics (the SDK's converter does on
// some shapes; the provider recovers it).
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		`data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP"}]}` + "\r\n\r\n",
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"ls","args":{"a":1}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3}}` + "\n\n",
		`data: {"candidates":"none"}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":"x"}}]}` + "\n\n",
		`data: {"usageMetadata":{"promptTokenCount":"many"}}` + "\n\n",
		`data: {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":5}]}}` + "\n\n",
		`data: {"candidates":[{"content":{"parts":[{"thoughtSignature":"not base64!"}]}}]}` + "\n\n",
		": ping\n\nevent: x\n\ndata: [DONE]\n\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		p, err := New(Config{Endpoint: llm.Endpoint{BaseURL: DefaultBaseURL, APIKey: "k", IdleTimeout: -1, HTTPClient: &http.Client{Transport: providertest.BodyTransport{Body: []byte(body)}}}})
		if err != nil {
			t.Fatal(err)
		}
		ends := 0
		for ev := range p.Stream(context.Background(), hiRequest(t, "gemini-2.5-flash")) {
			if ev.Type == core.EventDone || ev.Type == core.EventError {
				ends++
			}
		}
		if ends != 1 {
			t.Fatalf("%d done or error events, want 1", ends)
		}
	})
}
