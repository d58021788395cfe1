package core_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// B1: the default state.
func TestB1DefaultState(t *testing.T) {
	st := core.New(core.Options{}).State()
	if st.SystemPrompt != "" || st.Model.ID == "" || st.ThinkingLevel != core.ThinkingOff || len(st.Tools) != 0 ||
		len(st.Messages) != 0 || st.IsStreaming || st.StreamingMessage != nil || len(st.PendingToolCalls) != 0 || st.ErrorMessage != "" {
		t.Fatalf("default state = %+v", st)
	}
}

// B2: a custom initial state is reflected.
func TestB2CustomInitialState(t *testing.T) {
	m := faux.DefaultModel()
	st := core.New(core.Options{SystemPrompt: "be brief", Model: m, ThinkingLevel: core.ThinkingLow}).State()
	if st.SystemPrompt != "be brief" || st.Model.ID != m.ID || st.ThinkingLevel != core.ThinkingLow {
		t.Fatalf("state = %+v", st)
	}
}

// B3: subscribing emits nothing, state changes emit nothing, unsubscribing stops delivery.
func TestB3Subscribe(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Reply(faux.Text("one")), faux.Reply(faux.Text("two")))
	var n int
	unsubscribe := h.agent.Subscribe(func(context.Context, core.Event) { n++ })
	h.agent.SetSystemPrompt("x")
	h.agent.SetThinkingLevel(core.ThinkingHigh)
	h.agent.SetMessages(nil)
	if n != 0 {
		t.Fatalf("%d events before any run, want 0", n)
	}
	h.prompt("a")
	if n == 0 {
		t.Fatal("listener saw no event")
	}
	seen := n
	unsubscribe()
	h.prompt("b")
	if n != seen {
		t.Fatalf("listener saw %d events after unsubscribing", n-seen)
	}
}

// B5: listeners are awaited: while an agent_end listener blocks, the run is still active.
func TestB5AwaitedListenersGateTheRun(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Reply(faux.Text("ok")))
	entered, release := make(chan struct{}), make(chan struct{})
	h.agent.Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.AgentEnd {
			close(entered)
			<-release
		}
	})
	run, err := h.agent.Prompt(user("hi"))
	if err != nil {
		t.Fatal(err)
	}
	<-entered
	select {
	case <-run.Done():
		t.Fatal("run ended while its agent_end listener was blocked")
	default:
	}
	if !h.agent.IsStreaming() {
		t.Fatal("IsStreaming false while an agent_end listener blocks")
	}
	close(release)
	h.wait(run)
	if h.agent.IsStreaming() {
		t.Fatal("IsStreaming true after the run ended")
	}
}

// B6: WaitForIdle waits for listeners too.
func TestB6WaitForIdleWaitsForListeners(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Reply(faux.Text("ok")))
	entered, release := make(chan struct{}), make(chan struct{})
	h.agent.Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.MessageEnd && ev.Message.Role() == core.RoleAssistant {
			close(entered)
			<-release
		}
	})
	if _, err := h.agent.Prompt(user("hi")); err != nil {
		t.Fatal(err)
	}
	<-entered
	idle := make(chan error)
	go func() { idle <- h.agent.WaitForIdle(context.Background()) }()
	select {
	case <-idle:
		t.Fatal("WaitForIdle returned while a listener blocked")
	default:
	}
	close(release)
	if err := <-idle; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.agent.WaitForIdle(ctx); err != nil {
		t.Fatalf("WaitForIdle when idle = %v, want nil", err)
	}
}

// B7: listeners receive the run's context, which abort cancels.
func TestB7ListenerSeesRunContext(t *testing.T) {
	step := faux.Reply(faux.Text("a long answer"))
	step.Hang = true
	h := newHarness(t, core.Options{}, step)
	ctxs := make(chan context.Context, 1)
	h.agent.Subscribe(func(ctx context.Context, ev core.Event) {
		if ev.Type == core.AgentStart {
			ctxs <- ctx
		}
	})
	run, _ := h.agent.Prompt(user("hi"))
	ctx := <-ctxs
	if ctx.Err() != nil {
		t.Fatal("run context cancelled before abort")
	}
	if !h.agent.Abort() {
		t.Fatal("Abort() = false during a run")
	}
	<-ctx.Done()
	h.wait(run)
}

