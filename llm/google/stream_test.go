package google

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/mockgoogle"
	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/llm/internal/providertest"
)

// TestThinkingTextToolCall maps thought parts to thinking, text parts to text and a signed
// functionCall to a tool call with a generated id, its signature and toolUse; usage and cost
// follow usageMetadata.
func TestThinkingTextToolCall(t *testing.T) {
	p, srv := newMockProvider(t, Config{}, mockgoogle.Response{
		Reasoning: "Need the file.", Text: "Reading.", ChunkSize: 8, Signature: sigCall,
		ToolCalls: []mockgoogle.ToolCall{{Name: "read", Arguments: `{"path":"a.txt"}`}},
		Usage:     &mockgoogle.Usage{PromptTokenCount: 1000, CandidatesTokenCount: 200, ThoughtsTokenCount: 300, CachedContentTokenCount: 400},
	})
	req := hiRequest(t, "gemini-2.5-pro")
	req.ThinkingLevel = core.ThinkingHigh
	got, final := run(t, context.Background(), p, req)
	providertest.DiffLines(t, got, []string{
		"start",
		"thinking_start 0",
		`thinking_delta 0 "Need the"`,
		`thinking_delta 0 " file."`,
		`thinking_end 0 "Need the file."`,
		"text_start 1",
		`text_delta 1 "Reading."`,
		`text_end 1 "Reading."`,
		"toolcall_start 2 id=read_1700000000000_1 name=read",
		`toolcall_delta 2 "{\"path\":\"a.txt\"}" {"path":"a.txt"}`,
		`toolcall_end 2 read_1700000000000_1 read {"path":"a.txt"} sig="` + sigCall + `"`,
		"done toolUse",
	})
	if want := `[{"type":"thinking","thinking":"Need the file."},{"type":"text","text":"Reading."},{"type":"toolCall","id":"read_1700000000000_1","name":"read","arguments":{"path":"a.txt"},"thoughtSignature":"` + sigCall + `"}]`; providertest.ContentJSON(t, final) != want {
		t.Errorf("content = %s\nwant      %s", providertest.ContentJSON(t, final), want)
	}
	u := final.Usage
	if u.Input != 600 || u.CacheRead != 400 || u.Output != 500 || u.CacheWrite != 0 || u.TotalTokens != 1500 {
		t.Errorf("usage = %+v, want input 600 (prompt less cached), cacheRead 400, output 500 (candidates and thoughts)", u)
	}
	// gemini-2.5-pro: $1.25 input, $10 output, $0.31 cached per million.
	if c := u.Cost; !near(c.Input, 600*1.25/1e6) || !near(c.Output, 500*10/1e6) || !near(c.CacheRead, 400*0.31/1e6) || !near(c.Total, c.Input+c.Output+c.CacheRead) {
		t.Errorf("cost = %+v", c)
	}
	if final.ResponseID != "mock-response-1" || final.ResponseModel != "" {
		t.Errorf("response id %q model %q", final.ResponseID, final.ResponseModel)
	}
	if m := mockgoogle.ModelOf(srv.Requests()[0]); m != "gemini-2.5-pro" {
		t.Errorf("requested model %q", m)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestSignaturesOnTheirBlocks keeps each part's thoughtSignature on the block it came with:
// a signed thought, a text whose signature comes in a later empty part, and calls with and
// without signatures and ids (a repeated id is replaced).
func TestSignaturesOnTheirBlocks(t *testing.T) {
	p, _ := newMockProvider(t, Config{}, mockgoogle.Response{Events: []mockgoogle.Event{
		{Reasoning: "Plan.", Signature: sigThinking},
		{Text: "Two calls."},
		{Signature: sigText},
		{ToolCall: &mockgoogle.ToolCall{ID: "call_a", Name: "ls", Arguments: `{}`, Signature: sigCall}},
		{ToolCall: &mockgoogle.ToolCall{ID: "call_a", Name: "read", Arguments: `{"path":"b"}`}},
	}})
	_, final := run(t, context.Background(), p, hiRequest(t, "gemini-3-pro-preview"))
	want := `[{"type":"thinking","thinking":"Plan.","thinkingSignature":"` + sigThinking + `"},` +
		`{"type":"text","text":"Two calls.","textSignature":"` + sigText + `"},` +
		`{"type":"toolCall","id":"call_a","name":"ls","arguments":{},"thoughtSignature":"` + sigCall + `"},` +
		`{"type":"toolCall","id":"read_1700000000000_1","name":"read","arguments":{"path":"b"}}]`
	if got := providertest.ContentJSON(t, final); got != want || final.StopReason != core.StopReasonToolUse {
		t.Errorf("content = %s (%s)\nwant      %s", got, final.StopReason, want)
	}
}

// TestSignatureRoundTrip sends the signed blocks of one response back on the next request,
// byte for byte, each on its own part.
func TestSignatureRoundTrip(t *testing.T) {
	sig := "CiQBcsjafnJ0b3VuZC10cmlw+/8=" // with the characters base64 may carry
	p, srv := newMockProvider(t, Config{},
		mockgoogle.Response{Events: []mockgoogle.Event{
			{Reasoning: "Think.", Signature: sigThinking},
			{ToolCall: &mockgoogle.ToolCall{Name: "ls", Arguments: `{"path":"."}`, Signature: sig}},
		}},
		mockgoogle.Response{Text: "Done."},
	)
	req := hiRequest(t, "gemini-3-flash-preview")
	req.ThinkingLevel = core.ThinkingMedium
	_, first := run(t, context.Background(), p, req)
	call := first.Content[1]
	req.Messages = append(req.Messages, first, &core.ToolResultMessage{ToolCallID: call.ID, ToolName: call.Name, Content: []core.Content{core.TextBlock("a.txt")}})
	if _, final := run(t, context.Background(), p, req); final.StopReason != core.StopReasonStop {
		t.Fatalf("second turn: %s", final.ErrorMessage)
	}
	body := string(srv.Requests()[1].Body)
	for _, want := range []string{
		`{"text":"Think.","thought":true,"thoughtSignature":"` + sigThinking + `"}`,
		`{"functionCall":{"args":{"path":"."},"name":"ls"},"thoughtSignature":"` + sig + `"}`,
		`{"functionResponse":{"name":"ls","response":{"output":"a.txt"}}}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("second request lacks %s:\n%s", want, body)
		}
	}
}

// TestFinishReasons maps finishReason as pi does.
func TestFinishReasons(t *testing.T) {
	call := []mockgoogle.ToolCall{{Name: "ls", Arguments: `{}`}}
	tests := []struct {
		resp mockgoogle.Response
		want string
	}{
		{mockgoogle.Response{Text: "cut", FinishReason: "MAX_TOKENS"}, "done length"},
		{mockgoogle.Response{ToolCalls: call, FinishReason: "MAX_TOKENS"}, "done toolUse"},
		{mockgoogle.Response{Text: "x", FinishReason: "SAFETY"}, "error error other: Provider finish reason: SAFETY"},
		{mockgoogle.Response{Text: "x", FinishReason: "RECITATION"}, "error error other: Provider finish reason: RECITATION"},
		{mockgoogle.Response{Text: "x", FinishReason: "PROHIBITED_CONTENT"}, "error error other: Provider finish reason: PROHIBITED_CONTENT"},
		{mockgoogle.Response{FinishReason: "MALFORMED_FUNCTION_CALL"}, "error error other: Provider finish reason: MALFORMED_FUNCTION_CALL"},
		{mockgoogle.Response{Faults: mockhttp.Faults{SSE: `data: {"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":5}}` + "\r\n\r\n"}},
			"error error other: Prompt blocked: PROHIBITED_CONTENT"},
	}
	for _, tc := range tests {
		p, _ := newMockProvider(t, Config{}, tc.resp)
		got, _ := run(t, context.Background(), p, hiRequest(t, "gemini-2.5-flash"))
		if got[len(got)-1] != tc.want {
			t.Errorf("%s: last event %s, want %s", tc.resp.FinishReason, got[len(got)-1], tc.want)
		}
	}
}
