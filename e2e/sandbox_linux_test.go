//go:build linux

package e2e_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
	"github.com/pi-rpc/pi-rpc/internal/testkit"

	"golang.org/x/sys/unix"
)

// sandboxEscapes is the escape table of docs/permissions.md#the-sandbox as one bash script:
// each row prints ESCAPED:name or REFUSED:name. OUT is a directory outside the workspace
// (and outside /tmp), which the same user may write unsandboxed.
func sandboxEscapes(out string, tcpPort, udpPort int) string {
	rows := [][2]string{
		{"home", `echo x > "$HOME/escape"`},
		{"parent", `echo x > ../parent-file`},
		{"symlink", `ln -s OUT/victim link && echo x >> link`},
		{"mv-in", `mv OUT/victim2 ./stolen`},
		{"rm", `rm OUT/victim3 && ! test -e OUT/victim3`},
		{"hardlink-out-in", `ln OUT/victim ./hard && echo x >> hard`},
		{"hardlink-in-out", `echo m > mine && ln mine OUT/hard`},
		{"tcp", fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, tcpPort)},
		{"udp", fmt.Sprintf(`exec 3<>/dev/udp/127.0.0.1/%d && echo escaped >&3`, udpPort)},
	}
	var b strings.Builder
	b.WriteString("echo SCRIPT-RAN; grep CapEff /proc/self/status\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "if (%s) >/dev/null 2>&1; then echo ESCAPED:%s; else echo REFUSED:%s; fi\n", strings.ReplaceAll(r[1], "OUT", out), r[0], r[0])
	}
	return b.String()
}

// sandboxRun is one pi-rpc as an ordinary user (nobody when the test runs as root, since
// root's capabilities would hide what the sandbox adds to the file permissions), with a
// workspace and an outside directory it owns, below /var/tmp (never under /tmp, which
// workspace-write may write).
type sandboxRun struct {
	o       options
	outside string
	udp     net.PacketConn
	tcpPort int
}

func newSandboxRun(t *testing.T, args ...string) *sandboxRun {
	t.Helper()
	root, err := os.MkdirTemp("/var/tmp", "pi-rpc-sandbox-e2e-")
	if err != nil {
		t.Skip("needs /var/tmp:", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &sandboxRun{outside: filepath.Join(root, "out")}
	r.o.home, r.o.cwd = filepath.Join(root, "home"), filepath.Join(root, "work")
	r.o.bin = filepath.Join(root, "pi-rpc")
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.o.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{r.o.home, r.o.cwd, r.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"victim", "victim2", "victim3"} {
		if err := os.WriteFile(filepath.Join(r.outside, f), []byte("v\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, nobody, nobody)
		})
		if err != nil {
			t.Fatal(err)
		}
		r.o.attr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	r.o.args = append([]string{"--approval", "auto"}, args...)
	r.tcpPort = testkit.AcceptingPort(t)
	if r.udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.udp.Close() })
	return r
}

// udpReached says whether a datagram came before the marker the test sends now (loopback
// delivers during sendmsg, in order).
func (r *sandboxRun) udpReached(t *testing.T) bool {
	c, err := net.Dial("udp", r.udp.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("marker")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	reached := false
	for {
		n, _, err := r.udp.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		if string(buf[:n]) == "marker" {
			return reached
		}
		reached = true
	}
}

// sandboxScript is a faux script: each reply, then "done".
func sandboxScript(replies ...reply) string {
	responses := []any{}
	for _, r := range replies {
		responses = append(responses, r)
	}
	responses = append(responses, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}})
	script, _ := json.Marshal(map[string]any{"responses": responses})
	return string(script)
}

