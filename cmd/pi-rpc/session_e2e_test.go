package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
	"github.com/pi-rpc/pi-rpc/session"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// buildBinary builds pi-rpc once per test binary run (TestMain removes it).
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "pi-rpc-session-e2e-")
		if buildErr != nil {
			return
		}
		builtBin, buildErr = testkit.BuildCommand(buildDir, ".", "pi-rpc")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// proc is a pi-rpc process spoken to over real pipes.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
	next  int
}

func start(t *testing.T, bin, home string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "PI_RPC_HOME="+home, "OPENAI_API_KEY=")
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 4096)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

// next reads the next message; a closed stdout or a silent process fails the test (the
// timeout is a hang detector, not a timing assertion).
func (p *proc) read() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatal("pi-rpc closed stdout")
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatal("pi-rpc is silent")
	}
	return nil
}

func (p *proc) call(method string, params any) map[string]any {
	p.t.Helper()
	p.next++
	id := p.next
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
	for {
		m := p.read()
		if v, ok := m["id"].(float64); ok && int(v) == id {
			if e, ok := m["error"]; ok {
				p.t.Fatalf("%s: %v", method, e)
			}
			r, _ := m["result"].(map[string]any)
			return r
		}
	}
}

// until reads events until one satisfies f.
func (p *proc) until(f func(ev map[string]any) bool) {
	p.t.Helper()
	for {
		m := p.read()
		if ev, ok := m["params"].(map[string]any); ok && m["method"] == "event" && f(ev) {
			return
		}
	}
}

func writeScript(t *testing.T, dir string, responses ...string) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("script-%d.json", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(`{"chunkSize": 2, "responses": [`+strings.Join(responses, ",")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func roles(msgs []any) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.(map[string]any)["role"].(string))
	}
	return out
}

// kill -9 in the middle of a streamed reply, and in the middle of a tool batch: after a
// restart with --session, every completed message is there, the file loads clean, and the
// session runs on.
func TestKillNineThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	tests := []struct {
		name      string
		first     string
		waitFor   func(ev map[string]any) bool
		wantRoles []string
	}{
		{
			name:  "streamed reply",
			first: `{"content": [{"type": "text", "deltas": ["Hel", "lo ", "wor", "ld"]}], "hangAfter": 2}`,
			waitFor: func(ev map[string]any) bool {
				d, _ := ev["assistantMessageEvent"].(map[string]any)
				return ev["type"] == "message_update" && d["type"] == "text_delta"
			},
			wantRoles: []string{"user"},
		},
		{
			name: "tool batch",
			first: `{"content": [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}},
				{"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "echo started; exec cat fifo"}}]}`,
			waitFor: func(ev map[string]any) bool {
				// "started" is out: the shell runs and execs cat, which blocks on the named
				// pipe, so the batch is in progress. (read refuses named pipes.) The cat
				// outlives the kill; the test's cleanup releases it. The first update, with no
				// output, can come before the shell is started.
				r, _ := ev["partialResult"].(map[string]any)
				content, _ := r["content"].([]any)
				return ev["type"] == "tool_execution_update" && ev["toolName"] == "bash" && len(content) > 0
			},
			wantRoles: []string{"user", "assistant"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(dir, "home")
			cwd := filepath.Join(dir, "work")
			_ = os.MkdirAll(cwd, 0o700)
			testkit.Mkfifo(t, filepath.Join(cwd, "fifo"), 0o600)
			if tt.name == "tool batch" {
				// Opening the pipe for writing and closing it ends cat. Without blocking: a cat
				// that never opened the pipe (a failed run) must not hang the cleanup.
				t.Cleanup(func() {
					if f, err := os.OpenFile(filepath.Join(cwd, "fifo"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						_ = f.Close()
					}
				})
			}
			script := writeScript(t, dir, tt.first)
			p := start(t, bin, home, "--provider", "faux", "--faux-script", script, "--cwd", cwd, "--approval", "auto")
			p.call("initialize", map[string]any{})
			p.call("prompt", map[string]any{"message": "please"})
			p.until(tt.waitFor)
			file := p.call("getState", map[string]any{})["sessionFile"].(string)
			if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = p.cmd.Wait()

			l, err := session.ReadFile(file)
			if err != nil || len(l.Warnings) != 0 {
				t.Fatalf("file after kill -9: %v, warnings %v", err, l.Warnings)
			}

			script2 := writeScript(t, dir, `{"content": [{"type": "text", "text": "resumed"}]}`)
			q := start(t, bin, home, "--provider", "faux", "--faux-script", script2, "--cwd", cwd, "--session", file)
			init := q.call("initialize", map[string]any{})
			if init["sessionFile"] != file {
				t.Fatalf("resumed %v, want %s", init["sessionFile"], file)
			}
			msgs := q.call("getMessages", map[string]any{})["messages"].([]any)
			eq(t, "roles after restart", roles(msgs), tt.wantRoles)
			q.call("prompt", map[string]any{"message": "go on"})
			q.until(func(ev map[string]any) bool { return ev["type"] == "agent_settled" })
			msgs = q.call("getMessages", map[string]any{})["messages"].([]any)
			eq(t, "roles after the new run", roles(msgs), append(tt.wantRoles, "user", "assistant"))
			q.call("shutdown", map[string]any{})
			l, _ = session.ReadFile(file)
			if len(l.Warnings) != 0 {
				t.Fatalf("warnings after resume: %v", l.Warnings)
			}
		})
	}
}

func eq(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// Two processes on one session: the second exits 1 naming the first's pid.
func TestSecondProcessOnSessionExits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	script := writeScript(t, dir, `{"content": [{"type": "text", "text": "hi"}]}`)
	p := start(t, bin, home, "--provider", "faux", "--faux-script", script, "--cwd", dir)
	p.call("prompt", map[string]any{"message": "hello"})
	p.until(func(ev map[string]any) bool { return ev["type"] == "agent_settled" })
	file := p.call("getState", map[string]any{})["sessionFile"].(string)

	cmd := exec.Command(bin, "--provider", "faux", "--faux-script", script, "--cwd", dir, "--session", file)
	cmd.Env = append(os.Environ(), "PI_RPC_HOME="+home)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("second process: %v\n%s", err, out)
	}
	want := fmt.Sprintf("Session file is in use by pi-rpc pid %d", p.cmd.Process.Pid)
	if !strings.Contains(string(out), want) {
		t.Fatalf("stderr %q, want %q", out, want)
	}
	// --continue skips it and starts a new session.
	q := start(t, bin, home, "--provider", "faux", "--faux-script", script, "--cwd", dir, "--continue")
	if got := q.call("initialize", map[string]any{})["sessionFile"]; got == file {
		t.Fatalf("--continue opened the locked session")
	}
}
