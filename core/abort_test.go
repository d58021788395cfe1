package core_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
)

// abortAt returns a step whose stream aborts the agent at chunk boundary k.
func abortAt(agent **core.Agent, k int, blocks ...faux.Block) faux.Step {
	step := faux.Reply(blocks...)
	step.ChunkSize = 3
	step.BeforeChunk = func(ctx context.Context, chunk int) {
		if chunk == k {
			(*agent).Abort()
			<-ctx.Done()
		}
	}
	return step
}

// Abort while streaming ends the run with agent_end, whatever the stage; no tool runs and no
// further model call is made.
func TestAbortWhileStreaming(t *testing.T) {
	for _, tc := range []struct {
		name     string
		chunk    int
		blocks   []faux.Block
		wantText string
	}{
		{"before the first chunk", 0, []faux.Block{faux.Text("hello there")}, ""},
		{"mid-text", 2, []faux.Block{faux.Text("hello there")}, "hello "},
		{"mid-tool-call arguments", 3, []faux.Block{faux.Text("ok"), faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "a long value"})}, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			echo := &echoTool{}
			var agent *core.Agent
			h := newHarness(t, core.Options{Tools: []core.Tool{echo}}, abortAt(&agent, tc.chunk, tc.blocks...), faux.Reply(faux.Text("never")))
			agent = h.agent
			h.queue.follow(input("f1", "queued"))
			got := h.prompt("hi")
			last := got[len(got)-1].(*core.AssistantMessage)
			if last.StopReason != core.StopReasonAborted || last.ErrorMessage != "Request was aborted" {
				t.Fatalf("last message stop %q error %q, want aborted", last.StopReason, last.ErrorMessage)
			}
			if text := core.TextOf(last.Content); text != tc.wantText {
				t.Fatalf("partial text %q, want %q", text, tc.wantText)
			}
			types := h.rec.types()
			if types[len(types)-1] != "agent_end" || types[len(types)-2] != "turn_end" {
				t.Fatalf("events end with %v, want turn_end, agent_end", types[len(types)-2:])
			}
			if len(echo.values()) != 0 || len(h.calls()) != 1 {
				t.Fatalf("tools executed %v, model calls %d; want none and 1", echo.values(), len(h.calls()))
			}
			if _, follow := h.queue.queued(); len(follow) != 1 {
				t.Fatal("the queued follow-up was delivered after the abort")
			}
			h.golden()
		})
	}
}

// Abort during a parallel batch: a tool that honours the cancellation ends with its own
// error; one that ignores it is abandoned when the abandon timer fires, and its late update
// and result are dropped. The run makes no further model call.
func TestAbortAbandonsToolIgnoringCancellation(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	started := make(chan string, 2)
	release := make(chan struct{})
	stubbornDone := make(chan struct{})
	tool := &echoTool{run: func(ctx context.Context, v any, update func(core.ToolResult)) (core.ToolResult, error) {
		started <- v.(string)
		if v == "polite" {
			<-ctx.Done()
			return core.ToolResult{}, errors.New("Operation aborted")
		}
		defer close(stubbornDone)
		<-release // ignores ctx
		update(core.TextResult("late update"))
		return core.TextResult("late result"), nil
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{tool}},
		faux.Reply(faux.ToolCallWithID("polite", "echo", map[string]any{"value": "polite"}), faux.ToolCallWithID("stubborn", "echo", map[string]any{"value": "stubborn"})),
		faux.Reply(faux.Text("never")))
	politeEnded := make(chan struct{})
	h.agent.Subscribe(func(_ context.Context, ev core.Event) {
		if ev.Type == core.ToolExecutionEnd && ev.ToolCallID == "polite" {
			close(politeEnded)
		}
	})
	run, err := h.agent.Prompt(user("go"))
	if err != nil {
		t.Fatal(err)
	}
	<-started
	<-started
	h.agent.Abort()
	if d := <-h.clock.Armed; d.Milliseconds() != 50 {
		t.Fatalf("abandon timer armed for %v, want 50ms", d)
	}
	<-politeEnded
	h.clock.Fire()
	h.wait(run)

	ends := map[string]core.Event{}
	for _, ev := range h.rec.ofType(core.ToolExecutionEnd) {
		ends[ev.ToolCallID] = ev
	}
	if got := core.TextOf(ends["stubborn"].Result.Content); !ends["stubborn"].IsError || got != "Tool aborted (did not stop within 50 ms)" {
		t.Fatalf("stubborn end = %q (error %v)", got, ends["stubborn"].IsError)
	}
	if got := core.TextOf(ends["polite"].Result.Content); got != "Operation aborted" {
		t.Fatalf("polite end = %q", got)
	}
	if len(h.calls()) != 1 {
		t.Fatalf("%d model calls, want 1", len(h.calls()))
	}
	types := h.rec.typesWithoutUpdates()
	if got := strings.Join(types[len(types)-6:], ","); got != "message_start,message_end,message_start,message_end,turn_end,agent_end" {
		t.Fatalf("events end with %s, want the two results, turn_end, agent_end", got)
	}

	n := len(h.rec.types())
	close(release)
	<-stubbornDone
	if len(h.rec.types()) != n {
		t.Fatalf("events after agent_end: %v", h.rec.types()[n:])
	}
	h.golden()
}

// A steer queued during a tool batch that is then aborted stays queued: nothing new starts
// after an abort.
func TestAbortDuringToolsLeavesQueues(t *testing.T) {
	var agent *core.Agent
	var q *queue
	tool := &echoTool{run: func(ctx context.Context, v any, _ func(core.ToolResult)) (core.ToolResult, error) {
		q.steer(input("s1", "steer"))
		agent.Abort()
		<-ctx.Done()
		return core.ToolResult{}, errors.New("Operation aborted")
	}}
	h := newHarness(t, core.Options{Tools: []core.Tool{tool}},
		faux.Reply(faux.ToolCallWithID("tool-1", "echo", map[string]any{"value": "x"})), faux.Reply(faux.Text("never")))
	agent, q = h.agent, h.queue
	h.prompt("go")
	if steer, _ := h.queue.queued(); len(steer) != 1 {
		t.Fatalf("steering queue = %v, want the steer still queued", steer)
	}
	if len(h.calls()) != 1 {
		t.Fatalf("%d model calls, want 1", len(h.calls()))
	}
	eq(t, "transcript roles", testkit.Roles(h.agent.Messages()), []string{"user", "assistant", "toolResult"})
}