// B8: an update sent after the tool's result is dropped, and nothing breaks.
func TestB8LateUpdateAfterToolEndDropped(t *testing.T) {
	late := make(chan func(core.ToolResult), 1)
	tool := &echoTool{run: func(_ context.Context, _ any, update func(core.ToolResult)) (core.ToolResult, error) {
		update(core.TextResult("progress"))
		late <- update
		return core.TextResult("done"), nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{tool}},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "x"})), faux.Reply(faux.Text("ok")))
	h.prompt("go")
	(<-late)(core.TextResult("too late")) // after agent_end: must return at once and emit nothing
	ups := h.rec.ofType(core.ToolExecutionUpdate)
	if len(ups) != 1 || core.TextOf(ups[0].Result.Content) != "progress" {
		t.Fatalf("updates = %+v, want only the one sent before the result", ups)
	}
}

// B9: a late update from a settled parallel tool, while another still runs, is dropped.
func TestB9LateUpdateWhileOtherToolRuns(t *testing.T) {
	lateSent := make(chan struct{})
	var lateUpdate func(core.ToolResult)
	firstReturned := make(chan struct{})
	tool := &echoTool{run: func(_ context.Context, v any, update func(core.ToolResult)) (core.ToolResult, error) {
		if v == "fast" {
			lateUpdate = update
			close(firstReturned)
			return core.TextResult("fast done"), nil
		}
		<-lateSent // the slow tool waits until the fast one's late update has been attempted
		return core.TextResult("slow done"), nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{tool}},
		faux.Reply(faux.ToolCallWithID("fast", "echo", map[string]any{"value": "fast"}), faux.ToolCallWithID("slow", "echo", map[string]any{"value": "slow"})),
		faux.Reply(faux.Text("ok")))
	h.agent.Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.ToolExecutionEnd && ev.ToolCallID == "fast" {
			go func() {
				<-firstReturned
				lateUpdate(core.TextResult("late"))
				close(lateSent)
			}()
		}
	})
	h.prompt("go")
	if ups := h.rec.ofType(core.ToolExecutionUpdate); len(ups) != 0 {
		t.Fatalf("updates = %+v, want none", ups)
	}
}

// B10: assigning tools or messages copies the slice; the snapshot is a copy too.
func TestB10AssignmentCopies(t *testing.T) {
	a := core.New(core.Options{})
	tools := []core.Tool{&echoTool{}}
	a.SetTools(tools)
	tools[0] = nil
	if a.State().Tools[0] == nil {
		t.Fatal("SetTools kept the caller's slice")
	}
	msgs := []core.Message{core.NewUserMessage("a", nil, 0)}
	a.SetMessages(msgs)
	msgs[0] = nil
	snap := a.State().Messages
	if snap[0] == nil {
		t.Fatal("SetMessages kept the caller's slice")
	}
	snap[0] = nil
	if a.Messages()[0] == nil {
		t.Fatal("State().Messages shares the agent's slice")
	}
}

// B11: steer and follow-up messages stay out of the transcript until delivered: an idle
// agent does not poll its queues.
func TestB11QueuedNotInTranscript(t *testing.T) {
	h := newHarness(t, core.Options{})
	h.queue.steer(input("s", "steer"))
	h.queue.follow(input("f", "follow"))
	if n := len(h.agent.Messages()); n != 0 {
		t.Fatalf("transcript has %d messages, want 0", n)
	}
	steer, follow := h.queue.queued()
	if len(steer) != 1 || len(follow) != 1 {
		t.Fatalf("queues = %v / %v", steer, follow)
	}
}

// B12: abort without a run is a no-op.
func TestB12AbortIdle(t *testing.T) {
	if core.New(core.Options{}).Abort() {
		t.Fatal("Abort() = true when idle")
	}
}

