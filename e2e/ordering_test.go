package e2e_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// before fails unless a came before b on stdout.
func (p *proc) before(a, b *message, why string) {
	p.t.Helper()
	if ia, ib := p.index(a), p.index(b); ia < 0 || ib < 0 || ia >= ib {
		p.t.Errorf("%s: %s (#%d) is not before %s (#%d)", why, a, ia, b, ib)
	}
}

// firstEvent finds the first event in the history satisfying pred.
func (p *proc) firstEvent(pred func(*message) bool) *message {
	for _, m := range p.history() {
		if m.isEvent() && pred(m) {
			return m
		}
	}
	return nil
}

func queueLists(m *message, inputID string) bool {
	if m.typ() != "queue_update" {
		return false
	}
	for _, lane := range []string{"steering", "followUp"} {
		items, _ := m.ev[lane].([]any)
		for _, it := range items {
			if obj, _ := it.(map[string]any); obj["inputId"] == inputID {
				return true
			}
		}
	}
	return false
}

func userMessageOf(m *message, inputID string) bool {
	return m.typ() == "message_start" && m.str("inputId") == inputID
}

// TestOrderingPromptSteerFollowUp checks rule 1 for prompt, steer and followUp (each
// response before the events the request causes), the delivery of queued inputs, one
// agent_settled settling them all as the last event of the period, and waitSettled
// answering after the agent_settled it returns.
func TestOrderingPromptSteerFollowUp(t *testing.T) {
	cwd := t.TempDir()
	gate := fifo(t, cwd, "gate")
	p := start(t, options{cwd: cwd, faux: fauxScript(bashCall("cat gate"), text("steered"), text("followed up"))})

	pid := p.request("prompt", map[string]any{"message": "go"})
	first := p.next()
	if string(first.ID) != fmt.Sprint(pid) {
		t.Fatalf("first message = %s, want the prompt's response (rule 1)", first)
	}
	var pr inputResult
	first.decode(t, &pr)
	if pr.Disposition != "started" {
		t.Fatalf("prompt disposition = %q, want started", pr.Disposition)
	}
	p.event("tool_execution_start")

	var sr, fr inputResult
	steer := p.result("steer", map[string]any{"message": "steer now"}, &sr)
	follow := p.result("followUp", map[string]any{"message": "and then"}, &fr)
	if sr.Disposition != "queued" || fr.Disposition != "queued" {
		t.Fatalf("dispositions %q, %q; want queued, queued", sr.Disposition, fr.Disposition)
	}
	wid := p.request("waitSettled", map[string]any{"inputId": fr.InputID})
	release(t, gate)
	ev := p.event("agent_settled")
	wait := p.response(wid)

	p.before(steer, p.firstEvent(func(m *message) bool { return queueLists(m, sr.InputID) }), "steer response before its queue_update")
	p.before(follow, p.firstEvent(func(m *message) bool { return queueLists(m, fr.InputID) }), "followUp response before its queue_update")
	steerMsg := p.firstEvent(func(m *message) bool { return userMessageOf(m, sr.InputID) })
	followMsg := p.firstEvent(func(m *message) bool { return userMessageOf(m, fr.InputID) })
	if steerMsg == nil || followMsg == nil {
		t.Fatalf("queued inputs not delivered: steer %v, followUp %v", steerMsg, followMsg)
	}
	p.before(steer, steerMsg, "steer response before its user message")
	p.before(steerMsg, followMsg, "steering delivered before the follow-up")
	p.before(ev, wait, "waitSettled after its agent_settled")

	s := settledOf(t, ev)
	for _, id := range []string{pr.InputID, sr.InputID, fr.InputID} {
		if got := s.outcome(id); got != "completed" {
			t.Errorf("agent_settled outcome of %s = %q, want completed (%s)", id, got, ev)
		}
	}
	var w settled
	wait.decode(t, &w)
	if w.LastSeq != ev.seq() || len(w.Inputs) != 3 {
		t.Errorf("waitSettled = %s, want the payload of %s", wait.Result, ev)
	}
	// Nothing of the period follows its agent_settled.
	st := p.call("getState", nil)
	var state struct {
		Settled bool  `json:"settled"`
		LastSeq int64 `json:"lastSeq"`
	}
	st.decode(t, &state)
	if !state.Settled || state.LastSeq != ev.seq() {
		t.Errorf("getState after agent_settled = %s, want settled and lastSeq %d", st.Result, ev.seq())
	}
}

