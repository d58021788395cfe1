package core_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

// builderEvents records a builder's events as lines, with the stop reason the message has
// when each event is emitted.
type builderEvents struct{ lines []string }

func (r *builderEvents) yield(ev core.AssistantEvent) bool {
	s := string(ev.Type)
	switch ev.Type {
	case core.EventStart:
		s += " " + string(ev.Partial.StopReason)
	case core.EventTextDelta, core.EventThinkingDelta, core.EventToolCallDelta:
		s += fmt.Sprintf(" %d %q", ev.ContentIndex, ev.Delta)
	case core.EventTextEnd, core.EventThinkingEnd:
		s += fmt.Sprintf(" %d %q", ev.ContentIndex, ev.Content)
	case core.EventToolCallEnd:
		args, _ := json.Marshal(ev.ToolCall.Arguments)
		s += fmt.Sprintf(" %d %s", ev.ContentIndex, args)
	case core.EventError, core.EventDone:
		s += " " + string(ev.Reason)
	default:
		s += fmt.Sprintf(" %d", ev.ContentIndex)
	}
	r.lines = append(r.lines, s)
	return true
}

// An abort ends the open blocks in content order, with their content as it stood, before
// the error event; any other failure cuts the stream off where it was.
func TestBuilderFailEndsOpenBlocksOnAbort(t *testing.T) {
	model := &core.Model{ID: "m", API: "a", Provider: "p"}
	for _, tc := range []struct {
		name    string
		stream  func(b *core.MessageBuilder)
		failure *core.ProviderError
		want    []string
	}{
		{
			name:    "abort mid-text",
			stream:  func(b *core.MessageBuilder) { b.Text("hel") },
			failure: core.Aborted(),
			want:    []string{"start stop", "text_start 0", `text_delta 0 "hel"`, `text_end 0 "hel"`, "error aborted"},
		},
		{
			name:    "abort mid-thinking",
			stream:  func(b *core.MessageBuilder) { b.Thinking("hm", "reasoning"); b.Thinking("m", "reasoning") },
			failure: core.Aborted(),
			want:    []string{"start stop", "thinking_start 0", `thinking_delta 0 "hm"`, `thinking_delta 0 "m"`, `thinking_end 0 "hmm"`, "error aborted"},
		},
		{
			name: "abort mid-tool-arguments",
			stream: func(b *core.MessageBuilder) {
				b.ToolCall(0, "c1", "read", `{"path":"a`)
				b.ToolCall(1, "c2", "ls", `{"pa`)
			},
			failure: core.Aborted(),
			want: []string{
				"start stop", "toolcall_start 0", `toolcall_delta 0 "{\"path\":\"a"`, "toolcall_start 1", `toolcall_delta 1 "{\"pa"`,
				`toolcall_end 0 {"path":"a"}`, `toolcall_end 1 {}`, "error aborted",
			},
		},
		{
			name: "abort with text after a tool call ends them in content order",
			stream: func(b *core.MessageBuilder) {
				b.ToolCall(0, "c1", "read", `{"path":"a"}`)
				b.Text("and")
			},
			failure: core.Aborted(),
			want: []string{
				"start stop", "toolcall_start 0", `toolcall_delta 0 "{\"path\":\"a\"}"`, "text_start 1", `text_delta 1 "and"`,
				`toolcall_end 0 {"path":"a"}`, `text_end 1 "and"`, "error aborted",
			},
		},
		{
			name:    "error mid-text",
			stream:  func(b *core.MessageBuilder) { b.Text("hel") },
			failure: &core.ProviderError{Kind: core.ErrorRetryable, Message: "connection lost"},
			want:    []string{"start stop", "text_start 0", `text_delta 0 "hel"`, "error error"},
		},
		{
			name:    "error before any content",
			stream:  func(*core.MessageBuilder) {},
			failure: &core.ProviderError{Kind: core.ErrorAuth, Message: "401 bad key"},
			want:    []string{"start error", "error error"},
		},
		{
			name:    "abort before any content",
			stream:  func(*core.MessageBuilder) {},
			failure: core.Aborted(),
			want:    []string{"start aborted", "error aborted"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec builderEvents
			b := core.NewMessageBuilder(model, 1, rec.yield)
			tc.stream(b)
			if !b.Fail(tc.failure) {
				t.Fatal("Fail reported a stopped consumer")
			}
			eq(t, "events", rec.lines, tc.want)
			msg := b.Message()
			if msg.ErrorMessage != tc.failure.Message || msg.Failure != tc.failure {
				t.Errorf("message error %q failure %+v", msg.ErrorMessage, msg.Failure)
			}
		})
	}
}
