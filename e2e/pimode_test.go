package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockhttp"
	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

func isType(typ string) func(piLine) bool { return func(l piLine) bool { return l.typ() == typ } }

// A prompt's response precedes agent_start; events are bare pi objects; the run ends with
// agent_end{willRetry:false} then agent_settled{aborted:false}.
func TestPiModePrompt(t *testing.T) {
	p := startPi(t, piOptions{mock: newMock(t, mockopenai.Response{Text: "Hello there", ChunkSize: 3}), args: []string{"--no-session"}})
	p.send(map[string]any{"id": "1", "type": "prompt", "message": "hi"})
	settled := p.event("agent_settled")
	if settled.m["aborted"] != false {
		t.Fatalf("agent_settled = %s", settled.raw)
	}
	ls := p.all()
	resp := indexOf(ls, func(l piLine) bool { return l.isResponse() && l.str("id") == "1" })
	start := indexOf(ls, isType("agent_start"))
	if resp != 0 || start != 1 {
		t.Fatalf("prompt response at %d, agent_start at %d; want 0 and 1", resp, start)
	}
	if d := ls[resp].data(); d["disposition"] != "started" {
		t.Fatalf("prompt response = %s", ls[resp].raw)
	}
	var text strings.Builder
	for _, l := range ls {
		for _, k := range []string{"seq", "runId", "sessionId", "jsonrpc", "inputId"} {
			if _, ok := l.m[k]; ok && !l.isResponse() {
				t.Fatalf("pi event with %s: %s", k, l.raw)
			}
		}
		if l.typ() != "message_update" {
			continue
		}
		ame := l.m["assistantMessageEvent"].(map[string]any)
		// pi 1.6.0: the delta only, with the latest usage; no partial, no message.
		if _, ok := ame["partial"]; ok || l.m["message"] != nil || l.m["usage"] == nil {
			t.Fatalf("message_update is not delta-only: %s", l.raw)
		}
		if ame["type"] == "text_delta" {
			text.WriteString(ame["delta"].(string))
		}
	}
	if text.String() != "Hello there" {
		t.Fatalf("deltas = %q", text.String())
	}
	// As pi 1.6.0: the first prompt starts with the system message that declares the prompt
	// and the tools, so the run has three messages.
	end := ls[indexOf(ls, isType("agent_end"))]
	if msgs := end.m["messages"].([]any); end.m["willRetry"] != false || len(msgs) != 3 || msgs[0].(map[string]any)["role"] != "system" {
		t.Fatalf("agent_end = %s", end.raw)
	}
	st := p.call("2", "get_state", nil).data()
	if st["isStreaming"] != false || st["messageCount"] != float64(3) || st["thinkingLevel"] == nil || st["sessionId"] == "" {
		t.Fatalf("get_state = %v", st)
	}
	if _, ok := st["sessionFile"]; ok {
		t.Fatalf("--no-session state has a sessionFile: %v", st)
	}
	txt := p.call("3", "get_last_assistant_text", nil).data()
	if txt["text"] != "Hello there" {
		t.Fatalf("get_last_assistant_text = %v", txt)
	}
	stats := p.call("4", "get_session_stats", nil).data()
	if stats["userMessages"] != float64(1) || stats["assistantMessages"] != float64(1) {
		t.Fatalf("stats = %v", stats)
	}
}