// TestOrderingAbort checks rule 4: the abort response, then the run's agent_end, then one
// agent_settled{aborted:true}; and that abort when idle answers false and writes nothing.
func TestOrderingAbort(t *testing.T) {
	p := start(t, options{faux: fauxScript(hanging())})
	var pr inputResult
	p.result("prompt", map[string]any{"message": "go"}, &pr)
	p.event("message_update")
	var ar struct {
		Aborted bool `json:"aborted"`
	}
	abort := p.result("abort", nil, &ar)
	if !ar.Aborted {
		t.Fatalf("abort = %s, want aborted:true", abort.Result)
	}
	end := p.event("agent_end")
	ev := p.event("agent_settled")
	p.before(abort, end, "abort response before agent_end")
	p.before(end, ev, "agent_end before agent_settled")
	s := settledOf(t, ev)
	if !s.Aborted || s.outcome(pr.InputID) != "aborted" {
		t.Errorf("agent_settled = %s, want aborted with %s aborted", ev, pr.InputID)
	}
	for _, m := range p.history() {
		if m.isEvent() && p.index(m) > p.index(ev) {
			t.Errorf("event after agent_settled: %s", m)
		}
	}
	p.result("abort", nil, &ar)
	if ar.Aborted {
		t.Errorf("abort when idle: aborted = true, want false")
	}
	p.expectNoMessage("abort when idle")
}

// TestOrderingCompact checks that compact answers after its compaction_end (rule 1's
// exception) and that the compaction is a busy period ending in agent_settled.
func TestOrderingCompact(t *testing.T) {
	p := start(t, options{faux: fauxScript(text("one"), text("two"), text("## Goal\nsummary"))})
	for range 2 {
		var pr inputResult
		p.result("prompt", map[string]any{"message": bigText(100_000)}, &pr)
		p.result("waitSettled", map[string]any{"inputId": pr.InputID}, nil)
	}
	resp := p.result("compact", nil, nil)
	var res struct {
		Summary string `json:"summary"`
	}
	resp.decode(t, &res)
	if res.Summary != "## Goal\nsummary" {
		t.Errorf("compact summary = %q", res.Summary)
	}
	start := p.firstEvent(func(m *message) bool { return m.typ() == "compaction_start" })
	end := p.firstEvent(func(m *message) bool { return m.typ() == "compaction_end" })
	if start == nil || end == nil {
		t.Fatalf("no compaction_start/compaction_end before the compact response")
	}
	p.before(start, end, "compaction_start before compaction_end")
	p.before(end, resp, "compact response after compaction_end")
	if r, _ := end.ev["result"].(map[string]any); r == nil || end.ev["aborted"] != false {
		t.Errorf("compaction_end = %s, want a result, not aborted", end)
	}
	if ev := p.firstEvent(func(m *message) bool { return m.typ() == "agent_settled" && m.seq() > end.seq() }); ev == nil {
		t.Errorf("no agent_settled after the compaction")
	}
}

// TestWaitSettledRacingPrompts pipelines prompts (whenBusy followUp) with a waitSettled for
// each, so that settles and new busy periods race with the waits: each waitSettled by input
// id must return exactly the agent_settled that settled its input, after that event.
func TestWaitSettledRacingPrompts(t *testing.T) {
	const n = 12
	var rs []reply
	for i := range n {
		rs = append(rs, text(fmt.Sprintf("reply %d", i)))
	}
	p := start(t, options{faux: fauxScript(rs...)})
	type pair struct{ prompt, wait int }
	var pairs []pair
	for i := range n {
		pid := p.request("prompt", map[string]any{"message": fmt.Sprintf("m%d", i), "whenBusy": "followUp"})
		// Input ids are "in1", "in2", ... in acceptance order.
		wid := p.request("waitSettled", map[string]any{"inputId": fmt.Sprintf("in%d", i+1)})
		pairs = append(pairs, pair{pid, wid})
	}
	for i, pr := range pairs {
		var in inputResult
		p.response(pr.prompt).decode(t, &in)
		if in.InputID != fmt.Sprintf("in%d", i+1) {
			t.Fatalf("prompt %d inputId = %q, want in%d", i, in.InputID, i+1)
		}
		w := p.response(pr.wait)
		var got settled
		w.decode(t, &got)
		ev := p.firstEvent(func(m *message) bool { return m.typ() == "agent_settled" && m.seq() == got.LastSeq })
		if ev == nil {
			t.Fatalf("waitSettled(%s) = %s: no agent_settled with seq %d before it", in.InputID, w.Result, got.LastSeq)
		}
		p.before(ev, w, "waitSettled after its agent_settled")
		if got.outcome(in.InputID) != "completed" {
			t.Errorf("waitSettled(%s) = %s: does not settle %s as completed", in.InputID, w.Result, in.InputID)
		}
		var want settled
		_ = json.Unmarshal(ev.Params, &want)
		if !slices.Equal(inputIDs(got), inputIDs(want)) {
			t.Errorf("waitSettled(%s) = %s, want the payload of %s", in.InputID, w.Result, ev)
		}
	}
}

func inputIDs(s settled) []string {
	var out []string
	for _, in := range s.Inputs {
		out = append(out, in.InputID+":"+in.Outcome)
	}
	return out
}
