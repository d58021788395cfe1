package openai

import (
	"net/http"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
)

func TestClassifyHTTP(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		keySource string
		kind      core.ErrorKind
		msg       string
		retry     time.Duration
		hasRetry  bool
	}{
		{"429 seconds", 429, hdr("Retry-After", "3"), `{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`, "", core.ErrorRetryable, "429 Rate limit reached", 3 * time.Second, true},
		{"429 http date", 429, hdr("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat)), `{"error":{"message":"slow down"}}`, "", core.ErrorRetryable, "429 slow down", 90 * time.Second, true},
		{"429 retry-after-ms wins", 429, hdr("Retry-After", "3", "Retry-After-Ms", "1500"), `{"error":{"message":"x"}}`, "", core.ErrorRetryable, "429 x", 1500 * time.Millisecond, true},
		{"429 bad retry-after", 429, hdr("Retry-After", "soon"), `{"error":{"message":"x"}}`, "", core.ErrorRetryable, "429 x", 0, false},
		{"429 insufficient quota", 429, nil, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`, "", core.ErrorOther, "429 You exceeded your current quota", 0, false},
		{"500", 500, nil, `{"error":{"message":"The server had an error"}}`, "", core.ErrorRetryable, "500 The server had an error", 0, false},
		{"503 retry-after", 503, hdr("Retry-After", "10"), ``, "", core.ErrorRetryable, "503 status code (no body)", 10 * time.Second, true},
		{"529 overloaded", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", core.ErrorRetryable, "529 Overloaded", 0, false},
		{"408", 408, nil, ``, "", core.ErrorRetryable, "408 status code (no body)", 0, false},
		{"401 with key source", 401, nil, `{"error":{"message":"Incorrect API key provided"}}`, "OPENAI_API_KEY", core.ErrorAuth, "401 Incorrect API key provided (API key from OPENAI_API_KEY)", 0, false},
		{"403 without key", 403, nil, `forbidden`, "", core.ErrorAuth, "403 Forbidden: forbidden (no API key was configured)", 0, false},
		{"400 context_length_exceeded code", 400, nil, `{"error":{"message":"too big","code":"context_length_exceeded"}}`, "", core.ErrorOverflow, "400 too big", 0, false},
		{"400 maximum context length", 400, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens."}}`, "", core.ErrorOverflow, "400 This model's maximum context length is 8192 tokens.", 0, false},
		{"400 no body", 400, nil, ``, "", core.ErrorOverflow, "400 status code (no body)", 0, false},
		{"413 no body", 413, nil, ``, "", core.ErrorOverflow, "413 status code (no body)", 0, false},
		{"400 llama.cpp", 400, nil, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, "", core.ErrorOverflow, "400 the request exceeds the available context size, try increasing it", 0, false},
		{"400 vllm detail", 400, nil, `{"detail":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"}`, "", core.ErrorOverflow, "400 This model's maximum context length is 4096 tokens. However, you requested 5000 tokens", 0, false},
		{"429 too many tokens is not overflow", 429, nil, `{"error":{"message":"Rate limit: too many tokens per minute"}}`, "", core.ErrorRetryable, "429 Rate limit: too many tokens per minute", 0, false},
		{"400 other", 400, nil, `{"error":{"message":"Invalid value for 'tool_choice'"}}`, "", core.ErrorOther, "400 Invalid value for 'tool_choice'", 0, false},
		{"404 model", 404, nil, `{"error":{"message":"The model 'x' does not exist","code":"model_not_found"}}`, "", core.ErrorOther, "404 The model 'x' does not exist", 0, false},
		{"502 html", 502, nil, "<html><body>\n502 Bad Gateway</body></html>", "", core.ErrorRetryable, "502 Bad Gateway: <html><body> 502 Bad Gateway</body></html>", 0, false},
		{"openrouter metadata raw", 400, nil, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"prompt is too long: 250000 tokens > 200000 maximum"}}}`, "", core.ErrorOverflow, "400 Provider returned error\nprompt is too long: 250000 tokens > 200000 maximum", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.header
			if h == nil {
				h = http.Header{}
			}
			got := classifyHTTP(tc.status, h, []byte(tc.body), failure.KeyOrigin(tc.keySource, tc.keySource != "", nil), now)
			if got.Kind != tc.kind || got.Message != tc.msg || got.Status != tc.status {
				t.Errorf("got %s %d %q, want %s %d %q", got.Kind, got.Status, got.Message, tc.kind, tc.status, tc.msg)
			}
			if got.RetryAfter != tc.retry || got.HasRetryAfter != tc.hasRetry {
				t.Errorf("retryAfter = %v %v, want %v %v", got.RetryAfter, got.HasRetryAfter, tc.retry, tc.hasRetry)
			}
		})
	}
}

func TestMapFinishReason(t *testing.T) {
	tests := []struct {
		in     string
		reason core.StopReason
		fail   string
	}{
		{"stop", core.StopReasonStop, ""},
		{"end", core.StopReasonStop, ""},
		{"length", core.StopReasonLength, ""},
		{"tool_calls", core.StopReasonToolUse, ""},
		{"function_call", core.StopReasonToolUse, ""},
		{"content_filter", "", "Provider finish_reason: content_filter"},
		{"weird", "", "Provider finish_reason: weird"},
	}
	for _, tc := range tests {
		f := mapFinishReason(tc.in)
		msg := ""
		if f.failure != nil {
			msg = f.failure.Message
		}
		if f.reason != tc.reason || msg != tc.fail {
			t.Errorf("mapFinishReason(%q) = %s %q, want %s %q", tc.in, f.reason, msg, tc.reason, tc.fail)
		}
	}
}
