package e2e_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// The editor's MCP servers of session/new are tools of that session alone: the model sees
// them, a read-only tool runs without asking, one that writes is a permission request, and
// another session of the connection has none of them.
func TestACPSessionMCPServers(t *testing.T) {
	server := mcpServer.Path(t)
	mock := mockOf(
		toolCall("c1", "mcp__editor__echo", map[string]any{"text": "from the editor's server"}),
		toolCall("c2", "mcp__editor__write_note", map[string]any{"note": "n1"}),
		mockopenai.Response{Text: "done"},
		mockopenai.Response{Text: "plain"},
	)
	defer mock.Close()
	p := startACP(t, mock)
	p.initialize()
	p.request(1, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{
		map[string]any{"name": "editor", "command": server, "args": []any{}, "env": []any{}},
	}})
	sid := sessionIDOf(t, p.response(1))
	other := p.newSession(2)

	p.request(3, "session/prompt", textPrompt(sid, "use the editor's tools"))
	id, params := p.permissionRequest()
	call := params["toolCall"].(map[string]any)
	if call["toolCallId"] != "c2" || call["kind"] != "other" {
		t.Fatalf("permission request: %v", params)
	}
	p.answerPermission(id, "allow_once")
	if r := stopReason(t, p.response(3)); r != "end_turn" {
		t.Fatal(r)
	}
	p.request(4, "session/prompt", textPrompt(other, "no tools of the editor here"))
	p.response(4)

	reqs := mock.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if names := strings.Join(mockopenai.ToolNames(reqs[0]), ","); !strings.Contains(names, "mcp__editor__echo") {
		t.Fatalf("the session's tools: %s", names)
	}
	if got := toolResultOf(t, reqs[1], "c1"); got != "from the editor's server" {
		t.Fatalf("echo result %q", got)
	}
	if got := toolResultOf(t, reqs[2], "c2"); got != "wrote n1" {
		t.Fatalf("write_note result %q", got)
	}
	if names := strings.Join(mockopenai.ToolNames(reqs[3]), ","); strings.Contains(names, "mcp__editor") {
		t.Fatalf("the other session has the editor's tools: %s", names)
	}
}

// A session/new whose MCP server is slow to start does not hold up the connection: it is
// answered at once, like one without servers, whose prompt runs at once too; a prompt of the
// slow session waits for its server, so the model's first request of it offers its tools.
func TestACPSlowMCPServerDoesNotBlock(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockOf(mockopenai.Response{Text: "ok"}, mockopenai.Response{Text: "with the slow server"})
	defer mock.Close()
	p := startACP(t, mock, "--mcp-timeout", "10m")
	p.initialize()
	// The server waits at the gate before it speaks MCP.
	p.request(1, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{
		map[string]any{"name": "slow", "command": mcpServer.Path(t), "args": []any{"-gate", gate}, "env": []any{}},
	}})
	slow := sessionIDOf(t, p.response(1))
	p.request(2, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{}})
	fast := sessionIDOf(t, p.response(2))
	p.request(3, "session/prompt", textPrompt(fast, "hi"))
	if r := stopReason(t, p.response(3)); r != "end_turn" {
		t.Fatal(r)
	}
	p.request(4, "session/prompt", textPrompt(slow, "use the slow server"))
	testkit.ReleaseGate(t, gate)
	if r := stopReason(t, p.response(4)); r != "end_turn" {
		t.Fatal(r)
	}
	reqs := mock.Requests()
	if len(reqs) != 2 || strings.Contains(strings.Join(mockopenai.ToolNames(reqs[0]), ","), "mcp__slow__") ||
		!strings.Contains(strings.Join(mockopenai.ToolNames(reqs[1]), ","), "mcp__slow__echo") {
		t.Fatalf("the sessions' requests: %d, tools %v", len(reqs), requestToolLists(reqs))
	}
}

func requestToolLists(reqs []*mockopenai.Request) [][]string {
	var out [][]string
	for _, r := range reqs {
		out = append(out, mockopenai.ToolNames(r))
	}
	return out
}

// The servers of --mcp-config do not hold up ACP's initialize (before, stdin was read only
// once they had started); a prompt waits for them.
func TestACPInitializeDoesNotWaitForMCPConfig(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockOf(mockopenai.Response{Text: "with the server"})
	defer mock.Close()
	cfg := writeMCPConfig(t, map[string]any{"slow": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}}})
	p, sid := startACPSession(t, mock, "--mcp-config", cfg, "--mcp-timeout", "10m")
	p.request(2, "session/prompt", textPrompt(sid, "hi"))
	testkit.ReleaseGate(t, gate)
	if r := stopReason(t, p.response(2)); r != "end_turn" {
		t.Fatal(r)
	}
	if reqs := mock.Requests(); len(reqs) != 1 || !strings.Contains(strings.Join(mockopenai.ToolNames(reqs[0]), ","), "mcp__slow__echo") {
		t.Fatalf("requests' tools %v", requestToolLists(reqs))
	}
}

// sessionIDOf is the sessionId of a session/new response.
func sessionIDOf(t *testing.T, m acpMsg) string {
	t.Helper()
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.SessionID == "" {
		t.Fatalf("session/new: %s", m.raw)
	}
	return r.SessionID
}

// A prompt pipelined right after session/load (the client knows the id) waits for the load:
// it is answered after the replay and the load's response, like any prompt of the session.
func TestACPPromptPipelinedAfterLoad(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "first"}, mockopenai.Response{Text: "second"})
	defer mock.Close()
	home, ws := t.TempDir(), t.TempDir()
	sid := promptedSession(t, mock, home, ws, "one")
	q := startACPIn(t, mock, home, ws)
	q.initialize()
	q.request(1, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}})
	q.request(2, "session/prompt", textPrompt(sid, "two"))
	loaded := false
	var after strings.Builder
	for {
		m := q.read()
		if m.isResponse(1) {
			if m.Error != nil {
				t.Fatalf("load: %s", m.raw)
			}
			loaded = true
		}
		if m.isResponse(2) {
			if !loaded || stopReason(t, m) != "end_turn" {
				t.Fatalf("pipelined prompt answered before the load or not ended: %s\n%s", m.raw, q.dump())
			}
			break
		}
		if loaded {
			after.WriteString(chunkText(m))
		}
	}
	if after.String() != "second" {
		t.Fatalf("the pipelined prompt's text after the load: %q\n%s", after.String(), q.dump())
	}
}

// The connection ending while a session's MCP server is still starting does not wait for
// the server's start timeout: the open gives up and the process exits.
func TestACPShutdownDuringSlowMCPStart(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "never")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startACP(t, nil, "--mcp-timeout", "10m")
	p.initialize()
	p.request(1, "session/new", map[string]any{"cwd": p.ws, "mcpServers": []any{
		map[string]any{"name": "slow", "command": "/bin/sh", "args": []any{"-c", "read x < " + fifo}, "env": []any{}},
	}})
	// session/list is answered while the session is opening: the open is under way.
	p.request(2, "session/list", map[string]any{})
	p.response(2)
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		t.Fatal("the process did not exit while a session's MCP server was starting")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
