package e2e_test

// The end-to-end test of pi-rpc.exe (issue 27): the Windows binary, run under Wine, driven
// over real pipes from this (Linux) test against the Linux-side mock OpenAI server, with the
// stand-in bash.exe of internal/winetest in the prefix where Git for Windows puts its bash.
// make test-windows runs it (PI_RPC_WINE=1 with WINE and WINEPREFIX from
// internal/winetest/wine.sh); plain go test skips it, saying so.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// wineExe is pi-rpc.exe: $PI_RPC_WINE_EXE when set (make test-windows builds it ahead), else
// built once by the first Windows test; either way as make release builds it (no test
// overlay).
var wineExe struct {
	once sync.Once
	path string
	err  error
}

// wineOptions returns the harness options that run pi-rpc.exe under Wine, or skips the test
// when the Wine run was not requested.
func wineOptions(t *testing.T, o options) options {
	t.Helper()
	if os.Getenv("PI_RPC_WINE") != "1" {
		t.Skip("runs pi-rpc.exe under Wine: make test-windows runs it (PI_RPC_WINE=1, WINE and WINEPREFIX from internal/winetest/wine.sh)")
	}
	wine, prefix := os.Getenv("WINE"), os.Getenv("WINEPREFIX")
	if wine == "" || prefix == "" {
		t.Fatal("PI_RPC_WINE=1 needs WINE and WINEPREFIX (make wine-env prints them)")
	}
	wineExe.once.Do(func() {
		// make test-windows has built it already (internal/winetest/wine.sh testbins).
		if exe := os.Getenv("PI_RPC_WINE_EXE"); exe != "" {
			wineExe.path = exe
			return
		}
		dir, err := os.MkdirTemp("", "pi-rpc-e2e-windows-")
		if err != nil {
			wineExe.err = err
			return
		}
		wineExe.path = filepath.Join(dir, "pi-rpc.exe")
		build := exec.Command("go", "build", "-o", wineExe.path, "../cmd/pi-rpc")
		build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			wineExe.err = fmt.Errorf("building pi-rpc.exe: %w\n%s", err, out)
		}
	})
	if wineExe.err != nil {
		t.Fatal(wineExe.err)
	}
	runner, err := filepath.Abs("../internal/winetest/winrun.sh")
	if err != nil {
		t.Fatal(err)
	}
	o.bin = runner
	o.env = append(o.env, "WINE="+wine, "WINEPREFIX="+prefix, "PI_RPC_WINE_EXE="+wineExe.path)
	return o
}

