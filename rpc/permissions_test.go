package rpc_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/llm/faux"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools"
)

// toolPeer is a peer whose agent has the real write, edit and bash tools in a temp dir.
func toolPeer(t *testing.T, approval string, steps ...faux.Step) (*peer, string) {
	t.Helper()
	dir := t.TempDir()
	ts, err := tools.New([]string{"write", "edit", "bash"}, tools.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := newPeer(t, peerOpts{tools: ts, approval: approval, cwd: dir, shell: shellIn(dir)}, steps...)
	return p, dir
}

func shellIn(dir string) session.ShellRunner {
	return func(ctx context.Context, command string, timeout time.Duration, onUpdate, _ func(string)) (sessionapi.BashResult, error) {
		res, err := tools.RunShell(ctx, tools.ShellOptions{Command: command, Dir: dir, Timeout: timeout,
			OnUpdate: func(s tools.ShellSnapshot) { onUpdate(s.Output) }})
		return sessionapi.BashResult{Output: res.Output, ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated, FullOutputPath: res.FullOutputPath}, err
	}
}

func write(id, path, content string) faux.Block {
	return faux.ToolCallWithID(id, "write", map[string]any{"path": path, "content": content})
}

// untilRequest reads until a permission/request, returning it and what came before.
func (p *peer) untilRequest() (map[string]any, []map[string]any) {
	p.t.Helper()
	var before []map[string]any
	for {
		m := p.next()
		if m["method"] == "permission/request" {
			return m, before
		}
		before = append(before, m)
	}
}

// answer replies to a server request.
func (p *peer) answer(req map[string]any, result any) {
	p.t.Helper()
	id, _ := json.Marshal(req["id"])
	res, _ := json.Marshal(result)
	p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(res) + "}\n")
}

func (p *peer) initPermissions() {
	p.t.Helper()
	p.call("initialize", map[string]any{"capabilities": map[string]any{"permissions": true}})
}

func resolved(msgs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if eventType(m) == "permission_resolved" {
			out = append(out, m["params"].(map[string]any))
		}
	}
	return out
}

func toolEnds(msgs []map[string]any) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if eventType(m) == "tool_execution_end" {
			ev := m["params"].(map[string]any)
			res := ev["result"].(map[string]any)
			text := res["content"].([]any)[0].(map[string]any)["text"].(string)
			out[ev["toolCallId"].(string)] = text
		}
	}
	return out
}

func TestPermissionAllow(t *testing.T) {
	p, dir := toolPeer(t, "", faux.Reply(write("w1", "a.txt", "hello")), faux.Reply(faux.Text("done")))
	p.initPermissions()
	if st := p.call("getState", nil)["result"].(map[string]any); st["options"].(map[string]any)["approval"] != "ask" {
		t.Fatalf("approval after initialize with permissions = %v, want ask", st["options"])
	}
	p.call("prompt", map[string]any{"message": "write it"})
	req, before := p.untilRequest()
	// Rule 6: the call's tool_execution_start, then permission_requested, then the request.
	var order []string
	for _, m := range before {
		if typ := eventType(m); typ == "tool_execution_start" || typ == "permission_requested" {
			order = append(order, typ)
		}
	}
	if strings.Join(order, ",") != "tool_execution_start,permission_requested" {
		t.Fatalf("before the request: %v", order)
	}
	params := req["params"].(map[string]any)
	if params["toolName"] != "write" || params["toolCallId"] != "w1" || params["args"].(map[string]any)["path"] != "a.txt" {
		t.Fatalf("request params %v", params)
	}
	if st := p.call("getState", nil)["result"].(map[string]any); len(st["busy"].(map[string]any)["permissionsPending"].([]any)) != 1 {
		t.Fatalf("permissionsPending while waiting = %v", st["busy"])
	}
	p.answer(req, map[string]any{"decision": "allow"})
	msgs := p.untilEvent("agent_settled")
	if r := resolved(msgs); len(r) != 1 || r[0]["decision"] != "allow" || r[0]["by"] != "client" || r[0]["requestId"] != params["requestId"] {
		t.Fatalf("permission_resolved = %v", r)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(data) != "hello" {
		t.Fatalf("file after allow: %q, %v", data, err)
	}
}

func TestPermissionDenyAndErrorAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(p *peer, req map[string]any)
		want   string
	}{
		{"deny with a reason", func(p *peer, req map[string]any) {
			p.answer(req, map[string]any{"decision": "deny", "reason": "not in this repo"})
		}, "Permission denied: not in this repo"},
		{"an error answer", func(p *peer, req map[string]any) {
			id, _ := json.Marshal(req["id"])
			p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32000,"message":"user closed the dialog"}}` + "\n")
		}, "Permission denied: user closed the dialog"},
		{"an unknown decision", func(p *peer, req map[string]any) {
			p.answer(req, map[string]any{"decision": "maybe"})
		}, `Permission denied: unknown decision "maybe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, dir := toolPeer(t, "", faux.Reply(write("w1", "a.txt", "hello")), faux.Reply(faux.Text("ok")))
			p.initPermissions()
			p.call("prompt", map[string]any{"message": "write it"})
			req, _ := p.untilRequest()
			tc.answer(p, req)
			msgs := p.untilEvent("agent_settled")
			if got := toolEnds(msgs)["w1"]; got != tc.want {
				t.Fatalf("tool result %q, want %q", got, tc.want)
			}
			if r := resolved(msgs); r[0]["decision"] != "deny" {
				t.Fatalf("resolved %v", r)
			}
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
				t.Fatal("a denied write happened")
			}
			if reqs := p.model.Requests(); !strings.Contains(lastToolResult(reqs[len(reqs)-1]), tc.want) {
				t.Fatal("the model did not see the denial")
			}
		})
	}
}

