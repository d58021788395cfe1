package core_test

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// A1: a stream that yields only done (no start) gives no message_update, and the run's
// result is [user, assistant].
func TestA1BasicPrompt(t *testing.T) {
	h := newHarness(t, core.Options{})
	model := faux.DefaultModel()
	h.agent = core.New(core.Options{Clock: h.clock, Model: model, Provider: core.ProviderFunc(func(_ context.Context, req *core.Request) iter.Seq[core.AssistantEvent] {
		h.requests = append(h.requests, req)
		return func(yield func(core.AssistantEvent) bool) {
			msg := &core.AssistantMessage{Content: []core.Content{core.TextBlock("Hi there!")}, API: model.API, Provider: model.Provider, Model: model.ID, StopReason: core.StopReasonStop, Timestamp: epoch.UnixMilli()}
			yield(core.AssistantEvent{Type: core.EventDone, Reason: core.StopReasonStop, Partial: msg})
		}
	})})
	h.agent.Subscribe(h.rec.listen)
	got := h.prompt("Hello")
	eq(t, "result roles", testkit.Roles(got), []string{"user", "assistant"})
	eq(t, "events", h.rec.types(), []string{"agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"})
	h.golden()
}

type notification struct{}

func (notification) Role() core.Role { return "notification" }
func (notification) Time() int64     { return 0 }

// A2: convertToLLM drops a custom message the model cannot see.
func TestA2CustomMessageFiltered(t *testing.T) {
	h := newHarness(t, core.Options{Messages: []core.Message{notification{}}}, faux.Reply(faux.Text("ok")))
	h.prompt("Hello")
	reqs := h.calls()
	if len(reqs) != 1 || len(reqs[0].Messages) != 1 {
		t.Fatalf("model saw %d calls, first with %d messages; want 1 call with 1 message", len(reqs), len(reqs[0].Messages))
	}
	h.golden()
}

// A3: transformContext runs before convertToLLM and can prune the context.
func TestA3TransformContext(t *testing.T) {
	old := []core.Message{}
	for _, s := range []string{"one", "two", "three", "four"} {
		old = append(old, core.NewUserMessage(s, nil, 0))
	}
	var converted int
	h := newHarness(t, core.Options{
		Messages: old,
		TransformContext: func(_ context.Context, ms []core.Message) ([]core.Message, error) {
			return ms[len(ms)-2:], nil
		},
		ConvertToLLM: func(_ context.Context, ms []core.Message) ([]core.Message, error) {
			converted = len(ms)
			return core.ConvertToLLM(ms), nil
		},
	}, faux.Reply(faux.Text("ok")))
	h.prompt("five")
	if converted != 2 {
		t.Fatalf("convertToLLM received %d messages, want 2", converted)
	}
	eq(t, "model context", testkit.UserTexts(h.calls()[0]), []string{"four", "five"})
	h.golden()
}

// A4: a tool call is executed and its result goes back to the model.
func TestA4ToolCallAndResult(t *testing.T) {
	echo := &echoTool{}
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "hello"})),
		faux.Reply(faux.Text("done")))
	h.prompt("echo hello")
	eq(t, "executed", echo.values(), []any{"hello"})
	if n := len(h.rec.ofType(core.ToolExecutionStart)); n != 1 {
		t.Fatalf("%d tool_execution_start, want 1", n)
	}
	ends := h.rec.ofType(core.ToolExecutionEnd)
	if len(ends) != 1 || ends[0].IsError {
		t.Fatalf("tool_execution_end = %+v, want one with isError false", ends)
	}
	if len(h.calls()) != 2 {
		t.Fatalf("%d model calls, want 2", len(h.calls()))
	}
	h.golden()
}

