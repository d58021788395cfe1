package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
)

func TestPlanTool(t *testing.T) {
	ts, err := New([]string{"update_plan"}, Options{Cwd: t.TempDir()})
	if err != nil || len(ts) != 1 || ts[0].Info().Name != PlanToolName {
		t.Fatalf("New(update_plan) = %v, %v", ts, err)
	}
	res, err := ts[0].Execute(context.Background(), core.ToolCall{ID: "c1", Name: PlanToolName, Args: map[string]any{"entries": []any{
		map[string]any{"content": "read", "priority": "high", "status": "completed"},
		map[string]any{"content": "fix", "priority": "low", "status": "pending"},
	}}}, func(core.ToolResult) {})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := res.Details.(PlanDetails)
	if !ok || len(d.Entries) != 2 || d.Entries[1] != (PlanEntry{Content: "fix", Priority: "low", Status: "pending"}) {
		t.Fatalf("details = %#v", res.Details)
	}
	if got := res.Content[0].Text; got != "Plan updated: 1 of 2 steps completed." {
		t.Fatalf("text = %q", got)
	}
	_, err = ts[0].Execute(context.Background(), core.ToolCall{Args: map[string]any{"entries": []any{
		map[string]any{"content": "x", "priority": "urgent", "status": "pending"},
	}}}, func(core.ToolResult) {})
	if err == nil || !strings.Contains(err.Error(), "priority") {
		t.Fatalf("bad priority: %v", err)
	}
}
