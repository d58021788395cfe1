package faux_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

func TestFactorySeesRequest(t *testing.T) {
	p := newProvider()
	echo := faux.Func(func(_ context.Context, req *core.Request, callIndex int) faux.Step {
		last := req.Messages[len(req.Messages)-1].(*core.UserMessage)
		return faux.Reply(faux.Text(fmt.Sprintf("%d:%s:%s", callIndex, req.SystemPrompt, core.TextOf(last.Content))))
	})
	p.SetResponses(faux.Reply(faux.Text("plain")), echo, echo)
	var got []string
	for _, q := range []string{"a", "b", "c"} {
		req := userRequest(q)
		req.SystemPrompt = "sys"
		_, msg := run(t, p, context.Background(), req)
		got = append(got, core.TextOf(msg.Content))
	}
	if want := []string{"plain", "1:sys:b", "2:sys:c"}; !slices.Equal(got, want) {
		t.Errorf("replies: got %q, want %q", got, want)
	}
}

func TestFactoryPanicFailsTheCall(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Func(func(context.Context, *core.Request, int) faux.Step { panic("oops") }))
	got, msg := run(t, p, context.Background(), userRequest("q"))
	checkLines(t, got, []string{"start error", "error error"})
	if want := "faux: step factory panicked: oops"; msg.ErrorMessage != want {
		t.Errorf("errorMessage: got %q, want %q", msg.ErrorMessage, want)
	}
}

func TestRequestsRecorded(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text("one")), faux.Reply(faux.Text("two")))

	temp := 0.5
	req := &core.Request{
		Model:        faux.DefaultModel(),
		SystemPrompt: "sys",
		Messages:     []core.Message{core.NewUserMessage("first", nil, 1)},
		Tools:        []core.ToolSpec{{Name: "echo", Description: "Echo", Parameters: []byte(`{"type":"object"}`)}},
		Temperature:  &temp,
		SessionID:    "s1",
	}
	_, first := run(t, p, context.Background(), req)

	// The agent appends the reply and a tool result, then calls again.
	first.Content = append(first.Content, core.ToolCallBlock("call_9", "echo", map[string]any{"v": []any{"x"}}))
	req.Messages = append(req.Messages, first, &core.ToolResultMessage{
		ToolCallID: "call_9", ToolName: "echo", Content: []core.Content{core.TextBlock("echoed")},
	})
	run(t, p, context.Background(), req)

	// Later changes to the transcript must not show in the recorded requests.
	req.Messages[0].(*core.UserMessage).Content[0].Text = "changed"
	first.Content[1].Arguments["v"].([]any)[0] = "changed"
	req.Tools[0].Parameters[0] = 'X'
	temp = 9

	got := p.Requests()
	if len(got) != 2 {
		t.Fatalf("Requests: got %d, want 2", len(got))
	}
	if n := len(got[0].Messages); n != 1 {
		t.Errorf("request 0 messages: got %d, want 1", n)
	}
	if n := len(got[1].Messages); n != 3 {
		t.Fatalf("request 1 messages: got %d, want 3", n)
	}
	if s := core.TextOf(got[0].Messages[0].(*core.UserMessage).Content); s != "first" {
		t.Errorf("request 0 user text: got %q, want first", s)
	}
	asst := got[1].Messages[1].(*core.AssistantMessage)
	if v := asst.Content[1].Arguments["v"].([]any)[0]; v != "x" {
		t.Errorf("request 1 tool argument: got %v, want x", v)
	}
	if s := string(got[0].Tools[0].Parameters); s != `{"type":"object"}` {
		t.Errorf("request 0 tool parameters: got %s, want {\"type\":\"object\"}", s)
	}
	if *got[0].Temperature != 0.5 || got[0].SystemPrompt != "sys" || got[0].SessionID != "s1" {
		t.Errorf("request 0 options: got temperature %v system %q session %q, want 0.5 sys s1",
			*got[0].Temperature, got[0].SystemPrompt, got[0].SessionID)
	}
	if roles := strings.Join(testkit.Roles(got[1].Messages), ","); roles != "user,assistant,toolResult" {
		t.Errorf("request 1 roles: got %s, want user,assistant,toolResult", roles)
	}
}

