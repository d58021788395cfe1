package e2e_test

import (
	"encoding/json"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func planCall(id string, entries ...map[string]any) mockopenai.Response {
	args, _ := json.Marshal(map[string]any{"entries": entries})
	return mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: id, Name: "update_plan", Arguments: string(args)}}}
}

// With --tools naming update_plan, each call is followed by a plan_update event holding the
// complete plan; pi mode writes nothing for it, as pi has no plan.
func TestPlanUpdateEvent(t *testing.T) {
	step := func(content, status string) map[string]any {
		return map[string]any{"content": content, "priority": "high", "status": status}
	}
	script := func() *mockopenai.Server {
		return mockOf(
			planCall("p1", step("read", "in_progress"), step("fix", "pending")),
			planCall("p2", step("read", "completed"), step("fix", "in_progress")),
			mockopenai.Response{Text: "done"},
		)
	}
	mock := script()
	defer mock.Close()
	p := start(t, options{mock: mock, args: []string{"--tools", "read,update_plan"}})
	p.call("prompt", map[string]any{"message": "plan"})
	for _, want := range []struct{ id, first string }{{"p1", "in_progress"}, {"p2", "completed"}} {
		end := p.waitFor("tool_execution_end", func(m *message) bool {
			return m.isEvent() && m.typ() == "tool_execution_end" && m.str("toolCallId") == want.id
		})
		plan := p.next()
		if !plan.isEvent() || plan.typ() != "plan_update" || plan.str("toolCallId") != want.id || plan.str("runId") != end.str("runId") {
			t.Fatalf("after %s's tool_execution_end: %s", want.id, plan)
		}
		var ev struct {
			Entries []struct{ Content, Priority, Status string }
		}
		if err := json.Unmarshal(plan.Params, &ev); err != nil {
			t.Fatal(err)
		}
		if len(ev.Entries) != 2 || ev.Entries[0].Status != want.first || ev.Entries[1].Content != "fix" {
			t.Fatalf("plan %s", plan)
		}
	}
	p.event("agent_settled")

	piMock := script()
	defer piMock.Close()
	pi := startPi(t, piOptions{mock: piMock, args: []string{"--tools", "read,update_plan"}})
	pi.call("1", "prompt", map[string]any{"message": "plan"})
	pi.event("agent_end")
	ends := 0
	for _, l := range pi.all() {
		switch l.typ() {
		case "plan_update":
			t.Fatalf("pi mode wrote a plan_update: %s", l.raw)
		case "tool_execution_end":
			ends++
		}
	}
	if ends != 2 {
		t.Fatalf("pi mode: %d tool_execution_end records", ends)
	}
}