// A5 [>0.73, docs/protocol.md#differences-from-pi-0731-rpc]: tool calls of a length-truncated
// response are not executed; each gets an error result and the model is called again.
func TestA5LengthTruncatedToolCallsNotExecuted(t *testing.T) {
	echo := &echoTool{}
	step := faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "partial"}))
	step.StopReason = core.StopReasonLength
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}}, step, faux.Reply(faux.Text("retrying")))
	h.prompt("go")
	if v := echo.values(); len(v) != 0 {
		t.Fatalf("executed %v, want nothing", v)
	}
	ends := h.rec.ofType(core.ToolExecutionEnd)
	if len(ends) != 1 || !ends[0].IsError || !strings.Contains(core.TextOf(ends[0].Result.Content), "output token limit") {
		t.Fatalf("tool_execution_end = %+v, want an error naming the output limit", ends)
	}
	if len(h.calls()) != 2 {
		t.Fatalf("%d model calls, want 2", len(h.calls()))
	}
	h.golden()
}

// A6: beforeToolCall may change the arguments; the change is used without validating again.
func TestA6BeforeToolCallMutatesArgs(t *testing.T) {
	echo := &echoTool{}
	h := newHarness(t, core.Options{
		Tools: []core.Tool{echo},
		BeforeToolCall: func(_ context.Context, c *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error) {
			c.Args["value"] = 123
			return nil, nil
		},
	}, faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "hello"})), faux.Reply(faux.Text("done")))
	h.prompt("go")
	eq(t, "executed", echo.values(), []any{123})
	h.golden()
}

// A7: prepareArguments folds a legacy argument shape before validation.
func TestA7PrepareArguments(t *testing.T) {
	var got any
	tool := &core.FuncTool{
		ToolInfo: core.ToolInfo{Name: "edit", Parameters: []byte(`{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["oldText","newText"]}}},"required":["edits"]}`)},
		Prepare: func(args map[string]any) (map[string]any, error) {
			if old, ok := args["oldText"]; ok {
				return map[string]any{"edits": []any{map[string]any{"oldText": old, "newText": args["newText"]}}}, nil
			}
			return args, nil
		},
		Run: func(_ context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
			got = call.Args["edits"]
			return core.TextResult("edited"), nil
		},
	}
	h := newHarness(t, core.Options{Tools: []core.Tool{tool}},
		faux.Reply(faux.ToolCallWithID("tool-1", "edit", map[string]any{"oldText": "before", "newText": "after"})),
		faux.Reply(faux.Text("done")))
	h.prompt("go")
	edits, _ := got.([]any)
	if len(edits) != 1 || edits[0].(map[string]any)["oldText"] != "before" || edits[0].(map[string]any)["newText"] != "after" {
		t.Fatalf("execute received %v, want [{oldText:before newText:after}]", got)
	}
	h.golden()
}

// A8: parallel tools end in completion order; their result messages come in source order.
func TestA8ParallelCompletionVersusSourceOrder(t *testing.T) {
	// The first call returns only once the loop has ended the second: closing the channel
	// when the second returns would let both results race to the loop.
	secondEnded := make(chan struct{})
	echo := &echoTool{run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		if v == "first" {
			<-secondEnded
		}
		return core.TextResult("echoed: " + v.(string)), nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "first"}), faux.ToolCallWithID("tool-2", "echo", map[string]any{"value": "second"})),
		faux.Reply(faux.Text("done")))
	h.agent.Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.ToolExecutionEnd && ev.ToolCallID == "tool-2" {
			close(secondEnded)
		}
	})
	h.prompt("go")
	var ends, results []string
	for _, ev := range h.rec.ofType(core.ToolExecutionEnd) {
		ends = append(ends, ev.ToolCallID)
	}
	for _, ev := range h.rec.ofType(core.MessageEnd) {
		if r, ok := ev.Message.(*core.ToolResultMessage); ok {
			results = append(results, r.ToolCallID)
		}
	}
	eq(t, "tool_execution_end ids", ends, []string{"tool-2", "tool-1"})
	eq(t, "toolResult message_end ids", results, []string{"tool-1", "tool-2"})
	var turnResults []string
	for _, r := range h.rec.ofType(core.TurnEnd)[0].ToolResults {
		turnResults = append(turnResults, r.ToolCallID)
	}
	eq(t, "turn_end.toolResults ids", turnResults, []string{"tool-1", "tool-2"})
	h.golden()
}