func lastToolResult(req *core.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if r, ok := req.Messages[i].(*core.ToolResultMessage); ok {
			return core.TextOf(r.Content)
		}
	}
	return ""
}

func TestPermissionAllowAlways(t *testing.T) {
	p, _ := toolPeer(t, "", faux.Reply(write("w1", "a.txt", "1")), faux.Reply(write("w2", "b.txt", "2")), faux.Reply(faux.Text("ok")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "write twice"})
	req, _ := p.untilRequest()
	p.answer(req, map[string]any{"decision": "allowAlways"})
	msgs := p.untilEvent("agent_settled")
	for _, m := range msgs {
		if m["method"] == "permission/request" {
			t.Fatalf("asked again after allowAlways: %s", m["raw"])
		}
	}
	r := resolved(msgs)
	if len(r) != 2 || r[1]["by"] != "policy" || r[1]["decision"] != "allow" || r[1]["toolCallId"] != "w2" {
		t.Fatalf("resolved %v", r)
	}
}

// Two writes of one parallel batch are asked one after the other, in source order.
func TestPermissionParallelBatchInSourceOrder(t *testing.T) {
	p, _ := toolPeer(t, "", faux.Reply(write("w1", "a.txt", "1"), write("w2", "b.txt", "2")), faux.Reply(faux.Text("ok")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "write both"})
	first, _ := p.untilRequest()
	if first["params"].(map[string]any)["toolCallId"] != "w1" {
		t.Fatalf("first request for %v", first["params"])
	}
	p.answer(first, map[string]any{"decision": "allow"})
	second, between := p.untilRequest()
	if second["params"].(map[string]any)["toolCallId"] != "w2" {
		t.Fatalf("second request for %v", second["params"])
	}
	if r := resolved(between); len(r) != 1 || r[0]["toolCallId"] != "w1" {
		t.Fatalf("between the requests: %v, want w1's permission_resolved", r)
	}
	p.answer(second, map[string]any{"decision": "deny"})
	msgs := p.untilEvent("agent_settled")
	ends := toolEnds(msgs)
	if !strings.HasPrefix(ends["w2"], "Permission denied") || strings.HasPrefix(ends["w1"], "Permission denied") {
		t.Fatalf("results %v", ends)
	}
}

