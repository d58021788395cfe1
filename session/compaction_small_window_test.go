package session_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// A local model with an 8,000-token window and pi's default settings (16,384 reserved,
// 20,000 kept): fitted to the window, 2,000 are reserved and 2,200 kept (docs/sessions.md).
func eightKModel() *core.Model { return windowModel(8000) }

// sized is a text of exactly n characters (n/4 estimated tokens) starting with label.
func sized(label string, n int) string {
	return label + strings.Repeat(".", n-len(label))
}

// estimatedTokens estimates a request's input as compaction does (4 characters a token).
func estimatedTokens(req *core.Request) int {
	chars := len(req.SystemPrompt)
	for _, m := range req.Messages {
		if u, ok := m.(*core.UserMessage); ok {
			chars += len(core.TextOf(u.Content))
		}
	}
	return chars / 4
}

// After a long conversation, an 8k model overflows. The history (12 exchanges of 500 + 300
// tokens) all fits in the configured keepRecentTokens (20,000), so the cut uses the budget
// fitted to the window: walking back from the prompt (100) over exchanges 12, 11 and 10, the
// kept part reaches 2,200 at the 10th question. The nine exchanges before it (about 29,000
// characters) are more than one summary request may carry in 8,000 tokens, so they are
// summarised in two requests, the second updating the first's summary; then the retry
// succeeds.
func TestOverflowOnSmallWindowCompactsWithTheFittedBudget(t *testing.T) {
	const exchanges = 12
	var steps []faux.Step
	for i := 1; i <= exchanges; i++ {
		steps = append(steps, withUsage(faux.Reply(faux.Text(sized(fmt.Sprintf("answer %d", i), 1200))), 500))
	}
	overflow := overflowFailure("request (8120 tokens) exceeds the available context size (8000 tokens), try increasing it")
	steps = append(steps, overflow,
		faux.Reply(faux.Text("## Goal\nfirst part")),
		faux.Reply(faux.Text("## Goal\nwhole history")),
		withUsage(faux.Reply(faux.Text("final answer")), 3000),
	)
	h := newHarness(t, harnessOpts{model: eightKModel()}, steps...)
	for i := 1; i <= exchanges; i++ {
		h.prompt(sized(fmt.Sprintf("question %d", i), 2000))
		if st := h.settle(); st.Error != nil {
			t.Fatalf("exchange %d: %+v", i, st.Error)
		}
	}
	if n := len(h.sink.ofType("compaction_start")); n != 0 {
		t.Fatalf("%d compactions during the history, want none", n)
	}
	n := len(h.sink.outline())
	before := len(h.model.Requests())
	a := h.prompt(sized("the prompt", 400))
	st := h.settle()
	if st.Error != nil {
		t.Fatalf("settled with %+v", st.Error)
	}
	in := a.InputID
	eq(t, "events", h.sink.outline()[n:], []string{
		"agent_start", "message_start:user:" + in, "message_end:user:" + in, "message_start:assistant", "message_end:assistant", "agent_end",
		"compaction_start(overflow)", "compaction_end(overflow)",
		"agent_start", "message_start:assistant", "message_end:assistant", "agent_end",
		"agent_settled[" + in + "=completed]",
	})
	end := h.sink.ofType("compaction_end")[0]
	if end["willRetry"] != true || end["errorMessage"] != nil {
		t.Fatalf("compaction_end = %v", end)
	}

	reqs := h.model.Requests()[before:]
	if len(reqs) != 4 {
		t.Fatalf("%d requests after the prompt, want overflow, two summaries, retry", len(reqs))
	}
	for i, req := range reqs[1:3] {
		if req.MaxTokens != 1600 {
			t.Errorf("summary %d: maxTokens %d, want 0.8 × the fitted reserve (1600)", i+1, req.MaxTokens)
		}
		if got := estimatedTokens(req) + req.MaxTokens; got > 8000 {
			t.Errorf("summary %d: about %d tokens with its output, more than the window", i+1, got)
		}
	}
	first := core.TextOf(reqs[1].Messages[0].(*core.UserMessage).Content)
	second := core.TextOf(reqs[2].Messages[0].(*core.UserMessage).Content)
	if !strings.Contains(first, "[User]: question 1.") || strings.Contains(first, "<previous-summary>") {
		t.Errorf("first summary request does not start the history afresh")
	}
	if !strings.Contains(second, "[Assistant]: answer 9.") || !strings.Contains(second, "<previous-summary>\n## Goal\nfirst part\n</previous-summary>") {
		t.Errorf("second summary request does not update the first summary with the rest of the history")
	}
	if strings.Contains(first+second, "question 10.") {
		t.Errorf("a kept message was summarised")
	}

	// The compaction keeps from the 10th question; the retry sends the summary, the last three
	// exchanges and the prompt.
	var question10 string
	for _, e := range h.store.Entries() {
		if e.Type == session.EntryMessage && e.Message.Role() == core.RoleUser && strings.HasPrefix(core.TextOf(e.Message.(*core.UserMessage).Content), "question 10.") {
			question10 = e.ID
		}
	}
	result := end["result"].(map[string]any)
	if result["firstKeptEntryId"] != question10 {
		t.Fatalf("firstKeptEntryId %v, want the 10th question's entry %s", result["firstKeptEntryId"], question10)
	}
	retry := reqs[3].Messages
	var got []string
	for _, m := range retry {
		text := core.TextOf(contentOf(m))
		got = append(got, string(m.Role())+":"+strings.TrimRight(text[:min(len(text), 20)], "."))
	}
	eq(t, "retry messages", got, []string{
		"user:The conversation his", "user:question 10", "assistant:answer 10", "user:question 11", "assistant:answer 11",
		"user:question 12", "assistant:answer 12", "user:the prompt",
	})
	if !strings.Contains(core.TextOf(contentOf(retry[0])), "## Goal\nwhole history") {
		t.Fatalf("retry does not carry the final summary")
	}
	h.check()
}

func contentOf(m core.Message) []core.Content {
	switch m := m.(type) {
	case *core.UserMessage:
		return m.Content
	case *core.AssistantMessage:
		return m.Content
	case *core.ToolResultMessage:
		return m.Content
	}
	return nil
}

// A prompt that alone exceeds the window leaves nothing to compact: the recovery fails at
// once, naming the window and the prompt's estimated size.
func TestOverflowWithOnlyThePromptLeftFails(t *testing.T) {
	overflow := overflowFailure("request (10050 tokens) exceeds the available context size (8000 tokens), try increasing it")
	h := newHarness(t, harnessOpts{model: eightKModel()}, overflow)
	a := h.prompt(sized("a huge paste", 40000))
	st := h.settle()
	in := a.InputID
	eq(t, "events", h.sink.outline(), []string{
		"agent_start", "message_start:user:" + in, "message_end:user:" + in, "message_start:assistant", "message_end:assistant", "agent_end",
		"compaction_start(overflow)", "compaction_end(overflow)",
		"agent_settled[" + in + "=failed]:error=overflow",
	})
	want := "Context overflow recovery failed: nothing is left to compact but the current prompt (about 10000 tokens), and the request does not fit the model's context window (8000 tokens). Shorten the prompt or switch to a larger-context model"
	if st.Error.Message != want {
		t.Fatalf("settle error %q, want %q", st.Error.Message, want)
	}
	end := h.sink.ofType("compaction_end")[0]
	if end["errorMessage"] != want || end["result"] != nil || end["willRetry"] != false {
		t.Fatalf("compaction_end = %v", end)
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d requests, want only the one that overflowed", n)
	}
	h.check()
}