// A9: steering is delivered only after the whole batch (no tool is skipped).
func TestA9SteeringAfterWholeBatch(t *testing.T) {
	var q *queue
	echo := &echoTool{run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		if v == "one" {
			q.steer(input("in2", "interrupt"))
		}
		return core.TextResult("echoed: " + v.(string)), nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}, ToolExecution: core.ExecutionSequential},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "one"}), faux.ToolCallWithID("tool-2", "echo", map[string]any{"value": "two"})),
		faux.Reply(faux.Text("done")))
	q = h.queue
	h.prompt("go")
	eq(t, "executed", echo.values(), []any{"one", "two"})
	for _, ev := range h.rec.ofType(core.ToolExecutionEnd) {
		if ev.IsError {
			t.Fatalf("tool %s ended with an error", ev.ToolCallID)
		}
	}
	var order []string
	for _, ev := range h.rec.ofType(core.MessageStart) {
		switch m := ev.Message.(type) {
		case *core.ToolResultMessage:
			order = append(order, m.ToolCallID)
		case *core.UserMessage:
			order = append(order, "user:"+core.TextOf(m.Content)+":"+ev.InputID)
		}
	}
	eq(t, "message_start order", order, []string{"user:go:", "tool-1", "tool-2", "user:interrupt:in2"})
	second := testkit.UserTexts(h.calls()[1])
	if second[len(second)-1] != "interrupt" {
		t.Fatalf("second model call's user messages = %q, want the steer last", second)
	}
	h.golden()
}

// concurrencyProbe counts tools running at once.
type concurrencyProbe struct {
	running, max int
	order        []string
	mu           chan struct{}
}

func newProbe() *concurrencyProbe { return &concurrencyProbe{mu: make(chan struct{}, 1)} }

func (p *concurrencyProbe) enter(name string) {
	p.mu <- struct{}{}
	p.running++
	p.max = max(p.max, p.running)
	p.order = append(p.order, "start:"+name)
	<-p.mu
}

func (p *concurrencyProbe) leave(name string) {
	p.mu <- struct{}{}
	p.running--
	p.order = append(p.order, "end:"+name)
	<-p.mu
}

// A10/A11: a sequential tool makes its whole batch sequential, in source order.
func TestA10A11SequentialToolForcesSequentialBatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		modes [2]core.ExecutionMode
	}{
		{"A10 every tool sequential", [2]core.ExecutionMode{core.ExecutionSequential, core.ExecutionSequential}},
		{"A11 one sequential among parallel", [2]core.ExecutionMode{core.ExecutionSequential, core.ExecutionParallel}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probe := newProbe()
			mk := func(name string, mode core.ExecutionMode) *echoTool {
				return &echoTool{name: name, mode: mode, run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
					probe.enter(name)
					defer probe.leave(name)
					return core.TextResult("ok"), nil
				}}
			}
			h := newHarness(t, core.Options{Tools: []core.Tool{mk("slow", tc.modes[0]), mk("fast", tc.modes[1])}},
				faux.Reply(faux.ToolCallWithID("a", "slow", map[string]any{"value": "a"}), faux.ToolCallWithID("b", "fast", map[string]any{"value": "b"})),
				faux.Reply(faux.Text("done")))
			h.prompt("go")
			if probe.max != 1 {
				t.Fatalf("%d tools ran at once, want 1", probe.max)
			}
			eq(t, "order", probe.order, []string{"start:slow", "end:slow", "start:fast", "end:fast"})
		})
	}
}

