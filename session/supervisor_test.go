package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

func TestPromptSettlesOnce(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("hello")))
	a := h.prompt("hi")
	if a.InputID != "in1" || a.Disposition != session.DispositionStarted {
		t.Fatalf("accepted %+v, want in1 started", a)
	}
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=completed"})
	eq(t, "events", h.sink.outline(), []string{
		"agent_start", "message_start:user:in1", "message_end:user:in1", "message_start:assistant", "message_end:assistant", "agent_end", "agent_settled[in1=completed]",
	})
	h.check()
	if snap := h.sup.State(); !snap.Settled || snap.Busy.Running || snap.LastSeq != st.LastSeq {
		t.Fatalf("state after settle = %+v", snap)
	}
}

func TestSteerWhileIdleStartsRun(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("ok")))
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.Steer(session.QueueRequest{Message: "look here"})); err != nil {
		t.Fatal(err)
	}
	if a.Disposition != session.DispositionStarted {
		t.Fatalf("disposition %q, want started", a.Disposition)
	}
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=completed"})
	err := keep(&a)(h.sup.FollowUp(session.QueueRequest{Message: "x", WhenIdle: "reject"}))
	var se *session.Error
	if !errors.As(err, &se) || se.Kind != session.KindInvalidState {
		t.Fatalf("FollowUp whenIdle reject = %v, want invalidState", err)
	}
	h.check()
}

// blockingStep is a reply that waits at its first chunk until release is closed.
func blockingStep(release <-chan struct{}, text string) faux.Step {
	return blockingStepEntered(release, nil, text)
}

// blockingStepEntered is blockingStep that also closes entered when the reply starts waiting:
// by then the run has polled its initial steering, so a steer queued after it stays queued.
func blockingStepEntered(release <-chan struct{}, entered chan struct{}, text string) faux.Step {
	step := faux.Reply(faux.Text(text))
	step.BeforeChunk = func(ctx context.Context, chunk int) {
		if chunk == 0 {
			if entered != nil {
				close(entered)
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
	}
	return step
}

func TestFollowUpWhileBusy(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{})
	h := newHarness(t, harnessOpts{}, blockingStepEntered(release, entered, "first"), faux.Reply(faux.Text("second")))
	h.prompt("hi")
	// The run's first events come from its own goroutine: wait until it is inside the reply,
	// so the follow-up's place among them is known.
	<-entered
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.FollowUp(session.QueueRequest{Message: "and then"})); err != nil {
		t.Fatal(err)
	}
	if a.InputID != "in2" || a.Disposition != session.DispositionQueued {
		t.Fatalf("accepted %+v, want in2 queued", a)
	}
	if snap := h.sup.State(); len(snap.Busy.FollowUp) != 1 || snap.Busy.FollowUp[0].InputID != "in2" || !snap.Busy.Running {
		t.Fatalf("busy = %+v", snap.Busy)
	}
	close(release)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=completed", "in2=completed"})
	// The follow-up's queue_update comes where it was accepted: before the first reply starts.
	eq(t, "events", h.sink.outline(), []string{
		"agent_start", "message_start:user:in1", "message_end:user:in1",
		"queue_update(0,1)", "message_start:assistant", "message_end:assistant",
		"queue_update(0,0)", "message_start:user:in2", "message_end:user:in2", "message_start:assistant", "message_end:assistant",
		"agent_end", "agent_settled[in1=completed,in2=completed]",
	})
	h.check()
}

func TestPromptWhileBusy(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOpts{}, blockingStep(release, "first"), faux.Reply(faux.Text("second")))
	h.prompt("hi")
	var a sessionapi.Accepted
	err := keep(&a)(h.sup.Prompt(session.PromptRequest{Message: "again"}))
	var se *session.Error
	if !errors.As(err, &se) || se.Kind != session.KindBusy || se.Data["suggest"] == nil {
		t.Fatalf("Prompt while busy = %v, want busy with a suggestion", err)
	}
	if err := keep(&a)(h.sup.Prompt(session.PromptRequest{Message: "again", WhenBusy: "reject"})); !errors.As(err, &se) || se.Kind != session.KindBusy {
		t.Fatalf("whenBusy reject = %v", err)
	}
	if err := keep(&a)(h.sup.Prompt(session.PromptRequest{Message: "steer me", WhenBusy: "steer"})); err != nil || a.Disposition != session.DispositionQueued {
		t.Fatalf("whenBusy steer = %v, %+v", err, a)
	}
	if err := keep(&a)(h.sup.Continue()); !errors.As(err, &se) || se.Kind != session.KindBusy {
		t.Fatalf("Continue while busy = %v", err)
	}
	close(release)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=completed", "in2=completed"})
	h.check()
}