// Steer and follow-up sent while a bash tool runs: queue_update (pi's string arrays) comes
// before each response, the steer is delivered after the tool batch and the follow-up when
// the agent would stop, all inside one agent_start…agent_end.
func TestPiModeSteerAndFollowUpDuringBash(t *testing.T) {
	cwd := t.TempDir()
	fifo := filepath.Join(cwd, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	mock := newMock(t,
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"cat gate"}`}}},
		mockopenai.Response{Text: "steered"},
		mockopenai.Response{Text: "followed"},
	)
	p := startPi(t, piOptions{mock: mock, cwd: cwd, args: []string{"--no-session"}})
	p.send(map[string]any{"id": "p", "type": "prompt", "message": "run it"})
	p.event("tool_execution_start")
	p.send(map[string]any{"id": "s", "type": "steer", "message": "steer me"})
	q := p.event("queue_update")
	if q.m["steering"].([]any)[0] != "steer me" {
		t.Fatalf("queue_update = %s", q.raw)
	}
	if r := p.response("s"); r.data()["disposition"] != "queued" {
		t.Fatalf("steer response = %s", r.raw)
	}
	p.send(map[string]any{"id": "f", "type": "follow_up", "message": "then this"})
	q = p.event("queue_update")
	if q.m["followUp"].([]any)[0] != "then this" {
		t.Fatalf("queue_update = %s", q.raw)
	}
	p.response("f")
	// get_state is answered while the tool runs.
	if st := p.call("g", "get_state", nil).data(); st["isStreaming"] != true || st["pendingMessageCount"] != float64(2) {
		t.Fatalf("get_state while streaming = %v", st)
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.WriteString("done\n")
	_ = w.Close()
	p.event("agent_settled")
	ls := p.all()
	count := func(typ string) int {
		n := 0
		for _, l := range ls {
			if l.typ() == typ {
				n++
			}
		}
		return n
	}
	if count("agent_start") != 1 || count("agent_end") != 1 {
		t.Fatalf("%d agent_start, %d agent_end; want one run", count("agent_start"), count("agent_end"))
	}
	var users []string
	for _, l := range ls {
		if l.typ() == "message_start" {
			m := l.m["message"].(map[string]any)
			if m["role"] == "user" {
				users = append(users, m["content"].([]any)[0].(map[string]any)["text"].(string))
			}
		}
	}
	if strings.Join(users, "|") != "run it|steer me|then this" {
		t.Fatalf("user messages %q", users)
	}
	toolEnd := indexOf(ls, isType("tool_execution_end"))
	steerAt := indexOf(ls, func(l piLine) bool {
		m, _ := l.m["message"].(map[string]any)
		return l.typ() == "message_start" && m["role"] == "user" && strings.Contains(string(l.raw), "steer me")
	})
	if toolEnd < 0 || steerAt < toolEnd {
		t.Fatalf("steer delivered at %d, tool ended at %d", steerAt, toolEnd)
	}
}

// abort's response comes after the aborted run's agent_end; the period settles aborted.
func TestPiModeAbort(t *testing.T) {
	mock := newMock(t, mockopenai.Response{Text: "a long answer that stalls", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 2}})
	p := startPi(t, piOptions{mock: mock, args: []string{"--no-session"}})
	p.send(map[string]any{"id": "p", "type": "prompt", "message": "go"})
	p.event("message_update")
	p.send(map[string]any{"id": "a", "type": "abort"})
	r := p.response("a")
	if r.m["success"] != true {
		t.Fatalf("abort = %s", r.raw)
	}
	ls := p.all()
	end := indexOf(ls, isType("agent_end"))
	settled := indexOf(ls, isType("agent_settled"))
	abortAt := indexOf(ls, func(l piLine) bool { return l.isResponse() && l.str("id") == "a" })
	if end < 0 || settled < 0 || abortAt < end || abortAt < settled {
		t.Fatalf("agent_end at %d, agent_settled at %d, abort response at %d", end, settled, abortAt)
	}
	if ls[settled].m["aborted"] != true {
		t.Fatalf("agent_settled = %s", ls[settled].raw)
	}
	// Idle abort answers at once.
	p.call("a2", "abort", nil)
}

// A prompt while busy without streamingBehavior fails with pi's text; with "steer" it queues.
func TestPiModePromptWhileBusy(t *testing.T) {
	mock := newMock(t, mockopenai.Response{Text: "stalling answer", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 2}}, mockopenai.Response{Text: "ok"})
	p := startPi(t, piOptions{mock: mock, args: []string{"--no-session"}})
	p.send(map[string]any{"id": "p", "type": "prompt", "message": "go"})
	p.event("message_update")
	p.send(map[string]any{"id": "p2", "type": "prompt", "message": "again"})
	r := p.response("p2")
	want := "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
	if r.m["success"] != false || r.str("error") != want {
		t.Fatalf("busy prompt = %s", r.raw)
	}
	p.send(map[string]any{"id": "p3", "type": "prompt", "message": "queued", "streamingBehavior": "followUp"})
	p.event("queue_update")
	if r := p.response("p3"); r.data()["disposition"] != "queued" {
		t.Fatalf("queued prompt = %s", r.raw)
	}
	cleared := p.call("c", "clear_queue", nil).data()
	if cleared["followUp"].([]any)[0] != "queued" {
		t.Fatalf("clear_queue = %v", cleared)
	}
	p.call("a", "abort", nil)
}

// The bad-input table in pi's dialect: each line gets one failure response and the process
// keeps serving.
func TestPiModeBadInput(t *testing.T) {
	p := startPi(t, piOptions{mock: newMock(t), args: []string{"--no-session", "--max-message-bytes", "1048576"}})
	big := `{"type":"prompt","message":"` + strings.Repeat("x", 10<<20) + `"}`
	cases := []struct {
		name, line, command, errPrefix, id string
	}{
		{"empty line", "", "parse", "Failed to parse command: ", ""},
		{"not JSON", "{oops", "parse", "Failed to parse command: ", ""},
		{"JSON array", `[{"type":"get_state"}]`, "parse", "Failed to parse command: ", ""},
		{"JSON string", `"get_state"`, "parse", "Failed to parse command: ", ""},
		{"no type", `{"id":"n1"}`, "parse", "Failed to parse command: ", "n1"},
		{"type not a string", `{"id":"n2","type":7}`, "parse", "Failed to parse command: ", "n2"},
		{"unknown type", `{"id":"u1","type":"frobnicate"}`, "frobnicate", "Unknown command: frobnicate", "u1"},
		{"message not a string", `{"id":"w1","type":"prompt","message":42}`, "prompt", "Invalid prompt command: message", "w1"},
		{"missing message", `{"id":"w2","type":"steer"}`, "steer", "Invalid steer command: message is required", "w2"},
		{"bad level", `{"id":"w3","type":"set_thinking_level","level":"max"}`, "set_thinking_level", "Invalid thinking level", "w3"},
		{"enabled not a bool", `{"id":"w4","type":"set_auto_retry","enabled":"yes"}`, "set_auto_retry", "Invalid set_auto_retry command: enabled", "w4"},
		{"10 MB line", big, "parse", "Failed to parse command: line exceeds", ""},
	}
	for i, c := range cases {
		p.send(c.line)
		r := p.waitFor(c.name, func(l piLine) bool { return l.isResponse() })
		if r.m["success"] != false || r.str("command") != c.command || !strings.HasPrefix(r.str("error"), c.errPrefix) || r.str("id") != c.id {
			t.Errorf("%s: %s", c.name, truncate(string(r.raw), 300))
		}
		// Still serving.
		id := "ok" + string(rune('a'+i))
		p.call(id, "get_state", nil)
	}
}

// Process life as pi: no banner, stdin EOF exits 0, SIGTERM exits 143, SIGHUP 129.
func TestPiModeProcessLife(t *testing.T) {
	p := startPi(t, piOptions{mock: newMock(t), args: []string{"--no-session"}})
	p.call("1", "get_state", nil)
	if ls := p.all(); len(ls) != 1 {
		t.Fatalf("records before the first response: %d", len(ls))
	}
	_ = p.stdin.Close()
	if code := p.waitExit(); code != 0 {
		t.Fatalf("exit %d at stdin EOF, want 0", code)
	}
	q := startPi(t, piOptions{mock: newMock(t), args: []string{"--no-session"}})
	q.call("1", "get_state", nil)
	_ = q.cmd.Process.Signal(syscall.SIGTERM)
	if code := q.waitExit(); code != 143 {
		t.Fatalf("exit %d on SIGTERM, want 143", code)
	}
	h := startPi(t, piOptions{mock: newMock(t), args: []string{"--no-session"}})
	h.call("1", "get_state", nil)
	_ = h.cmd.Process.Signal(syscall.SIGHUP)
	if code := h.waitExit(); code != 129 {
		t.Fatalf("exit %d on SIGHUP, want 129", code)
	}
}

// --approval ask: bash asks through an extension_ui_request confirm; a refusal makes the tool
// fail, a confirmation runs it.
func TestPiModeApprovalConfirm(t *testing.T) {
	mock := newMock(t,
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"command":"echo one"}`}}},
		mockopenai.Response{ToolCalls: []mockopenai.ToolCall{{ID: "call_2", Name: "bash", Arguments: `{"command":"echo two"}`}}},
		mockopenai.Response{Text: "done"},
	)
	p := startPi(t, piOptions{mock: mock, args: []string{"--no-session", "--approval", "ask"}})
	p.send(map[string]any{"id": "p", "type": "prompt", "message": "go"})
	req := p.event("extension_ui_request")
	if req.str("method") != "confirm" || !strings.Contains(req.str("title"), "echo one") || req.str("id") == "" {
		t.Fatalf("request = %s", req.raw)
	}
	p.send(map[string]any{"type": "extension_ui_response", "id": req.str("id"), "confirmed": false})
	end := p.event("tool_execution_end")
	if end.m["isError"] != true {
		t.Fatalf("refused tool = %s", end.raw)
	}
	req = p.event("extension_ui_request")
	p.send(map[string]any{"type": "extension_ui_response", "id": "not-a-request", "confirmed": true})
	p.send(map[string]any{"type": "extension_ui_response", "id": req.str("id"), "confirmed": true})
	end = p.event("tool_execution_end")
	if end.m["isError"] != false || !strings.Contains(string(end.raw), "two") {
		t.Fatalf("confirmed tool = %s", end.raw)
	}
	p.event("agent_settled")
	for _, l := range p.all() {
		if l.isResponse() && l.str("id") == "" {
			t.Fatalf("extension_ui_response was answered: %s", l.raw)
		}
	}
}