// A12: parallel tools really overlap: each waits for the other to start.
func TestA12ParallelToolsOverlap(t *testing.T) {
	started := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	other := map[string]string{"a": "b", "b": "a"}
	echo := &echoTool{mode: core.ExecutionParallel, run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		name := v.(string)
		close(started[name])
		select {
		case <-started[other[name]]:
			return core.TextResult("overlapped"), nil
		case <-time.After(10 * time.Second): // hang detector only
			return core.ToolResult{}, errors.New("the other tool never started")
		}
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}},
		faux.Reply(faux.ToolCallWithID("a", "echo", map[string]any{"value": "a"}), faux.ToolCallWithID("b", "echo", map[string]any{"value": "b"})),
		faux.Reply(faux.Text("done")))
	h.prompt("go")
	for _, ev := range h.rec.ofType(core.ToolExecutionEnd) {
		if ev.IsError {
			t.Fatalf("tool %s: %s", ev.ToolCallID, core.TextOf(ev.Result.Content))
		}
	}
}

// A14: shouldStopAfterTurn ends the run after the turn; queues are not polled again.
func TestA14ShouldStopAfterTurn(t *testing.T) {
	var seen *core.TurnInfo
	var q *queue
	echo := &echoTool{run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		q.steer(input("s1", "late steer"))
		q.follow(input("f1", "late follow-up"))
		return core.TextResult("echoed"), nil
	}}
	h := newHarness(t, core.Options{
		Tools: []core.Tool{echo},
		ShouldStopAfterTurn: func(_ context.Context, info *core.TurnInfo) bool {
			seen = info
			return true
		},
	}, faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "hello"})))
	q = h.queue
	got := h.prompt("go")
	if len(h.calls()) != 1 {
		t.Fatalf("%d model calls, want 1", len(h.calls()))
	}
	eq(t, "executed", echo.values(), []any{"hello"})
	if len(seen.ToolResults) != 1 || seen.ToolResults[0].ToolCallID != "tool-1" {
		t.Fatalf("hook saw tool results %v, want [tool-1]", seen.ToolResults)
	}
	eq(t, "hook context roles", testkit.Roles(seen.Context.Messages), []string{"user", "assistant", "toolResult"})
	eq(t, "result roles", testkit.Roles(got), []string{"user", "assistant", "toolResult"})
	steer, follow := h.queue.queued()
	if len(steer) != 1 || len(follow) != 1 {
		t.Fatalf("queues polled after the hook stopped the run: steering %v, follow-up %v", steer, follow)
	}
	eq(t, "events", h.rec.typesWithoutUpdates(), []string{"agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end",
		"tool_execution_start", "tool_execution_end", "message_start", "message_end", "turn_end", "agent_end"})
	h.golden()
}

// A15: when every result terminates, the model is not called again.
func TestA15AllResultsTerminate(t *testing.T) {
	echo := &echoTool{run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		return core.ToolResult{Content: []core.Content{core.TextBlock("bye")}, Terminate: true}, nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "x"})))
	got := h.prompt("go")
	if len(h.calls()) != 1 {
		t.Fatalf("%d model calls, want 1", len(h.calls()))
	}
	eq(t, "result roles", testkit.Roles(got), []string{"user", "assistant", "toolResult"})
	if n := len(h.rec.ofType(core.TurnEnd)); n != 1 {
		t.Fatalf("%d turn_end, want 1", n)
	}
	h.golden()
}

