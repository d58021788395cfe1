package mockopenai

import (
	"strconv"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
)

// TestResponsesWireFormat checks the exact bytes of a scripted Responses stream: reasoning
// (its summary, then the item with its encrypted content), text, a tool call with streamed
// arguments, and response.completed carrying every item and the usage.
func TestResponsesWireFormat(t *testing.T) {
	s := New(&Script{Responses: []Response{{ID: "r1", Model: "m", Reasoning: "Hm", Text: "Hi", ChunkSize: 8,
		ToolCalls: []ToolCall{{ID: "call_1", Name: "ls", Arguments: "{}"}},
		Usage:     &Usage{PromptTokens: 10, CompletionTokens: 3, CachedTokens: 4, ReasoningTokens: 1}}}})
	defer s.Close()
	_, body, err := s.Post("/v1/responses", `{"model":"x","stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	rs := `{"id":"rs_mock_1_0","type":"reasoning","summary":[{"type":"summary_text","text":"Hm"}],"encrypted_content":"enc:rs_mock_1_0"}`
	part := `{"type":"output_text","annotations":[],"logprobs":[],"text":"Hi"}`
	msg := `{"id":"msg_mock_1_1","type":"message","status":"completed","role":"assistant","content":[` + part + `]}`
	fc := `{"id":"fc_mock_1_2","type":"function_call","status":"completed","arguments":"{}","call_id":"call_1","name":"ls"}`
	events := [][2]string{
		{"response.created", `"response":{"id":"r1","object":"response","created_at":1700000000,"status":"in_progress","model":"m","output":[]}`},
		{"response.output_item.added", `"output_index":0,"item":{"id":"rs_mock_1_0","type":"reasoning","summary":[]}`},
		{"response.reasoning_summary_part.added", `"item_id":"rs_mock_1_0","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`},
		{"response.reasoning_summary_text.delta", `"item_id":"rs_mock_1_0","output_index":0,"summary_index":0,"delta":"Hm"`},
		{"response.reasoning_summary_text.done", `"item_id":"rs_mock_1_0","output_index":0,"summary_index":0,"text":"Hm"`},
		{"response.reasoning_summary_part.done", `"item_id":"rs_mock_1_0","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"Hm"}`},
		{"response.output_item.done", `"output_index":0,"item":` + rs},
		{"response.output_item.added", `"output_index":1,"item":{"id":"msg_mock_1_1","type":"message","status":"in_progress","role":"assistant","content":[]}`},
		{"response.content_part.added", `"item_id":"msg_mock_1_1","output_index":1,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}`},
		{"response.output_text.delta", `"item_id":"msg_mock_1_1","output_index":1,"content_index":0,"delta":"Hi","logprobs":[]`},
		{"response.output_text.done", `"item_id":"msg_mock_1_1","output_index":1,"content_index":0,"text":"Hi","logprobs":[]`},
		{"response.content_part.done", `"item_id":"msg_mock_1_1","output_index":1,"content_index":0,"part":` + part},
		{"response.output_item.done", `"output_index":1,"item":` + msg},
		{"response.output_item.added", `"output_index":2,"item":{"id":"fc_mock_1_2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"ls"}`},
		{"response.function_call_arguments.delta", `"item_id":"fc_mock_1_2","output_index":2,"delta":"{}"`},
		{"response.function_call_arguments.done", `"item_id":"fc_mock_1_2","output_index":2,"name":"ls","arguments":"{}"`},
		{"response.output_item.done", `"output_index":2,"item":` + fc},
		{"response.completed", `"response":{"id":"r1","object":"response","created_at":1700000000,"status":"completed","model":"m","output":[` + rs + "," + msg + "," + fc +
			`],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":13}}`},
	}
	var want strings.Builder
	for i, ev := range events {
		want.WriteString("event: " + ev[0] + "\ndata: {\"type\":\"" + ev[0] + "\",\"sequence_number\":" + strconv.Itoa(i) + "," + ev[1] + "}\n\n")
	}
	if got := string(body); got != want.String() {
		t.Errorf("body:\n%s\nwant:\n%s", got, want.String())
	}
}

// TestResponsesTerminalEvents: finishReason "length" ends the stream with
// response.incomplete, "failed" with response.failed, and noDone with no terminal event.
func TestResponsesTerminalEvents(t *testing.T) {
	tests := []struct {
		resp Response
		last string
	}{
		{Response{Text: "a", FinishReason: "length"}, `"type":"response.incomplete"`},
		{Response{Text: "a", FinishReason: "failed"}, `"type":"response.failed"`},
		{Response{Text: "a", Faults: mockhttp.Faults{NoDone: true}}, `"type":"response.output_item.done"`},
	}
	for _, tc := range tests {
		s := New(&Script{Responses: []Response{tc.resp}})
		_, body, err := s.Post("/v1/responses", `{"model":"x"}`)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		evs := strings.Split(strings.TrimSpace(body), "\n\n")
		if last := evs[len(evs)-1]; !strings.Contains(last, tc.last) {
			t.Errorf("%+v: last event %s, want %s", tc.resp, last, tc.last)
		}
	}
}
