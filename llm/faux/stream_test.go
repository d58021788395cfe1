package faux_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

func TestStreamEvents(t *testing.T) {
	tests := []struct {
		name        string
		step        faux.Step
		want        []string
		wantContent string
		wantReason  core.StopReason
	}{
		{
			name: "text",
			step: faux.Reply(faux.Text("Hello world")),
			want: []string{
				"start",
				"text_start 0", `text_delta 0 "Hell"`, `text_delta 0 "o wo"`, `text_delta 0 "rld"`, `text_end 0 "Hello world"`,
				"done stop",
			},
			wantContent: `[{"type":"text","text":"Hello world"}]`,
			wantReason:  core.StopReasonStop,
		},
		{
			name: "thinking then text",
			step: faux.Reply(faux.Thinking("Hmm."), faux.Text("Yes")),
			want: []string{
				"start",
				"thinking_start 0", `thinking_delta 0 "Hmm."`, `thinking_end 0 "Hmm."`,
				"text_start 1", `text_delta 1 "Yes"`, `text_end 1 "Yes"`,
				"done stop",
			},
			wantContent: `[{"type":"thinking","thinking":"Hmm."},{"type":"text","text":"Yes"}]`,
			wantReason:  core.StopReasonStop,
		},
		{
			name: "consecutive text blocks stay separate",
			step: faux.Reply(faux.Text("ab"), faux.Text("cd")),
			want: []string{
				"start",
				"text_start 0", `text_delta 0 "ab"`, `text_end 0 "ab"`,
				"text_start 1", `text_delta 1 "cd"`, `text_end 1 "cd"`,
				"done stop",
			},
			wantContent: `[{"type":"text","text":"ab"},{"type":"text","text":"cd"}]`,
			wantReason:  core.StopReasonStop,
		},
		{
			name: "empty text is one empty delta",
			step: faux.Reply(faux.Text("")),
			want: []string{
				"start", "text_start 0", `text_delta 0 ""`, `text_end 0 ""`, "done stop",
			},
			wantContent: `[{"type":"text","text":""}]`,
			wantReason:  core.StopReasonStop,
		},
		{
			name: "tool calls",
			step: faux.Reply(
				faux.Text("On it"),
				faux.ToolCall("read", map[string]any{"path": "a"}),
				faux.ToolCallWithID("tool-9", "bash", map[string]any{"command": "a && b"}),
				faux.ToolCall("ls", nil),
			),
			want: []string{
				"start",
				"text_start 0", `text_delta 0 "On i"`, `text_delta 0 "t"`, `text_end 0 "On it"`,
				"toolcall_start 1 id=call_1 name=read",
				`toolcall_delta 1 "{\"pa"`, `toolcall_delta 1 "th\":"`, `toolcall_delta 1 "\"a\"}"`,
				`toolcall_end 1 id=call_1 name=read {"path":"a"}`,
				"toolcall_start 2 id=tool-9 name=bash",
				`toolcall_delta 2 "{\"co"`, `toolcall_delta 2 "mman"`, `toolcall_delta 2 "d\":\""`,
				`toolcall_delta 2 "a &&"`, `toolcall_delta 2 " b\"}"`,
				`toolcall_end 2 id=tool-9 name=bash {"command":"a \u0026\u0026 b"}`,
				"toolcall_start 3 id=call_2 name=ls", `toolcall_delta 3 "{}"`, `toolcall_end 3 id=call_2 name=ls {}`,
				"done toolUse",
			},
			wantContent: `[{"type":"text","text":"On it"},` +
				`{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"a"}},` +
				`{"type":"toolCall","id":"tool-9","name":"bash","arguments":{"command":"a \u0026\u0026 b"}},` +
				`{"type":"toolCall","id":"call_2","name":"ls","arguments":{}}]`,
			wantReason: core.StopReasonToolUse,
		},
		{
			name: "explicit stop reason length",
			step: faux.Step{Content: []faux.Block{faux.ToolCall("ls", nil)}, StopReason: core.StopReasonLength},
			want: []string{
				"start", "toolcall_start 0 id=call_1 name=ls", `toolcall_delta 0 "{}"`,
				"toolcall_end 0 id=call_1 name=ls {}", "done length",
			},
			wantContent: `[{"type":"toolCall","id":"call_1","name":"ls","arguments":{}}]`,
			wantReason:  core.StopReasonLength,
		},
		{
			name: "deltas streamed as given",
			step: faux.Reply(faux.TextDeltas("a", "bcdefgh", "i"),
				faux.Block{Type: core.ContentToolCall, Name: "x", Deltas: []string{`{"k":`, `1`}}),
			want: []string{
				"start",
				"text_start 0", `text_delta 0 "a"`, `text_delta 0 "bcdefgh"`, `text_delta 0 "i"`, `text_end 0 "abcdefghi"`,
				"toolcall_start 1 id=call_1 name=x", `toolcall_delta 1 "{\"k\":"`, `toolcall_delta 1 "1"`,
				`toolcall_end 1 id=call_1 name=x {"k":1}`,
				"done toolUse",
			},
			wantContent: `[{"type":"text","text":"abcdefghi"},{"type":"toolCall","id":"call_1","name":"x","arguments":{"k":1}}]`,
			wantReason:  core.StopReasonToolUse,
		},
		{
			name: "step chunk size overrides provider",
			step: faux.Step{Content: []faux.Block{faux.Text("héllo")}, ChunkSize: 1},
			want: []string{
				"start", "text_start 0",
				`text_delta 0 "h"`, `text_delta 0 "é"`, `text_delta 0 "l"`, `text_delta 0 "l"`, `text_delta 0 "o"`,
				`text_end 0 "héllo"`, "done stop",
			},
			wantContent: `[{"type":"text","text":"héllo"}]`,
			wantReason:  core.StopReasonStop,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(faux.WithChunkSize(4))
			p.SetResponses(tc.step)
			got, msg := run(t, p, context.Background(), userRequest("hi"))
			checkLines(t, got, tc.want)
			if c := contentJSON(t, msg); c != tc.wantContent {
				t.Errorf("content: got %s, want %s", c, tc.wantContent)
			}
			if msg.StopReason != tc.wantReason {
				t.Errorf("stopReason: got %q, want %q", msg.StopReason, tc.wantReason)
			}
			if msg.API != "faux" || msg.Provider != "faux" || msg.Model != "faux-1" || msg.Timestamp != 1000 {
				t.Errorf("message header: got api=%q provider=%q model=%q timestamp=%d, want faux faux faux-1 1000",
					msg.API, msg.Provider, msg.Model, msg.Timestamp)
			}
			if msg.ErrorMessage != "" {
				t.Errorf("errorMessage: got %q, want empty", msg.ErrorMessage)
			}
		})
	}
}

