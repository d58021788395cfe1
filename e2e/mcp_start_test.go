package e2e_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// outline is the history's events, an MCP status as mcp_server_status:<name>:<state>.
func (p *proc) outline() []string {
	var out []string
	for _, m := range p.history() {
		if !m.isEvent() {
			continue
		}
		typ := m.typ()
		if typ == "mcp_server_status" {
			typ += ":" + m.str("name") + ":" + m.str("state")
		}
		out = append(out, typ)
	}
	return out
}

// A configured MCP server that is slow to start does not hold up the connection: initialize
// is answered while the server waits at its gate, its start is reported as it happens
// (connecting, then connected with its tools), and a prompt sent meanwhile waits for it: the
// model's first request offers the server's tools.
func TestMCPSlowServerDoesNotHoldInitialize(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		toolCall("c1", "mcp__slow__echo", map[string]any{"text": "from the late server"}),
		{Text: "done"},
	}})
	t.Cleanup(mock.Close)
	cfg := writeMCPConfig(t, map[string]any{"slow": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}}})
	p := start(t, options{mock: mock, args: []string{"--mcp-config", cfg}})
	p.result("initialize", nil, nil)
	connecting := p.waitFor("slow connecting", func(m *message) bool { return m.isEvent() && m.typ() == "mcp_server_status" })
	if connecting.str("name") != "slow" || connecting.str("state") != "connecting" {
		t.Fatalf("first status %s", connecting)
	}
	var lt struct {
		MCPServers []struct{ Name, State string }
	}
	p.result("listTools", nil, &lt)
	if len(lt.MCPServers) != 1 || lt.MCPServers[0].State != "connecting" {
		t.Fatalf("listTools while slow starts: %+v", lt.MCPServers)
	}
	p.result("prompt", map[string]any{"message": "use the late server"}, nil)
	testkit.ReleaseGate(t, gate)
	p.settleCollect()

	outline := p.outline()
	ready := testkit.Position(t, outline, "mcp_server_status:slow:connected")
	if ready > testkit.Position(t, outline, "agent_start") {
		t.Fatalf("events %v: the run started before the server was ready", outline)
	}
	if m := p.mcpStarted("slow")["slow"]; m.ev["toolCount"] != float64(len(m.ev["tools"].([]any))) || m.ev["toolCount"].(float64) < 8 {
		t.Fatalf("connected status %s: want its tools and their count", m)
	}
	reqs := mock.Requests()
	if len(reqs) != 2 || !slices.Contains(mockopenai.ToolNames(reqs[0]), "mcp__slow__echo") {
		t.Fatalf("the first request's tools: %v", mockopenai.ToolNames(reqs[0]))
	}
	if got := toolResultOf(t, reqs[1], "c1"); got != "from the late server" {
		t.Fatalf("echo result %q", got)
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	stderr := p.stderrAll()
	for _, want := range []string{`"message":"MCP server starting"`, `"message":"MCP server ready"`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no %s in the log", want)
		}
	}
	noOrphans(t, serverPIDs(t, stderr))
}

// A server that never becomes ready fails when --mcp-timeout ends its start: the prompt
// that waited for it goes ahead without its tools, and the failure is an event, a
// session_error and a warning in the log.
func TestMCPServerNeverReadyTimesOut(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "went ahead"}}})
	t.Cleanup(mock.Close)
	p := start(t, options{mock: mock, args: []string{"--mcp-timeout", "1s"}})
	p.result("initialize", map[string]any{"mcpServers": map[string]any{
		"stuck": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}},
	}}, nil)
	p.result("prompt", map[string]any{"message": "go ahead"}, nil)
	if st := p.settleCollect(); st[len(st)-1].ev["aborted"] != false {
		t.Fatalf("settled %s", st[len(st)-1])
	}
	failed := p.mcpStarted("stuck")["stuck"]
	if failed.str("state") != "failed" || !strings.Contains(failed.str("error"), "no answer within 1s") {
		t.Fatalf("stuck: %s", failed)
	}
	outline := p.outline()
	if testkit.Position(t, outline, "mcp_server_status:stuck:failed") > testkit.Position(t, outline, "agent_start") {
		t.Fatalf("events %v: want the failure before the run", outline)
	}
	testkit.Position(t, outline, "session_error")
	reqs := mock.Requests()
	if len(reqs) != 1 || slices.ContainsFunc(mockopenai.ToolNames(reqs[0]), func(n string) bool { return strings.HasPrefix(n, "mcp__stuck__") }) {
		t.Fatalf("the request's tools: %v", mockopenai.ToolNames(reqs[0]))
	}
	p.closeStdin()
	p.wait()
	if stderr := p.stderrAll(); !strings.Contains(stderr, `"level":"warn","mcpServer":"stuck","error":"cannot start: no answer within 1s`) {
		t.Errorf("no warning for stuck in the log:\n%s", stderr)
	}
}

// abort while a prompt waits for a server ends the wait: the period settles aborted and the
// model is never called.
func TestMCPAbortWhileWaitingForServer(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "never"}}})
	t.Cleanup(mock.Close)
	cfg := writeMCPConfig(t, map[string]any{"slow": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}}})
	p := start(t, options{mock: mock, args: []string{"--mcp-config", cfg, "--mcp-timeout", "10m"}})
	p.result("initialize", nil, nil)
	var in struct{ InputID string }
	p.result("prompt", map[string]any{"message": "wait"}, &in)
	p.result("abort", nil, nil)
	settled := p.event("agent_settled")
	if settled.ev["aborted"] != true || !strings.Contains(string(settled.raw), `"outcome":"aborted"`) {
		t.Fatalf("settled %s", settled)
	}
	if slices.Contains(p.outline(), "agent_start") {
		t.Fatalf("a run started: %v", p.outline())
	}
	if n := len(mock.Requests()); n != 0 {
		t.Fatalf("%d model requests", n)
	}
	testkit.ReleaseGate(t, gate)
	p.mcpStarted("slow")
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// pi mode reads its commands while a configured server starts (pi's protocol has no status
// event; the log has the start), and a prompt waits for the server.
func TestPiModeSlowMCPServer(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := newMock(t, mockopenai.Response{Text: "with the server"})
	cfg := writeMCPConfig(t, map[string]any{"slow": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}}})
	p := startPi(t, piOptions{mock: mock, args: []string{"--no-session", "--mcp-config", cfg}})
	p.call("1", "get_state", nil)
	p.send(map[string]any{"id": "2", "type": "prompt", "message": "hi"})
	p.response("2")
	testkit.ReleaseGate(t, gate)
	p.event("agent_settled")
	reqs := mock.Requests()
	if len(reqs) != 1 || !slices.Contains(mockopenai.ToolNames(reqs[0]), "mcp__slow__echo") {
		t.Fatalf("the request's tools: %v", mockopenai.ToolNames(reqs[0]))
	}
	if !strings.Contains(p.stderrString(), `"message":"MCP server ready"`) {
		t.Errorf("no ready line in the log:\n%s", p.stderrString())
	}
}