func TestPermissionAbortWhileWaiting(t *testing.T) {
	p, _ := toolPeer(t, "", faux.Reply(write("w1", "a.txt", "1")), faux.Reply(faux.Text("never")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "write"})
	req, _ := p.untilRequest()
	p.send(`{"jsonrpc":"2.0","id":"abort","method":"abort"}` + "\n")
	var sawCancel bool
	var msgs []map[string]any
	for {
		m := p.next()
		msgs = append(msgs, m)
		if m["method"] == "$/cancelRequest" {
			sawCancel = m["params"].(map[string]any)["id"] == req["id"]
		}
		if eventType(m) == "agent_settled" {
			break
		}
	}
	if !sawCancel {
		t.Fatal("no $/cancelRequest for the pending permission request")
	}
	if r := resolved(msgs); len(r) != 1 || r[0]["by"] != "abort" || r[0]["decision"] != "deny" {
		t.Fatalf("resolved %v", r)
	}
	p.answer(req, map[string]any{"decision": "allow"}) // too late: ignored
	if st := p.call("getState", nil)["result"].(map[string]any); st["settled"] != true {
		t.Fatalf("state after a late answer: %v", st)
	}
}

// With --on-eof finish, the end of input denies a pending request at once and the run goes
// on to its end.
func TestPermissionDisconnectWhileWaiting(t *testing.T) {
	dir := t.TempDir()
	ts, err := tools.New([]string{"write"}, tools.Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := newPeer(t, peerOpts{tools: ts, cwd: dir, finishOnEOF: true}, faux.Reply(write("w1", "a.txt", "1")), faux.Reply(faux.Text("ok")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "write"})
	p.untilRequest()
	_ = p.in.Close()
	msgs := p.untilEvent("agent_settled")
	if r := resolved(msgs); len(r) != 1 || r[0]["by"] != "disconnect" || r[0]["decision"] != "deny" {
		t.Fatalf("resolved %v", r)
	}
}

// With --on-eof abort (the default), the end of input aborts the period; the pending request
// resolves by disconnect only once the abort has reached the run, so no further turn (no
// second model call) can start in between. (It used to race: the deny could come first.)
func TestPermissionDisconnectThenAbort(t *testing.T) {
	p, _ := toolPeer(t, "", faux.Reply(write("w1", "a.txt", "1")), faux.Reply(faux.Text("never")))
	p.initPermissions()
	p.call("prompt", map[string]any{"message": "write"})
	p.untilRequest()
	_ = p.in.Close()
	<-p.server.InputClosed()
	// what cmd/pi-rpc does at the end of input
	go func() { _ = p.sup.Shutdown(context.Background()) }()
	msgs := p.untilEvent("agent_settled")
	if r := resolved(msgs); len(r) != 1 || r[0]["by"] != "disconnect" || r[0]["decision"] != "deny" {
		t.Fatalf("resolved %v", r)
	}
	if n := len(p.model.Requests()); n != 1 {
		t.Fatalf("%d model calls, want 1: a turn started after the disconnect", n)
	}
}

func TestPermissionWithoutCapability(t *testing.T) {
	p, dir := toolPeer(t, "ask", faux.Reply(write("w1", "a.txt", "1")), faux.Reply(faux.Text("ok")))
	p.call("initialize", map[string]any{})
	p.call("prompt", map[string]any{"message": "write"})
	msgs := p.untilEvent("agent_settled")
	for _, m := range msgs {
		if m["method"] == "permission/request" {
			t.Fatal("asked a client without the permissions capability")
		}
	}
	if got := toolEnds(msgs)["w1"]; got != "Permission denied: client cannot answer permission requests" {
		t.Fatalf("result %q", got)
	}
	if r := resolved(msgs); r[0]["by"] != "policy" {
		t.Fatalf("resolved %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Fatal("write happened")
	}
}

func TestDenyWritesAndAuto(t *testing.T) {
	p, dir := toolPeer(t, "deny-writes", faux.Reply(write("w1", "a.txt", "1")), faux.Reply(faux.Text("ok")), faux.Reply(write("w2", "b.txt", "2")), faux.Reply(faux.Text("ok")))
	p.call("prompt", map[string]any{"message": "write"})
	msgs := p.untilEvent("agent_settled")
	if got := toolEnds(msgs)["w1"]; got != "Permission denied: approval mode deny-writes refuses write" {
		t.Fatalf("result %q", got)
	}
	p.call("setOptions", map[string]any{"approval": "auto"})
	p.call("prompt", map[string]any{"message": "write again"})
	msgs = p.untilEvent("agent_settled")
	if len(resolved(msgs)) != 0 {
		t.Fatal("auto mode emitted permission events")
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal("auto mode did not write")
	}
}

func TestBashWhileStreamingReachesNextRequest(t *testing.T) {
	release := make(chan struct{})
	p, _ := toolPeer(t, "", blockingReply(release, "streaming"), faux.Reply(faux.Text("next")))
	p.call("prompt", map[string]any{"message": "go"})
	p.untilEvent("message_update")
	resp := p.call("bash", map[string]any{"command": "echo from-the-user; exit 3"})
	res := resp["result"].(map[string]any)
	if strings.TrimSpace(res["output"].(string)) != "from-the-user" || res["exitCode"] != float64(3) || res["cancelled"] != false {
		t.Fatalf("bash result %s", resp["raw"])
	}
	close(release)
	p.untilEvent("agent_settled")
	p.call("prompt", map[string]any{"message": "what did I run?"})
	p.untilEvent("agent_settled")
	reqs := p.model.Requests()
	last := reqs[len(reqs)-1]
	found := false
	for _, m := range last.Messages {
		if u, ok := m.(*core.UserMessage); ok && strings.Contains(core.TextOf(u.Content), "Ran `echo from-the-user; exit 3`") {
			found = true
			if !strings.Contains(core.TextOf(u.Content), "Command exited with code 3") {
				t.Fatalf("bash message %q", core.TextOf(u.Content))
			}
		}
	}
	if !found {
		t.Fatal("the bashExecution message did not reach the next model request")
	}
	msgs := p.call("getMessages", nil)["result"].(map[string]any)["messages"].([]any)
	if msgs[2].(map[string]any)["role"] != "bashExecution" {
		t.Fatalf("bashExecution not placed before the next prompt: %v", msgs)
	}
}

func blockingReply(release <-chan struct{}, text string) faux.Step {
	step := faux.HeldAt(faux.Reply(faux.Text(text)), 1, release)
	return step
}

func TestBashIdleAndAbortBashKillsTree(t *testing.T) {
	p, dir := toolPeer(t, "")
	pidFile := filepath.Join(dir, "pids")
	p.send(`{"jsonrpc":"2.0","id":"b","method":"bash","params":{"command":"sleep 1000 & echo $! > pids; sleep 1000 & echo $! >> pids; echo started; wait"}}` + "\n")
	for {
		m := p.next()
		if eventType(m) == "bash_update" && strings.Contains(m["params"].(map[string]any)["output"].(string), "started") {
			break
		}
	}
	if st := p.call("getState", nil)["result"].(map[string]any); st["bashRunning"] != true || st["settled"] != true {
		t.Fatalf("state while bash runs: bashRunning %v settled %v", st["bashRunning"], st["settled"])
	}
	if resp := p.call("bash", map[string]any{"command": "true"}); resp["error"].(map[string]any)["code"] != float64(-32010) {
		t.Fatalf("second bash %s", resp["raw"])
	}
	if resp := p.call("abortBash", nil); resp["result"].(map[string]any)["aborted"] != true {
		t.Fatalf("abortBash %s", resp["raw"])
	}
	resp := p.nextResponse()
	if resp["id"] != "b" || resp["result"].(map[string]any)["cancelled"] != true {
		t.Fatalf("bash answer %s", resp["raw"])
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(line)
		if alive(pid) {
			t.Errorf("process %d survived abortBash", pid)
		}
	}
	msgs := p.call("getMessages", nil)["result"].(map[string]any)["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["cancelled"] != true {
		t.Fatalf("idle bash did not enter the context at once: %v", msgs)
	}
	if resp := p.call("abortBash", nil); resp["result"].(map[string]any)["aborted"] != false {
		t.Fatalf("abortBash when idle %s", resp["raw"])
	}
}

// alive reports whether a process exists and is not a zombie (an orphan may wait a moment
// for its reaper, which in a container may never come).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return testkit.ProcessAlive(pid)
	}
	// The state follows the command name in parentheses.
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || i+2 >= len(data) || data[i+2] != 'Z'
}