// TestToolArgumentsRoundTrip checks that the fragments reassemble to the JSON of the scripted
// arguments and that toolcall_end carries arguments equal to them.
func TestToolArgumentsRoundTrip(t *testing.T) {
	args := map[string]any{
		"path":    "dir/file with spaces.go",
		"edits":   []any{map[string]any{"oldText": "a\n\"b\"", "newText": "ü ∑ 😀"}},
		"limit":   float64(20),
		"recurse": true,
		"none":    nil,
	}
	for _, chunk := range []int{0, 1, 3, 1000} {
		p := newProvider(faux.WithChunkSize(chunk))
		p.SetResponses(faux.Reply(faux.ToolCall("edit", args)))
		var fragments strings.Builder
		var end *core.Content
		for ev := range p.Stream(context.Background(), userRequest("x")) {
			switch ev.Type {
			case core.EventToolCallDelta:
				fragments.WriteString(ev.Delta)
			case core.EventToolCallEnd:
				c := *ev.ToolCall
				end = &c
			}
		}
		want, _ := json.Marshal(args)
		var gotArgs, wantArgs any
		if err := json.Unmarshal([]byte(fragments.String()), &gotArgs); err != nil {
			t.Fatalf("chunk %d: fragments %q do not parse: %v", chunk, fragments.String(), err)
		}
		_ = json.Unmarshal(want, &wantArgs)
		if g, w := mustJSON(t, gotArgs), mustJSON(t, wantArgs); g != w {
			t.Errorf("chunk %d: fragments: got %s, want %s", chunk, g, w)
		}
		if end == nil {
			t.Fatalf("chunk %d: no toolcall_end", chunk)
		}
		if g, w := mustJSON(t, end.Arguments), string(want); g != w {
			t.Errorf("chunk %d: toolcall_end arguments: got %s, want %s", chunk, g, w)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(data)
}

func TestErrorSteps(t *testing.T) {
	tests := []struct {
		name      string
		step      faux.Step
		want      []string
		wantMsg   string
		wantKind  core.ErrorKind
		wantAfter bool
	}{
		{
			name:    "fail helper",
			step:    faux.Fail("boom"),
			want:    []string{"start error", "error error"},
			wantMsg: "boom",
		},
		{
			name: "error after content keeps it",
			step: faux.Step{
				Content:    []faux.Block{faux.Text("part")},
				StopReason: core.StopReasonError, ErrorMessage: "overloaded",
				ErrorKind: core.ErrorRetryable, RetryAfter: 2 * time.Second,
			},
			want:      []string{"start", "text_start 0", `text_delta 0 "part"`, `text_end 0 "part"`, "error error"},
			wantMsg:   "overloaded",
			wantKind:  core.ErrorRetryable,
			wantAfter: true,
		},
		{
			name:     "scripted aborted",
			step:     faux.Step{StopReason: core.StopReasonAborted},
			want:     []string{"start aborted", "error aborted"},
			wantMsg:  "Request was aborted",
			wantKind: core.ErrorAborted,
		},
		{
			name:     "unsupported block type",
			step:     faux.Reply(faux.Block{Type: core.ContentImage}),
			want:     []string{"start error", "error error"},
			wantMsg:  `faux: content[0]: unsupported block type "image"`,
			wantKind: core.ErrorOther,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider(faux.WithChunkSize(4))
			p.SetResponses(tc.step)
			got, msg := run(t, p, context.Background(), userRequest("hi"))
			checkLines(t, got, tc.want)
			if msg.ErrorMessage != tc.wantMsg {
				t.Errorf("errorMessage: got %q, want %q", msg.ErrorMessage, tc.wantMsg)
			}
			if msg.Failure == nil {
				t.Fatalf("Failure: got nil, want kind %q", tc.wantKind)
			}
			if msg.Failure.Kind != tc.wantKind {
				t.Errorf("Failure.Kind: got %q, want %q", msg.Failure.Kind, tc.wantKind)
			}
			if msg.Failure.HasRetryAfter != tc.wantAfter {
				t.Errorf("HasRetryAfter: got %v, want %v", msg.Failure.HasRetryAfter, tc.wantAfter)
			}
		})
	}
}

func TestQueueEmpty(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text("one")))
	run(t, p, context.Background(), userRequest("a"))
	got, msg := run(t, p, context.Background(), userRequest("b"))
	checkLines(t, got, []string{"start error", "error error"})
	if msg.ErrorMessage != "No more faux responses queued" {
		t.Errorf("errorMessage: got %q, want %q", msg.ErrorMessage, "No more faux responses queued")
	}
	if msg.StopReason != core.StopReasonError {
		t.Errorf("stopReason: got %q, want error", msg.StopReason)
	}
	if msg.Failure == nil || msg.Failure.Kind != core.ErrorOther {
		t.Errorf("Failure: got %+v, want kind other", msg.Failure)
	}
	if msg.Usage.Input == 0 {
		t.Errorf("usage.input: got 0, want the context estimate")
	}
	if n := p.CallCount(); n != 2 {
		t.Errorf("CallCount: got %d, want 2", n)
	}
	if n := p.PendingCount(); n != 0 {
		t.Errorf("PendingCount: got %d, want 0", n)
	}
}

