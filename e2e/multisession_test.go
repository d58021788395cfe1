package e2e_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// sessionState is the part of getState these tests read.
type sessionState struct {
	SessionID string `json:"sessionId"`
	Busy      struct {
		Running      bool     `json:"running"`
		ToolsRunning []string `json:"toolsRunning"`
	} `json:"busy"`
}

// blockedIn waits for the first update of a tool of that session: its bash is blocked on a
// fifo from then on.
func (p *proc) blockedIn(sessionID string) *message {
	p.t.Helper()
	return p.waitFor("a blocked tool in "+sessionID, func(m *message) bool {
		return m.isEvent() && m.typ() == "tool_execution_update" && m.str("sessionId") == sessionID
	})
}

// TestTwoSessionsAtOnce runs two sessions of one connection at the same time, each with its
// own working directory: both are busy in a tool at once, closing one settles it (before
// closeSession answers) and leaves the other running, which then finishes and settles with
// its own input. Every event names its session; seq is one gap-free counter for both (the
// stream checker).
func TestTwoSessionsAtOnce(t *testing.T) {
	root := t.TempDir()
	dirA, dirB := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{dirA, dirB} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fifo(t, dirA, "gate")
	gateB := fifo(t, dirB, "gate")
	// One faux queue serves both sessions in call order: A's first call, then B's, then B's
	// second once its tool is released.
	p := start(t, options{
		faux:         fauxScript(bashCall("cat gate"), bashCall("cat gate"), text("B is done.")),
		cwd:          dirA,
		multiSession: true,
	})

	var created struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	p.result("createSession", map[string]any{"cwd": dirB}, &created)
	if created.SessionID == "" || created.Cwd != dirB {
		t.Fatalf("createSession = %+v", created)
	}
	var a sessionState
	p.result("getState", nil, &a)
	if a.SessionID == "" || a.SessionID == created.SessionID {
		t.Fatalf("first session id %q, created %q", a.SessionID, created.SessionID)
	}
	sidA, sidB := a.SessionID, created.SessionID

	var inA, inB inputResult
	p.result("prompt", map[string]any{"message": "run in a"}, &inA)
	p.blockedIn(sidA)
	p.result("prompt", map[string]any{"message": "run in b", "sessionId": sidB}, &inB)
	p.blockedIn(sidB)

	// Both are in a tool at the same moment.
	for _, sid := range []string{sidA, sidB} {
		var st sessionState
		p.result("getState", map[string]any{"sessionId": sid}, &st)
		if st.SessionID != sid || !st.Busy.Running || len(st.Busy.ToolsRunning) != 1 {
			t.Fatalf("getState %s = %+v, want busy in one tool", sid, st)
		}
	}

	// Closing A settles A (aborted) before closeSession answers; B is untouched.
	resp := p.result("closeSession", map[string]any{"sessionId": sidA}, nil)
	settledA := p.firstEvent(func(m *message) bool { return m.typ() == "agent_settled" && m.str("sessionId") == sidA })
	if settledA == nil || p.index(settledA) > p.index(resp) {
		t.Fatalf("closeSession answered before A's agent_settled")
	}
	checkInputs(t, settledA, map[string]string{inA.InputID: "aborted"})
	var b sessionState
	p.result("getState", map[string]any{"sessionId": sidB}, &b)
	if !b.Busy.Running || len(b.Busy.ToolsRunning) != 1 {
		t.Fatalf("B after closing A = %+v, want still in its tool", b)
	}
	// A is gone; B is now the default session.
	p.callError("prompt", map[string]any{"message": "x", "sessionId": sidA}, codeNotFound, "notFound")
	var def sessionState
	p.result("getState", nil, &def)
	if def.SessionID != sidB {
		t.Fatalf("default session after closing A = %s, want %s", def.SessionID, sidB)
	}

	release(t, gateB)
	settledB := p.waitFor("B's agent_settled", func(m *message) bool {
		return m.isEvent() && m.typ() == "agent_settled" && m.str("sessionId") == sidB
	})
	checkInputs(t, settledB, map[string]string{inB.InputID: "completed"})
	for _, m := range p.history() {
		if m.isEvent() {
			if sid := m.str("sessionId"); sid != sidA && sid != sidB {
				t.Errorf("event %s names session %q", m, sid)
			}
		}
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// checkInputs checks an agent_settled's inputs and outcomes exactly.
func checkInputs(t *testing.T, settled *message, want map[string]string) {
	t.Helper()
	inputs, _ := settled.ev["inputs"].([]any)
	got := map[string]string{}
	for _, in := range inputs {
		obj, _ := in.(map[string]any)
		id, _ := obj["inputId"].(string)
		outcome, _ := obj["outcome"].(string)
		got[id] = outcome
	}
	if len(got) != len(want) {
		t.Fatalf("agent_settled inputs %v, want %v", got, want)
	}
	for id, o := range want {
		if got[id] != o {
			t.Fatalf("agent_settled inputs %v, want %v", got, want)
		}
	}
}

// TestCreateSessionErrors: bad params, a cwd that is not a directory, unknown and wrongly
// typed session ids, and --max-sessions each get a clear error; the connection keeps
// serving.
func TestCreateSessionErrors(t *testing.T) {
	p := start(t, options{faux: fauxScript(), args: []string{"--max-sessions", "2", "--no-session"}, multiSession: true})
	e := p.callError("createSession", map[string]any{"cwd": "no/such/dir"}, codeInvalidState, "invalidState")
	if e.Message == "" {
		t.Fatal("no message")
	}
	p.callError("createSession", map[string]any{"model": "no-such-model"}, codeNotFound, "notFound")
	p.callError("getState", map[string]any{"sessionId": "nope"}, codeNotFound, "notFound")
	p.callError("getState", map[string]any{"sessionId": 7}, codeInvalidParams, "")
	p.callError("closeSession", map[string]any{}, codeInvalidParams, "")
	p.callError("closeSession", map[string]any{"sessionId": "nope"}, codeNotFound, "notFound")
	p.result("createSession", map[string]any{}, nil)
	e = p.callError("createSession", map[string]any{}, codeInvalidState, "invalidState")
	if want := "Too many sessions: 2 are open (--max-sessions); close one with closeSession first"; e.Message != want {
		t.Fatalf("third session: %q, want %q", e.Message, want)
	}
	p.result("getState", nil, nil)
}

// TestCreateSessionMCPServers: a session opened with its own mcpServers has their tools
// (and the first session does not), a call's result reaches the next model request, and
// closing the session stops its servers.
func TestCreateSessionMCPServers(t *testing.T) {
	server := mcpServer.Path(t)
	mock := mockServer(t,
		toolCall("c1", "mcp__own__echo", map[string]any{"text": "from the session's server"}),
		mockopenai.Response{Text: "done"},
	)
	p := start(t, options{mock: mock, multiSession: true, args: []string{"--log-level", "debug"}})
	var created struct {
		SessionID string `json:"sessionId"`
	}
	p.result("createSession", map[string]any{"mcpServers": map[string]any{"own": map[string]any{"command": server}}}, &created)
	// createSession does not wait for its servers: their status events carry its id.
	if m := p.mcpStarted("own")["own"]; m.str("state") != "connected" || m.str("sessionId") != created.SessionID {
		t.Fatalf("the session's server: %s", m)
	}
	toolNames := func(sid string) string {
		var lt struct{ Tools []struct{ Name string } }
		params := map[string]any{}
		if sid != "" {
			params["sessionId"] = sid
		}
		p.result("listTools", params, &lt)
		var names []string
		for _, tool := range lt.Tools {
			names = append(names, tool.Name)
		}
		return strings.Join(names, ",")
	}
	if names := toolNames(created.SessionID); !strings.Contains(names, "mcp__own__echo") {
		t.Fatalf("created session's tools: %s", names)
	}
	if names := toolNames(""); strings.Contains(names, "mcp__own__") {
		t.Fatalf("first session has the other session's MCP tools: %s", names)
	}
	p.result("prompt", map[string]any{"message": "echo", "sessionId": created.SessionID}, nil)
	p.waitFor("the session's agent_settled", func(m *message) bool {
		return m.isEvent() && m.typ() == "agent_settled" && m.str("sessionId") == created.SessionID
	})
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := toolResultOf(t, reqs[1], "c1"); got != "from the session's server" {
		t.Fatalf("echo result in the next request = %q", got)
	}
	// The server logged its pid when it started (stderr is relayed asynchronously).
	var pids []int
	for deadline := time.Now().Add(hangTimeout); len(pids) == 0; {
		if m := regexp.MustCompile(`"stderr":"mcp-testserver pid (\d+)"`).FindStringSubmatch(p.stderrTail(1 << 20)); m != nil {
			pid, _ := strconv.Atoi(m[1])
			pids = append(pids, pid)
		} else if time.Now().After(deadline) {
			t.Fatal("no MCP server pid in the log")
		} else {
			time.Sleep(10 * time.Millisecond) // polling the log: nothing to wait on
		}
	}
	p.result("closeSession", map[string]any{"sessionId": created.SessionID}, nil)
	noOrphans(t, pids) // closing the session stopped its server, the process still runs
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
