package e2e_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// The MCP servers these tests drive: the SDK-built test server (tools/mcp/internal/testserver)
// and @modelcontextprotocol/server-filesystem from npm, installed from e2e/mcp-npm's lockfile.
var (
	mcpServer = testkit.Command{Pkg: "../tools/mcp/internal/testserver/mcp-testserver"}

	npmOnce sync.Once
	npmErr  error
)

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// filesystemServer is the npm server's entry point, installed with npm ci when missing.
func filesystemServer(t *testing.T) string {
	t.Helper()
	entry, _ := filepath.Abs("mcp-npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	npmOnce.Do(func() {
		if _, err := os.Stat(entry); err == nil {
			return
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = "mcp-npm"
		if out, err := cmd.CombinedOutput(); err != nil {
			npmErr = &buildError{string(out), err}
		}
	})
	if npmErr != nil {
		t.Fatalf("npm ci in e2e/mcp-npm: %v", npmErr)
	}
	return entry
}

// writeMCPConfig writes an mcpServers file and returns its path.
func writeMCPConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func toolCall(id, name string, args map[string]any) mockopenai.Response {
	data, _ := json.Marshal(args)
	return mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: id, Name: name, Arguments: string(data)}}}
}

// toolResultOf finds the tool message for a call id in a model request.
func toolResultOf(t *testing.T, req *mockopenai.Request, id string) string {
	t.Helper()
	msgs, _ := req.Decoded["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" && mm["tool_call_id"] == id {
			switch c := mm["content"].(type) {
			case string:
				return c
			default:
				data, _ := json.Marshal(c)
				return string(data)
			}
		}
	}
	t.Fatalf("no tool result for %s in %s", id, req.Body)
	return ""
}

// serverPIDs are the test servers' pids, from the lines they log at start.
func serverPIDs(t *testing.T, stderr string) []int {
	t.Helper()
	var pids []int
	for _, m := range regexp.MustCompile(`"stderr":"mcp-testserver pid (\d+)"`).FindAllStringSubmatch(stderr, -1) {
		pid, _ := strconv.Atoi(m[1])
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		t.Fatalf("no server pid in the log:\n%s", stderr)
	}
	return pids
}

// noOrphans checks the process table: every pid has exited (a zombie runs nothing).
func noOrphans(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		deadline := time.Now().Add(hangTimeout)
		for syscall.Kill(pid, 0) == nil {
			if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
				if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("MCP server process %d outlived pi-rpc", pid)
			}
			time.Sleep(10 * time.Millisecond) // polling the process table: nothing to wait on
		}
	}
}

// mcpStarted waits until the start of each named MCP server has ended (its mcp_server_status
// connected or failed, already read or still to come) and returns those events by name.
// initialize and createSession do not wait for their servers.
func (p *proc) mcpStarted(names ...string) map[string]*message {
	p.t.Helper()
	ended := map[string]*message{}
	note := func(m *message) {
		if m.isEvent() && m.typ() == "mcp_server_status" && (m.str("state") == "connected" || m.str("state") == "failed") {
			ended[m.str("name")] = m
		}
	}
	for _, m := range p.history()[:p.cursor] {
		note(m)
	}
	complete := func() bool {
		for _, n := range names {
			if ended[n] == nil {
				return false
			}
		}
		return true
	}
	if !complete() {
		p.waitFor("the start of MCP servers "+strings.Join(names, ", "), func(m *message) bool {
			note(m)
			return complete()
		})
	}
	return ended
}

// settle waits for agent_settled and returns the messages up to it.
func (p *proc) settleCollect() []*message {
	p.t.Helper()
	start := p.cursor
	p.event("agent_settled")
	return p.history()[start:p.cursor]
}

