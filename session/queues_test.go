package session_test

import (
	"context"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The session owns the queues and their modes: two steers queued during a tool are delivered
// one per turn in mode one-at-a-time, and both before the next model call in mode all. Each
// delivery is announced by a queue_update just before the message's message_start.
func TestQueueModesAreTheSessions(t *testing.T) {
	for _, tc := range []struct {
		mode  core.QueueMode
		calls int
		want  []string
	}{
		{core.QueueOneAtATime, 3, []string{
			"message_start:user:in1", "message_end:user:in1", "message_start:assistant", "message_end:assistant",
			"queue_update(1,0)", "queue_update(2,0)", "message_start:toolResult", "message_end:toolResult",
			"queue_update(1,0)", "message_start:user:in2", "message_end:user:in2", "message_start:assistant", "message_end:assistant",
			"queue_update(0,0)", "message_start:user:in3", "message_end:user:in3", "message_start:assistant", "message_end:assistant",
		}},
		{core.QueueAll, 2, []string{
			"message_start:user:in1", "message_end:user:in1", "message_start:assistant", "message_end:assistant",
			"queue_update(1,0)", "queue_update(2,0)", "message_start:toolResult", "message_end:toolResult",
			"queue_update(1,0)", "message_start:user:in2", "message_end:user:in2",
			"queue_update(0,0)", "message_start:user:in3", "message_end:user:in3", "message_start:assistant", "message_end:assistant",
		}},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			var h *harness
			tool := &core.FuncTool{
				ToolInfo: core.ToolInfo{Name: "noop", Parameters: []byte(`{"type":"object"}`)},
				Run: func(ctx context.Context, call core.ToolCall, update func(core.ToolResult)) (core.ToolResult, error) {
					for _, text := range []string{"first steer", "second steer"} {
						var a sessionapi.Accepted
						if err := keep(&a)(h.sup.Steer(session.QueueRequest{Message: text})); err != nil {
							t.Errorf("steer: %v", err)
						}
					}
					return core.TextResult("ok"), nil
				},
			}
			h = newHarness(t, harnessOpts{tools: []core.Tool{tool}},
				faux.Reply(faux.ToolCall("noop", map[string]any{})),
				faux.Reply(faux.Text("one")), faux.Reply(faux.Text("two")))
			mode := tc.mode
			h.sup.SetOptions(session.OptionsPatch{SteeringMode: &mode})
			h.prompt("go")
			st := h.settle()
			eq(t, "outcomes", outcomes(st), []string{"in1=completed", "in2=completed", "in3=completed"})
			var got []string
			for _, e := range h.sink.outline() {
				if e != "agent_start" && e != "agent_end" && !isSettled(e) {
					got = append(got, e)
				}
			}
			eq(t, "events", got, tc.want)
			if n := len(h.model.Requests()); n != tc.calls {
				t.Fatalf("%d model calls, want %d", n, tc.calls)
			}
			h.check()
		})
	}
}

func isSettled(outline string) bool {
	return len(outline) >= len("agent_settled") && outline[:len("agent_settled")] == "agent_settled"
}