// TestSandboxEscapesThroughTheBinary runs the escape table as the model's bash command and
// the user's bash method over JSON-RPC, refused under workspace-write and allowed with the
// sandbox off; under workspace-write the write tool refuses outside the write set too, and
// initialize and getState report the sandbox.
func TestSandboxEscapesThroughTheBinary(t *testing.T) {
	skipWithoutLandlock(t)
	for _, mode := range []string{"off", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			r := newSandboxRun(t, "--sandbox", mode)
			script := sandboxEscapes(r.outside, r.tcpPort, r.udp.LocalAddr().(*net.UDPAddr).Port)
			r.o.faux = sandboxScript(
				fauxToolCall("bash", map[string]any{"command": script}),
				fauxToolCall("write", map[string]any{"path": filepath.Join(r.outside, "written"), "content": "x"}),
			)
			p := start(t, r.o)
			var init sandboxResult
			p.result("initialize", map[string]any{}, &init)
			if mode == "off" && init.Sandbox != nil {
				t.Fatalf("initialize reports a sandbox with --sandbox off: %+v", init.Sandbox)
			}
			if mode != "off" && (init.Sandbox == nil || init.Sandbox.Mode != mode || !init.Sandbox.Enforced || init.Sandbox.ABI < 1 || init.Sandbox.Network != "netns") {
				t.Fatalf("initialize's sandbox = %+v", init.Sandbox)
			}
			p.result("prompt", map[string]any{"message": "escape"}, nil)
			bash := string(p.event("tool_execution_end").Params)
			if !strings.Contains(bash, "SCRIPT-RAN") || strings.Contains(bash, "pi-rpc sandbox:") {
				t.Fatalf("the escape script did not run: %s", bash)
			}
			if mode != "off" && !strings.Contains(bash, `CapEff:\t0000000000000000`) {
				t.Errorf("the sandboxed command kept capabilities: %s", bash)
			}
			udpEscaped := r.udpReached(t)
			write := string(p.event("tool_execution_end").Params)
			p.event("agent_settled")
			for _, row := range []string{"home", "parent", "symlink", "mv-in", "rm", "hardlink-out-in", "hardlink-in-out", "tcp", "udp"} {
				escaped := strings.Contains(bash, "ESCAPED:"+row)
				if row == "udp" {
					escaped = escaped && udpEscaped
				}
				if escaped != (mode == "off") {
					t.Errorf("%s: escaped = %v under --sandbox %s\n%s", row, escaped, mode, bash)
				}
			}
			if refused := strings.Contains(write, "Refused by the sandbox"); refused != (mode != "off") {
				t.Errorf("write outside the workspace under --sandbox %s: %s", mode, write)
			}
			// The user's own bash method runs sandboxed too.
			var res struct {
				Output string `json:"output"`
			}
			p.result("bash", map[string]any{"command": "echo x > ../user-file && echo USER-WROTE || echo USER-REFUSED"}, &res)
			if wrote := strings.Contains(res.Output, "USER-WROTE"); wrote != (mode == "off") || !strings.Contains(res.Output, "USER-") {
				t.Errorf("the user's bash under --sandbox %s: %q", mode, res.Output)
			}
			var st sandboxResult
			p.result("getState", map[string]any{}, &st)
			if (st.Sandbox != nil) != (mode != "off") {
				t.Errorf("getState's sandbox = %+v under --sandbox %s", st.Sandbox, mode)
			}
			p.closeExpectExit0()
		})
	}
}

// landlockAvailable asks the kernel for its Landlock ABI (landlock_create_ruleset with
// LANDLOCK_CREATE_RULESET_VERSION).
func landlockAvailable() bool {
	v, _, errno := syscall.Syscall(444, 0, 0, 1)
	return errno == 0 && v >= 1
}

// sandboxResult is the sandbox an initialize, createSession, getState or setOptions result
// reports, with the session's id (createSession's).
type sandboxResult struct {
	SessionID string `json:"sessionId"`
	Sandbox   *struct {
		Mode     string   `json:"mode"`
		Enforced bool     `json:"enforced"`
		ABI      int      `json:"landlockABI"`
		Network  string   `json:"network"`
		Missing  []string `json:"missing"`
	} `json:"sandbox"`
}

// skipWithoutLandlock skips a test that needs the kernel's Landlock.
func skipWithoutLandlock(t *testing.T) {
	t.Helper()
	if !landlockAvailable() {
		t.Skip("the kernel has no Landlock")
	}
}

// withoutLandlockEnv names the program the e2e test binary execs under a seccomp filter that
// answers the three Landlock syscalls with ENOSYS: a kernel without Landlock, simulated.
const withoutLandlockEnv = "PI_RPC_E2E_EXEC_WITHOUT_LANDLOCK"

func init() {
	execHooks = append(execHooks, func() {
		if prog := os.Getenv(withoutLandlockEnv); prog != "" {
			fmt.Fprintln(os.Stderr, "e2e: exec without Landlock:", execWithoutLandlock(prog))
			os.Exit(127)
		}
	})
}