// A steer that arrives after the last agent_end but before agent_settled joins the period:
// the supervisor delivers it in a continuation run and settles only after it.
func TestSteerBetweenAgentEndAndSettleJoinsPeriod(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("first")), faux.Reply(faux.Text("second")))
	var once bool
	var steer sessionapi.Accepted
	h.sup.Agent().Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.AgentEnd && !once {
			once = true
			if err := keep(&steer)(h.sup.Steer(session.QueueRequest{Message: "one more thing"})); err != nil {
				t.Errorf("Steer: %v", err)
			}
		}
	})
	h.prompt("hi")
	st := h.settle()
	if steer.Disposition != session.DispositionQueued {
		t.Fatalf("steer disposition %q, want queued", steer.Disposition)
	}
	eq(t, "outcomes", outcomes(st), []string{"in1=completed", "in2=completed"})
	eq(t, "events", h.sink.outline(), []string{
		"agent_start", "message_start:user:in1", "message_end:user:in1", "message_start:assistant", "message_end:assistant", "agent_end",
		"queue_update(1,0)",
		"agent_start", "queue_update(0,0)", "message_start:user:in2", "message_end:user:in2", "message_start:assistant", "message_end:assistant", "agent_end",
		"agent_settled[in1=completed,in2=completed]",
	})
	h.check()
}

func TestAbortWithQueuedFollowUp(t *testing.T) {
	step := faux.Reply(faux.Text("long"))
	step.Hang = true
	h := newHarness(t, harnessOpts{}, step)
	started := make(chan struct{})
	h.sup.Agent().Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.MessageEnd && ev.Message.Role() == core.RoleUser {
			close(started)
		}
	})
	h.prompt("hi")
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.FollowUp(session.QueueRequest{Message: "later"})); err != nil {
		t.Fatal(err)
	}
	<-started
	var aborted bool
	aborted = h.sup.Abort()
	if !aborted {
		t.Fatal("Abort answered false during a run")
	}
	st := h.settle()
	if !st.Aborted {
		t.Fatal("settled without aborted")
	}
	eq(t, "outcomes", outcomes(st), []string{"in1=aborted", "in2=cancelled"})
	out := h.sink.outline()
	eq(t, "tail", out[len(out)-3:], []string{"agent_end", "queue_update(0,0)", "agent_settled[in1=aborted,in2=cancelled]:aborted"})
	aborted = h.sup.Abort()
	if aborted {
		t.Fatal("Abort answered true when idle")
	}
	h.check()
}

func retryable(msg string, retryAfter time.Duration) faux.Step {
	step := faux.Fail(msg)
	step.ErrorKind = core.ErrorRetryable
	step.RetryAfter = retryAfter
	return step
}

// fireTimers fires each backoff timer as soon as it is armed, until stop is closed.
func (h *harness) fireTimers(stop <-chan struct{}) {
	go func() {
		for {
			select {
			case <-h.clock.Armed:
				h.clock.Fire()
			case <-stop:
				return
			}
		}
	}()
}

func TestRetryAfter429ThenSuccess(t *testing.T) {
	h := newHarness(t, harnessOpts{}, retryable("429 Too Many Requests", 3*time.Second), faux.Reply(faux.Text("ok")))
	var delays []time.Duration
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case d := <-h.clock.Armed:
				delays = append(delays, d)
				h.clock.Fire()
			case <-done:
				return
			}
		}
	}()
	h.prompt("hi")
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=completed"})
	eq(t, "events", h.sink.outline(), []string{
		"agent_start", "message_start:user:in1", "message_end:user:in1", "message_start:assistant", "message_end:assistant", "agent_end",
		"auto_retry_start(1)",
		"agent_start", "message_start:assistant", "message_end:assistant", "auto_retry_end(true,1)", "agent_end",
		"agent_settled[in1=completed]",
	})
	ends := h.sink.ofType("agent_end")
	if ends[0]["willRetry"] != true || ends[1]["willRetry"] != false {
		t.Fatalf("agent_end willRetry = %v then %v, want true then false", ends[0]["willRetry"], ends[1]["willRetry"])
	}
	if d := h.sink.ofType("auto_retry_start")[0]["delayMs"]; d != float64(3000) {
		t.Fatalf("delay %v, want Retry-After's 3000 ms", d)
	}
	if len(h.model.Requests()) != 2 || len(h.model.Requests()[1].Messages) != 1 {
		t.Fatal("the retry did not resend the context without the failed reply")
	}
	if roles := len(h.sup.Messages()); roles != 2 {
		t.Fatalf("context has %d messages, want user and the successful reply", roles)
	}
	if entries := h.store.Entries(); len(entries) != 3 {
		t.Fatalf("store has %d entries, want user, failed reply, reply", len(entries))
	}
	h.check()
}