func TestUsageEstimate(t *testing.T) {
	priced := faux.DefaultModel()
	priced.Cost = core.ModelCost{Input: 3, Output: 15}
	req := &core.Request{
		Model:        priced,
		SystemPrompt: "You are terse.",
		Messages:     []core.Message{core.NewUserMessage("Hello", []core.Content{core.ImageBlock("QUJD", "image/png")}, 1)},
		Tools:        []core.ToolSpec{{Name: "echo", Description: "Echo", Parameters: []byte(`{"type":"object"}`)}},
	}
	prompt := "system:You are terse.\n\nuser:Hello\n[image:image/png:4]\n\n" +
		`tools:[{"name":"echo","description":"Echo","parameters":{"type":"object"}}]`
	promptTokens := (len(prompt) + 3) / 4

	tests := []struct {
		name string
		step faux.Step
		want core.Usage
	}{
		{
			name: "estimated",
			step: faux.Reply(faux.Text("Hi there!")),
			want: core.Usage{Input: promptTokens, Output: 3},
		},
		{
			name: "tool call counts name and arguments",
			step: faux.Reply(faux.Text("ok"), faux.ToolCall("echo", map[string]any{"v": "😀"})),
			// "ok\necho:{\"v\":\"😀\"}": 3 + 5 + 10 (the emoji is two UTF-16 units) = 18 -> 5
			want: core.Usage{Input: promptTokens, Output: 5},
		},
		{
			name: "explicit",
			step: faux.Step{Content: []faux.Block{faux.Text("x")}, Usage: &core.Usage{Input: 1000, Output: 2000, CacheRead: 10}},
			want: core.Usage{Input: 1000, Output: 2000, CacheRead: 10},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newProvider()
			p.SetResponses(tc.step)
			_, msg := run(t, p, context.Background(), req)
			want := tc.want
			want.TotalTokens = want.Input + want.Output + want.CacheRead + want.CacheWrite
			want.Cost = priced.CostOf(want)
			if msg.Usage != want {
				t.Errorf("usage: got %+v, want %+v", msg.Usage, want)
			}
			if msg.Usage.Cost.Total == 0 && want.Input+want.Output > 0 {
				t.Errorf("cost: got 0, want a priced cost")
			}
		})
	}
}

// TestUsagePromptCache checks pi's cache simulation: per session id, the prefix shared with
// the previous prompt is read from cache and the rest written.
func TestUsagePromptCache(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text("a")), faux.Reply(faux.Text("b")), faux.Reply(faux.Text("c")))
	req := userRequest("Hello there")
	req.SessionID = "s"
	_, m1 := run(t, p, context.Background(), req)
	first := "user:Hello there"
	if want := (core.Usage{Input: 4, Output: 1, CacheWrite: 4, TotalTokens: 9}); m1.Usage != want {
		t.Errorf("first call: got %+v, want %+v", m1.Usage, want)
	}
	req.Messages = append(req.Messages, m1, core.NewUserMessage("More please", nil, 2))
	second := first + "\n\nassistant:a\n\nuser:More please"
	_, m2 := run(t, p, context.Background(), req)
	read, write := (len(first)+3)/4, (len(second)-len(first)+3)/4
	want := core.Usage{Input: (len(second)+3)/4 - read, Output: 1, CacheRead: read, CacheWrite: write}
	want.TotalTokens = want.Input + want.Output + want.CacheRead + want.CacheWrite
	if m2.Usage != want {
		t.Errorf("second call: got %+v, want %+v", m2.Usage, want)
	}
	other := userRequest("Hello there")
	_, m3 := run(t, p, context.Background(), other)
	if m3.Usage.CacheRead != 0 || m3.Usage.CacheWrite != 0 {
		t.Errorf("call without session: got cache %d/%d, want 0/0", m3.Usage.CacheRead, m3.Usage.CacheWrite)
	}
}