// execWithoutLandlock installs the filter on this thread (no_new_privs first, as an
// unprivileged filter needs) and execs prog with this process's arguments; it returns only
// on failure.
func execWithoutLandlock(prog string) error {
	runtime.LockOSThread()
	const (
		ldAbs  = 0x20 // BPF_LD|BPF_W|BPF_ABS
		jeqK   = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
		retK   = 0x06 // BPF_RET|BPF_K
		errno  = 0x00050000 | uint32(syscall.ENOSYS)
		allow  = 0x7fff0000
		create = 444 // landlock_create_ruleset; 445 add_rule, 446 restrict_self
	)
	filter := []unix.SockFilter{
		{Code: ldAbs, K: 0}, // the syscall number
		{Code: jeqK, Jt: 2, K: create},
		{Code: jeqK, Jt: 1, K: create + 1},
		{Code: jeqK, Jt: 0, Jf: 1, K: create + 2},
		{Code: retK, K: errno},
		{Code: retK, K: allow},
	}
	prog2 := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog2)), 0, 0); err != nil {
		return err
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, withoutLandlockEnv+"=") {
			env = append(env, kv)
		}
	}
	return syscall.Exec(prog, append([]string{prog}, os.Args[1:]...), env)
}

// TestSandboxReportedWithoutLandlock: on a kernel without Landlock (simulated), initialize
// and getState say the sandbox is not enforced and why; a bash call fails with the reason,
// and with --sandbox-fallback warn runs and says it ran unsandboxed.
func TestSandboxReportedWithoutLandlock(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, fallback := range []string{"refuse", "warn"} {
		t.Run(fallback, func(t *testing.T) {
			o := options{bin: self, env: []string{withoutLandlockEnv + "=" + binary}}
			o.args = []string{"--approval", "auto", "--sandbox", "workspace-write", "--sandbox-fallback", fallback}
			o.faux = sandboxScript(fauxToolCall("bash", map[string]any{"command": "echo RAN"}))
			p := start(t, o)
			var init, st sandboxResult
			p.result("initialize", map[string]any{}, &init)
			p.result("getState", map[string]any{}, &st)
			for name, s := range map[string]sandboxResult{"initialize": init, "getState": st} {
				if s.Sandbox == nil || s.Sandbox.Enforced || s.Sandbox.ABI != 0 || len(s.Sandbox.Missing) == 0 || !strings.HasPrefix(s.Sandbox.Missing[0], "landlock:") {
					t.Fatalf("%s's sandbox on a kernel without Landlock = %+v", name, s.Sandbox)
				}
			}
			p.result("prompt", map[string]any{"message": "run"}, nil)
			end := string(p.event("tool_execution_end").Params)
			p.event("agent_settled")
			switch fallback {
			case "refuse":
				if strings.Contains(end, "RAN") || !strings.Contains(end, "cannot be enforced") || !strings.Contains(end, `"isError":true`) {
					t.Fatalf("bash without Landlock, refused: %s", end)
				}
			case "warn":
				if !strings.Contains(end, "RAN") || !strings.Contains(end, "ran unsandboxed") {
					t.Fatalf("bash without Landlock, warn: %s", end)
				}
			}
			p.closeExpectExit0()
		})
	}
}

