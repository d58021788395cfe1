package mockopenai

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestWireFormat checks the exact bytes of a scripted stream with usage requested.
func TestWireFormat(t *testing.T) {
	s := New(&Script{Responses: []Response{{ID: "c1", Model: "m", Text: "Hi", ToolCalls: []ToolCall{{ID: "call_1", Name: "ls", Arguments: "{}"}},
		Usage: &Usage{PromptTokens: 10, CompletionTokens: 3, CachedTokens: 4}}}})
	defer s.Close()
	resp, body, err := s.Post("/v1/chat/completions", `{"model":"x","stream":true,"stream_options":{"include_usage":true}}`)
	if err != nil {
		t.Fatal(err)
	}
	const pre = `data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":`
	const post = `,"logprobs":null,"finish_reason":%s}],"usage":null}` + "\n\n"
	want := strings.Join([]string{
		pre + `{"role":"assistant","content":""}` + strings.Replace(post, "%s", "null", 1),
		pre + `{"content":"Hi"}` + strings.Replace(post, "%s", "null", 1),
		pre + `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":""}}]}` + strings.Replace(post, "%s", "null", 1),
		pre + `{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}` + strings.Replace(post, "%s", "null", 1),
		pre + `{}` + strings.Replace(post, "%s", `"tool_calls"`, 1),
		`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}` + "\n\n",
		"data: [DONE]\n\n",
	}, "")
	if body != want {
		t.Errorf("body:\n%s\nwant:\n%s", body, want)
	}
	if err := s.CheckStream(resp, "x"); err != nil {
		t.Error(err)
	}
}

func TestExhaustedScript(t *testing.T) {
	s := New(nil)
	defer s.Close()
	resp, body, err := s.Post("/v1/chat/completions", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, `"message":"mockopenai: no scripted response left"`) {
		t.Errorf("got %d %s, want 500 with an OpenAI error body", resp.StatusCode, body)
	}
}

// chunkIntervalUs paces the stream: with an hour between chunks the mock is still waiting
// after the first one when the client goes away, so it records the client as gone.
func TestChunkIntervalPacesTheStream(t *testing.T) {
	script, err := ParseScript([]byte(`{"responses": [{"text": "Hello world", "chunkSize": 2, "chunkIntervalUs": 3600000000}]}`))
	if err != nil || script.Responses[0].ChunkIntervalUs != 3600000000 {
		t.Fatalf("script %+v, %v", script, err)
	}
	s := New(script)
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions", strings.NewReader(`{"model":"x","stream":true}`))
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	resp.Body.Close()
	reqs := s.Requests()
	<-reqs[0].Done()
	if !reqs[0].IsGone() {
		t.Fatal("the stream was complete: chunkIntervalUs did not pace it")
	}
}
