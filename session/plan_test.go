package session_test

import (
	"encoding/json"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// Each successful update_plan call emits plan_update with the complete plan right after its
// tool_execution_end; a call the tool refuses emits none.
func TestPlanUpdateFollowsEachPlanCall(t *testing.T) {
	if tools.PlanToolName != "update_plan" {
		t.Fatalf("the session's plan tool name is update_plan, tools says %q", tools.PlanToolName)
	}
	plan := []any{
		map[string]any{"content": "read", "priority": "high", "status": "completed"},
		map[string]any{"content": "fix", "priority": "low", "status": "pending"},
	}
	h := newHarness(t, harnessOpts{tools: []core.Tool{tools.PlanTool()}},
		faux.Reply(faux.ToolCall("update_plan", map[string]any{"entries": plan})),
		faux.Reply(faux.ToolCall("update_plan", map[string]any{"entries": []any{map[string]any{"content": "x", "priority": "urgent", "status": "pending"}}})),
		faux.Reply(faux.Text("done")),
	)
	h.prompt("plan it")
	h.settle()
	h.check()
	evs := h.sink.snapshot()
	var plans []map[string]any
	for i, ev := range evs {
		if ev["type"] != sessionapi.EventPlanUpdate {
			continue
		}
		prev := evs[i-1]
		if prev["type"] != string(core.ToolExecutionEnd) || prev["toolName"] != "update_plan" || prev["isError"] != false ||
			ev["toolCallId"] != prev["toolCallId"] || ev["runId"] != prev["runId"] {
			t.Fatalf("plan_update %v after %v", ev, prev)
		}
		plans = append(plans, ev)
	}
	if len(plans) != 1 {
		t.Fatalf("%d plan_update events, want 1 (the refused call sends none)", len(plans))
	}
	got, _ := json.Marshal(plans[0]["entries"])
	want, _ := json.Marshal(plan)
	if string(got) != string(want) {
		t.Fatalf("entries %s, want %s", got, want)
	}
}