// B13 [>0.73], B14, B15: reset, prompt and continue while a run is active fail with pi's
// messages.
func TestB13B14B15BusyErrors(t *testing.T) {
	step := faux.Reply(faux.Text("x"))
	step.Hang = true
	h := newHarness(t, core.Options{}, step)
	run, err := h.agent.Prompt(user("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.agent.Reset(); !errors.Is(err, core.ErrBusyReset) || err.Error() != "Agent is already processing. Wait for completion before resetting." {
		t.Errorf("Reset() = %v", err)
	}
	if _, err := h.agent.Prompt(user("again")); err == nil || err.Error() != "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion." {
		t.Errorf("Prompt() = %v", err)
	}
	if _, err := h.agent.Continue(h.queue.pull()); err == nil || err.Error() != "Agent is already processing. Wait for completion before continuing." {
		t.Errorf("Continue() = %v", err)
	}
	h.agent.Abort()
	h.wait(run)
	if err := h.agent.Reset(); err != nil {
		t.Fatalf("Reset() after the run = %v", err)
	}
	if len(h.agent.Messages()) != 0 {
		t.Fatal("Reset left messages")
	}
}

// B16: continue after a finished reply delivers a queued follow-up.
func TestB16ContinueDeliversFollowUp(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Reply(faux.Text("first")), faux.Reply(faux.Text("second")))
	h.prompt("hi")
	h.queue.follow(input("f1", "and then?"))
	run, err := h.agent.Continue(h.queue.pull())
	if err != nil {
		t.Fatal(err)
	}
	h.wait(run)
	eq(t, "transcript roles", testkit.Roles(h.agent.Messages()), []string{"user", "assistant", "user", "assistant"})
	h.golden()
}

// B17: continue after a finished reply delivers queued steering per the steering mode.
func TestB17ContinueDeliversSteering(t *testing.T) {
	for _, tc := range []struct {
		mode core.QueueMode
		want [][]string
	}{
		{core.QueueOneAtATime, [][]string{{"hi", "Steering 1"}, {"hi", "Steering 1", "Steering 2"}}},
		{core.QueueAll, [][]string{{"hi", "Steering 1", "Steering 2"}}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			h := newHarness(t, core.Options{}, faux.Reply(faux.Text("a")), faux.Reply(faux.Text("b")), faux.Reply(faux.Text("c")))
			h.queue.setModes(tc.mode, "")
			h.prompt("hi")
			h.queue.steer(input("s1", "Steering 1"), input("s2", "Steering 2"))
			run, err := h.agent.Continue(h.queue.pull())
			if err != nil {
				t.Fatal(err)
			}
			h.wait(run)
			calls := h.calls()[1:]
			if len(calls) != len(tc.want) {
				t.Fatalf("%d requests after continue, want %d", len(calls), len(tc.want))
			}
			for i, want := range tc.want {
				eq(t, "request user texts", testkit.UserTexts(calls[i]), want)
			}
		})
	}
}

// B18: the session id reaches the provider and can change at runtime.
func TestB18SessionIDForwarded(t *testing.T) {
	h := newHarness(t, core.Options{SessionID: "s-1"}, faux.Reply(faux.Text("a")), faux.Reply(faux.Text("b")))
	h.prompt("one")
	h.agent.SetSessionID("s-2")
	h.prompt("two")
	if got := []string{h.calls()[0].SessionID, h.calls()[1].SessionID}; !slices.Equal(got, []string{"s-1", "s-2"}) {
		t.Fatalf("session ids = %v", got)
	}
}

// B20: pendingToolCalls holds the call between its start and end.
func TestB20PendingToolCalls(t *testing.T) {
	h := newHarness(t, core.Options{Tools: []core.Tool{&echoTool{}}},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "x"})), faux.Reply(faux.Text("ok")))
	var sizes []int
	h.agent.Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.ToolExecutionStart || ev.Type == core.ToolExecutionEnd {
			sizes = append(sizes, len(h.agent.State().PendingToolCalls))
		}
	})
	h.prompt("go")
	eq(t, "pending sizes", sizes, []int{1, 0})
}

// B21: abort mid-stream ends the reply as aborted, with the error recorded.
func TestB21AbortMidStream(t *testing.T) {
	var agent *core.Agent
	step := faux.Reply(faux.Text("a fairly long answer that streams in several chunks"))
	step.ChunkSize = 4
	step.BeforeChunk = func(ctx context.Context, chunk int) {
		if chunk == 3 {
			agent.Abort()
			<-ctx.Done()
		}
	}
	h := newHarness(t, core.Options{}, step)
	agent = h.agent
	got := h.prompt("hi")
	last := got[len(got)-1].(*core.AssistantMessage)
	if last.StopReason != core.StopReasonAborted || core.TextOf(last.Content) != "a fairly lon" {
		t.Fatalf("last message stop %q text %q, want aborted with the partial text", last.StopReason, core.TextOf(last.Content))
	}
	st := h.agent.State()
	if st.ErrorMessage != "Request was aborted" || st.IsStreaming {
		t.Fatalf("state error %q streaming %v", st.ErrorMessage, st.IsStreaming)
	}
	h.golden()
}