func TestRequestModelUsed(t *testing.T) {
	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text("a")), faux.Reply(faux.Text("b")))
	req := userRequest("q")
	req.Model = core.Model{ID: "other", API: "faux", Provider: "elsewhere"}
	_, msg := run(t, p, context.Background(), req)
	if msg.Model != "other" || msg.Provider != "elsewhere" {
		t.Errorf("message model: got %s/%s, want elsewhere/other", msg.Provider, msg.Model)
	}
	req.Model = core.Model{}
	_, msg = run(t, p, context.Background(), req)
	if msg.Model != "faux-1" {
		t.Errorf("message model without request model: got %q, want faux-1", msg.Model)
	}
}

// TestDeterminism runs the same script on two fresh providers with the default (random-sized)
// chunking and expects identical streams, with chunk sizes in pi's 12 to 20 runes.
func TestDeterminism(t *testing.T) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	script := func() []faux.Step {
		return []faux.Step{
			faux.Reply(faux.Thinking(long), faux.Text(long), faux.ToolCall("write", map[string]any{"content": long})),
			faux.Reply(faux.Text(long)),
		}
	}
	transcript := func() []string {
		p := newProvider()
		p.SetResponses(script()...)
		var all []string
		for range 2 {
			lines, _ := run(t, p, context.Background(), userRequest("go"))
			all = append(all, lines...)
		}
		return all
	}
	a, b := transcript(), transcript()
	checkLines(t, b, a)

	p := newProvider()
	p.SetResponses(faux.Reply(faux.Text(long)))
	sizes := map[int]bool{}
	var deltas []string
	for ev := range p.Stream(context.Background(), userRequest("go")) {
		if ev.Type == core.EventTextDelta {
			deltas = append(deltas, ev.Delta)
		}
	}
	for i, d := range deltas[:len(deltas)-1] {
		n := utf8.RuneCountInString(d)
		if n < 12 || n > 20 || n%4 != 0 {
			t.Errorf("delta %d: got %d runes, want 12, 16 or 20", i, n)
		}
		sizes[n] = true
	}
	if len(sizes) < 2 {
		t.Errorf("delta sizes: got only %v, want pi's varying sizes", sizes)
	}

	seeded := newProvider(faux.WithSeed(42))
	seeded.SetResponses(faux.Reply(faux.Text(long)))
	other, _ := run(t, seeded, context.Background(), userRequest("go"))
	first, _ := run(t, func() *faux.Provider {
		p := newProvider()
		p.SetResponses(faux.Reply(faux.Text(long)))
		return p
	}(), context.Background(), userRequest("go"))
	if slices.Equal(other, first) {
		t.Errorf("seed 42 streamed the same deltas as seed 0")
	}
}

func TestTokenSizeOption(t *testing.T) {
	p := newProvider(faux.WithTokenSize(1, 1))
	p.SetResponses(faux.Reply(faux.Text("abcdefghij")))
	got, _ := run(t, p, context.Background(), userRequest("q"))
	checkLines(t, got, []string{
		"start", "text_start 0", `text_delta 0 "abcd"`, `text_delta 0 "efgh"`, `text_delta 0 "ij"`,
		`text_end 0 "abcdefghij"`, "done stop",
	})
}

// TestConcurrentStreams exercises the provider's locking under the race detector.
func TestConcurrentStreams(t *testing.T) {
	p := newProvider()
	const n = 8
	for range n {
		p.AppendResponses(faux.Reply(faux.Text("hello"), faux.ToolCall("x", nil)))
	}
	done := make(chan struct{})
	for range n {
		go func() {
			defer func() { done <- struct{}{} }()
			for range p.Stream(context.Background(), userRequest("q")) {
			}
			_ = p.Requests()
			_ = p.PendingCount()
		}()
	}
	for range n {
		<-done
	}
	if c := p.CallCount(); c != n {
		t.Errorf("CallCount: got %d, want %d", c, n)
	}
}
