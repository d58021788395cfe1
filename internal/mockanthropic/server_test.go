package mockanthropic

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// TestWireFormat checks the exact bytes of a scripted stream.
func TestWireFormat(t *testing.T) {
	s := New(&Script{Responses: []Response{{ID: "msg_1", Model: "m", Reasoning: "Hm", Signature: "c2ln", Text: "Hi",
		ToolCalls: []ToolCall{{ID: "toolu_1", Name: "ls", Arguments: "{}"}},
		Usage:     &Usage{InputTokens: 10, OutputTokens: 3, CacheReadInputTokens: 4, CacheCreationInputTokens: 5}}}})
	defer s.Close()
	resp, body, err := s.Post("/v1/messages", `{"model":"x","stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	want := strings.Join([]string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":4,"output_tokens":1}}}`),
		ev("ping", `{"type": "ping"}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hm"}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`),
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":2}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":3}}`),
		ev("message_stop", `{"type":"message_stop"}`),
	}, "")
	if body != want {
		t.Errorf("body:\n%s\nwant:\n%s", body, want)
	}
	if err := s.CheckStream(resp, "x"); err != nil {
		t.Error(err)
	}
}

// TestRedactedAndErrorEvents checks a redacted thinking block and an error event mid-stream.
func TestRedactedAndErrorEvents(t *testing.T) {
	s := New(&Script{Responses: []Response{{ID: "msg_1", Model: "m", Events: []Event{
		{RedactedThinking: "b3BhcXVl"}, {Text: "a"}, {Error: &ErrorBody{Type: "overloaded_error", Message: "Overloaded"}},
	}, Faults: mockhttp.Faults{NoDone: true}}}})
	defer s.Close()
	_, body, err := s.Post("/v1/messages", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"b3BhcXVl\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
		"\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"},\"request_id\":\"req_mock\"}\n\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "message_stop") {
		t.Errorf("noDone: body has message_stop:\n%s", body)
	}
}

func TestErrorsAndExhaustedScript(t *testing.T) {
	s := New(&Script{Responses: []Response{OverloadedError()}})
	defer s.Close()
	for _, want := range []struct {
		status int
		body   string
	}{
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_mock"}`},
		{500, `{"type":"error","error":{"type":"api_error","message":"mockanthropic: no scripted response left"},"request_id":"req_mock"}`},
	} {
		resp, body, err := s.Post("/v1/messages", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != want.status || body != want.body {
			t.Errorf("got %d %s, want %d %s", resp.StatusCode, body, want.status, want.body)
		}
	}
	resp, err := s.Client().Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /v1/models = %d, want 404", resp.StatusCode)
	}
}