// bash runs while idle and while streaming; thinking levels and models answer in pi's shapes.
func TestPiModeBashModelsThinking(t *testing.T) {
	p := startPi(t, piOptions{mock: newMock(t), args: []string{"--no-session"}})
	b := p.call("b", "bash", map[string]any{"command": "echo hello; exit 3"}).data()
	if strings.TrimSpace(b["output"].(string)) != "hello" || b["exitCode"] != float64(3) || b["cancelled"] != false {
		t.Fatalf("bash = %v", b)
	}
	models := p.call("m", "get_available_models", nil).data()["models"].([]any)
	if len(models) == 0 {
		t.Fatal("no models")
	}
	m0 := models[0].(map[string]any)
	set := p.call("sm", "set_model", map[string]any{"provider": m0["provider"], "modelId": m0["id"]}).data()
	if set["id"] != m0["id"] {
		t.Fatalf("set_model = %v", set)
	}
	r := map[string]any{"id": "bad", "type": "set_model", "provider": "nope", "modelId": "x"}
	p.send(r)
	if resp := p.response("bad"); resp.str("error") != "Model not found: nope/x" {
		t.Fatalf("set_model unknown = %s", resp.raw)
	}
	levels := p.call("l", "get_available_thinking_levels", nil).data()["levels"].([]any)
	if len(levels) == 0 || levels[0] != "off" {
		t.Fatalf("levels = %v", levels)
	}
	p.call("t", "set_thinking_level", map[string]any{"level": "off"})
	if st := p.call("g", "get_state", nil).data(); st["thinkingLevel"] != "off" {
		t.Fatalf("thinkingLevel = %v", st["thinkingLevel"])
	}
	p.call("sm2", "set_steering_mode", map[string]any{"mode": "all"})
	if st := p.call("g2", "get_state", nil).data(); st["steeringMode"] != "all" {
		t.Fatalf("steeringMode = %v", st["steeringMode"])
	}
	if cmds := p.call("c", "get_commands", nil).data()["commands"].([]any); len(cmds) != 0 {
		t.Fatalf("commands = %v", cmds)
	}
}

