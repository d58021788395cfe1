package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// TestGolden records the wire transcript of each scenario over real pipes and compares it
// with e2e/testdata/golden/<name>.golden. The transcripts pin the protocol byte for byte:
// an intended change rewrites them with -update and says why in its commit.
func TestGolden(t *testing.T) {
	for _, sc := range goldenScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, sc.name)
		})
	}
}

type goldenScenario struct {
	name string
	run  func(t *testing.T, name string)
}

// faux starts a golden scenario on a faux script.
func fauxGolden(t *testing.T, name, script string, args ...string) *golden {
	return newGolden(t, name, options{faux: script, args: args})
}

// blocked waits until the tool started by the run is blocked on its fifo: bash reports an
// empty first update when it starts, and `cat gate` prints nothing until released.
func (g *golden) blocked() { g.t.Helper(); g.event("tool_execution_update") }

// streaming waits for the first text delta of a hanging reply, after which the faux model
// streams nothing until aborted.
func (g *golden) streaming() {
	g.t.Helper()
	g.await("a text_delta", func(m *message) bool {
		ame, _ := m.ev["assistantMessageEvent"].(map[string]any)
		return m.typ() == "message_update" && ame["type"] == "text_delta"
	})
}

// writeFile writes a file into dir.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fauxToolCall is a faux reply calling a tool with arguments.
func fauxToolCall(name string, args map[string]any) reply {
	return reply{"content": []any{map[string]any{"type": "toolCall", "name": name, "arguments": args}}}
}

