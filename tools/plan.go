package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// PlanToolName is the planning tool's name. It is not among [Names]: --tools update_plan
// selects it, and the ACP front end turns it on by default (docs/editors.md).
const PlanToolName = "update_plan"

var planSchema = schema(`{"type":"object","properties":{
"entries":{"type":"array","description":"The complete plan: every step, in order, with its current status. Each call replaces the previous plan.",
"items":{"type":"object","properties":{
"content":{"type":"string","description":"What the step does, in a few words."},
"priority":{"type":"string","enum":["high","medium","low"]},
"status":{"type":"string","enum":["pending","in_progress","completed"]}},
"required":["content","priority","status"],"additionalProperties":false}}},
"required":["entries"]}`)

// PlanEntry is one step of a plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

// PlanDetails is the details of an update_plan result: the complete plan.
type PlanDetails struct {
	Entries []PlanEntry `json:"entries"`
}

// PlanTool is the planning tool: the model keeps a list of steps with their status, which
// front ends show as the agent's plan. It changes nothing and needs no approval.
func PlanTool() core.Tool {
	return &core.FuncTool{
		ToolInfo: core.ToolInfo{
			Name:  PlanToolName,
			Label: "update plan",
			Description: "Keep the user informed of your plan for a multi-step task: send the complete list of steps, each with a priority and a status (pending, in_progress, completed). " +
				"Call it when you make a plan and again whenever a step's status changes; each call replaces the whole plan.",
			Parameters: planSchema,
		},
		Run: runPlan,
	}
}

func runPlan(_ context.Context, call core.ToolCall, _ func(core.ToolResult)) (core.ToolResult, error) {
	var in PlanDetails
	if err := call.Decode(&in); err != nil {
		return core.ToolResult{}, err
	}
	if in.Entries == nil {
		in.Entries = []PlanEntry{}
	}
	done := 0
	for i, e := range in.Entries {
		if strings.TrimSpace(e.Content) == "" {
			return core.ToolResult{}, fmt.Errorf("entries[%d].content is empty", i)
		}
		switch e.Priority {
		case "high", "medium", "low":
		default:
			return core.ToolResult{}, fmt.Errorf("entries[%d].priority must be high, medium or low, not %q", i, e.Priority)
		}
		switch e.Status {
		case "pending", "in_progress", "completed":
		default:
			return core.ToolResult{}, fmt.Errorf("entries[%d].status must be pending, in_progress or completed, not %q", i, e.Status)
		}
		if e.Status == "completed" {
			done++
		}
	}
	return core.ToolResult{
		Content: []core.Content{core.TextBlock(fmt.Sprintf("Plan updated: %d of %d steps completed.", done, len(in.Entries)))},
		Details: in,
	}, nil
}