func TestMCPToolCallEndToEnd(t *testing.T) {
	server := mcpServer.Path(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		toolCall("c1", "mcp__test__echo", map[string]any{"text": "from mcp"}),
		toolCall("c2", "mcp__test__write_note", map[string]any{"note": "n1"}),
		{Text: "done"},
	}})
	t.Cleanup(mock.Close)
	cfg := writeMCPConfig(t, map[string]any{"test": map[string]any{"command": server}})
	p := start(t, options{mock: mock, args: []string{"--mcp-config", cfg}})
	p.result("initialize", map[string]any{"capabilities": map[string]any{"permissions": true}}, nil)
	p.mcpStarted("test")

	var lt struct {
		Tools []struct {
			Name, Source, Server string
			NeedsApproval        bool
		}
		MCPServers []struct {
			Name, State string
			Tools       []struct{ Name string }
		}
	}
	p.result("listTools", nil, &lt)
	if len(lt.MCPServers) != 1 || lt.MCPServers[0].State != "connected" || len(lt.MCPServers[0].Tools) < 8 {
		t.Fatalf("listTools servers = %+v", lt.MCPServers)
	}
	approval := map[string]bool{}
	for _, tool := range lt.Tools {
		approval[tool.Name] = tool.NeedsApproval
	}
	if approval["mcp__test__echo"] || !approval["mcp__test__write_note"] || !approval["bash"] {
		t.Fatalf("needsApproval = %v", approval)
	}

	p.result("prompt", map[string]any{"message": "use the tools"}, nil)
	// echo is read-only: no request. write_note is not: the client is asked, like for bash.
	req := p.waitFor("permission/request", func(m *message) bool {
		if m.isEvent() && m.typ() == "agent_settled" {
			t.Fatal("settled without asking for write_note")
		}
		return m.Method == "permission/request"
	})
	var params struct{ ToolName, ToolCallID string }
	_ = json.Unmarshal(req.Params, &params)
	if params.ToolName != "mcp__test__write_note" || params.ToolCallID != "c2" {
		t.Fatalf("permission/request for %+v", params)
	}
	p.send(p.frame(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"decision":"allow"}}`))
	p.settleCollect()

	reqs := mock.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if names := strings.Join(mockopenai.ToolNames(reqs[0]), ","); !strings.Contains(names, "mcp__test__echo") || !strings.Contains(names, "read") {
		t.Fatalf("first request's tools: %s", names)
	}
	if got := toolResultOf(t, reqs[1], "c1"); got != "from mcp" {
		t.Fatalf("echo result in the next request = %q", got)
	}
	if got := toolResultOf(t, reqs[2], "c2"); got != "wrote n1" {
		t.Fatalf("write_note result = %q", got)
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	noOrphans(t, serverPIDs(t, p.stderrAll()))
}

func TestMCPFaultsEndInErrorResults(t *testing.T) {
	server := mcpServer.Path(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		toolCall("c1", "mcp__crashy__crash", nil),
		toolCall("c2", "mcp__hangy__hang", nil),
		toolCall("c3", "mcp__noisy__garbage", nil),
		toolCall("c4", "mcp__hangy__echo", map[string]any{"text": "still alive"}),
		{Text: "done"},
		toolCall("c5", "mcp__hangy__hang", nil),
		{Text: "after abort"},
	}})
	t.Cleanup(mock.Close)
	p := start(t, options{mock: mock, args: []string{"--mcp-timeout", "3s", "--approval", "auto"}})
	p.result("initialize", map[string]any{"mcpServers": map[string]any{
		"crashy":  map[string]any{"command": server},
		"hangy":   map[string]any{"command": server},
		"noisy":   map[string]any{"command": server},
		"missing": map[string]any{"command": "/nonexistent/mcp-server"},
		"needenv": map[string]any{"command": server, "env": map[string]string{"TOKEN": "${PI_RPC_TEST_UNSET_VAR}"}},
	}}, nil)
	// initialize does not wait for the servers: their failures are events, then problems.
	ended := p.mcpStarted("crashy", "hangy", "noisy", "missing", "needenv")
	failed := map[string]string{}
	for name, m := range ended {
		if m.str("state") == "failed" {
			failed[name] = m.str("error")
		}
	}
	if !strings.Contains(failed["missing"], "cannot start") ||
		!strings.Contains(failed["needenv"], "environment variable PI_RPC_TEST_UNSET_VAR is not set") || len(failed) != 2 {
		t.Fatalf("failed servers = %v", failed)
	}
	var st0 problemsResult
	p.result("getState", nil, &st0)
	problems := map[string]string{}
	for _, pr := range st0.Problems {
		problems[pr.Server] = pr.Message
	}
	if !strings.Contains(problems["missing"], "MCP server missing failed: cannot start") || len(problems) != 2 {
		t.Fatalf("getState problems = %+v", st0.Problems)
	}

	p.result("prompt", map[string]any{"message": "break things"}, nil)
	msgs := p.settleCollect()
	var sessionErrors []string
	for _, m := range msgs {
		if m.isEvent() && m.typ() == "session_error" {
			sessionErrors = append(sessionErrors, m.str("message"))
		}
	}
	joined := strings.Join(sessionErrors, "\n")
	for _, want := range []string{"MCP server crashy failed", "MCP server hangy: tool hang did not answer within 3s", "MCP server noisy"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no session_error with %q in:\n%s", want, joined)
		}
	}
	reqs := mock.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	for id, want := range map[string]string{
		"c1": "MCP server crashy failed during the call of crash",
		"c2": "MCP server hangy: tool hang did not answer within 3s",
		"c3": "MCP server noisy",
		"c4": "still alive",
	} {
		if got := toolResultOf(t, reqs[map[string]int{"c1": 1, "c2": 2, "c3": 3, "c4": 4}[id]], id); !strings.Contains(got, want) {
			t.Errorf("%s result = %q, want %q", id, got, want)
		}
	}
	// The crashed server's tools are gone from the next request; the others stay.
	if names := strings.Join(mockopenai.ToolNames(reqs[2]), ","); strings.Contains(names, "mcp__crashy__") || !strings.Contains(names, "mcp__hangy__echo") {
		t.Errorf("tools after the crash: %s", names)
	}
	var st problemsResult
	p.result("getState", nil, &st)
	servers := map[string]bool{}
	for _, pr := range st.Problems {
		if pr.Kind == "mcpServer" {
			servers[pr.Server] = true
		}
	}
	if !servers["crashy"] || !servers["missing"] || !servers["needenv"] {
		t.Errorf("getState problems = %+v", st.Problems)
	}

	// Abort cancels an in-flight MCP call; the agent settles and the server lives on.
	p.result("prompt", map[string]any{"message": "hang again"}, nil)
	p.waitFor("the hang call starts", func(m *message) bool { return m.isEvent() && m.typ() == "tool_execution_start" })
	p.result("abort", nil, nil)
	p.settleCollect()
	var lt struct {
		MCPServers []struct{ Name, State string }
	}
	p.result("listTools", nil, &lt)
	for _, s := range lt.MCPServers {
		if s.Name == "hangy" && s.State != "connected" {
			t.Errorf("hangy after abort: %s", s.State)
		}
	}

	p.closeStdin()
	p.wait()
	if pids := serverPIDs(t, p.stderrAll()); len(pids) != 3 {
		t.Fatalf("server pids %v, want 3", pids)
	} else {
		noOrphans(t, pids)
	}
}

func TestMCPThirdPartyFilesystemServer(t *testing.T) {
	entry := filesystemServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello from the filesystem server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{
		toolCall("r1", "mcp__fs__read_text_file", map[string]any{"path": filepath.Join(real, "notes.txt")}),
		{Text: "read it"},
	}})
	t.Cleanup(mock.Close)
	p := start(t, options{mock: mock, cwd: dir})
	p.result("initialize", map[string]any{
		"capabilities": map[string]any{"permissions": true},
		"mcpServers":   map[string]any{"fs": map[string]any{"command": "node", "args": []string{entry, real}}},
	}, nil)
	if m := p.mcpStarted("fs")["fs"]; m.str("state") != "connected" {
		t.Fatalf("fs: %s", m)
	}
	var lt struct {
		Tools []struct {
			Name          string
			NeedsApproval bool
		}
	}
	p.result("listTools", nil, &lt)
	approval := map[string]bool{}
	for _, tool := range lt.Tools {
		approval[tool.Name] = tool.NeedsApproval
	}
	if a, ok := approval["mcp__fs__read_text_file"]; !ok || a || !approval["mcp__fs__write_file"] {
		t.Fatalf("filesystem tools = %v", approval)
	}
	p.result("prompt", map[string]any{"message": "read notes"}, nil)
	msgs := p.settleCollect()
	for _, m := range msgs {
		if m.Method == "permission/request" {
			t.Fatal("asked permission for a read-only tool")
		}
	}
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if got := toolResultOf(t, reqs[1], "r1"); !strings.Contains(got, "hello from the filesystem server") {
		t.Fatalf("read_text_file result = %q", got)
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// node ran as pi-rpc's child in its own group; nothing is left of it.
	out, _ := exec.Command("pgrep", "-f", entry+" "+real).Output()
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("filesystem server still running: %s", out)
	}
}

func TestMCPConfigFiles(t *testing.T) {
	server := mcpServer.Path(t)
	home := t.TempDir()
	homeCfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"home":   map[string]any{"command": server},
		"shared": map[string]any{"command": "/nonexistent/replaced-by-the-flag-file"},
	}})
	if err := os.WriteFile(filepath.Join(home, "mcp.json"), homeCfg, 0o644); err != nil {
		t.Fatal(err)
	}
	flagCfg := writeMCPConfig(t, map[string]any{"shared": map[string]any{"command": server}})
	p := start(t, options{faux: fauxScript(), env: []string{"PI_RPC_HOME=" + home}, args: []string{"--mcp-config", flagCfg}})
	p.result("initialize", nil, nil)
	p.mcpStarted("home", "shared")
	var lt struct {
		MCPServers []struct{ Name, State, Source string }
	}
	p.result("listTools", nil, &lt)
	if len(lt.MCPServers) != 2 || lt.MCPServers[0].Name != "home" || lt.MCPServers[1].Name != "shared" ||
		lt.MCPServers[0].State != "connected" || lt.MCPServers[1].State != "connected" || lt.MCPServers[1].Source != flagCfg {
		t.Fatalf("servers = %+v", lt.MCPServers)
	}
	p.closeStdin()
	p.wait()
	noOrphans(t, serverPIDs(t, p.stderrAll()))
}

func TestMCPConfigFileErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mcpServers": [1, 2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mcp-config", bad}, "mcpServers must be an object"},
		{[]string{"--mcp-config", filepath.Join(t.TempDir(), "none.json")}, "no such file"},
		{[]string{"--mcp-timeout", "0s"}, "--mcp-timeout: must be positive"},
	} {
		p := start(t, options{faux: fauxScript(), args: tc.args})
		if code := p.wait(); code != 1 {
			t.Errorf("%v: exit %d, want 1", tc.args, code)
		}
		if got := p.stderrAll(); !strings.Contains(got, tc.want) {
			t.Errorf("%v: stderr %q, want %q", tc.args, got, tc.want)
		}
	}
}