// jsonText encodes a string as a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var goldenScenarios = []goldenScenario{
	{"initialize", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(), "--no-session")
		g.call(1, "initialize", `{"protocolVersion":1,"clientInfo":{"name":"golden"}}`)
		g.call(2, "getState", "")
		g.call(3, "listModels", "")
		g.call(4, "shutdown", "")
		g.send(notif("exit", ""))
		g.finished()
	}},
	{"prompt_text", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(text("Hello there, how can I help?")), "--no-session")
		g.call(1, "prompt", `{"message":"hi"}`)
		g.settled()
		g.call(2, "getMessages", "")
		g.finish()
	}},
	{"tool_loop_read", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(
			fauxToolCall("read", map[string]any{"path": "notes.txt"}),
			text("The notes say hello."),
		), "--no-session")
		writeFile(t, g.cwd(), "notes.txt", "hello\nworld\n")
		g.call(1, "prompt", `{"message":"read notes.txt"}`)
		g.settled()
		g.finish()
	}},
	{"tool_loop_write_edit", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(
			fauxToolCall("write", map[string]any{"path": "a.txt", "content": "one\ntwo\n"}),
			fauxToolCall("edit", map[string]any{"path": "a.txt", "oldText": "two", "newText": "three"}),
			text("Done."),
		), "--no-session")
		g.call(1, "prompt", `{"message":"write and edit"}`)
		g.settled()
		g.finish()
	}},
	{"steer_during_tool", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(bashCall("cat gate"), text("Steered reply.")), "--no-session")
		gate := fifo(t, g.cwd(), "gate")
		g.call(1, "prompt", `{"message":"run it"}`)
		g.blocked()
		g.callThen(2, "steer", `{"message":"also do this"}`, "queue_update")
		g.note("fifo released")
		release(t, gate)
		g.settled()
		g.finish()
	}},
	{"follow_up_during_tool", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(bashCall("cat gate"), text("First done."), text("Follow-up done.")), "--no-session")
		gate := fifo(t, g.cwd(), "gate")
		g.call(1, "prompt", `{"message":"run it"}`)
		g.blocked()
		g.callThen(2, "followUp", `{"message":"then this"}`, "queue_update")
		g.call(3, "prompt", `{"message":"busy?"}`)
		g.callThen(4, "prompt", `{"message":"queued as follow-up","whenBusy":"followUp"}`, "queue_update")
		g.note("fifo released")
		release(t, gate)
		g.settled()
		g.finish()
	}},
	{"queues_cancel_clear", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(bashCall("cat gate"), text("Done.")), "--no-session")
		gate := fifo(t, g.cwd(), "gate")
		g.call(1, "prompt", `{"message":"run it"}`)
		g.blocked()
		g.callThen(2, "steer", `{"message":"s1"}`, "queue_update")
		g.callThen(3, "followUp", `{"message":"f1"}`, "queue_update")
		g.callThen(4, "followUp", `{"message":"f2"}`, "queue_update")
		g.callThen(5, "cancelInput", `{"inputId":"in3"}`, "queue_update")
		g.call(6, "cancelInput", `{"inputId":"in1"}`)
		g.call(7, "cancelInput", `{"inputId":"in99"}`)
		g.callThen(8, "clearQueues", "", "queue_update")
		g.note("fifo released")
		release(t, gate)
		g.settled()
		g.finish()
	}},
	{"abort_streaming", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(hanging()), "--no-session")
		g.call(1, "prompt", `{"message":"think slowly"}`)
		g.streaming()
		g.call(2, "abort", "")
		g.settled()
		g.call(3, "abort", "")
		g.finish()
	}},
	{"abort_tool", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(bashCall("cat gate")), "--no-session")
		fifo(t, g.cwd(), "gate")
		g.call(1, "prompt", `{"message":"run it"}`)
		g.blocked()
		g.call(2, "abort", "")
		g.settled()
		g.finish()
	}},
	{"continue_rules", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(
			reply{"stopReason": "error", "errorMessage": "boom"},
			text("Recovered."),
		), "--no-session")
		g.call(1, "continue", "")
		g.call(2, "prompt", `{"message":"fail please"}`)
		g.settled()
		g.call(3, "continue", "")
		g.settled()
		g.call(4, "continue", "")
		g.finish()
	}},
	{"wait_settled", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(text("One."), text("Two.")), "--no-session")
		g.call(1, "waitSettled", "")
		g.send(req(2, "prompt", `{"message":"one"}`))
		g.send(req(3, "waitSettled", `{"inputId":"in1"}`))
		g.response("3")
		g.call(4, "waitSettled", `{"inputId":"in1"}`)
		g.call(5, "waitSettled", `{"inputId":"in7"}`)
		g.call(6, "waitSettled", "")
		g.finish()
	}},
	{"retry_then_success", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(
			reply{"stopReason": "error", "errorMessage": "overloaded", "errorKind": "retryable", "retryAfterMs": 1},
			text("Second time lucky."),
		), "--no-session")
		g.call(1, "prompt", `{"message":"try"}`)
		g.settled()
		g.finish()
	}},
	{"retry_openai_429", func(t *testing.T, name string) {
		m := mockServer(t,
			mockopenai.RateLimitError("0"),
			mockopenai.Response{Text: "Hello from the mock."},
		)
		g := newGolden(t, name, options{mock: m, args: []string{"--no-session", "--model", "gpt-4.1"}})
		g.call(1, "prompt", `{"message":"hi"}`)
		g.settled()
		g.finish()
	}},
	{"openai_tool_loop", func(t *testing.T, name string) {
		m := mockServer(t,
			mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"path":"."}`}}},
			mockopenai.Response{Reasoning: "Files listed.", Text: "There is one file."},
		)
		g := newGolden(t, name, options{mock: m, args: []string{"--no-session", "--model", "gpt-4.1"}})
		writeFile(t, g.cwd(), "only.txt", "x")
		g.call(1, "prompt", `{"message":"what is here?"}`)
		g.settled()
		g.finish()
	}},
	{"model_options", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(), "--no-session")
		g.call(1, "setThinkingLevel", `{"level":"high"}`)
		g.call(2, "setThinkingLevel", `{"level":"bogus"}`)
		g.callThen(3, "setModel", `{"modelId":"faux-1"}`, "model_changed")
		g.call(4, "setModel", `{"modelId":"nope"}`)
		g.call(5, "setOptions", `{"steeringMode":"all","followUpMode":"all","autoRetry":false,"autoCompaction":false,"toolExecution":"sequential","approval":"deny-writes"}`)
		g.call(6, "getState", "")
		g.finish()
	}},
	{"batch", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(text("Batched.")), "--no-session")
		g.send(`[` + req(1, "getState", "") + `,` + req(2, "prompt", `{"message":"in a batch"}`) + `,` + notif("$/cancelRequest", `{"id":99}`) + `,` + req(3, "waitSettled", "") + `]`)
		g.await("batch", func(m *message) bool { return m.batch != nil })
		g.settled()
		g.send(`[` + notif("$/cancelRequest", `{"id":98}`) + `]`)
		g.call(4, "getState", "")
		g.finish()
	}},
	{"framing_lsp", func(t *testing.T, name string) {
		g := newGolden(t, name, options{faux: fauxScript(text("Over LSP framing.")), lsp: true, args: []string{"--no-session", "--framing", "lsp"}})
		g.call(1, "initialize", `{"protocolVersion":1}`)
		g.call(2, "prompt", `{"message":"hi"}`)
		g.settled()
		g.finish()
	}},
	{"framing_auto_lsp", func(t *testing.T, name string) {
		g := newGolden(t, name, options{faux: fauxScript(), lsp: true, args: []string{"--no-session"}})
		g.call(1, "getState", "")
		g.finish()
	}},
	{"bad_input", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(), "--no-session", "--max-message-bytes", "4096")
		for i, raw := range []string{
			"{not json\n",
			"[]\n",
			"42\n",
			`{"id":1,"method":"getState"}` + "\n",
			`{"jsonrpc":"1.0","id":2,"method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":{"a":1},"method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":true,"method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":null,"method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":-1.5e3,"method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":"str-id","method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":3}` + "\n",
			`{"jsonrpc":"2.0","id":4,"method":7}` + "\n",
			`{"jsonrpc":"2.0","id":5,"method":"noSuchMethod"}` + "\n",
			`{"jsonrpc":"2.0","method":"noSuchNotification"}` + "\n",
			`{"jsonrpc":"2.0","id":6,"method":"getState","params":[1]}` + "\n",
			`{"jsonrpc":"2.0","id":7,"method":"prompt","params":{"message":5}}` + "\n",
			`{"jsonrpc":"2.0","id":8,"method":"prompt","params":{}}` + "\n",
			`{"jsonrpc":"2.0","method":"getState"}` + "\n",
			`{"jsonrpc":"2.0","id":9,"method":"exit"}` + "\n",
			`{"jsonrpc":"2.0","id":10,"method":"$/cancelRequest","params":{"id":1}}` + "\n",
			`{"jsonrpc":"2.0","id":77,"result":{}}` + "\n",
			"\xff\xfe\n",
			`{"jsonrpc":"2.0","id":11,"method":"getState","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}` + "\n",
			`{"jsonrpc":"2.0","id":12,"method":"getState","params":{"unknownField":true}}` + "\n",
		} {
			g.sendRaw(raw)
			// an idle abort after each line proves the process kept serving and pins the order
			g.call(100+i, "abort", "")
		}
		g.finish()
	}},
	{"permission_allow_deny", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(
			fauxToolCall("write", map[string]any{"path": "ok.txt", "content": "yes"}),
			bashCall("echo denied"),
			text("Done."),
		), "--no-session")
		g.call(1, "initialize", `{"protocolVersion":1,"capabilities":{"permissions":true}}`)
		g.call(2, "prompt", `{"message":"write then run"}`)
		r := g.request("permission/request")
		g.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"decision":"allow"}}`)
		r = g.request("permission/request")
		g.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"decision":"deny","reason":"not now"}}`)
		g.settled()
		g.finish()
	}},
	{"permission_always_and_error", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(
			bashCall("echo one"),
			bashCall("echo two"),
			fauxToolCall("write", map[string]any{"path": "x.txt", "content": "x"}),
			text("Done."),
		), "--no-session")
		g.call(1, "initialize", `{"protocolVersion":1,"capabilities":{"permissions":true}}`)
		g.call(2, "prompt", `{"message":"run twice then write"}`)
		r := g.request("permission/request")
		g.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"decision":"allowAlways"}}`)
		r = g.request("permission/request")
		g.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"error":{"code":-1,"message":"dialog closed"}}`)
		g.settled()
		g.finish()
	}},
	{"permission_abort", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(bashCall("echo never")), "--no-session")
		g.call(1, "initialize", `{"protocolVersion":1,"capabilities":{"permissions":true}}`)
		g.call(2, "prompt", `{"message":"run"}`)
		r := g.request("permission/request")
		g.call(3, "abort", "")
		g.settled()
		g.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"decision":"allow"}}`)
		g.call(4, "getState", "")
		g.finish()
	}},
	{"permission_disconnect", func(t *testing.T, name string) {
		// stdin ends with a permission request pending: the abort reaches the run before the
		// request resolves (by disconnect), so no further turn starts.
		g := fauxGolden(t, name, fauxScript(bashCall("echo never"), text("never sent")), "--no-session")
		g.call(1, "initialize", `{"protocolVersion":1,"capabilities":{"permissions":true}}`)
		g.call(2, "prompt", `{"message":"run"}`)
		g.request("permission/request")
		g.finish()
	}},
	{"permission_disconnect_finish", func(t *testing.T, name string) {
		// With --on-eof abort, whether the disconnect's deny or the abort reaches the loop
		// first is a race in the server today; --on-eof finish has one outcome.
		g := fauxGolden(t, name, fauxScript(bashCall("echo never"), text("Could not run it.")), "--no-session", "--on-eof", "finish")
		g.call(1, "initialize", `{"protocolVersion":1,"capabilities":{"permissions":true}}`)
		g.call(2, "prompt", `{"message":"run"}`)
		g.request("permission/request")
		g.finish()
	}},
	{"approval_deny_writes", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(bashCall("echo no"), text("Refused.")), "--no-session", "--approval", "deny-writes")
		g.call(1, "prompt", `{"message":"run"}`)
		g.settled()
		g.finish()
	}},
	{"bash_method", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(text("Saw it.")), "--no-session")
		g.call(1, "bash", `{"command":"echo hello from bash"}`)
		g.call(2, "abortBash", "")
		g.call(3, "prompt", `{"message":"what did bash say?"}`)
		g.settled()
		g.call(4, "getMessages", "")
		g.finish()
	}},
	{"bash_abort", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(), "--no-session")
		fifo(t, g.cwd(), "gate")
		g.send(req(1, "bash", `{"command":"echo started; cat gate"}`))
		g.event("bash_update")
		g.call(2, "abortBash", "")
		g.response("1")
		g.finish()
	}},
	{"compact_manual", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(text("one"), text("two"), text("## Goal\nSummarised.")), "--no-session")
		g.call(1, "compact", "")
		g.call(2, "prompt", `{"message":"`+bigText(100_000)+`"}`)
		g.settled()
		g.call(3, "prompt", `{"message":"`+bigText(100_000)+`"}`)
		g.settled()
		g.call(4, "compact", `{"customInstructions":"keep it short"}`)
		g.caused("agent_settled", func(m *message) bool { return m.isEvent() && m.typ() == "agent_settled" })
		g.call(5, "getMessages", "")
		g.finish()
	}},
	{"sessions", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(text("First answer."), text("Second answer."), text("Branch answer.")))
		g.call(1, "prompt", `{"message":"first"}`)
		g.settled()
		g.call(2, "prompt", `{"message":"second"}`)
		g.settled()
		g.call(3, "getState", "")
		g.call(4, "setSessionName", `{"name":"golden session"}`)
		tree := g.call(5, "getTree", "")
		var tr struct {
			Nodes []struct {
				ID   string `json:"id"`
				Role string `json:"role"`
			} `json:"nodes"`
		}
		tree.decode(t, &tr)
		var firstUser, secondUser string
		for _, n := range tr.Nodes {
			if n.Role == "user" {
				if firstUser == "" {
					firstUser = n.ID
				} else if secondUser == "" {
					secondUser = n.ID
				}
			}
		}
		g.call(6, "setLabel", `{"entryId":`+jsonText(firstUser)+`,"label":"start"}`)
		g.call(7, "getEntries", "")
		g.call(8, "getEntries", `{"limit":2}`)
		g.call(9, "getSessionStats", "")
		g.callThen(10, "navigateTree", `{"entryId":`+jsonText(secondUser)+`}`, "session_changed")
		g.call(11, "prompt", `{"message":"on a branch"}`)
		g.settled()
		g.call(12, "listSessions", "")
		g.callThen(13, "forkSession", `{"entryId":`+jsonText(firstUser)+`}`, "session_changed")
		g.callThen(14, "newSession", "", "session_changed")
		g.call(15, "listSessions", "")
		g.call(16, "openSession", `{"session":"nope.jsonl"}`)
		g.finish()
	}},
	{"partial_messages", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(reply{"content": []any{
			map[string]any{"type": "thinking", "thinking": "Hmm."},
			map[string]any{"type": "text", "text": "Partial."},
		}}), "--no-session")
		g.p.mu.Lock()
		g.p.checker.partial = true
		g.p.mu.Unlock()
		g.call(1, "initialize", `{"protocolVersion":1,"capabilities":{"partialMessages":true}}`)
		g.call(2, "prompt", `{"message":"hi"}`)
		g.settled()
		g.finish()
	}},
	{"shutdown_busy", func(t *testing.T, name string) {
		g := fauxGolden(t, name, fauxScript(hanging()), "--no-session")
		g.call(1, "prompt", `{"message":"think"}`)
		g.streaming()
		g.call(2, "shutdown", "")
		g.call(3, "prompt", `{"message":"too late"}`)
		g.send(notif("exit", ""))
		g.finished()
	}},
	{"overflow_openai", func(t *testing.T, name string) {
		m := mockServer(t,
			mockopenai.Response{Text: bigText(2000)},
			mockopenai.ContextLengthError(),
			mockopenai.Response{Text: "## Goal\nSummary of the chat."},
			mockopenai.Response{Text: "Answer after compaction."},
		)
		g := newGolden(t, name, options{mock: m, args: []string{"--no-session", "--model", "gpt-4.1"}})
		g.call(1, "prompt", `{"message":"talk a lot"}`)
		g.settled()
		g.call(2, "prompt", `{"message":"now overflow"}`)
		g.settled()
		g.finish()
	}},
}