func TestQueueManagement(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text("a")), faux.Reply(faux.Text("b")))
	p.AppendResponses(faux.Reply(faux.Text("c")))
	if n := p.PendingCount(); n != 3 {
		t.Errorf("PendingCount after append: got %d, want 3", n)
	}
	p.SetResponses(faux.Reply(faux.Text("x")))
	if n := p.PendingCount(); n != 1 {
		t.Errorf("PendingCount after set: got %d, want 1", n)
	}
	p.AppendResponses(faux.Reply(faux.Text("y")))
	var texts []string
	for range 2 {
		_, msg := run(t, p, context.Background(), userRequest("q"))
		texts = append(texts, core.TextOf(msg.Content))
	}
	if strings.Join(texts, ",") != "x,y" {
		t.Errorf("replies: got %v, want [x y]", texts)
	}
	if got := p.Model(); got.ID != "faux-1" || got.ContextWindow != 128000 || got.MaxTokens != 16384 {
		t.Errorf("Model: got %+v, want the default faux-1", got)
	}
}

// TestStepTakenAtCall checks that steps are consumed in call order, not iteration order.
func TestStepTakenAtCall(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text("first")), faux.Reply(faux.Text("second")))
	s1 := p.Stream(context.Background(), userRequest("1"))
	s2 := p.Stream(context.Background(), userRequest("2"))
	_, m2 := collect(t, s2)
	_, m1 := collect(t, s1)
	if a, b := core.TextOf(m1.Content), core.TextOf(m2.Content); a != "first" || b != "second" {
		t.Errorf("replies: got %q, %q, want first, second", a, b)
	}
}

func TestConsumerStopsEarly(t *testing.T) {
	p := newProvider(faux.WithChunkSize(1))
	p.SetResponses(faux.Reply(faux.Text("abcdef"), faux.ToolCall("x", map[string]any{"a": 1})))
	for stopAt := range 12 {
		n := 0
		for range p.Stream(context.Background(), userRequest("q")) {
			if n == stopAt {
				break
			}
			n++
		}
		p.AppendResponses(faux.Reply(faux.Text("abcdef"), faux.ToolCall("x", map[string]any{"a": 1})))
	}
}
