package e2e_test

import (
	"path/filepath"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestACPGolden compares each ACP scenario's wire transcript with e2e/testdata/acp.
func TestACPGolden(t *testing.T) {
	for _, sc := range acpGoldenScenarios {
		t.Run(sc.name, func(t *testing.T) { sc.run(t, sc.name) })
	}
}

func cancelOf(sid string) map[string]any { return map[string]any{"sessionId": sid} }

var acpGoldenScenarios = []struct {
	name string
	run  func(t *testing.T, name string)
}{
	{"prompt", func(t *testing.T, name string) {
		mock := mockOf(mockopenai.Response{Reasoning: "thinking it over", Text: "Hello from the agent.", Usage: &mockopenai.Usage{PromptTokens: 900, CompletionTokens: 12}})
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		sid := g.initSession()
		g.call(2, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
			map[string]any{"type": "text", "text": "hi"},
			map[string]any{"type": "resource_link", "name": "main.go", "uri": "file://" + filepath.Join(g.p.ws, "main.go")},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///notes.md", "text": "some context"}},
		}})
		g.call(3, "session/list", map[string]any{"cwd": g.p.ws})
		g.finish()
	}},
	{"tool_loop", func(t *testing.T, name string) {
		mock := mockOf(
			toolCall("c1", "read", map[string]any{"path": "a.txt"}),
			toolCall("c2", "grep", map[string]any{"pattern": "two", "path": "."}),
			mockopenai.Response{Text: "Found it."},
		)
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		writeFile(t, g.p.ws, "a.txt", "one\ntwo\n")
		sid := g.initSession()
		g.prompt(2, sid, "find two")
		g.finish()
	}},
	{"edit_permissions", func(t *testing.T, name string) {
		mock := editPermissionsMock()
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		writeFile(t, g.p.ws, "a.txt", "one\ntwo\nthree\n")
		sid := g.initSession()
		for i, option := range []string{"allow_once", "reject_once", "allow_always"} {
			g.request(2+i, "session/prompt", textPrompt(sid, "edit"))
			id, _ := g.p.permissionRequest()
			g.answer(id, option)
			g.p.response(2 + i)
		}
		// allow_always: no request this time.
		g.prompt(5, sid, "edit again")
		g.finish()
	}},
	{"cancel", func(t *testing.T, name string) {
		mock := mockOf(mockopenai.Response{Text: "a long answer", Faults: mockhttp.Faults{StallAfter: 2}}, editCall("c1", "a.txt", "one", "uno"))
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		writeFile(t, g.p.ws, "a.txt", "one\n")
		sid := g.initSession()
		// Mid-stream: the stream is stalled after its first chunk.
		g.request(2, "session/prompt", textPrompt(sid, "talk"))
		g.chunk(sid, "a lo")
		g.notify("session/cancel", cancelOf(sid))
		g.p.response(2)
		// Mid-permission: the request is withdrawn, then the prompt is answered.
		g.request(3, "session/prompt", textPrompt(sid, "edit"))
		id, _ := g.p.permissionRequest()
		g.notify("session/cancel", cancelOf(sid))
		g.p.response(3)
		g.answer(id, "allow_once")
		g.call(4, "session/list", map[string]any{"cwd": "/nowhere"})
		g.finish()
	}},
	{"queued_prompt", func(t *testing.T, name string) {
		mock := mockOf(mockopenai.Response{Text: "first answer", Faults: mockhttp.Faults{StallAfter: 2}}, mockopenai.Response{Text: "second"})
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		sid := g.initSession()
		g.request(2, "session/prompt", textPrompt(sid, "one"))
		g.chunk(sid, "firs")
		g.request(3, "session/prompt", textPrompt(sid, "two"))
		// Handled in order: once this is answered the second prompt is queued.
		g.call(4, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
		g.note("mock stream released")
		mock.Release()
		g.p.response(3)
		g.finish()
	}},
	{"load_replay", func(t *testing.T, name string) {
		mock := mockOf(
			mockopenai.Response{Reasoning: "look first", ToolCalls: []mockopenai.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"a.txt"}`}}},
			mockopenai.Response{Text: "It says one."},
			mockopenai.Response{Text: "Still here."},
		)
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		writeFile(t, g.p.ws, "a.txt", "one\n")
		// The session is written by a first process, then loaded by the one recorded.
		sid := promptedSession(t, mock, filepath.Join(g.root, "home"), g.p.ws, "what does a.txt say?", "--system-prompt", "You are a test agent.", "--no-context-files")
		g.initialize()
		g.call(1, "session/load", map[string]any{"sessionId": sid, "cwd": g.p.ws, "mcpServers": []any{}})
		g.p.until(func(m acpMsg) bool { _, k := m.update(); return k == "available_commands_update" })
		g.prompt(2, sid, "and now?")
		g.finish()
	}},
	{"two_sessions", func(t *testing.T, name string) {
		mock := mockOf(mockopenai.Response{Text: "alpha answer", Faults: mockhttp.Faults{StallAfter: 2}}, mockopenai.Response{Text: "beta"})
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		a := g.initSession()
		b := g.newSession(2)
		g.request(3, "session/prompt", textPrompt(a, "a"))
		g.chunk(a, "alph")
		g.prompt(4, b, "b")
		g.note("mock stream released")
		mock.Release()
		g.p.response(3)
		g.call(5, "session/close", map[string]any{"sessionId": b})
		g.call(6, "session/prompt", textPrompt(b, "closed"))
		g.finish()
	}},
	{"bad_input", func(t *testing.T, name string) {
		mock := mockOf(mockopenai.Response{Text: "fine"})
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		g.initialize()
		g.send(`{"jsonrpc":"2.0","id":1,"method":`)
		g.p.read()
		g.send(`[{"jsonrpc":"2.0","id":2,"method":"initialize"}]`)
		g.p.read()
		g.call(3, "session/teleport", map[string]any{})
		g.call(4, "session/prompt", textPrompt("no-such-session", "x"))
		g.call(5, "session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}})
		g.call(6, "session/new", map[string]any{"cwd": "/no/such/dir", "mcpServers": []any{}})
		g.call(7, "session/prompt", map[string]any{"sessionId": 7})
		sid := g.newSession(8)
		g.call(9, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}})
		g.call(10, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "yolo"})
		g.call(11, "session/load", map[string]any{"sessionId": "0000", "cwd": g.p.ws, "mcpServers": []any{}})
		g.prompt(12, sid, "still serving?")
		g.finish()
	}},
	{"commands", func(t *testing.T, name string) {
		mock := mockOf(mockopenai.Response{Text: "an answer", Usage: &mockopenai.Usage{PromptTokens: 1000, CompletionTokens: 10}}, mockopenai.Response{Text: "the model saw it"})
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		sid := g.initSession()
		g.prompt(2, sid, "/compact")
		g.prompt(3, sid, "/name Golden")
		g.prompt(4, sid, "hello")
		g.prompt(5, sid, "/session")
		g.prompt(6, sid, "/thinking")
		g.prompt(7, sid, "/model")
		g.prompt(8, sid, "/fork")
		g.prompt(9, sid, "/unknown words")
		g.finish()
	}},
	{"plan", func(t *testing.T, name string) {
		mock := mockOf(
			planCall("p1", map[string]any{"content": "read", "priority": "high", "status": "in_progress"}, map[string]any{"content": "fix", "priority": "medium", "status": "pending"}),
			mockopenai.Response{Text: "planned"},
		)
		defer mock.Close()
		g := newACPGolden(t, name, mock)
		sid := g.initSession()
		g.prompt(2, sid, "plan it")
		g.finish()
	}},
}
