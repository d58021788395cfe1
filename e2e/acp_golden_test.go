package e2e_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// acpGolden records one ACP scenario's wire transcript: every line the test sent and every
// line the agent wrote, in order, normalised like the JSON-RPC goldens (golden_test.go). A
// line sent by the test is placed after the last line the test had read before sending it,
// so the transcript is deterministic as long as the scenario sends only at points the agent
// cannot move past on its own (after a response, while a permission request waits, while
// the mock's stream is stalled). -update rewrites e2e/testdata/acp/*.golden.
type acpGolden struct {
	t    *testing.T
	name string
	root string
	p    *acpProc
	sent []sentLine
}

func newACPGolden(t *testing.T, name string, mock *mockopenai.Server, args ...string) *acpGolden {
	t.Helper()
	root := newGoldenRoot(t, "home", "ws")
	args = append(slices.Clone(goldenArgs), args...)
	return &acpGolden{t: t, name: name, root: root, p: startACPIn(t, mock, filepath.Join(root, "home"), filepath.Join(root, "ws"), args...)}
}

// send sends a message (a value, or a raw line as a string) and records it.
func (g *acpGolden) send(v any) {
	g.t.Helper()
	g.p.mu.Lock()
	at := len(g.p.wire)
	g.p.mu.Unlock()
	text := "> " + string(inputLine(g.t, v))
	if s, ok := v.(string); ok {
		text = "> raw " + fmt.Sprintf("%q", s)
	}
	g.sent = append(g.sent, sentLine{at: at, text: text})
	g.p.send(v)
}

func (g *acpGolden) request(id int, method string, params any) {
	g.t.Helper()
	g.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

func (g *acpGolden) notify(method string, params any) {
	g.t.Helper()
	g.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and reads up to its response.
func (g *acpGolden) call(id int, method string, params any) acpMsg {
	g.t.Helper()
	g.request(id, method, params)
	return g.p.response(id)
}

func (g *acpGolden) initialize() {
	g.t.Helper()
	g.call(0, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
}

// newSession opens a session in the workspace, reads its available_commands_update, and
// returns its id.
func (g *acpGolden) newSession(id int) string {
	g.t.Helper()
	sid := sessionIDOf(g.t, g.call(id, "session/new", map[string]any{"cwd": g.p.ws, "mcpServers": []any{}}))
	g.p.until(func(m acpMsg) bool { _, k := m.update(); return k == "available_commands_update" })
	return sid
}

// initSession initializes the agent and opens a session with request id 1 (newSession).
func (g *acpGolden) initSession() string {
	g.t.Helper()
	g.initialize()
	return g.newSession(1)
}

func (g *acpGolden) prompt(id int, sid, text string) acpMsg {
	g.t.Helper()
	return g.call(id, "session/prompt", textPrompt(sid, text))
}

// chunk reads up to the agent_message_chunk of a session whose text is text.
func (g *acpGolden) chunk(sid, text string) {
	g.t.Helper()
	g.p.until(func(m acpMsg) bool { s, _ := m.update(); return s == sid && chunkText(m) == text })
}

// answer answers a permission request.
func (g *acpGolden) answer(id []byte, option string) {
	g.t.Helper()
	outcome := map[string]any{"outcome": "cancelled"}
	if option != "" {
		outcome = map[string]any{"outcome": "selected", "optionId": option}
	}
	g.send(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "result": map[string]any{"outcome": outcome}})
}

var agentVersionRE = regexp.MustCompile(`("agentInfo":\{(?:"_meta":\{"pi-rpc":\{"sandbox":\{[^}]*\}\}\},)?"name":"pi-rpc","title":"pi-rpc","version":)"[^"]*"`)

// landlockABIRE is the kernel's Landlock ABI in the agent info's sandbox, which differs from
// machine to machine.
var landlockABIRE = regexp.MustCompile(`"landlockABI":\d+`)

// note records a step that is not a line on the wire.
func (g *acpGolden) note(what string) {
	g.p.mu.Lock()
	at := len(g.p.wire)
	g.p.mu.Unlock()
	g.sent = append(g.sent, sentLine{at: at, text: "# " + what})
}

// finish closes stdin, reads to the end, and compares (or writes) the transcript.
func (g *acpGolden) finish() {
	g.t.Helper()
	g.note("stdin closed")
	_ = g.p.stdin.Close()
	for m := range g.p.lines {
		g.p.mu.Lock()
		g.p.wire = append(g.p.wire, m)
		g.p.mu.Unlock()
	}
	<-g.p.done
	lines := make([]string, len(g.p.wire))
	for i, l := range g.p.wire {
		lines[i] = l.raw
	}
	got := writeTranscript(g.root, []string{g.name}, g.sent, lines, g.p.cmd.ProcessState.ExitCode())
	got = agentVersionRE.ReplaceAllString(got, `$1"<version>"`)
	got = landlockABIRE.ReplaceAllString(got, `"landlockABI":"<abi>"`)
	compareGolden(g.t, "acp", g.name, "TestACPGolden", got)
}
