package mockgoogle

import (
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, path, body string) (int, string) {
	t.Helper()
	resp, b, err := s.Post(path, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestWire pins the bytes of a scripted stream: one chunk per part, CRLF framing, the
// signature on the first call, finishReason and the full usage on the last chunk.
func TestWire(t *testing.T) {
	s := New(&Script{Responses: []Response{{
		Reasoning: "Hmm", Text: "Hi", ChunkSize: 8, Signature: "c2ln",
		ToolCalls: []ToolCall{{Name: "ls", Arguments: `{"path":"."}`}},
		Usage:     &Usage{PromptTokenCount: 10, CandidatesTokenCount: 5, ThoughtsTokenCount: 3, CachedContentTokenCount: 4},
	}}})
	defer s.Close()
	status, body := post(t, s, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"contents":[]}`)
	head := `{"candidates":[{"content":{"parts":[`
	tail := `"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"mock-response-1","usageMetadata":{"promptTokenCount":10,"totalTokenCount":10}}`
	want := "data: " + head + `{"text":"Hmm","thought":true}],` + tail + "\r\n\r\n" +
		"data: " + head + `{"text":"Hi"}],` + tail + "\r\n\r\n" +
		"data: " + head + `{"functionCall":{"args":{"path":"."},"name":"ls"},"thoughtSignature":"c2ln"}],"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash","responseId":"mock-response-1",` +
		`"usageMetadata":{"cachedContentTokenCount":4,"candidatesTokenCount":5,"promptTokenCount":10,"thoughtsTokenCount":3,"totalTokenCount":18}}` + "\r\n\r\n"
	if status != 200 || body != want {
		t.Errorf("status %d, body:\n%s\nwant:\n%s", status, body, want)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || ModelOf(reqs[0]) != "gemini-2.5-flash" {
		t.Fatalf("requests = %d, model %q", len(reqs), ModelOf(reqs[0]))
	}
}

// TestErrors checks Google's error envelope with its details, the 404 for other paths and
// the 400 without alt=sse.
func TestErrors(t *testing.T) {
	s := New(&Script{Responses: []Response{RateLimitError("2s"), AuthError()}})
	defer s.Close()
	path := "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
	if status, body := post(t, s, path, `{}`); status != 429 || body != `{"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}],"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED"}}` {
		t.Errorf("429: %d %s", status, body)
	}
	if status, body := post(t, s, path, `{}`); status != 400 || !strings.Contains(body, `"reason":"API_KEY_INVALID"`) {
		t.Errorf("auth: %d %s", status, body)
	}
	if status, body := post(t, s, path, `{}`); status != 500 || !strings.Contains(body, "no scripted response left") {
		t.Errorf("exhausted: %d %s", status, body)
	}
	if status, _ := post(t, s, "/v1beta/models/gemini-2.5-pro:generateContent", `{}`); status != http.StatusNotFound {
		t.Errorf("generateContent: %d, want 404", status)
	}
	if status, _ := post(t, s, "/v1beta/models/gemini-2.5-pro:streamGenerateContent", `{}`); status != http.StatusBadRequest {
		t.Errorf("without alt=sse: %d, want 400", status)
	}
}