// Sessions: the file is written, get_entries/get_tree read it, new_session empties the
// context, compact summarises.
func TestPiModeSessionsAndCompact(t *testing.T) {
	mock := newMock(t,
		mockopenai.Response{Text: "first answer", Usage: &mockopenai.Usage{PromptTokens: 100, CompletionTokens: 10}},
		mockopenai.Response{Text: "second answer", Usage: &mockopenai.Usage{PromptTokens: 200, CompletionTokens: 10}},
		mockopenai.Response{Text: "the summary"},
	)
	p := startPi(t, piOptions{mock: mock})
	// Messages over the 20,000 kept tokens, so that the first one can be summarised.
	big := strings.Repeat("word ", 20_000)
	p.call("p1", "prompt", map[string]any{"message": "one " + big})
	p.event("agent_settled")
	p.call("p2", "prompt", map[string]any{"message": "two " + big})
	p.event("agent_settled")
	st := p.call("s", "get_state", nil).data()
	file, _ := st["sessionFile"].(string)
	if file == "" {
		t.Fatalf("no sessionFile: %v", st)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	entries := p.call("e", "get_entries", nil).data()
	if len(entries["entries"].([]any)) < 4 || entries["leafId"] == nil {
		t.Fatalf("get_entries = %v", entries)
	}
	// get_entries is every entry of the file (its lines but the header), as pi's.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(strings.TrimSpace(string(data)), "\n"); len(entries["entries"].([]any)) != lines {
		t.Fatalf("get_entries gave %d entries, the file has %d", len(entries["entries"].([]any)), lines)
	}
	// get_tree is pi's: {entry, children} nodes from the roots down.
	tree := p.call("t", "get_tree", nil).data()
	roots, _ := tree["tree"].([]any)
	if len(roots) != 1 || tree["leafId"] == nil {
		t.Fatalf("get_tree = %v", tree)
	}
	root := roots[0].(map[string]any)
	if e, _ := root["entry"].(map[string]any); e == nil || e["parentId"] != nil || len(root["children"].([]any)) != 1 {
		t.Fatalf("get_tree root = %v", root)
	}
	fm := p.call("fm", "get_fork_messages", nil).data()["messages"].([]any)
	if len(fm) != 2 {
		t.Fatalf("get_fork_messages = %v", fm)
	}
	res := p.call("c", "compact", nil).data()
	if res["summary"] == "" || res["tokensBefore"] == float64(0) {
		t.Fatalf("compact = %v", res)
	}
	p.call("n", "new_session", nil)
	st = p.call("s2", "get_state", nil).data()
	if st["messageCount"] != float64(0) || st["sessionFile"] == file {
		t.Fatalf("after new_session: %v", st)
	}
}