func TestRetriesExhaustedCancelsQueuedFollowUp(t *testing.T) {
	steps := []faux.Step{}
	for range 4 {
		steps = append(steps, retryable("500 Internal Server Error", 0))
	}
	h := newHarness(t, harnessOpts{}, steps...)
	stop := make(chan struct{})
	defer close(stop)
	var delays []int64
	h.sup.Agent().Subscribe(func(context.Context, core.Event) {})
	h.fireTimers(stop)
	h.prompt("hi")
	var a sessionapi.Accepted
	if err := keep(&a)(h.sup.FollowUp(session.QueueRequest{Message: "later"})); err != nil {
		t.Fatal(err)
	}
	st := h.settle()
	for _, ev := range h.sink.snapshot() {
		if ev["type"] == "auto_retry_start" {
			delays = append(delays, int64(ev["delayMs"].(float64)))
		}
	}
	eq(t, "retry delays", delays, []int64{2000, 4000, 8000})
	eq(t, "outcomes", outcomes(st), []string{"in1=failed", "in2=cancelled"})
	if st.Error == nil || st.Error.Kind != session.SettleErrorProvider || st.Error.Message != "500 Internal Server Error" {
		t.Fatalf("error = %+v", st.Error)
	}
	out := h.sink.outline()
	eq(t, "tail", out[len(out)-4:], []string{"agent_end", "auto_retry_end(false,3)", "queue_update(0,0)", "agent_settled[in1=failed,in2=cancelled]:error=provider"})
	if n := len(h.model.Requests()); n != 4 {
		t.Fatalf("%d model calls, want 4", n)
	}
	h.check()
}

func TestAbortDuringBackoff(t *testing.T) {
	h := newHarness(t, harnessOpts{}, retryable("overloaded", 0), faux.Reply(faux.Text("never")))
	h.prompt("hi")
	<-h.clock.Armed
	if snap := h.sup.State(); snap.Busy.RetryUntil != epoch.Add(2*time.Second).UnixMilli() {
		t.Fatalf("retryUntil = %d", snap.Busy.RetryUntil)
	}
	h.sup.Abort()
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=aborted"})
	out := h.sink.outline()
	eq(t, "tail", out[len(out)-3:], []string{"auto_retry_start(1)", "auto_retry_end(false,1)", "agent_settled[in1=aborted]:aborted"})
	if ev := h.sink.ofType("auto_retry_end")[0]; ev["finalError"] != "Retry cancelled" {
		t.Fatalf("finalError = %v", ev["finalError"])
	}
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1", n)
	}
	h.check()
}

func TestClearQueuesAndCancelInput(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	h := newHarness(t, harnessOpts{}, blockingStepEntered(release, entered, "first"), faux.Reply(faux.Text("second")))
	h.prompt("hi")
	<-entered
	var a, b, c sessionapi.Accepted
	_ = keep(&a)(h.sup.Steer(session.QueueRequest{Message: "s"}))
	_ = keep(&b)(h.sup.FollowUp(session.QueueRequest{Message: "f1"}))
	_ = keep(&c)(h.sup.FollowUp(session.QueueRequest{Message: "f2"}))
	if err := h.sup.CancelInput(b.InputID); err != nil {
		t.Fatal(err)
	}
	var se *session.Error
	if err := h.sup.CancelInput(b.InputID); !errors.As(err, &se) || se.Kind != session.KindInvalidState {
		t.Fatalf("second CancelInput = %v, want invalidState", err)
	}
	if err := h.sup.CancelInput("in99"); !errors.As(err, &se) || se.Kind != session.KindNotFound {
		t.Fatalf("CancelInput(unknown) = %v, want notFound", err)
	}
	removed := h.sup.ClearQueues()
	if len(removed.Steering) != 1 || len(removed.FollowUp) != 1 || removed.FollowUp[0].InputID != c.InputID {
		t.Fatalf("ClearQueues removed %+v", removed)
	}
	close(release)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in1=completed", "in2=cancelled", "in3=cancelled", "in4=cancelled"})
	if n := len(h.model.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1 (nothing left to deliver)", n)
	}
	h.check()
}

func TestWaitSettledByInput(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOpts{}, blockingStep(release, "first"), faux.Reply(faux.Text("second")))
	ctx := context.Background()
	if st, err := h.sup.WaitSettled(ctx, ""); err != nil || len(st.Inputs) != 0 || st.Aborted {
		t.Fatalf("WaitSettled idle = %+v, %v", st, err)
	}
	a := h.prompt("hi")
	got := make(chan *sessionapi.Settled)
	go func() {
		st, _ := h.sup.WaitSettled(ctx, a.InputID)
		got <- st
	}()
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := h.sup.WaitSettled(short, a.InputID); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled WaitSettled = %v", err)
	}
	close(release)
	st := <-got
	eq(t, "outcomes", outcomes(st), []string{"in1=completed"})
	again, err := h.sup.WaitSettled(ctx, a.InputID)
	if err != nil || again != st {
		t.Fatalf("WaitSettled after settle = %+v, %v; want the same payload", again, err)
	}
	var se *session.Error
	if _, err := h.sup.WaitSettled(ctx, "in42"); !errors.As(err, &se) || se.Kind != session.KindNotFound {
		t.Fatalf("WaitSettled(unknown) = %v", err)
	}
}

