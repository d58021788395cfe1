package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// hangTimeout fails a wait that sees no progress: a hang detector, not a latency bound.
const hangTimeout = 20 * time.Second

// conn is pi-rpc's run over in-process pipes: every line it writes is kept in order.
type conn struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan map[string]any
	seen   []map[string]any
	stderr *testkit.Buffer
	done   chan int
	once   sync.Once
	code   int
}

func runConn(t *testing.T, env map[string]string, args ...string) *conn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conn{t: t, in: inW, lines: make(chan map[string]any, 1024), stderr: &testkit.Buffer{}, done: make(chan int, 1)}
	go func() {
		c.done <- run(args, inR, outW, c.stderr, envOf(env))
		_ = outW.Close()
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				panic(fmt.Sprintf("stdout line %q: %v", sc.Bytes(), err))
			}
			c.lines <- m
		}
	}()
	t.Cleanup(func() { c.exit() })
	return c
}

// exit closes stdin and returns the exit code.
func (c *conn) exit() int {
	c.once.Do(func() {
		_ = c.in.Close()
		select {
		case c.code = <-c.done:
		case <-time.After(hangTimeout):
			c.t.Error("pi-rpc did not exit after stdin closed")
			c.code = -1
		}
	})
	return c.code
}

func (c *conn) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// until reads lines until one satisfies ok, and returns it.
func (c *conn) until(what string, ok func(m map[string]any) bool) map[string]any {
	c.t.Helper()
	for {
		select {
		case m, open := <-c.lines:
			if !open {
				c.t.Fatalf("stdout ended before %s; stderr:\n%s", what, c.stderr.String())
			}
			c.seen = append(c.seen, m)
			if ok(m) {
				return m
			}
		case <-time.After(hangTimeout):
			c.t.Fatalf("hang: no %s; read so far %v", what, c.seen)
		}
	}
}

// next reads the next line, whatever it is.
func (c *conn) next(what string) map[string]any {
	c.t.Helper()
	return c.until(what, func(map[string]any) bool { return true })
}

// seenOrUntil returns the first line already read that satisfies ok, or reads on until one does.
func (c *conn) seenOrUntil(what string, ok func(m map[string]any) bool) map[string]any {
	c.t.Helper()
	for _, m := range c.seen {
		if ok(m) {
			return m
		}
	}
	return c.until(what, ok)
}

func (c *conn) response(id int) map[string]any {
	c.t.Helper()
	return c.until(fmt.Sprintf("response %d", id), func(m map[string]any) bool { return m["id"] == float64(id) })
}

func (c *conn) event(typ string) map[string]any {
	c.t.Helper()
	return c.until(typ, func(m map[string]any) bool { return eventType(m) == typ })
}

func eventType(m map[string]any) string {
	if m["method"] != "event" {
		return ""
	}
	typ, _ := m["params"].(map[string]any)["type"].(string)
	return typ
}

// outline lists the events read so far, an MCP status as mcp_server_status:<name>:<state>.
func (c *conn) outline() []string {
	var out []string
	for _, m := range c.seen {
		typ := eventType(m)
		if typ == "" {
			continue
		}
		if typ == "mcp_server_status" {
			p := m["params"].(map[string]any)
			typ += ":" + p["name"].(string) + ":" + p["state"].(string)
		}
		out = append(out, typ)
	}
	return out
}

func writeConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mcpArgs are the flags of a pi-rpc on mock's model.
func mcpArgs(t *testing.T, mock *mockopenai.Server, extra ...string) (map[string]string, []string) {
	env := map[string]string{"PI_RPC_HOME": t.TempDir(), "OPENAI_API_KEY": "test"}
	return env, append([]string{"--cwd", t.TempDir(), "--provider", "openai", "--base-url", mock.URL()}, extra...)
}

