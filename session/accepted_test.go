package session_test

import (
	"errors"
	"testing"

	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// eventAt is the recorded event with seq.
func (r *recordingSink) eventAt(t *testing.T, seq int64) map[string]any {
	t.Helper()
	for _, ev := range r.snapshot() {
		if ev["seq"] == float64(seq) {
			return ev
		}
	}
	t.Fatalf("no event with seq %d in %v", seq, r.types())
	return nil
}

// queued reports whether a queue_update lists the input.
func queued(ev map[string]any, inputID string) bool {
	for _, lane := range []string{"steering", "followUp"} {
		items, _ := ev[lane].([]any)
		for _, item := range items {
			if item.(map[string]any)["inputId"] == inputID {
				return true
			}
		}
	}
	return false
}

// An accepted input's AfterSeq is the last event before the input's first one, so an answer
// placed right after it precedes every event the input causes: the started period's
// agent_start, or the queue_update that lists a queued input.
func TestAcceptedAfterSeqPrecedesTheInputsEvents(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("one")), blockingStepEntered(release, entered, "two"), faux.Reply(faux.Text("three")), faux.Reply(faux.Text("four")))

	first := h.prompt("hi")
	if first.AfterSeq != 0 {
		t.Fatalf("first prompt AfterSeq = %d, want 0 (no event before it)", first.AfterSeq)
	}
	settled := h.settle()

	second := h.prompt("again")
	if second.AfterSeq != settled.LastSeq {
		t.Fatalf("second prompt AfterSeq = %d, want the previous agent_settled's seq %d", second.AfterSeq, settled.LastSeq)
	}
	<-entered

	var steer, follow sessionapi.Accepted
	if err := keep(&steer)(h.sup.Steer(session.QueueRequest{Message: "look"})); err != nil {
		t.Fatal(err)
	}
	if err := keep(&follow)(h.sup.Prompt(session.PromptRequest{Message: "later", WhenBusy: "followUp"})); err != nil {
		t.Fatal(err)
	}
	for _, a := range []sessionapi.Accepted{steer, follow} {
		if a.Disposition != session.DispositionQueued {
			t.Fatalf("%s disposition %q, want queued", a.InputID, a.Disposition)
		}
		ev := h.sink.eventAt(t, a.AfterSeq+1)
		if ev["type"] != "queue_update" || !queued(ev, a.InputID) {
			t.Fatalf("event after %s's AfterSeq %d = %v, want the queue_update that lists it", a.InputID, a.AfterSeq, ev)
		}
		if prev := h.sink.eventAt(t, a.AfterSeq); prev["type"] == "queue_update" && queued(prev, a.InputID) {
			t.Fatalf("%s's AfterSeq %d is its own queue_update", a.InputID, a.AfterSeq)
		}
	}
	close(release)
	eq(t, "outcomes", outcomes(h.settle()), []string{"in2=completed", "in3=completed", "in4=completed"})
	// The run's events come from its goroutine: they are all recorded once the period settled.
	if ev := h.sink.eventAt(t, second.AfterSeq+1); ev["type"] != "agent_start" {
		t.Fatalf("event after AfterSeq = %v, want the prompt's agent_start", ev)
	}
	h.check()
}

func TestContinueAfterSeqPrecedesItsAgentStart(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Fail("bad request"), faux.Reply(faux.Text("recovered")))
	h.prompt("hi")
	failed := h.settle()
	var c sessionapi.Accepted
	if err := keep(&c)(h.sup.Continue()); err != nil {
		t.Fatal(err)
	}
	if c.AfterSeq != failed.LastSeq || c.Disposition != session.DispositionStarted {
		t.Fatalf("continue accepted %+v, want started after seq %d", c, failed.LastSeq)
	}
	h.settle()
	if ev := h.sink.eventAt(t, c.AfterSeq+1); ev["type"] != "agent_start" {
		t.Fatalf("event after continue's AfterSeq = %v, want agent_start", ev)
	}
	h.check()
}

// A front end may name an input before submitting it (so it knows the id before any event
// names it); an id already used in the session is refused and nothing is accepted.
func TestPromptTakesTheNamedInputID(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("one")), faux.Reply(faux.Text("two")))
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.Prompt(session.PromptRequest{Message: "hi", InputID: "in7"})); err != nil {
		t.Fatal(err)
	}
	if a.InputID != "in7" {
		t.Fatalf("accepted %+v, want in7", a)
	}
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in7=completed"})
	before := h.sup.State().LastSeq
	_, err := h.sup.Prompt(session.PromptRequest{Message: "again", InputID: "in7"})
	var se *session.Error
	if !errors.As(err, &se) || se.Kind != session.KindInvalidState || se.Message != "Input id in7 is already in use" {
		t.Fatalf("Prompt with a used id = %v, want invalidState", err)
	}
	if st := h.sup.State(); st.Busy.Running || st.LastSeq != before {
		t.Fatalf("a refused prompt changed the session: %+v", st)
	}
	// Without a name the session mints its own.
	if got := h.prompt("again"); got.InputID == "" || got.InputID == "in7" {
		t.Fatalf("minted id %q", got.InputID)
	}
	h.settle()
	h.check()
}