// TestSandboxPerSession: createSession's sandbox makes one session stricter than the
// process's workspace-write: its bash writes nowhere, its getState reports it, the first
// session still writes its workspace, and a choice looser than the process's is refused, by
// createSession and by setOptions (which then changes none of its options).
func TestSandboxPerSession(t *testing.T) {
	skipWithoutLandlock(t)
	r := newSandboxRun(t, "--sandbox", "workspace-write", "--sandbox-network", "on")
	r.o.multiSession = true
	p := start(t, r.o)
	p.result("initialize", map[string]any{}, nil)
	var created sandboxResult
	p.result("createSession", map[string]any{"sandbox": map[string]any{"mode": "read-only"}}, &created)
	if created.Sandbox == nil || created.Sandbox.Mode != "read-only" || !created.Sandbox.Enforced {
		t.Fatalf("createSession's sandbox = %+v", created.Sandbox)
	}
	var res struct {
		Output string `json:"output"`
	}
	cmd := "echo RAN; echo x > file && echo WROTE || echo REFUSED"
	p.result("bash", map[string]any{"sessionId": created.SessionID, "command": cmd}, &res)
	if !strings.Contains(res.Output, "RAN") || !strings.Contains(res.Output, "REFUSED") {
		t.Errorf("the read-only session's bash: %q", res.Output)
	}
	p.result("bash", map[string]any{"command": cmd}, &res)
	if !strings.Contains(res.Output, "WROTE") {
		t.Errorf("the first session's bash: %q", res.Output)
	}
	var st sandboxResult
	p.result("getState", map[string]any{"sessionId": created.SessionID}, &st)
	if st.Sandbox == nil || st.Sandbox.Mode != "read-only" {
		t.Errorf("the read-only session's getState: %+v", st.Sandbox)
	}
	st.Sandbox = nil
	p.result("getState", map[string]any{}, &st)
	if st.Sandbox == nil || st.Sandbox.Mode != "workspace-write" {
		t.Errorf("the first session's getState: %+v", st.Sandbox)
	}
	e := p.callError("createSession", map[string]any{"sandbox": map[string]any{"mode": "off"}}, codeInvalidState, "invalidState")
	if !strings.Contains(e.Message, "looser") {
		t.Errorf("a looser network: %s", e.Message)
	}
	// A looser setOptions changes nothing, the other options included.
	e = p.callError("setOptions", map[string]any{"sessionId": created.SessionID, "autoRetry": false, "sandbox": map[string]any{"mode": "off"}}, codeInvalidState, "invalidState")
	if !strings.Contains(e.Message, "looser") {
		t.Errorf("a looser setOptions: %s", e.Message)
	}
	var after struct {
		Options struct {
			AutoRetry bool `json:"autoRetry"`
		} `json:"options"`
		sandboxResult
	}
	p.result("getState", map[string]any{"sessionId": created.SessionID}, &after)
	if after.Sandbox == nil || after.Sandbox.Mode != "read-only" || !after.Options.AutoRetry {
		t.Errorf("after a refused setOptions: autoRetry %v, sandbox %+v", after.Options.AutoRetry, after.Sandbox)
	}
	p.closeExpectExit0()
}

// TestSandboxPiMode: pi mode's bash runs sandboxed too (as root here: Landlock confines root
// as well).
func TestSandboxPiMode(t *testing.T) {
	root := sandboxDir(t, "pi-rpc-sandbox-pi-")
	cwd := filepath.Join(root, "work")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"off", "workspace-write"} {
		t.Run(mode, func(t *testing.T) {
			p := startPi(t, piOptions{mock: newMock(t), cwd: cwd, args: []string{"--no-session", "--sandbox", mode}})
			b := p.call("b", "bash", map[string]any{"command": "echo RAN; echo x > ../outside-" + mode + " && echo WROTE"}).data()
			out, _ := b["output"].(string)
			if !strings.Contains(out, "RAN") || strings.Contains(out, "WROTE") != (mode == "off") {
				t.Fatalf("pi mode's bash under --sandbox %s: %q", mode, out)
			}
		})
	}
}

// TestSandboxAbortBashKillsTheTree: abortBash reaches a sandboxed command in its namespaces,
// background children included (they stay in pi-rpc's process group).
func TestSandboxAbortBashKillsTheTree(t *testing.T) {
	skipWithoutLandlock(t)
	r := newSandboxRun(t, "--sandbox", "workspace-write")
	p := start(t, r.o)
	p.result("initialize", map[string]any{}, nil)
	id := p.request("bash", map[string]any{"command": "sleep 1000 & echo $! > pids; echo started; wait"})
	p.waitFor("bash_update started", func(m *message) bool {
		return m.isEvent() && m.typ() == "bash_update" && strings.Contains(string(m.Params), "started")
	})
	p.result("abortBash", map[string]any{}, nil)
	resp := p.response(id)
	if !strings.Contains(string(resp.Result), `"cancelled":true`) {
		t.Fatalf("bash answer %s", resp.raw)
	}
	data, err := os.ReadFile(filepath.Join(r.o.cwd, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(data))
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err == nil {
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
			t.Fatalf("the background sleep %s survived abortBash: %s", pid, stat)
		}
	}
	p.closeExpectExit0()
}

