package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The loop takes the steer off its queue, then emits turn_start (during which the session may
// wait for the client), and only then the steer's message_start. A cancelInput in that window
// is too late: it must be refused, and the input delivered and settled completed. (Found by
// review: it used to succeed, settle the input "cancelled", and deliver it anyway.)
func TestCancelInputAfterTheLoopTookIt(t *testing.T) {
	tool := &core.FuncTool{
		ToolInfo: core.ToolInfo{Name: "noop", Parameters: []byte(`{"type":"object"}`)},
		Run: func(ctx context.Context, call core.ToolCall, update func(core.ToolResult)) (core.ToolResult, error) {
			return core.TextResult("ok"), nil
		},
	}
	h := newHarness(t, harnessOpts{tools: []core.Tool{tool}},
		faux.Reply(faux.ToolCall("noop", map[string]any{})),
		faux.Reply(faux.Text("done")),
	)
	var steer sessionapi.Accepted
	turnStarts := 0
	var cancelErr error
	cancelled := false
	h.sup.Agent().Subscribe(func(_ context.Context, ev core.Event) {
		switch ev.Type {
		case core.ToolExecutionEnd:
			// queue a steer while the tool batch finishes (any time during the run)
			if err := keep(&steer)(h.sup.Steer(session.QueueRequest{Message: "please stop"})); err != nil {
				t.Errorf("steer: %v", err)
			}
		case core.TurnStart:
			turnStarts++
			if turnStarts == 2 && !cancelled {
				// the client's cancelInput arrives while turn_start is being written
				cancelled = true
				cancelErr = h.sup.CancelInput(steer.InputID)
			}
		}
	})
	h.prompt("go")
	st := h.settle()
	var se *session.Error
	if !errors.As(cancelErr, &se) || se.Kind != session.KindInvalidState {
		t.Fatalf("cancelInput after the loop took the steer = %v, want invalidState", cancelErr)
	}
	delivered := false
	for _, m := range h.sup.Messages() {
		if u, ok := m.(*core.UserMessage); ok && core.TextOf(u.Content) == "please stop" {
			delivered = true
		}
	}
	if !delivered {
		t.Fatal("the steer was not delivered")
	}
	eq(t, "outcomes", outcomes(st), []string{"in1=completed", steer.InputID + "=completed"})
	h.check()
}
