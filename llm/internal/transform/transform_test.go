package transform

import (
	"reflect"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// TestMessagesSkeleton checks the rules every provider shares, with no provider rules: an
// errored assistant message and the result of its call are dropped, an unanswered call gets
// the synthetic result before the next user message, a duplicate result is dropped, and
// images become one placeholder for a text-only model.
func TestMessagesSkeleton(t *testing.T) {
	model := &core.Model{ID: "m", Provider: "p", API: "a", Input: []string{"text"}}
	call := func(id string) core.Content { return core.Content{Type: core.ContentToolCall, ID: id, Name: "ls"} }
	img := core.Content{Type: core.ContentImage, Data: "AAAA", MimeType: "image/png"}
	in := []core.Message{
		&core.UserMessage{Content: []core.Content{img, img, core.TextBlock("look")}},
		&core.AssistantMessage{Model: "m", Provider: "p", API: "a", StopReason: core.StopReasonError, Content: []core.Content{call("dead")}},
		&core.ToolResultMessage{ToolCallID: "dead", Content: []core.Content{core.TextBlock("x")}},
		&core.AssistantMessage{Model: "m", Provider: "p", API: "a", StopReason: core.StopReasonToolUse, Content: []core.Content{call("c1"), call("c2")}},
		&core.ToolResultMessage{ToolCallID: "c1", Content: []core.Content{core.TextBlock("ok")}},
		&core.ToolResultMessage{ToolCallID: "c1", Content: []core.Content{core.TextBlock("again")}},
		&core.UserMessage{Content: []core.Content{core.TextBlock("next")}},
	}
	out := Messages(in, model, Rules{})
	var got []string
	for _, m := range out {
		switch m := m.(type) {
		case *core.UserMessage:
			s := "user:"
			for _, b := range m.Content {
				s += "[" + b.Text + "]"
			}
			got = append(got, s)
		case *core.AssistantMessage:
			got = append(got, "assistant:"+m.Content[0].ID+","+m.Content[1].ID)
		case *core.ToolResultMessage:
			got = append(got, "result:"+m.ToolCallID+":"+m.Content[0].Text)
		}
	}
	want := []string{
		"user:[" + ImageOmitted + "][look]",
		"assistant:c1,c2",
		"result:c1:ok",
		"result:c2:" + NoResultProvided,
		"user:[next]",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("message %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if in[0].(*core.UserMessage).Content[0].Type != core.ContentImage {
		t.Fatal("the input was modified")
	}
}

// TestCallIDRemapsResults: a provider's id rule renames calls and their results follow.
func TestCallIDRemapsResults(t *testing.T) {
	model := &core.Model{ID: "m", Provider: "p", API: "a"}
	in := []core.Message{
		&core.AssistantMessage{Model: "other", Provider: "q", API: "b", StopReason: core.StopReasonToolUse,
			Content: []core.Content{{Type: core.ContentToolCall, ID: "call|item", Name: "ls", ThoughtSignature: "sig"}}},
		&core.ToolResultMessage{ToolCallID: "call|item", Content: []core.Content{core.TextBlock("ok")}},
	}
	out := Messages(in, model, Rules{CallID: func(id string, same bool) string {
		if same {
			t.Error("a message from another model reported as the same")
		}
		return ReplaceIDChars(id, 64)
	}})
	a := out[0].(*core.AssistantMessage)
	r := out[1].(*core.ToolResultMessage)
	if a.Content[0].ID != "call_item" || a.Content[0].ThoughtSignature != "" || r.ToolCallID != "call_item" {
		t.Fatalf("call %+v, result id %q", a.Content[0], r.ToolCallID)
	}
}

// TestSendBlock: another model's text loses its signature and its thinking goes as text
// (redacted or blank dropped); the same model's blank thinking is dropped unless keep
// takes it.
func TestSendBlock(t *testing.T) {
	signed := func(b core.Content) bool { return b.ThinkingSignature != "" }
	think := func(text, sig string) core.Content {
		return core.Content{Type: core.ContentThinking, Thinking: text, ThinkingSignature: sig}
	}
	for _, tc := range []struct {
		name string
		keep func(core.Content) bool
		b    core.Content
		same bool
		want core.Content
		ok   bool
	}{
		{"other's text", nil, core.Content{Type: core.ContentText, Text: "t", TextSignature: "s"}, false, core.TextBlock("t"), true},
		{"own text", nil, core.Content{Type: core.ContentText, Text: "t", TextSignature: "s"}, true, core.Content{Type: core.ContentText, Text: "t", TextSignature: "s"}, true},
		{"other's thinking", nil, think("hm", "s"), false, core.TextBlock("hm"), true},
		{"other's blank thinking", signed, think(" ", "s"), false, think(" ", "s"), false},
		{"own thinking", nil, think("hm", ""), true, think("hm", ""), true},
		{"own blank thinking", nil, think(" ", "s"), true, think(" ", "s"), false},
		{"own blank thinking kept", signed, think(" ", "s"), true, think(" ", "s"), true},
		{"own blank unsigned thinking", signed, think(" ", ""), true, think(" ", ""), false},
	} {
		got, ok := SendBlock(tc.keep)(tc.b, tc.same)
		if !reflect.DeepEqual(got, tc.want) || ok != tc.ok {
			t.Errorf("%s: got %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