func TestContinueRules(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Fail("bad request"), faux.Reply(faux.Text("recovered")))
	var a sessionapi.Accepted
	var se *session.Error
	if err := keep(&a)(h.sup.Continue()); !errors.As(err, &se) || se.Kind != session.KindInvalidState || se.Message != "No messages to continue from" {
		t.Fatalf("Continue on empty = %v", err)
	}
	h.prompt("hi")
	st := h.settle()
	if st.Error == nil || st.Error.Kind != session.SettleErrorProvider {
		t.Fatalf("error = %+v, want a provider failure (not retryable)", st.Error)
	}
	if err := keep(&a)(h.sup.Continue()); err != nil {
		t.Fatal(err)
	}
	st = h.settle()
	eq(t, "outcomes", outcomes(st), []string{"in2=completed"})
	if err := keep(&a)(h.sup.Continue()); !errors.As(err, &se) || se.Message != "Nothing to continue: the last message is a finished reply; send a prompt" {
		t.Fatalf("Continue after a reply = %v", err)
	}
	h.check()
}

func TestProviderNotConfigured(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	sup := session.New(session.Config{Store: session.NewMemoryStore("s", func() string { return "00000001" }, func() string { return "" }), Sink: h.sink, ProviderProblem: "No API key: set OPENAI_API_KEY"})
	var a sessionapi.Accepted
	var se *session.Error
	if err := keep(&a)(sup.Prompt(session.PromptRequest{Message: "hi"})); !errors.As(err, &se) || se.Kind != session.KindProviderNotConfigured || se.Message != "No API key: set OPENAI_API_KEY" {
		t.Fatalf("Prompt = %v", err)
	}
}

func TestPersistenceFailure(t *testing.T) {
	h := newHarness(t, harnessOpts{}, faux.Reply(faux.Text("ok")), faux.Reply(faux.Text("ok")))
	h.store.FailAppends(errors.New("no space left on device"))
	h.prompt("hi")
	st := h.settle()
	if st.Error == nil || st.Error.Kind != session.SettleErrorPersistence {
		t.Fatalf("error = %+v, want persistence", st.Error)
	}
	eq(t, "outcomes", outcomes(st), []string{"in1=completed"})
	var errors int
	for _, typ := range h.sink.types() {
		if typ == "session_error" {
			errors++
		}
	}
	if errors != 1 {
		t.Fatalf("%d session_error events, want 1", errors)
	}
	h.prompt("again")
	if st := h.settle(); st.Error != nil {
		t.Fatalf("second period error = %+v, want none (reported once)", st.Error)
	}
}

func TestShutdownAbortsAndRefuses(t *testing.T) {
	step := faux.Reply(faux.Text("x"))
	step.Hang = true
	h := newHarness(t, harnessOpts{}, step)
	h.prompt("hi")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.sup.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	types := h.sink.types()
	if types[len(types)-1] != "agent_settled" {
		t.Fatalf("last event %s, want agent_settled", types[len(types)-1])
	}
	var a sessionapi.Accepted
	var se *session.Error
	if err := keep(&a)(h.sup.Prompt(session.PromptRequest{Message: "x"})); !errors.As(err, &se) || se.Kind != session.KindShuttingDown {
		t.Fatalf("Prompt after shutdown = %v", err)
	}
}

func TestModelAndThinkingChanges(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	reasoning := faux.DefaultModel()
	reasoning.ID, reasoning.Reasoning = "thinker", true
	h.sup.SetModel(reasoning)
	if got := h.sup.SetThinkingLevel(core.ThinkingXHigh); got != core.ThinkingHigh {
		t.Fatalf("SetThinkingLevel(xhigh) = %v, want high (clamped)", got)
	}
	h.sup.SetModel(faux.DefaultModel())
	eq(t, "events", h.sink.types(), []string{"model_changed", "thinking_level_changed", "model_changed", "thinking_level_changed"})
	if lvl := h.sup.State().ThinkingLevel; lvl != core.ThinkingOff {
		t.Fatalf("thinking after switching to a non-reasoning model = %v", lvl)
	}
	var kinds []sessionapi.EntryType
	for _, e := range h.store.Entries() {
		kinds = append(kinds, e.Type)
	}
	eq(t, "entries", kinds, []sessionapi.EntryType{"model_change", "thinking_level_change", "model_change", "thinking_level_change"})
	h.check()
}