// A configured server that is slow to start holds up nothing: initialize is answered while it
// is still at its gate, its start is reported as it happens, and a prompt sent meanwhile
// waits for it, so the model's first request offers its tools.
func TestSlowMCPServerDoesNotHoldInitialize(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "done"}}})
	t.Cleanup(mock.Close)
	cfg := writeConfig(t, map[string]any{"slow": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}}})
	env, args := mcpArgs(t, mock, "--mcp-config", cfg)
	c := runConn(t, env, args...)

	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if res := c.response(1); res["result"] == nil {
		t.Fatalf("initialize: %v", res)
	}
	// A startup server's connecting is written once the client's first bytes arrive, so it
	// may come before or after initialize's response.
	connecting := c.seenOrUntil("slow connecting", func(m map[string]any) bool { return eventType(m) == "mcp_server_status" })
	if p := connecting["params"].(map[string]any); p["name"] != "slow" || p["state"] != "connecting" || p["toolCount"] != float64(0) {
		t.Fatalf("first status %v", p)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"prompt","params":{"message":"use the slow server"}}`)
	if res := c.response(2); res["result"] == nil {
		t.Fatalf("prompt: %v", res)
	}
	testkit.ReleaseGate(t, gate)
	c.event("agent_settled")

	outline := c.outline()
	ready := testkit.Position(t, outline, "mcp_server_status:slow:connected")
	if start := testkit.Position(t, outline, "agent_start"); testkit.Position(t, outline, "mcp_server_status:slow:connecting") > ready || ready > start {
		t.Fatalf("events %v: want connecting, connected, then agent_start", outline)
	}
	for _, m := range c.seen {
		if p, _ := m["params"].(map[string]any); eventType(m) == "mcp_server_status" && p["state"] == "connected" {
			if n, _ := p["toolCount"].(float64); n < 8 || len(p["tools"].([]any)) != int(n) {
				t.Fatalf("connected status %v: want its tools and their count", p)
			}
		}
	}
	reqs := mock.Requests()
	if len(reqs) != 1 || !slices.Contains(mockopenai.ToolNames(reqs[0]), "mcp__slow__echo") {
		t.Fatalf("the first request's tools: %v", mockopenai.ToolNames(reqs[0]))
	}
	if code := c.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	logged(t, c.stderr.String(), "info", "MCP server starting", "mcpServer", "slow", "transport", "stdio")
	if l := logged(t, c.stderr.String(), "info", "MCP server ready", "mcpServer", "slow"); l["tools"] != float64(10) {
		t.Errorf("the ready line %v: want its 10 tools", l)
	}
}

// logged finds the log line of level and message whose fields have the values given as
// name, value pairs.
func logged(t *testing.T, log, level, message string, fields ...string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil || l["level"] != level || l["message"] != message {
			continue
		}
		match := true
		for i := 0; i+1 < len(fields); i += 2 {
			if v, _ := l[fields[i]].(string); !strings.HasPrefix(v, fields[i+1]) {
				match = false
			}
		}
		if match {
			return l
		}
	}
	t.Fatalf("no %s line %q with %v in the log:\n%s", level, message, fields, log)
	return nil
}

// A server of initialize's that never gets ready fails when --mcp-timeout ends its start; the
// prompt waiting for it then runs without its tools, and the failure is reported (event,
// session_error, log).
func TestMCPServerNeverReadyTimesOut(t *testing.T) {
	gate := testkit.NewGate(t)
	mock := mockopenai.New(&mockopenai.Script{Responses: []mockopenai.Response{{Text: "went ahead"}}})
	t.Cleanup(mock.Close)
	env, args := mcpArgs(t, mock, "--mcp-timeout", "1s")
	c := runConn(t, env, args...)
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"mcpServers": map[string]any{"stuck": map[string]any{"command": mcpServer.Path(t), "args": []string{"-gate", gate}}},
	}})
	c.send(string(init) + "\n" + `{"jsonrpc":"2.0","id":2,"method":"prompt","params":{"message":"go ahead"}}`)
	c.response(1)
	c.response(2)
	settled := c.event("agent_settled")
	if p := settled["params"].(map[string]any); p["aborted"] != false || p["error"] != nil {
		t.Fatalf("settled %v", p)
	}
	outline := c.outline()
	if failed := testkit.Position(t, outline, "mcp_server_status:stuck:failed"); failed > testkit.Position(t, outline, "agent_start") {
		t.Fatalf("events %v: want the failure before the run", outline)
	}
	var failure, sessionError string
	for _, m := range c.seen {
		p, _ := m["params"].(map[string]any)
		switch {
		case eventType(m) == "mcp_server_status" && p["state"] == "failed":
			failure, _ = p["error"].(string)
		case eventType(m) == "session_error":
			sessionError, _ = p["message"].(string)
		}
	}
	if !strings.Contains(failure, "no answer within 1s") || !strings.Contains(sessionError, "MCP server stuck failed") {
		t.Fatalf("failure %q, session_error %q", failure, sessionError)
	}
	reqs := mock.Requests()
	if len(reqs) != 1 || slices.ContainsFunc(mockopenai.ToolNames(reqs[0]), func(n string) bool { return strings.HasPrefix(n, "mcp__stuck__") }) {
		t.Fatalf("the request's tools: %v", mockopenai.ToolNames(reqs[0]))
	}
	logged(t, c.stderr.String(), "warn", "MCP server failed", "mcpServer", "stuck", "error", "cannot start: no answer within 1s")
}
