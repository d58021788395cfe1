package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// windowModel is the faux model with a context window of n tokens.
func windowModel(n int) *core.Model {
	m := faux.DefaultModel()
	m.ContextWindow = n
	return &m
}

// smallModel is a model whose context window makes compaction easy to trigger.
func smallModel() *core.Model { return windowModel(1000) }

func tightCompaction() *session.CompactionSettings {
	// KeepRecentTokens 6 keeps the last question (8 tokens, see question2) and its reply, so
	// the cut falls on a user message and the summary is one request.
	return &session.CompactionSettings{Enabled: true, ReserveTokens: 100, KeepRecentTokens: 6}
}

func withUsage(step faux.Step, input int) faux.Step {
	step.Usage = &core.Usage{Input: input, Output: 10}
	return step
}

// question2 is long enough (32 characters, 8 estimated tokens) for the cut to fall on it.
const question2 = "second question, asked at length"

// history runs one small exchange so there is something to compact.
func (h *harness) history() {
	h.t.Helper()
	h.prompt("first question")
	h.settle()
}

// compactingHarness is a harness on smallModel with tightCompaction whose first turn (history)
// has run, on the first of the steps.
func compactingHarness(t *testing.T, steps ...faux.Step) *harness {
	t.Helper()
	h := newHarness(t, harnessOpts{model: smallModel(), compaction: tightCompaction()}, steps...)
	h.history()
	return h
}

// twoExchanges is a compacting harness after two small exchanges (100 input tokens each, the
// second asking question2), so that a compaction has something to cut; later are the model's
// next answers, the summary first when the test compacts.
func twoExchanges(t *testing.T, later ...faux.Step) *harness {
	t.Helper()
	h := compactingHarness(t, append([]faux.Step{
		withUsage(faux.Reply(faux.Text("first answer")), 100),
		withUsage(faux.Reply(faux.Text("second answer")), 100),
	}, later...)...)
	h.prompt(question2)
	h.settle()
	return h
}

// overflowFailure is a model call failing as the provider reports a context overflow.
func overflowFailure(message string) faux.Step {
	step := faux.Fail(message)
	step.ErrorKind = core.ErrorOverflow
	return step
}

func TestOverflowThenCompactAndSucceed(t *testing.T) {
	overflow := overflowFailure("prompt is too long: 1200 tokens > 1000 maximum")
	h := compactingHarness(t,
		withUsage(faux.Reply(faux.Text("first answer")), 100),
		overflow,
		faux.Reply(faux.Text("## Goal\nsummary of the conversation")),
		withUsage(faux.Reply(faux.Text("second answer")), 200),
	)
	n := len(h.sink.outline())
	h.prompt(question2)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in2=completed"})
	out := h.sink.outline()[n:]
	eq(t, "events", out, []string{
		"agent_start", "message_start:user:in2", "message_end:user:in2", "message_start:assistant", "message_end:assistant", "agent_end",
		"compaction_start(overflow)", "compaction_end(overflow)",
		"agent_start", "message_start:assistant", "message_end:assistant", "agent_end",
		"agent_settled[in2=completed]",
	})
	ends := h.sink.ofType("agent_end")
	if ends[1]["willRetry"] != true {
		t.Fatalf("overflowing agent_end willRetry = %v", ends[1]["willRetry"])
	}
	end := h.sink.ofType("compaction_end")[0]
	if end["willRetry"] != true || end["result"] == nil {
		t.Fatalf("compaction_end = %v", end)
	}
	msgs := h.sup.Messages()
	if msgs[0].Role() != core.RoleCompactionSummary {
		t.Fatalf("context starts with %s, want the compaction summary", msgs[0].Role())
	}
	last := msgs[len(msgs)-1].(*core.AssistantMessage)
	if core.TextOf(last.Content) != "second answer" {
		t.Fatalf("last message %q", core.TextOf(last.Content))
	}
	h.check()
}

func TestOverflowRecoveryOnlyOnce(t *testing.T) {
	overflow := overflowFailure("prompt is too long")
	h := compactingHarness(t,
		withUsage(faux.Reply(faux.Text("first answer")), 100),
		overflow,
		faux.Reply(faux.Text("summary")),
		overflow,
	)
	h.prompt(question2)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in2=failed"})
	if st.Error == nil || st.Error.Kind != session.SettleErrorOverflow ||
		st.Error.Message != "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model." {
		t.Fatalf("error = %+v", st.Error)
	}
	if n := len(h.sink.ofType("compaction_start")); n != 1 {
		t.Fatalf("%d compactions, want 1", n)
	}
	h.check()
}

