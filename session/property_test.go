package session_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/quick"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// randomReplies is a faux factory step: a text reply or, now and then, a tool call, decided
// by the call index so each scenario's model is reproducible.
func randomReplies(seed uint64) faux.Step {
	return faux.Func(func(_ context.Context, _ *core.Request, call int) faux.Step {
		r := rand.New(rand.NewPCG(seed, uint64(call)))
		if r.IntN(3) == 0 {
			return faux.Reply(faux.ToolCall("echo", map[string]any{"value": fmt.Sprint(call)}))
		}
		return faux.Reply(faux.Text(fmt.Sprintf("reply %d", call)))
	})
}

type echo struct{}

func (echo) Info() core.ToolInfo {
	return core.ToolInfo{Name: "echo", Parameters: []byte(`{"type":"object","properties":{"value":{"type":"string"}}}`)}
}

func (echo) Execute(_ context.Context, c core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	return core.TextResult(fmt.Sprint(c.Args["value"])), nil
}

// rebuiltLedger is the busy ledger as a client rebuilds it from the events it has read.
type rebuiltLedger struct {
	streaming bool
	tools     []string
	steering  []string
	followUp  []string
}

func rebuild(events []map[string]any, lastSeq int64) rebuiltLedger {
	var l rebuiltLedger
	ids := func(list any) []string {
		var out []string
		for _, q := range list.([]any) {
			out = append(out, q.(map[string]any)["inputId"].(string))
		}
		return out
	}
	for _, ev := range events {
		if int64(ev["seq"].(float64)) > lastSeq {
			break
		}
		switch ev["type"] {
		case "message_start", "message_end":
			if ev["message"].(map[string]any)["role"] == "assistant" {
				l.streaming = ev["type"] == "message_start"
			}
		case "tool_execution_start":
			l.tools = append(l.tools, ev["toolCallId"].(string))
		case "tool_execution_end":
			l.tools = slices.DeleteFunc(l.tools, func(s string) bool { return s == ev["toolCallId"] })
		case "agent_end":
			l.streaming, l.tools = false, nil
		case "queue_update":
			l.steering, l.followUp = ids(ev["steering"]), ids(ev["followUp"])
		}
	}
	return l
}

// checkSnapshot compares a state snapshot with the ledger rebuilt from the events up to its
// lastSeq.
func checkSnapshot(h *harness, snap session.Snapshot) error {
	got := rebuild(h.sink.snapshot(), snap.LastSeq)
	var steering, followUp []string
	for _, q := range snap.Busy.Steering {
		steering = append(steering, q.InputID)
	}
	for _, q := range snap.Busy.FollowUp {
		followUp = append(followUp, q.InputID)
	}
	switch {
	case got.streaming != snap.Busy.Streaming:
		return fmt.Errorf("streaming: events say %v, snapshot %v (lastSeq %d)", got.streaming, snap.Busy.Streaming, snap.LastSeq)
	case !slices.Equal(got.tools, snap.Busy.ToolsRunning):
		return fmt.Errorf("toolsRunning: events say %v, snapshot %v", got.tools, snap.Busy.ToolsRunning)
	case !slices.Equal(got.steering, steering):
		return fmt.Errorf("steering: events say %v, snapshot %v", got.steering, steering)
	case !slices.Equal(got.followUp, followUp):
		return fmt.Errorf("followUp: events say %v, snapshot %v", got.followUp, followUp)
	}
	return nil
}

// TestPropertyPeriods drives random sequences of prompt, steer, followUp, abort, clearQueues,
// cancelInput and waits against a faux model and checks the invariants: every accepted input
// settles exactly once, agent_settled is last in its period, the ledger rebuilt from events
// equals the snapshot, nothing is left queued while idle.
func TestPropertyPeriods(t *testing.T) {
	scenario := func(ops []uint8, seed uint64) bool {
		h := newHarness(t, harnessOpts{tools: []core.Tool{echo{}}})
		for range 400 {
			h.model.AppendResponses(randomReplies(seed))
		}
		var accepted []string
		record := func(a sessionapi.Accepted, err error) {
			if err == nil {
				accepted = append(accepted, a.InputID)
			}
		}
		whenBusy := []string{"", "reject", "steer", "followUp"}
		for i, op := range ops {
			switch op % 8 {
			case 0:
				record(h.sup.Prompt(session.PromptRequest{Message: fmt.Sprint("p", i), WhenBusy: whenBusy[int(op/8)%4]}))
			case 1:
				record(h.sup.Steer(session.QueueRequest{Message: fmt.Sprint("s", i)}))
			case 2:
				record(h.sup.FollowUp(session.QueueRequest{Message: fmt.Sprint("f", i)}))
			case 3:
				h.sup.Abort()
			case 4:
				h.sup.ClearQueues()
			case 5:
				if len(accepted) > 0 {
					_ = h.sup.CancelInput(accepted[int(op/8)%len(accepted)])
				}
			case 6:
				h.settle()
			case 7:
				if err := checkSnapshot(h, h.sup.State()); err != nil {
					t.Errorf("ops %v seed %d: %v", ops, seed, err)
					return false
				}
			}
		}
		for busy, _ := h.sup.Busy(); busy; busy, _ = h.sup.Busy() {
			h.settle()
		}
		return h.verify(ops, seed, accepted)
	}
	if err := quick.Check(scenario, &quick.Config{MaxCount: 60, Rand: nil}); err != nil {
		t.Fatal(err)
	}
}

// verify checks the end-of-scenario invariants.
func (h *harness) verify(ops []uint8, seed uint64, accepted []string) bool {
	t := h.t
	fail := func(format string, args ...any) bool {
		t.Errorf("ops %v seed %d: %s", ops, seed, fmt.Sprintf(format, args...))
		return false
	}
	settledCount := map[string]int{}
	inRun := false
	for _, ev := range h.sink.snapshot() {
		switch ev["type"] {
		case "agent_start":
			inRun = true
		case "agent_end":
			inRun = false
		case "agent_settled":
			if inRun {
				return fail("agent_settled at seq %v inside a run", ev["seq"])
			}
			for _, in := range ev["inputs"].([]any) {
				settledCount[in.(map[string]any)["inputId"].(string)]++
			}
		}
	}
	for _, id := range accepted {
		if settledCount[id] != 1 {
			return fail("input %s settled %d times", id, settledCount[id])
		}
	}
	if len(settledCount) != len(accepted) {
		return fail("%d inputs settled, %d accepted", len(settledCount), len(accepted))
	}
	snap := h.sup.State()
	if !snap.Settled || len(snap.Busy.Steering)+len(snap.Busy.FollowUp) > 0 {
		return fail("idle with queued inputs: %+v", snap.Busy)
	}
	if err := checkSnapshot(h, snap); err != nil {
		return fail("%v", err)
	}
	if err := h.checkErr(); err != nil {
		return fail("%v", err)
	}
	return true
}

// checkErr is check's assertions as an error, for property runs.
func (h *harness) checkErr() error {
	for i, ev := range h.sink.snapshot() {
		if seq := int(ev["seq"].(float64)); seq != i+1 {
			return fmt.Errorf("event %d has seq %d", i+1, seq)
		}
	}
	return nil
}

var _ = time.Second