// A16 (0.73.1 outcome) and A17: a blocked call yields its reason as an error result; the
// other calls run and the model is called again.
func TestA16A17BlockedCallContinues(t *testing.T) {
	echo := &echoTool{}
	h := newHarness(t, core.Options{
		Tools: []core.Tool{echo},
		BeforeToolCall: func(_ context.Context, c *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error) {
			if c.Call.ID == "tool-1" {
				return &core.BeforeToolCallResult{Block: true, Reason: "Blocked first"}, nil
			}
			return nil, nil
		},
	}, faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "first"}), faux.ToolCallWithID("tool-2", "echo", map[string]any{"value": "second"})),
		faux.Reply(faux.Text("done")))
	h.prompt("go")
	eq(t, "executed", echo.values(), []any{"second"})
	if len(h.calls()) != 2 {
		t.Fatalf("%d model calls, want 2", len(h.calls()))
	}
	first := h.rec.ofType(core.ToolExecutionEnd)[0]
	if first.ToolCallID != "tool-1" || !first.IsError || core.TextOf(first.Result.Content) != "Blocked first" {
		t.Fatalf("first end = %+v, want tool-1 blocked with its reason", first)
	}
	h.golden()
}

// A18: when only some results terminate, the loop goes on.
func TestA18SomeResultsTerminate(t *testing.T) {
	echo := &echoTool{run: func(_ context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		return core.ToolResult{Content: []core.Content{core.TextBlock("r")}, Terminate: v == "a"}, nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}},
		faux.Reply(faux.ToolCallWithID("a", "echo", map[string]any{"value": "a"}), faux.ToolCallWithID("b", "echo", map[string]any{"value": "b"})),
		faux.Reply(faux.Text("done")))
	got := h.prompt("go")
	if len(h.calls()) != 2 {
		t.Fatalf("%d model calls, want 2", len(h.calls()))
	}
	eq(t, "result roles", testkit.Roles(got), []string{"user", "assistant", "toolResult", "toolResult", "assistant"})
}

// A19: afterToolCall can make a batch terminating.
func TestA19AfterToolCallTerminates(t *testing.T) {
	yes := true
	h := newHarness(t, core.Options{
		Tools: []core.Tool{&echoTool{}},
		AfterToolCall: func(_ context.Context, c *core.AfterToolCallContext) (*core.AfterToolCallResult, error) {
			return &core.AfterToolCallResult{Terminate: &yes}, nil
		},
	}, faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "x"})))
	h.prompt("go")
	if len(h.calls()) != 1 {
		t.Fatalf("%d model calls, want 1", len(h.calls()))
	}
}

// A21/B19: continue on an empty transcript fails.
func TestA21ContinueEmpty(t *testing.T) {
	h := newHarness(t, core.Options{})
	if _, err := h.agent.Continue(h.queue.pull()); !errors.Is(err, core.ErrNoMessages) || err.Error() != "No messages to continue from" {
		t.Fatalf("Continue() = %v, want %v", err, core.ErrNoMessages)
	}
}

// A22: continue from [user] yields only the assistant message, with no user events.
func TestA22ContinueFromUser(t *testing.T) {
	h := newHarness(t, core.Options{Messages: []core.Message{core.NewUserMessage("hi", nil, 0)}}, faux.Reply(faux.Text("hello")))
	run, err := h.agent.Continue(h.queue.pull())
	if err != nil {
		t.Fatal(err)
	}
	got := h.wait(run)
	eq(t, "result roles", testkit.Roles(got), []string{"assistant"})
	if n := len(h.rec.ofType(core.MessageEnd)); n != 1 {
		t.Fatalf("%d message_end, want 1", n)
	}
	h.golden()
}

// A23: continue with a custom last message is allowed; the model sees it as a user message.
func TestA23ContinueFromCustom(t *testing.T) {
	h := newHarness(t, core.Options{Messages: []core.Message{&core.CustomMessage{CustomType: "note", Content: []core.Content{core.TextBlock("custom")}}}}, faux.Reply(faux.Text("ok")))
	run, err := h.agent.Continue(h.queue.pull())
	if err != nil {
		t.Fatal(err)
	}
	h.wait(run)
	eq(t, "model context", testkit.UserTexts(h.calls()[0]), []string{"custom"})
}

