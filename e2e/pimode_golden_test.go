package e2e_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// piGolden records a pi-mode wire transcript, like golden does for JSON-RPC: every line the
// test sent, placed after the output record it waited for before sending, and every record
// the server wrote, normalised. Scenarios send only at points the server cannot move past on
// its own (after a response that ends a step, after agent_settled, while a tool is blocked on
// a fifo), so the transcript is deterministic. Files: testdata/pimode/*.golden; -update
// rewrites them.
type piGolden struct {
	t    *testing.T
	name string
	p    *piProc
	root string
	args []string
	pos  int
	sent []sentLine
}

func newPiGolden(t *testing.T, name, script string, args ...string) *piGolden {
	t.Helper()
	root := newGoldenRoot(t, "cwd")
	g := &piGolden{t: t, name: name, root: root, args: args}
	all := append(slices.Clone(goldenArgs), args...)
	g.p = startPi(t, piOptions{faux: script, cwd: filepath.Join(root, "cwd"), args: all,
		env: []string{"PI_CODING_AGENT_DIR=" + filepath.Join(root, "agent")}})
	return g
}

func (g *piGolden) send(line string) {
	g.t.Helper()
	g.sent = append(g.sent, sentLine{at: g.pos, text: "> " + line})
	g.p.send(line)
}

func (g *piGolden) sendRaw(line string) {
	g.t.Helper()
	g.sent = append(g.sent, rawLine(g.pos, line))
	g.p.send(line)
}

func (g *piGolden) note(what string) { g.sent = append(g.sent, sentLine{at: g.pos, text: "# " + what}) }

func (g *piGolden) await(what string, pred func(piLine) bool) piLine {
	g.t.Helper()
	g.p.mu.Lock()
	g.p.cursor = g.pos
	g.p.mu.Unlock()
	l := g.p.waitFor(what, pred)
	g.p.mu.Lock()
	g.pos = g.p.cursor
	g.p.mu.Unlock()
	return l
}

func (g *piGolden) response(id string) piLine {
	g.t.Helper()
	return g.await("response "+id, func(l piLine) bool { return l.isResponse() && l.str("id") == id })
}

// call sends a command with an id and waits for its response.
func (g *piGolden) call(id, typ, fields string) piLine {
	g.t.Helper()
	line := fmt.Sprintf(`{"id":%q,"type":%q}`, id, typ)
	if fields != "" {
		line = fmt.Sprintf(`{"id":%q,"type":%q,%s}`, id, typ, fields)
	}
	g.send(line)
	return g.response(id)
}

func (g *piGolden) event(typ string) piLine { g.t.Helper(); return g.await(typ, isType(typ)) }

func (g *piGolden) settled() { g.t.Helper(); g.event("agent_settled") }

func (g *piGolden) finish() {
	g.t.Helper()
	g.note("stdin closed")
	_ = g.p.stdin.Close()
	code := g.p.waitExit()
	g.p.waitEOF()
	got := g.transcript(code)
	compareGolden(g.t, "pimode", g.name, "TestPiModeGolden", got)
}

func (g *piGolden) transcript(code int) string {
	out := g.p.all()
	lines := make([]string, len(out))
	for i, l := range out {
		lines[i] = string(l.raw)
	}
	return writeTranscript(g.root, headerLines(g.name+" (pi mode)", g.args), g.sent, lines, code)
}

// The pi-mode scenarios, one transcript each.
func TestPiModeGolden(t *testing.T) {
	scenarios := []struct {
		name string
		run  func(t *testing.T, name string)
	}{
		{"prompt_text", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(text("Hello from the faux model.")), "--no-session")
			g.call("1", "get_state", "")
			g.call("2", "prompt", `"message":"hi"`)
			g.settled()
			g.call("3", "get_last_assistant_text", "")
			g.call("4", "get_session_stats", "")
			g.finish()
		}},
		{"tool_loop", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(bashCall("echo hi"), text("It printed hi.")), "--no-session")
			g.call("1", "prompt", `"message":"run echo"`)
			g.settled()
			g.call("2", "get_messages", "")
			g.finish()
		}},
		{"steer_followup_during_bash", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(bashCall("cat gate"), text("Steered."), text("Followed.")), "--no-session")
			gate := fifo(t, g.p.dir, "gate")
			g.call("1", "prompt", `"message":"run the gate"`)
			g.event("tool_execution_update")
			g.call("2", "steer", `"message":"steer now"`)
			g.call("3", "follow_up", `"message":"then follow"`)
			g.call("4", "get_state", "")
			g.note("gate released")
			release(t, gate)
			g.settled()
			g.finish()
		}},
		{"abort", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(hanging()), "--no-session")
			g.call("1", "prompt", `"message":"go"`)
			g.await("a text_delta", func(l piLine) bool {
				ame, _ := l.m["assistantMessageEvent"].(map[string]any)
				return l.typ() == "message_update" && ame["type"] == "text_delta"
			})
			g.call("2", "abort", "")
			g.call("3", "get_state", "")
			g.finish()
		}},
		{"approval_confirm", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(bashCall("echo refused"), bashCall("echo allowed"), text("Done.")), "--no-session", "--approval", "ask")
			g.call("1", "prompt", `"message":"run twice"`)
			req := g.event("extension_ui_request")
			g.send(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,"confirmed":false}`, req.str("id")))
			req = g.event("extension_ui_request")
			g.send(fmt.Sprintf(`{"type":"extension_ui_response","id":%q,"confirmed":true}`, req.str("id")))
			g.settled()
			g.finish()
		}},
		{"bad_input", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(), "--no-session", "--max-message-bytes", "4096")
			for _, line := range []string{"", "{oops", `[1,2]`, `"text"`, `{"id":"a"}`, `{"id":"b","type":7}`,
				`{"id":"c","type":"frobnicate"}`, `{"id":"d","type":"prompt","message":42}`, `{"id":"e","type":"steer"}`,
				`{"id":"f","type":"set_thinking_level","level":"max"}`, `{"id":"g","type":"set_model","provider":"x","modelId":"y"}`,
				`{"id":"h","type":"set_session_name","name":"  "}`, `{"type":"prompt","message":"` + strings.Repeat("x", 5000) + `"}`} {
				g.sendRaw(line)
				g.await("a response", func(l piLine) bool { return l.isResponse() })
			}
			g.call("z", "get_state", "")
			g.finish()
		}},
		{"bash_and_settings", func(t *testing.T, name string) {
			g := newPiGolden(t, name, fauxScript(text("Saw it.")), "--no-session")
			g.call("1", "bash", `"command":"echo hello from bash"`)
			g.call("2", "set_thinking_level", `"level":"off"`)
			g.call("3", "set_steering_mode", `"mode":"all"`)
			g.call("4", "set_auto_compaction", `"enabled":false`)
			g.call("5", "get_available_thinking_levels", "")
			g.call("6", "cycle_model", "")
			g.call("7", "prompt", `"message":"what did bash say?"`)
			g.settled()
			g.call("8", "get_state", "")
			g.finish()
		}},
	}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) { s.run(t, s.name) })
	}
}