// new_session during a run aborts and settles it first; fork and switch_session move between
// session files.
func TestPiModeSessionSwitching(t *testing.T) {
	mock := newMock(t,
		mockopenai.Response{Text: "first"},
		mockopenai.Response{Text: "stalls", ChunkSize: 2, Faults: mockhttp.Faults{StallAfter: 2}},
	)
	p := startPi(t, piOptions{mock: mock})
	p.call("1", "prompt", map[string]any{"message": "one"})
	p.event("agent_settled")
	first := p.call("2", "get_state", nil).data()["sessionFile"].(string)
	fm := p.call("3", "get_fork_messages", nil).data()["messages"].([]any)
	entryID := fm[0].(map[string]any)["entryId"].(string)
	p.send(map[string]any{"id": "4", "type": "prompt", "message": "two"})
	p.event("message_update")
	p.send(map[string]any{"id": "5", "type": "new_session"})
	r := p.response("5")
	if r.data()["cancelled"] != false {
		t.Fatalf("new_session = %s", r.raw)
	}
	ls := p.all()
	if s := indexOf(ls, func(l piLine) bool { return l.typ() == "agent_settled" && l.m["aborted"] == true }); s < 0 || s > indexOf(ls, func(l piLine) bool { return l.str("id") == "5" }) {
		t.Fatal("new_session answered before the running period settled")
	}
	if st := p.call("6", "get_state", nil).data(); st["messageCount"] != float64(0) {
		t.Fatalf("after new_session: %v", st)
	}
	p.call("7", "switch_session", map[string]any{"sessionPath": first})
	if st := p.call("8", "get_state", nil).data(); st["sessionFile"] != first {
		t.Fatalf("after switch_session: %v", st)
	}
	f := p.call("9", "fork", map[string]any{"entryId": entryID}).data()
	if f["text"] != "one" || f["cancelled"] != false {
		t.Fatalf("fork = %v", f)
	}
	if st := p.call("10", "get_state", nil).data(); st["sessionFile"] == first {
		t.Fatalf("fork kept the session file: %v", st)
	}
	p.send(map[string]any{"id": "11", "type": "switch_session", "sessionPath": filepath.Join(t.TempDir(), "missing.jsonl")})
	if r := p.response("11"); r.m["success"] != false {
		t.Fatalf("switch to a missing file = %s", r.raw)
	}
	// clone duplicates the branch into a new file and continues there; an empty session
	// cannot be cloned.
	p.call("12", "switch_session", map[string]any{"sessionPath": first})
	before := p.call("13", "get_state", nil).data()
	if c := p.call("14", "clone", nil).data(); c["cancelled"] != false {
		t.Fatalf("clone = %v", c)
	}
	after := p.call("15", "get_state", nil).data()
	if after["sessionFile"] == first || after["messageCount"] != before["messageCount"] || after["sessionId"] == before["sessionId"] {
		t.Fatalf("clone: before %v, after %v", before, after)
	}
	p.call("16", "new_session", nil)
	p.send(map[string]any{"id": "17", "type": "clone"})
	if r := p.response("17"); r.m["success"] != false || r.m["error"] != "Cannot clone session: no current entry selected" {
		t.Fatalf("clone of an empty session = %s", r.raw)
	}
}