// A24 (docs/protocol.md#continue): continue after a finished reply with nothing queued fails.
func TestA24ContinueAfterFinishedReply(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Reply(faux.Text("done")))
	h.prompt("hi")
	if _, err := h.agent.Continue(h.queue.pull()); !errors.Is(err, core.ErrNothingToResume) {
		t.Fatalf("Continue() = %v, want %v", err, core.ErrNothingToResume)
	}
}

// docs/protocol.md#continue: continue after a failed reply drops it from the context and calls
// the model again from the message before it.
func TestContinueAfterFailedReply(t *testing.T) {
	h := newHarness(t, core.Options{}, faux.Fail("overloaded"), faux.Reply(faux.Text("recovered")))
	h.prompt("hi")
	run, err := h.agent.Continue(h.queue.pull())
	if err != nil {
		t.Fatal(err)
	}
	h.wait(run)
	eq(t, "transcript roles", testkit.Roles(h.agent.Messages()), []string{"user", "assistant"})
	eq(t, "second call context", testkit.Roles(h.calls()[1].Messages), []string{"user"})
	h.golden()
}

// A25: an error response ends the run at once; its tool calls are not executed and the
// queues are not polled.
func TestA25ErrorEndsRun(t *testing.T) {
	echo := &echoTool{}
	step := faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "x"}))
	step.StopReason = core.StopReasonError
	step.ErrorMessage = "boom"
	h := newHarness(t, core.Options{Tools: []core.Tool{echo}}, step)
	h.queue.follow(input("f1", "later"))
	h.prompt("go")
	if v := echo.values(); len(v) != 0 {
		t.Fatalf("executed %v, want nothing", v)
	}
	turnEnd := h.rec.ofType(core.TurnEnd)
	if len(turnEnd) != 1 || len(turnEnd[0].ToolResults) != 0 {
		t.Fatalf("turn_end = %+v, want one with no tool results", turnEnd)
	}
	if _, follow := h.queue.queued(); len(follow) != 1 {
		t.Fatalf("follow-up queue = %v, want it untouched", follow)
	}
	if st := h.agent.State(); st.ErrorMessage != "boom" {
		t.Fatalf("state error = %q, want boom", st.ErrorMessage)
	}
	eq(t, "events", h.rec.typesWithoutUpdates(), []string{"agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"})
}

// A26: unknown tool, invalid arguments and a failing or panicking tool give error results.
func TestA26ToolFailures(t *testing.T) {
	failing := &core.FuncTool{ToolInfo: core.ToolInfo{Name: "fails", Parameters: []byte(`{"type":"object"}`)},
		Run: func(context.Context, core.ToolCall, func(core.ToolResult)) (core.ToolResult, error) {
			return core.ToolResult{}, errors.New("disk on fire")
		}}
	panicking := &core.FuncTool{ToolInfo: core.ToolInfo{Name: "panics", Parameters: []byte(`{"type":"object"}`)},
		Run: func(context.Context, core.ToolCall, func(core.ToolResult)) (core.ToolResult, error) {
			panic("oops")
		}}
	// Sequential, so the transcript's order does not depend on scheduling.
	h := newHarness(t, core.Options{Tools: []core.Tool{&echoTool{}, failing, panicking}, ToolExecution: core.ExecutionSequential},
		faux.Reply(
			faux.ToolCallWithID("t1", "nope", nil),
			faux.ToolCallWithID("t2", "echo", map[string]any{"value": 5.5, "extra": true, "other": []any{}}),
			faux.ToolCallWithID("t3", "echo", map[string]any{}),
			faux.ToolCallWithID("t4", "fails", nil),
			faux.ToolCallWithID("t5", "panics", nil),
		),
		faux.Reply(faux.Text("done")))
	h.prompt("go")
	texts := map[string]string{}
	for _, ev := range h.rec.ofType(core.ToolExecutionEnd) {
		if !ev.IsError && ev.ToolCallID != "t2" {
			t.Errorf("%s isError = false, want true", ev.ToolCallID)
		}
		texts[ev.ToolCallID] = core.TextOf(ev.Result.Content)
	}
	if texts["t1"] != "Tool nope not found" {
		t.Errorf("unknown tool text = %q", texts["t1"])
	}
	if texts["t2"] != "echoed: 5.5" {
		t.Errorf("coerced call text = %q, want the number coerced to a string", texts["t2"])
	}
	if !strings.HasPrefix(texts["t3"], "Validation failed for tool \"echo\":\n  - value: must have required property 'value'") {
		t.Errorf("validation text = %q", texts["t3"])
	}
	if texts["t4"] != "disk on fire" {
		t.Errorf("failing tool text = %q", texts["t4"])
	}
	if texts["t5"] != "Tool panics panicked: oops" {
		t.Errorf("panicking tool text = %q", texts["t5"])
	}
	h.golden()
}