// A follow-up accepted after the run's agent_end waits for the threshold compaction, then is
// delivered by a continuation run in the same busy period (pi's AgentSession resumes queued
// messages after a threshold compaction).
func TestThresholdCompactionThenQueuedInput(t *testing.T) {
	h := compactingHarness(t,
		withUsage(faux.Reply(faux.Text("first answer")), 100),
		withUsage(faux.Reply(faux.Text("big answer")), 950),
		faux.Reply(faux.Text("summary")),
		withUsage(faux.Reply(faux.Text("follow-up answer")), 300),
	)
	n := len(h.sink.outline())
	var a sessionapi.Accepted
	queued := false
	h.sup.Agent().Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.AgentEnd && !queued {
			queued = true
			if err := keep(&a)(h.sup.FollowUp(session.QueueRequest{Message: "and then?"})); err != nil {
				t.Errorf("FollowUp: %v", err)
			}
		}
	})
	h.prompt(question2)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in2=completed", "in3=completed"})
	eq(t, "events", h.sink.outline()[n:], []string{
		"agent_start", "message_start:user:in2", "message_end:user:in2", "message_start:assistant", "message_end:assistant", "agent_end",
		"queue_update(0,1)", "compaction_start(threshold)", "compaction_end(threshold)",
		"agent_start", "queue_update(0,0)", "message_start:user:in3", "message_end:user:in3", "message_start:assistant", "message_end:assistant", "agent_end",
		"agent_settled[in2=completed,in3=completed]",
	})
	if end := h.sink.ofType("compaction_end")[0]; end["willRetry"] != false || end["result"] == nil {
		t.Fatalf("compaction_end = %v", end)
	}
	h.check()
}

func TestManualCompaction(t *testing.T) {
	h := twoExchanges(t, faux.Reply(faux.Text("the summary")))
	n := len(h.sink.outline())
	res, err := result(h.sup.Compact("focus on decisions"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary == "" || res.FirstKeptEntryID == "" {
		t.Fatalf("result = %+v", res)
	}
	eq(t, "events", h.sink.outline()[n:], []string{"compaction_start(manual)", "compaction_end(manual)", "agent_settled[]"})
	var budgets []int
	for _, req := range h.model.Requests()[2:] {
		budgets = append(budgets, req.MaxTokens)
	}
	if len(budgets) == 0 || budgets[0] != 80 {
		t.Fatalf("summary request budgets %v, want floor(0.8*100) first", budgets)
	}
	if _, err := result(h.sup.Compact("")); err == nil {
		t.Fatal("second compaction succeeded, want Already compacted / nothing to compact")
	}
	var kinds []sessionapi.EntryType
	for _, e := range h.store.Entries() {
		kinds = append(kinds, e.Type)
	}
	if kinds[len(kinds)-1] != session.EntryCompaction {
		t.Fatalf("last entry %s, want compaction", kinds[len(kinds)-1])
	}
	h.check()
}

func TestAbortDuringCompaction(t *testing.T) {
	streaming := make(chan struct{})
	summary := faux.Reply(faux.Text("summary"))
	summary.Hang = true
	summary.BeforeChunk = func(_ context.Context, chunk int) {
		if chunk == 0 {
			close(streaming)
		}
	}
	h := twoExchanges(t, summary)
	done := make(chan error)
	go func() {
		_, err := result(h.sup.Compact(""))
		done <- err
	}()
	<-streaming
	if !h.sup.State().Busy.Compacting {
		t.Fatal("busy.compacting false while the summary streams")
	}
	h.sup.Abort()
	if err := <-done; err == nil {
		t.Fatal("aborted compaction reported success")
	}
	out := h.sink.outline()
	eq(t, "tail", out[len(out)-3:], []string{"compaction_start(manual)", "compaction_end(manual)", "agent_settled[]:aborted"})
	if end := h.sink.ofType("compaction_end")[0]; end["aborted"] != true {
		t.Fatalf("compaction_end = %v", end)
	}
	h.check()
}

// After SetProvider (setModel across providers), compaction asks the new provider.
func TestCompactionUsesTheCurrentProvider(t *testing.T) {
	h := twoExchanges(t)
	other := faux.New()
	other.SetResponses(faux.Reply(faux.Text("summary from the new provider")))
	h.sup.SetProvider(other)
	res, err := result(h.sup.Compact(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Requests()) != 1 || !strings.Contains(res.Summary, "summary from the new provider") {
		t.Fatalf("new provider saw %d requests; summary %q", len(other.Requests()), res.Summary)
	}
}