// TestWindowsExePromptAndToolLoop: a prompt answered with text, then a tool loop of read,
// edit and write in which the edit and the write are approved through permission/request;
// the files on disk and the tool results sent back to the model are what the tools did.
func TestWindowsExePromptAndToolLoop(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mock := newMock(t,
		mockopenai.Response{Text: "hello from the mock"},
		toolCall("c1", "read", map[string]any{"path": "a.txt"}),
		toolCall("c2", "edit", map[string]any{"path": "a.txt", "edits": []map[string]any{{"oldText": "beta", "newText": "gamma"}}}),
		toolCall("c3", "write", map[string]any{"path": `sub\b.txt`, "content": "written on windows\n"}),
		mockopenai.Response{Text: "done"},
	)
	p := start(t, wineOptions(t, options{mock: mock, cwd: cwd}))
	p.result("initialize", map[string]any{"capabilities": map[string]any{"permissions": true}}, nil)

	p.result("prompt", map[string]any{"message": "say hello"}, nil)
	if s := settledOf(t, p.event("agent_settled")); s.Error != nil || s.Aborted {
		t.Fatalf("first prompt: %+v", s)
	}

	p.result("prompt", map[string]any{"message": "change a.txt, write sub/b.txt"}, nil)
	for _, want := range []string{"c2", "c3"} {
		req := p.waitFor("permission/request for "+want, func(m *message) bool {
			if m.isEvent() && m.typ() == "agent_settled" {
				t.Fatalf("settled without asking for %s", want)
			}
			return m.Method == "permission/request"
		})
		if !strings.Contains(string(req.Params), `"toolCallId":"`+want+`"`) {
			t.Fatalf("permission/request %s, want one for %s", req.Params, want)
		}
		p.send(p.frame(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"decision":"allow"}}`))
	}
	if s := settledOf(t, p.event("agent_settled")); s.Error != nil || s.Aborted {
		t.Fatalf("tool loop: %+v", s)
	}

	reqs := mock.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if got := toolResultOf(t, reqs[2], "c1"); !strings.Contains(got, "alpha\nbeta") {
		t.Errorf("read result = %q", got)
	}
	if got := toolResultOf(t, reqs[3], "c2"); !strings.Contains(got, "Successfully") {
		t.Errorf("edit result = %q", got)
	}
	if got := toolResultOf(t, reqs[4], "c3"); !strings.Contains(got, "Successfully wrote") {
		t.Errorf("write result = %q", got)
	}
	checkFile(t, filepath.Join(cwd, "a.txt"), "alpha\ngamma\n")
	checkFile(t, filepath.Join(cwd, "sub", "b.txt"), "written on windows\n")
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
}

func checkFile(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || string(data) != want {
		t.Errorf("%s = %q, %v; want %q", path, data, err, want)
	}
}

// TestWindowsExeAbortBash: the bash tool runs, through the stand-in Git Bash, a command whose
// child process sleeps; abort ends the run (agent_settled aborted) and the Job Object ends
// the whole tree: no process of the sleep is left.
func TestWindowsExeAbortBash(t *testing.T) {
	// The sleep's length marks its process among the machine's.
	const marker = "987654"
	mock := newMock(t, toolCall("c1", "bash", map[string]any{"command": "echo started; sleep " + marker}))
	p := start(t, wineOptions(t, options{mock: mock, args: []string{"--approval", "auto"}}))
	var pr inputResult
	p.result("prompt", map[string]any{"message": "run it"}, &pr)
	p.waitFor("the command's output", func(m *message) bool {
		return m.isEvent() && m.typ() == "tool_execution_update" && strings.Contains(string(m.raw), "started")
	})
	// "started" comes before the shell has started its sleep child: wait for that too.
	waitSleepers(t, marker, true, "the command's start")
	abort := p.result("abort", nil, nil)
	toolEnd := p.event("tool_execution_end")
	ev := p.event("agent_settled")
	p.before(abort, toolEnd, "abort response before tool_execution_end")
	if toolEnd.ev["isError"] != true {
		t.Errorf("tool_execution_end = %s, want isError", toolEnd)
	}
	if s := settledOf(t, ev); !s.Aborted || s.outcome(pr.InputID) != "aborted" {
		t.Errorf("agent_settled = %s, want aborted", ev)
	}
	waitSleepers(t, marker, false, "the abort")
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// TestWindowsExeBashTimeout: the bash tool's timeout ends the command's whole tree (the
// stand-in bash and its sleeping child) and the model gets the output before it with pi's
// timeout notice.
func TestWindowsExeBashTimeout(t *testing.T) {
	const marker = "987655"
	mock := newMock(t,
		toolCall("c1", "bash", map[string]any{"command": "echo started; sleep " + marker, "timeout": 6}),
		mockopenai.Response{Text: "it timed out"},
	)
	p := start(t, wineOptions(t, options{mock: mock, args: []string{"--approval", "auto"}}))
	p.result("prompt", map[string]any{"message": "run it"}, nil)
	waitSleepers(t, marker, true, "the command's start")
	toolEnd := p.event("tool_execution_end")
	if toolEnd.ev["isError"] != true {
		t.Errorf("tool_execution_end = %s, want isError", toolEnd)
	}
	if s := settledOf(t, p.event("agent_settled")); s.Error != nil || s.Aborted {
		t.Fatalf("run: %+v", s)
	}
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if got := toolResultOf(t, reqs[1], "c1"); !strings.Contains(got, "started") || !strings.Contains(got, "Command timed out after 6 seconds") {
		t.Errorf("tool result = %q, want the output and the timeout notice", got)
	}
	waitSleepers(t, marker, false, "the timeout")
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
}

// waitSleepers waits until the sleep's process is there (running) or gone (!running), and
// fails the test if that has not happened within hangTimeout: the tool returns once the Job
// Object is empty, but Wine may take a moment more to reap the Unix process behind a Windows
// one (a poll under the hang detector, not a latency bound).
func waitSleepers(t *testing.T, marker string, running bool, what string) {
	t.Helper()
	deadline := time.Now().Add(hangTimeout)
	for left := sleepers(t, marker); (len(left) > 0) != running; left = sleepers(t, marker) {
		if time.Now().After(deadline) {
			if running {
				t.Fatalf("no process of the sleep after %s", what)
			}
			t.Fatalf("the sleep survived %s: %v", what, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sleepers are the command lines of the running processes of the stand-in bash's sleep
// child with this argument (Wine gives a Windows process its Windows command line).
func sleepers(t *testing.T, marker string) []string {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range procs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(data), "\x00", " ")
		if strings.Contains(line, "--stand-in-sleep") && strings.Contains(line, marker) {
			out = append(out, f+": "+line)
		}
	}
	return out
}

// TestWindowsExeSessionResumed: a session saved by one pi-rpc.exe is resumed by the next
// with --continue: the next model request carries the first conversation.
func TestWindowsExeSessionResumed(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	mock := newMock(t, mockopenai.Response{Text: "first answer"}, mockopenai.Response{Text: "second answer"})
	p := start(t, wineOptions(t, options{mock: mock, cwd: cwd, home: home}))
	p.result("prompt", map[string]any{"message": "remember the word kumquat"}, nil)
	if s := settledOf(t, p.event("agent_settled")); s.Error != nil || s.Aborted {
		t.Fatalf("first run: %+v", s)
	}
	p.closeStdin()
	if code := p.wait(); code != 0 {
		t.Fatalf("first process exited %d", code)
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files under %s: %v, want one", home, files)
	}

	p2 := start(t, wineOptions(t, options{mock: mock, cwd: cwd, home: home, args: []string{"--continue"}}))
	p2.result("prompt", map[string]any{"message": "which word?"}, nil)
	if s := settledOf(t, p2.event("agent_settled")); s.Error != nil || s.Aborted {
		t.Fatalf("resumed run: %+v", s)
	}
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for _, want := range []string{"kumquat", "first answer", "which word?"} {
		if !strings.Contains(string(reqs[1].Body), want) {
			t.Errorf("resumed request lacks %q: %s", want, reqs[1].Body)
		}
	}
	p2.closeStdin()
	if code := p2.wait(); code != 0 {
		t.Fatalf("second process exited %d", code)
	}
}
