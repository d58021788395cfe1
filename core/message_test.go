package core

import (
	"encoding/json"
	"testing"
)

func TestMessageJSONRoundTrip(t *testing.T) {
	exit := 2
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"user", &UserMessage{Content: []Content{TextBlock("hi"), ImageBlock("AAAA", "image/png")}, Timestamp: 5},
			`{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"timestamp":5}`},
		{"user empty content", &UserMessage{Timestamp: 1}, `{"role":"user","content":[],"timestamp":1}`},
		{"assistant", &AssistantMessage{
			Content: []Content{{Type: ContentThinking, Thinking: "hmm"}, TextBlock(""), ToolCallBlock("c1", "read", map[string]any{"path": "a"})},
			API:     "faux", Provider: "faux", Model: "faux-1", StopReason: StopReasonToolUse, Timestamp: 7,
			Usage: Usage{Input: 1, Output: 2, TotalTokens: 3},
		}, `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":""},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a"}}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":7}`},
		{"tool result", &ToolResultMessage{ToolCallID: "c1", ToolName: "read", Content: []Content{TextBlock("x")}, IsError: true, Timestamp: 3},
			`{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"}],"isError":true,"timestamp":3}`},
		{"bash", &BashExecutionMessage{Command: "ls", Output: "a", ExitCode: &exit, Timestamp: 1},
			`{"role":"bashExecution","command":"ls","output":"a","exitCode":2,"cancelled":false,"truncated":false,"timestamp":1}`},
		{"custom", &CustomMessage{CustomType: "ext", Content: []Content{TextBlock("c")}, Display: true, Timestamp: 1},
			`{"role":"custom","customType":"ext","content":[{"type":"text","text":"c"}],"display":true,"timestamp":1}`},
		{"branch summary", &BranchSummaryMessage{Summary: "s", FromID: "abcd1234", Timestamp: 1},
			`{"role":"branchSummary","summary":"s","fromId":"abcd1234","timestamp":1}`},
		{"compaction summary", &CompactionSummaryMessage{Summary: "s", TokensBefore: 10, Timestamp: 1},
			`{"role":"compactionSummary","summary":"s","tokensBefore":10,"timestamp":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("Marshal = %s\nwant      %s", got, tc.want)
			}
			back, err := DecodeMessage(got)
			if err != nil {
				t.Fatalf("DecodeMessage: %v", err)
			}
			again, _ := json.Marshal(back)
			if string(again) != tc.want {
				t.Fatalf("round trip = %s\nwant         %s", again, tc.want)
			}
		})
	}
}

func TestDecodeMessageStringContent(t *testing.T) {
	m, err := DecodeMessage([]byte(`{"role":"user","content":"plain","timestamp":1}`))
	if err != nil {
		t.Fatal(err)
	}
	u := m.(*UserMessage)
	if len(u.Content) != 1 || u.Content[0].Text != "plain" {
		t.Fatalf("content = %+v, want one text block \"plain\"", u.Content)
	}
}

func TestDecodeMessageErrors(t *testing.T) {
	for _, in := range []string{`{"role":"robot"}`, `{"role":"user","content":[{"type":"video"}]}`, `[]`, `{"role":"assistant","content":5}`} {
		if _, err := DecodeMessage([]byte(in)); err == nil {
			t.Errorf("DecodeMessage(%s) succeeded, want an error", in)
		}
	}
}

func TestMessagesUnmarshal(t *testing.T) {
	var ms Messages
	if err := json.Unmarshal([]byte(`[{"role":"user","content":"a","timestamp":1},{"role":"toolResult","toolCallId":"x","toolName":"t","content":[],"details":{"k":1},"isError":false,"timestamp":2}]`), &ms); err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[1].Role() != RoleToolResult {
		t.Fatalf("got %d messages, second role %v", len(ms), ms[1].Role())
	}
	if got, _ := json.Marshal(ms[1]); string(got) != `{"role":"toolResult","toolCallId":"x","toolName":"t","content":[],"details":{"k":1},"isError":false,"timestamp":2}` {
		t.Fatalf("details did not round-trip: %s", got)
	}
}

func TestConvertToLLM(t *testing.T) {
	code := 1
	in := []Message{
		&UserMessage{Content: []Content{TextBlock("u")}},
		&BashExecutionMessage{Command: "make", Output: "boom", ExitCode: &code},
		&BashExecutionMessage{Command: "x", ExcludeFromContext: true},
		&BashExecutionMessage{Command: "sleep 9", Cancelled: true},
		&BashExecutionMessage{Command: "big", Output: "o", Truncated: true, FullOutputPath: "/tmp/f.log"},
		&CustomMessage{CustomType: "n", Content: []Content{TextBlock("note")}},
		&BranchSummaryMessage{Summary: "b"},
		&CompactionSummaryMessage{Summary: "c"},
	}
	out := ConvertToLLM(in)
	var texts []string
	for _, m := range out {
		if m.Role() != RoleUser {
			t.Fatalf("role %v, want user", m.Role())
		}
		texts = append(texts, TextOf(m.(*UserMessage).Content))
	}
	want := []string{
		"u",
		"Ran `make`\n```\nboom\n```\n\nCommand exited with code 1",
		"Ran `sleep 9`\n(no output)\n\n(command cancelled)",
		"Ran `big`\n```\no\n```\n\n[Output truncated. Full output: /tmp/f.log]",
		"note",
		"The following is a summary of a branch that this conversation came back from:\n\n<summary>\nb</summary>",
		"The conversation history before this point was compacted into the following summary:\n\n<summary>\nc\n</summary>",
	}
	if len(texts) != len(want) {
		t.Fatalf("got %d messages %q, want %d", len(texts), texts, len(want))
	}
	for i := range want {
		if texts[i] != want[i] {
			t.Errorf("message %d = %q, want %q", i, texts[i], want[i])
		}
	}
}

func TestClampThinkingLevel(t *testing.T) {
	none := (*string)(nil)
	x := "x"
	tests := []struct {
		model Model
		in    ThinkingLevel
		want  ThinkingLevel
	}{
		{Model{}, ThinkingHigh, ThinkingOff},
		{Model{Reasoning: true}, ThinkingHigh, ThinkingHigh},
		{Model{Reasoning: true}, ThinkingXHigh, ThinkingHigh},
		{Model{Reasoning: true, ThinkingLevelMap: map[ThinkingLevel]*string{ThinkingXHigh: &x}}, ThinkingXHigh, ThinkingXHigh},
		{Model{Reasoning: true, ThinkingLevelMap: map[ThinkingLevel]*string{ThinkingMinimal: none}}, ThinkingMinimal, ThinkingLow},
	}
	for _, tc := range tests {
		if got := tc.model.ClampThinkingLevel(tc.in); got != tc.want {
			t.Errorf("ClampThinkingLevel(%v) with %+v = %v, want %v", tc.in, tc.model, got, tc.want)
		}
	}
}