// A file with several branches (pi 0.73.1's own fixture): get_fork_messages lists the user
// messages of every branch, get_entries every entry, get_tree the branches under one root,
// as pi's commands do.
func TestPiModeWholeFileQueries(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "session", "testdata", "sessions", "pi-0.73.1", "branched.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "branched.jsonl")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	p := startPi(t, piOptions{mock: newMock(t)})
	p.call("1", "switch_session", map[string]any{"sessionPath": file})
	var texts []string
	for _, m := range p.call("2", "get_fork_messages", nil).data()["messages"].([]any) {
		texts = append(texts, m.(map[string]any)["text"].(string))
	}
	if strings.Join(texts, "|") != "Say hello|Read notes.txt|Anything else?|Different question" {
		t.Fatalf("get_fork_messages = %q", texts)
	}
	lines := strings.Count(strings.TrimSpace(string(src)), "\n")
	if n := len(p.call("3", "get_entries", nil).data()["entries"].([]any)); n != lines {
		t.Fatalf("get_entries gave %d entries, the file has %d", n, lines)
	}
	tree := p.call("4", "get_tree", nil).data()
	roots := tree["tree"].([]any)
	if len(roots) != 1 || tree["leafId"] != "25fcaee9" {
		t.Fatalf("get_tree = %v", tree)
	}
	// Down to "Hello! How can I help?" (636b08e2), where three branches part, in timestamp order.
	n := roots[0].(map[string]any)
	for range 3 {
		n = n["children"].([]any)[0].(map[string]any)
	}
	if id := n["entry"].(map[string]any)["id"]; id != "636b08e2" || n["label"] != "fork point" {
		t.Fatalf("node = %v", n["entry"])
	}
	var kids []string
	for _, c := range n["children"].([]any) {
		kids = append(kids, c.(map[string]any)["entry"].(map[string]any)["id"].(string))
	}
	if strings.Join(kids, ",") != "76702b5e,49d3528b,6d075da3" {
		t.Fatalf("children of the fork point = %v", kids)
	}
}

// export_html writes the conversation as a page, escaped, to the path asked for or to pi's
// default name in the working directory; an in-memory session cannot be exported.
func TestPiModeExportHTML(t *testing.T) {
	mock := newMock(t, mockopenai.Response{Text: "an <answer> & more"})
	p := startPi(t, piOptions{mock: mock})
	p.call("1", "prompt", map[string]any{"message": "a <question>"})
	p.event("agent_settled")
	out := filepath.Join(t.TempDir(), "page.html")
	if path := p.call("2", "export_html", map[string]any{"outputPath": out}).data()["path"]; path != out {
		t.Fatalf("path = %v", path)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "a &lt;question&gt;", "an &lt;answer&gt; &amp; more", `class="user"`, `class="assistant"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	def := p.call("3", "export_html", nil).data()["path"].(string)
	if !strings.HasPrefix(def, "pi-session-") || !strings.HasSuffix(def, ".html") {
		t.Fatalf("default path = %q", def)
	}
	if _, err := os.Stat(filepath.Join(p.dir, def)); err != nil {
		t.Fatalf("default export not in the working directory: %v", err)
	}

	// A special file as the output is refused at once, and the connection goes on serving.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "page.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, bad := range []string{fifo, dir, "/dev/zero"} {
		id := fmt.Sprintf("bad%d", i)
		p.send(map[string]any{"id": id, "type": "export_html", "outputPath": bad})
		if r := p.response(id); r.m["success"] != false || !strings.Contains(r.str("error"), "not a regular file") {
			t.Fatalf("export_html to %s = %s", bad, r.raw)
		}
	}
	p.call("5", "get_state", nil)

	mem := startPi(t, piOptions{mock: newMock(t), args: []string{"--no-session"}})
	mem.send(map[string]any{"id": "4", "type": "export_html"})
	if r := mem.response("4"); r.m["success"] != false || r.m["error"] != "Cannot export in-memory session to HTML" {
		t.Fatalf("in-memory export = %s", r.raw)
	}
}