// A27: follow-ups are delivered one per extra turn, or all at once in "all" mode.
func TestA27FollowUpDrain(t *testing.T) {
	for _, tc := range []struct {
		mode  core.QueueMode
		calls int
	}{{core.QueueOneAtATime, 3}, {core.QueueAll, 2}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			h := newHarness(t, core.Options{}, faux.Reply(faux.Text("1")), faux.Reply(faux.Text("2")), faux.Reply(faux.Text("3")))
			h.queue.setModes("", tc.mode)
			h.queue.follow(input("a", "follow a"), input("b", "follow b"))
			h.prompt("go")
			if len(h.calls()) != tc.calls {
				t.Fatalf("%d model calls, want %d", len(h.calls()), tc.calls)
			}
			turns := h.rec.ofType(core.TurnStart)
			if len(turns) != tc.calls {
				t.Fatalf("%d turn_start, want %d", len(turns), tc.calls)
			}
			h.golden()
		})
	}
}

// B4 [>0.73]: a failing model call yields the full lifecycle of the failure message.
func TestB4FailureLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		opts       core.Options
	}{
		{"provider fails before any content", faux.QueueEmptyMessage, core.Options{}},
		{"hook error", "provider exploded", core.Options{ConvertToLLM: func(context.Context, []core.Message) ([]core.Message, error) {
			return nil, errors.New("provider exploded")
		}}},
		{"provider panic", "provider panicked: provider exploded", core.Options{Provider: core.ProviderFunc(func(context.Context, *core.Request) iter.Seq[core.AssistantEvent] {
			panic("provider exploded")
		})}},
		{"stream without terminal event", "Provider stream ended without a done or error event", core.Options{Provider: core.ProviderFunc(func(context.Context, *core.Request) iter.Seq[core.AssistantEvent] {
			return func(func(core.AssistantEvent) bool) {}
		})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opts)
			got := h.prompt("hi")
			eq(t, "events", h.rec.types(), []string{"agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end", "turn_end", "agent_end"})
			// The message_start as written already says how the response ended.
			start := h.rec.lines[4]
			for _, want := range []string{`"stopReason":"error"`, `"errorMessage":` + strconv.Quote(tc.want)} {
				if !strings.Contains(start, want) {
					t.Errorf("message_start %s lacks %s", start, want)
				}
			}
			last := got[len(got)-1].(*core.AssistantMessage)
			if last.StopReason != core.StopReasonError || last.ErrorMessage != tc.want {
				t.Fatalf("last message stop %q error %q, want error %q", last.StopReason, last.ErrorMessage, tc.want)
			}
			st := h.agent.State()
			if st.ErrorMessage != tc.want || st.IsStreaming {
				t.Fatalf("state error %q streaming %v", st.ErrorMessage, st.IsStreaming)
			}
			if msgs := st.Messages; msgs[len(msgs)-1] != last {
				t.Fatal("failure message is not the last transcript message")
			}
		})
	}
}