// TestSandboxSessionChoices: on a server started without a sandbox, one connection holds a
// session createSession put in workspace-write with its own writable directory (relative to
// its cwd; the network off, as a sandbox has it unless asked) and the first session,
// unsandboxed: the first writes outside, the other may not
// but writes its directory; setOptions then sandboxes the first session from its next
// command on and turns it off again; an unknown mode is -32602 and a directory that does not
// exist -32011, each naming the field.
func TestSandboxSessionChoices(t *testing.T) {
	skipWithoutLandlock(t)
	r := newSandboxRun(t)
	r.o.multiSession = true
	if err := os.Mkdir(filepath.Join(r.o.cwd, "..", "scratch"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r.o.attr != nil {
		if err := os.Lchown(filepath.Join(r.o.cwd, "..", "scratch"), nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	p := start(t, r.o)
	p.result("initialize", map[string]any{}, nil)
	var created sandboxResult
	p.result("createSession", map[string]any{"sandbox": map[string]any{"mode": "workspace-write", "write": []string{"../scratch"}}}, &created)
	if created.Sandbox == nil || created.Sandbox.Mode != "workspace-write" || !created.Sandbox.Enforced || created.Sandbox.Network == "none" {
		t.Fatalf("createSession's sandbox = %+v", created.Sandbox)
	}
	bash := func(sid, cmd string) string {
		t.Helper()
		params := map[string]any{"command": cmd}
		if sid != "" {
			params["sessionId"] = sid
		}
		var res struct {
			Output string `json:"output"`
		}
		p.result("bash", params, &res)
		return res.Output
	}
	write := func(name string) string {
		return fmt.Sprintf("echo RAN; echo x > %s/%s && echo WROTE || echo REFUSED", r.outside, name)
	}
	if out := bash(created.SessionID, write("by-sandboxed")); !strings.Contains(out, "RAN") || !strings.Contains(out, "REFUSED") {
		t.Errorf("the sandboxed session wrote outside: %q", out)
	}
	if out := bash(created.SessionID, "echo x > ../scratch/f && echo WROTE"); !strings.Contains(out, "WROTE") {
		t.Errorf("the sandboxed session could not write its own writable directory: %q", out)
	}
	if out := bash("", write("by-first")); !strings.Contains(out, "WROTE") {
		t.Errorf("the unsandboxed first session: %q", out)
	}
	var set sandboxResult
	p.result("setOptions", map[string]any{"sandbox": map[string]any{"mode": "read-only"}}, &set)
	if set.Sandbox == nil || set.Sandbox.Mode != "read-only" {
		t.Fatalf("setOptions' sandbox = %+v", set.Sandbox)
	}
	if out := bash("", "echo RAN; echo x > here && echo WROTE || echo REFUSED"); !strings.Contains(out, "REFUSED") {
		t.Errorf("the first session after setOptions read-only: %q", out)
	}
	var st sandboxResult
	p.result("getState", map[string]any{}, &st)
	if st.Sandbox == nil || st.Sandbox.Mode != "read-only" {
		t.Errorf("the first session's getState after setOptions: %+v", st.Sandbox)
	}
	set.Sandbox = nil
	p.result("setOptions", map[string]any{"sandbox": map[string]any{"mode": "off"}}, &set)
	if set.Sandbox != nil {
		t.Errorf("setOptions' sandbox after mode off = %+v", set.Sandbox)
	}
	if out := bash("", "echo x > here && echo WROTE"); !strings.Contains(out, "WROTE") {
		t.Errorf("the first session after setOptions off: %q", out)
	}
	e := p.callError("createSession", map[string]any{"sandbox": map[string]any{"mode": "strict"}}, codeInvalidParams, "")
	if !strings.Contains(e.Message, "params.sandbox.mode") || !strings.Contains(e.Message, `"strict"`) {
		t.Errorf("an unknown mode: %s", e.Message)
	}
	e = p.callError("setOptions", map[string]any{"sessionId": created.SessionID, "sandbox": map[string]any{"network": "maybe"}}, codeInvalidParams, "")
	if !strings.Contains(e.Message, "params.sandbox.network") {
		t.Errorf("an unknown network: %s", e.Message)
	}
	e = p.callError("createSession", map[string]any{"sandbox": map[string]any{"mode": "workspace-write", "write": []string{"missing"}}}, codeInvalidState, "invalidState")
	if !strings.Contains(e.Message, filepath.Join(r.o.cwd, "missing")) || !strings.Contains(e.Message, "not a directory") {
		t.Errorf("a missing write directory: %s", e.Message)
	}
	p.closeExpectExit0()
}

// TestSandboxPiModeSettings: in pi mode, settings.json's sandbox key chooses the sandbox (its
// mode and an extra writable directory) when the command line gives no --sandbox flag; a
// --sandbox flag wins; a bad value stops pi-rpc at start, naming the key.
func TestSandboxPiModeSettings(t *testing.T) {
	root := sandboxDir(t, "pi-rpc-sandbox-pi-")
	cwd, extra, agent := filepath.Join(root, "work"), filepath.Join(root, "extra"), filepath.Join(root, "agent")
	for _, d := range []string{cwd, extra, agent} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := fmt.Sprintf(`{"sandbox":{"mode":"workspace-write","write":[%q]}}`, extra)
	if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := "echo RAN; echo x > ../outside-$RUN && echo WROTE-OUTSIDE; echo x > ../extra/f-$RUN && echo WROTE-EXTRA"
	for _, c := range []struct {
		name          string
		args          []string
		outside, want bool
	}{
		{"settings", nil, false, true},
		{"flag-wins", []string{"--sandbox", "off"}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startPi(t, piOptions{mock: newMock(t), cwd: cwd, env: []string{"PI_CODING_AGENT_DIR=" + agent}, args: append([]string{"--no-session"}, c.args...)})
			b := p.call("b", "bash", map[string]any{"command": "RUN=" + c.name + "; " + cmd}).data()
			out, _ := b["output"].(string)
			if !strings.Contains(out, "RAN") || strings.Contains(out, "WROTE-OUTSIDE") != c.outside || !strings.Contains(out, "WROTE-EXTRA") {
				t.Fatalf("pi mode's bash (%s): %q", c.name, out)
			}
		})
	}
	if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"sandbox":{"mode":"strict"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(binary, "--mode", "rpc", "--cwd", cwd, "--no-session")
	run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "PI_CODING_AGENT_DIR=" + agent, "OPENAI_API_KEY=test"}
	out, err := run.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "settings.json: sandbox.mode") || !strings.Contains(string(out), `"strict"`) {
		t.Fatalf("a bad sandbox.mode in settings.json: %v, %s", err, out)
	}
}

// The system prompt's bash guideline says what the sandbox a session starts in allows: the
// process's workspace-write with the network off, a session's own read-only; never "not
// sandboxed" under an enforced sandbox.
func TestSandboxInSystemPrompt(t *testing.T) {
	skipWithoutLandlock(t)
	mock := mockOf(mockopenai.Response{Text: "one"}, mockopenai.Response{Text: "two"})
	t.Cleanup(mock.Close)
	r := newSandboxRun(t, "--sandbox", "workspace-write")
	r.o.multiSession = true
	r.o.mock = mock
	p := start(t, r.o)
	p.result("initialize", map[string]any{}, nil)
	var created struct {
		SessionID string `json:"sessionId"`
	}
	p.result("createSession", map[string]any{"sandbox": map[string]any{"mode": "read-only"}}, &created)
	for _, params := range []map[string]any{{"message": "first"}, {"sessionId": created.SessionID, "message": "second"}} {
		p.result("prompt", params, nil)
		p.event("agent_settled")
	}
	reqs := mock.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for i, want := range []string{
		"bash commands run in the working directory in an OS sandbox: they can write only in the working directory, /tmp and the directories the user allowed, and have no network access.",
		"bash commands run in the working directory in a read-only OS sandbox: they cannot write files, and have no network access.",
	} {
		msgs := objectsAt(reqs[i].Decoded, "messages")
		system, _ := msgs[0]["content"].(string)
		if msgs[0]["role"] != "system" || !strings.Contains(system, want) || strings.Contains(system, "not sandboxed") {
			t.Errorf("request %d's system message %q: want %q", i, system, want)
		}
	}
	p.closeExpectExit0()
}

// sandboxDir is a fresh directory under /var/tmp (outside the test's /tmp, which every
// sandbox mode leaves writable), removed when the test ends; the test is skipped without
// Landlock, or when /var/tmp cannot be used.
func sandboxDir(t *testing.T, prefix string) string {
	t.Helper()
	skipWithoutLandlock(t)
	dir, err := os.MkdirTemp("/var/tmp", prefix)
	if err != nil {
		t.Skip("needs /var/tmp:", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
