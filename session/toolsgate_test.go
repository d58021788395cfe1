package session_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
)

// fakeGate is tools still being prepared until the test opens it: Wait then gives the session
// the late tool, as the MCP host gives it a server's tools.
type fakeGate struct {
	mu      sync.Mutex
	pending bool
	sup     *session.Supervisor
	late    core.Tool
	waiting chan struct{} // closed when a Wait begins
	open    chan struct{} // closed by the test
	ended   chan error    // Wait's ctx error, or nil
}

func newFakeGate(late core.Tool) *fakeGate {
	return &fakeGate{pending: true, late: late, waiting: make(chan struct{}), open: make(chan struct{}), ended: make(chan error, 1)}
}

func (g *fakeGate) Pending() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending
}

func (g *fakeGate) Wait(ctx context.Context) {
	close(g.waiting)
	select {
	case <-g.open:
		g.mu.Lock()
		g.pending = false
		g.mu.Unlock()
		g.sup.SetTools([]core.Tool{g.late})
		g.ended <- nil
	case <-ctx.Done():
		g.ended <- ctx.Err()
	}
}

func lateTool() core.Tool {
	return &core.FuncTool{ToolInfo: core.ToolInfo{Name: "mcp__slow__look", Description: "a tool of a server that starts late", Parameters: []byte(`{"type":"object"}`)},
		Run: func(context.Context, core.ToolCall, func(core.ToolResult)) (core.ToolResult, error) {
			return core.TextResult("looked"), nil
		}}
}

func toolNames(req *core.Request) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	return names
}

// waitClosed fails the test when ch is not closed within the hang timeout.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never happened", what)
	}
}

// A prompt accepted while tools are still being prepared is answered at once and its run
// waits for them: the first model request offers the late tool.
func TestPromptWaitsForPendingTools(t *testing.T) {
	gate := newFakeGate(lateTool())
	h := newHarness(t, harnessOpts{gate: gate}, faux.Reply(faux.Text("done")))
	gate.sup = h.sup
	a := h.prompt("use the late tool")
	if a.Disposition != session.DispositionStarted {
		t.Fatalf("disposition %s", a.Disposition)
	}
	waitClosed(t, gate.waiting, "the wait for the tools")
	if n := h.model.CallCount(); n != 0 {
		t.Fatalf("%d model calls before the tools are ready", n)
	}
	if types := h.sink.types(); slices.Contains(types, "agent_start") {
		t.Fatalf("the run started before the tools are ready: %v", types)
	}
	close(gate.open)
	st := h.settle()
	eq(t, "outcomes", outcomes(st), []string{a.InputID + "=completed"})
	reqs := h.model.Requests()
	if len(reqs) != 1 || !slices.Contains(toolNames(reqs[0]), "mcp__slow__look") {
		t.Fatalf("the first request's tools: %v", toolNames(reqs[0]))
	}
	h.check()
}

// An abort during the wait ends it: the period settles aborted and the model is not called.
func TestAbortDuringToolsWait(t *testing.T) {
	gate := newFakeGate(lateTool())
	h := newHarness(t, harnessOpts{gate: gate}, faux.Reply(faux.Text("never")))
	gate.sup = h.sup
	a := h.prompt("go")
	waitClosed(t, gate.waiting, "the wait for the tools")
	if !h.sup.Abort() {
		t.Fatal("Abort() = false during the wait")
	}
	st := h.settle()
	if !st.Aborted {
		t.Fatalf("settled %+v, want aborted", st)
	}
	eq(t, "outcomes", outcomes(st), []string{a.InputID + "=aborted"})
	if err := <-gate.ended; err == nil {
		t.Fatal("the wait ended without its ctx being cancelled")
	}
	if n := h.model.CallCount(); n != 0 {
		t.Fatalf("%d model calls after an abort during the wait", n)
	}
	h.check()
}

// Without anything pending the run starts at once, as without a gate.
func TestNothingPendingNoWait(t *testing.T) {
	gate := newFakeGate(lateTool())
	gate.pending = false
	h := newHarness(t, harnessOpts{gate: gate}, faux.Reply(faux.Text("done")))
	gate.sup = h.sup
	h.prompt("hi")
	h.settle()
	select {
	case <-gate.waiting:
		t.Fatal("Wait was called with nothing pending")
	default:
	}
}
