package piclient_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	piclient "github.com/pi-rpc/pi-rpc/clients/go"
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// checkRoundTrip decodes ev with Event.Decode into the protocol type of its type and checks
// that encoding it again gives the JSON the server sent.
func checkRoundTrip(t *testing.T, ev piclient.Event) {
	t.Helper()
	doc, ok := protocol.EventDocTypes[ev.Type]
	if !ok {
		t.Errorf("seq %d: event type %q has no protocol type", ev.Seq, ev.Type)
		return
	}
	v := reflect.New(reflect.TypeOf(doc))
	if err := ev.Decode(v.Interface()); err != nil {
		t.Errorf("seq %d: decoding %s into %T: %v", ev.Seq, ev.Type, doc, err)
		return
	}
	again, err := json.Marshal(v.Interface())
	if err != nil {
		t.Errorf("seq %d: encoding %T: %v", ev.Seq, doc, err)
		return
	}
	if !sameJSON(t, ev.Params, again) {
		t.Errorf("seq %d: %T loses data:\nserver  %s\ndecoded %s", ev.Seq, doc, ev.Params, again)
	}
}

// TestEveryEventTypeRoundTrips makes the real server emit every event type of the schema and
// checks each event decodes into its protocol type without losing a field.
func TestEveryEventTypeRoundTrips(t *testing.T) {
	ctx := limitCtx(t)
	running := make(chan struct{})
	release := make(chan struct{})
	probe := &core.FuncTool{
		ToolInfo: core.ToolInfo{Name: "probe", Description: "probes", Parameters: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`)},
		Run: func(ctx context.Context, _ core.ToolCall, update func(core.ToolResult)) (core.ToolResult, error) {
			update(core.TextResult("halfway"))
			close(running)
			select {
			case <-release:
			case <-ctx.Done():
				return core.ToolResult{}, ctx.Err()
			}
			return core.ToolResult{Content: []core.Content{core.TextBlock("probed")}, Details: map[string]any{"x": 1}}, nil
		},
	}
	s := startServer(t, serverOpts{
		approval: session.ApprovalAsk,
		tools:    []core.Tool{probe, tools.PlanTool()},
		perm: func(context.Context, piclient.PermissionRequest) piclient.PermissionDecision {
			return piclient.PermissionDecision{Decision: piclient.DecisionAllow}
		},
	},
		faux.Step{StopReason: core.StopReasonError, ErrorMessage: "503 service unavailable", ErrorKind: core.ErrorRetryable},
		faux.Reply(faux.Thinking("Let me probe."), faux.Text("Probing."),
			faux.ToolCall("probe", map[string]any{"x": 1}),
			faux.ToolCall("write", map[string]any{"path": "out.txt", "content": "hi\n"}),
			faux.ToolCall("update_plan", map[string]any{"entries": []any{map[string]any{"content": "probe", "priority": "high", "status": "in_progress"}}})),
		faux.Reply(faux.Text("Probed.")),
		faux.Reply(faux.Text("Nothing more.")),
		// The compaction's first summary request fails and is retried (summarization_retry_*).
		faux.Step{StopReason: core.StopReasonError, ErrorMessage: "503 service unavailable", ErrorKind: core.ErrorRetryable},
		faux.Reply(faux.Text("## Goal\nprobe")),
		faux.Reply(faux.Text("## Goal\nprobe")),
	)
	c := s.c
	must[*protocol.InitializeResult](t, "Initialize")(c.Initialize(ctx, protocol.InitializeParams{
		Capabilities: protocol.ClientCapabilities{Permissions: true, PartialMessages: true}}))
	must[*protocol.ThinkingLevelResult](t, "SetThinkingLevel")(c.SetThinkingLevel(ctx, protocol.ThinkingLevelParams{Level: core.ThinkingHigh}))
	must[*protocol.ModelResult](t, "SetModel")(c.SetModel(ctx, protocol.SetModelParams{ModelID: "faux-2"}))
	in := must[*protocol.InputResult](t, "Prompt")(c.Prompt(ctx, protocol.PromptParams{Message: "probe it"}))
	select {
	case <-running:
	case <-ctx.Done():
		t.Fatal("the probe tool never ran")
	}
	must[*protocol.InputResult](t, "FollowUp")(c.FollowUp(ctx, protocol.QueueParams{Message: "and then?"}))
	close(release)
	must[*sessionapi.Settled](t, "WaitSettled")(c.WaitSettled(ctx, in.InputID))
	must[*sessionapi.CompactionResult](t, "Compact")(c.Compact(ctx, protocol.CompactParams{}))
	must[*sessionapi.BashResult](t, "Bash")(c.Bash(ctx, protocol.BashParams{Command: "echo hi"}))
	must[*sessionapi.SessionRef](t, "NewSession")(c.NewSession(ctx))
	changed, events := waitEvent(ctx, t, c, sessionapi.EventSessionChanged)
	events = append(events, changed)

	// A second server whose session file cannot be written emits session_error.
	failing := startServer(t, serverOpts{store: func(st session.Store) session.Store { return failingStore{st} }},
		faux.Reply(faux.Text("ok")))
	in2 := must[*protocol.InputResult](t, "Prompt")(failing.c.Prompt(ctx, protocol.PromptParams{Message: "hi"}))
	must[*sessionapi.Settled](t, "WaitSettled")(failing.c.WaitSettled(ctx, in2.InputID))
	errEv, _ := waitEvent(ctx, t, failing.c, sessionapi.EventSessionError)
	events = append(events, errEv)

	// An MCP server's start, as cmd/pi-rpc's MCP host reports it through the session.
	s.sup.ReportMCPStatus(protocol.MCPServerStatusUpdate{ToolCount: 1, MCPServerStatus: protocol.MCPServerStatus{
		Name: "fs", Transport: "stdio", State: "connected", Source: "initialize", ServerInfo: &protocol.ServerInfo{Name: "fs", Version: "1"},
		Tools: []protocol.MCPToolStatus{{Name: "mcp__fs__read", ServerTool: "read", Description: "Reads", ReadOnly: true}},
	}})
	mcpEv, _ := waitEvent(ctx, t, c, sessionapi.EventMCPServerStatus)
	events = append(events, mcpEv)

	seen := map[string]int{}
	for _, ev := range events {
		seen[ev.Type]++
		checkRoundTrip(t, ev)
	}
	for _, typ := range protocol.EventTypes {
		if seen[typ] == 0 {
			t.Errorf("the server emitted no %s event", typ)
		}
	}
	t.Logf("%d events; per type: %v", len(events), seen)
}
