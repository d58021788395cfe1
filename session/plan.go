package session

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// planToolName is tools.PlanToolName: the engine does not import the tools, and a test
// checks that the two agree.
const planToolName = "update_plan"

// planUpdate is the plan_update a successful update_plan call emits after its
// tool_execution_end (docs/events.md): the complete plan of the result's details
// (tools.PlanDetails), read by its JSON shape.
func planUpdate(ev *core.Event) (sessionapi.PlanUpdate, bool) {
	if ev.ToolName != planToolName || ev.IsError || ev.Result == nil || ev.Result.Details == nil {
		return sessionapi.PlanUpdate{}, false
	}
	data, err := json.Marshal(ev.Result.Details)
	if err != nil {
		return sessionapi.PlanUpdate{}, false
	}
	var p sessionapi.PlanUpdate
	if json.Unmarshal(data, &p) != nil || p.Entries == nil {
		return sessionapi.PlanUpdate{}, false
	}
	p.ToolCallID = ev.ToolCallID
	return p, true
}
