package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// TestMain makes the test binary the launcher when it is started with LauncherArg, as
// pi-rpc's main does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == LauncherArg {
		os.Exit(Launch(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// needKernel skips where the probe finds no Landlock (the only case the issue allows).
func needKernel(t *testing.T) Probe {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := RunProbe(self)
	if p.LandlockABI < 1 {
		t.Skip("the kernel has no Landlock (landlock_create_ruleset version probe failed)")
	}
	return p
}

// fixture is a workspace and, beside it, a directory outside the write set that is not under
// /tmp (which workspace-write may write): below $HOME.
type fixture struct {
	ws, outside string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	base, err := os.MkdirTemp(homeDir(t), ".pi-rpc-sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	f := fixture{ws: filepath.Join(base, "ws"), outside: base}
	if err := os.Mkdir(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(base, "victim"), filepath.Join(f.ws, "mine")} {
		if err := os.WriteFile(p, []byte("v\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func homeDir(t *testing.T) string {
	h, err := os.UserHomeDir()
	if err != nil || strings.HasPrefix(h, "/tmp") {
		t.Skip("needs a home directory outside /tmp")
	}
	return h
}

// configs are the configurations newSandbox made, by mode and network (the tests of this
// package do not run in parallel).
var configs = map[string]*Config{}

func newSandbox(t *testing.T, mode Mode, network bool, cwd string) *Sandbox {
	t.Helper()
	if mode == ModeOff {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprint(mode, network)
	c := configs[key]
	if c == nil {
		// One probe per mode: each probe starts the launcher, which under -race is slow.
		if c, err = New(Options{Mode: mode, Network: network, Self: self}); err != nil {
			t.Fatal(err)
		}
		configs[key] = c
	}
	s, err := c.For(cwd)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs a bash script in dir under s (nil: unsandboxed) and returns its combined output
// and exit code.
func run(t *testing.T, s *Sandbox, dir, script string) (string, int) {
	t.Helper()
	attr := &syscall.SysProcAttr{Setpgid: true}
	path, argv := "/bin/bash", []string{"/bin/bash", "-c", script}
	if s != nil {
		var notice string
		var err error
		path, argv, notice, err = s.Wrap("/bin/bash", []string{"-c", script}, attr)
		if err != nil || notice != "" {
			t.Fatalf("Wrap: %v %q", err, notice)
		}
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: dir, SysProcAttr: attr}
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// escape is one row of the escape table: script exits 0 exactly when the escape
// worked.
type escape struct {
	name   string
	script func(f fixture) string
	// net says the row needs the network off to be refused.
	net bool
}

func escapes(tcpPort int, udpPort int) []escape {
	return []escape{
		{name: "write $HOME", script: func(f fixture) string {
			return `p="$HOME/.pi-rpc-sandbox-escape-$$"; echo x > "$p" && rm -f "$p"`
		}},
		{name: "write /etc", script: func(f fixture) string {
			return `p=/etc/pi-rpc-sandbox-escape-$$; echo x > $p && rm -f $p`
		}},
		{name: "write the parent dir", script: func(f fixture) string { return `echo x > ../parent-file` }},
		{name: "write through a symlink out", script: func(f fixture) string {
			return `ln -s ` + f.outside + `/victim link && echo x >> link`
		}},
		{name: "mv a file from outside", script: func(f fixture) string { return `mv ` + f.outside + `/victim ./stolen` }},
		{name: "mv a file to outside", script: func(f fixture) string { return `mv mine ` + f.outside + `/mine` }},
		{name: "rm a file outside", script: func(f fixture) string { return `rm -f ` + f.outside + `/victim && ! test -e ` + f.outside + `/victim` }},
		{name: "hard link out to in", script: func(f fixture) string { return `ln ` + f.outside + `/victim ./hard && echo x >> hard` }},
		{name: "hard link in to out", script: func(f fixture) string { return `ln mine ` + f.outside + `/hard` }},
		{name: "cat /proc/$PPID/fd/0", script: func(f fixture) string { return `exec 3</proc/$PPID/fd/0` }},
		{name: "cat /proc/$PPID/environ", script: func(f fixture) string { return `cat /proc/$PPID/environ >/dev/null` }},
		{name: "TCP to 127.0.0.1", net: true, script: func(f fixture) string {
			return fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo hi >&3`, tcpPort)
		}},
		{name: "UDP (as DNS is) to 127.0.0.1", net: true, script: func(f fixture) string {
			return fmt.Sprintf(`exec 3<>/dev/udp/127.0.0.1/%d && echo escaped >&3`, udpPort)
		}},
	}
}

// listenLoopback listens on a free TCP port of 127.0.0.1 until the test ends.
func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// TestEscapesRefused runs the escape table refused under workspace-write (and read-only)
// with the network off, and allowed with the sandbox off.
func TestEscapesRefused(t *testing.T) {
	needKernel(t)
	tcpPort := testkit.AcceptingPort(t)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	// udpReached says whether the command's datagram arrived: the test sends a marker after
	// the command ended; loopback delivers in order during sendmsg, so the first datagram
	// read tells.
	udpReached := func() bool {
		c, err := net.Dial("udp", udp.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("marker\n")); err != nil {
			t.Fatal(err)
		}
		reached := false
		buf := make([]byte, 64)
		for {
			n, _, err := udp.ReadFrom(buf)
			if err != nil {
				t.Fatal(err)
			}
			if string(buf[:n]) == "marker\n" {
				return reached
			}
			reached = true
		}
	}
	rows := escapes(tcpPort, udp.LocalAddr().(*net.UDPAddr).Port)
	for _, mode := range []Mode{ModeOff, ModeWorkspaceWrite, ModeReadOnly} {
		for _, row := range rows {
			t.Run(string(mode)+"/"+row.name, func(t *testing.T) {
				f := newFixture(t)
				s := newSandbox(t, mode, false, f.ws)
				out, code := run(t, s, f.ws, row.script(f))
				escaped := code == 0
				if strings.HasPrefix(row.name, "UDP") {
					escaped = escaped && udpReached()
				}
				if mode == ModeOff && !escaped {
					t.Fatalf("unsandboxed, the escape failed (exit %d): %s", code, out)
				}
				if mode != ModeOff && escaped {
					t.Fatalf("the escape worked under %s (exit %d): %s", mode, code, out)
				}
				if strings.Contains(out, "pi-rpc sandbox:") {
					t.Fatalf("the launcher failed: %s", out)
				}
			})
		}
	}
}

// TestNetworkOnKeepsTCP: --sandbox-network on leaves the network open under the sandbox.
func TestNetworkOnKeepsTCP(t *testing.T) {
	needKernel(t)
	tcp := listenLoopback(t)
	go func() {
		if c, err := tcp.Accept(); err == nil {
			c.Close()
		}
	}()
	f := newFixture(t)
	s := newSandbox(t, ModeWorkspaceWrite, true, f.ws)
	if out, code := run(t, s, f.ws, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d`, tcp.Addr().(*net.TCPAddr).Port)); code != 0 {
		t.Fatalf("TCP with the network on: exit %d: %s", code, out)
	}
}

// TestDoubleForkStaysConfined: a grandchild that outlives the command and writes later is
// still confined. It waits on a FIFO the test opens after the command ended, and reports
// through another.
func TestDoubleForkStaysConfined(t *testing.T) {
	needKernel(t)
	for _, mode := range []Mode{ModeOff, ModeWorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t)
			goFIFO, resFIFO := filepath.Join(f.ws, "go"), filepath.Join(f.ws, "result")
			for _, p := range []string{goFIFO, resFIFO} {
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			script := `( ( read _ < go; if echo x > ` + f.outside + `/late 2>/dev/null; then echo wrote; else echo refused; fi > result ) </dev/null >/dev/null 2>&1 & ) ; exit 0`
			if out, code := run(t, newSandbox(t, mode, false, f.ws), f.ws, script); code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if err := os.WriteFile(goFIFO, []byte("go\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := os.Open(resFIFO)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			line, _ := bufio.NewReader(r).ReadString('\n')
			want := "refused\n"
			if mode == ModeOff {
				want = "wrote\n"
			}
			if line != want {
				t.Fatalf("the grandchild said %q, want %q", line, want)
			}
		})
	}
}

// TestInsideWorks: what must keep working under workspace-write.
func TestInsideWorks(t *testing.T) {
	needKernel(t)
	rows := []struct{ name, need, script string }{
		{"/dev/null and /dev/urandom", "", `echo x > /dev/null && head -c 4 /dev/urandom | wc -c | grep -q 4`},
		{"rename and link inside (refer)", "", `mkdir -p sub && mv mine sub/mine && ln sub/mine linked && ln -s sub/mine soft && echo y >> soft`},
		{"/tmp", "", `t=$(mktemp) && echo x > $t && rm $t`},
		{"git init and commit", "git", `git init -q r && cd r && echo hi > f && git add f && git -c user.email=t@e -c user.name=t commit -qm m && git log --oneline | grep -q m`},
		{"go build and go test", "go", `mkdir m && cd m && printf 'module m\ngo 1.22\n' > go.mod && printf 'package main\nfunc main(){}\n' > main.go && printf 'package main\nimport "testing"\nfunc TestX(t *testing.T){}\n' > main_test.go && GOTOOLCHAIN=local go build -o m . && ./m && GOTOOLCHAIN=local go test . >/dev/null`},
		{"npm install of a local file: package", "npm", `mkdir dep app && echo '{"name":"dep","version":"1.0.0"}' > dep/package.json && cd app && echo '{"name":"app","version":"1.0.0"}' > package.json && npm install --offline --no-audit --no-fund ../dep >/dev/null && test -e node_modules/dep/package.json`},
		{"python3 -m venv", "python3", `python3 -m venv --without-pip v && test -x v/bin/python3`},
		{"a pty", "python3", `python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s)); os.write(m, b"x\n"); assert os.read(s, 2) == b"x\n"'`},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if row.need != "" {
				if _, err := exec.LookPath(row.need); err != nil {
					t.Skipf("%s is not installed", row.need)
				}
			}
			f := newFixture(t)
			if out, code := run(t, newSandbox(t, ModeWorkspaceWrite, false, f.ws), f.ws, row.script); code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
		})
	}
}

// TestReadOnlyRefusesTheWorkspace: read-only writes nowhere, /dev/null still works.
func TestReadOnlyRefusesTheWorkspace(t *testing.T) {
	needKernel(t)
	f := newFixture(t)
	s := newSandbox(t, ModeReadOnly, false, f.ws)
	if out, code := run(t, s, f.ws, `echo x > new`); code == 0 {
		t.Fatalf("read-only wrote the workspace: %s", out)
	}
	if out, code := run(t, s, f.ws, `echo x > /dev/null && cat mine`); code != 0 {
		t.Fatalf("read-only could not use /dev/null or read: %s", out)
	}
	if err := s.CheckWrite(filepath.Join(f.ws, "new")); err == nil {
		t.Fatal("CheckWrite allowed a write under read-only")
	}
}

// TestCheckWriteMatchesTheWriteSet: the tools' answer is the launcher's set.
func TestCheckWriteMatchesTheWriteSet(t *testing.T) {
	f := newFixture(t)
	c := &Config{opts: Options{Mode: ModeWorkspaceWrite, Getenv: func(string) string { return "" }, CacheDir: t.TempDir()}, report: Report{Enforced: true}}
	s, err := c.For(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	for p, ok := range map[string]bool{
		filepath.Join(f.ws, "a"):        true,
		"/tmp/x":                        true,
		filepath.Join(f.outside, "a"):   false,
		"/etc/passwd":                   false,
		filepath.Join(f.ws, "..", "ws"): true,
	} {
		if err := s.CheckWrite(filepath.Clean(p)); (err == nil) != ok {
			t.Errorf("CheckWrite(%s) = %v, want allowed %v", p, err, ok)
		}
	}
}

// TestReportWithoutLandlock: a kernel without Landlock is reported unenforced, and a
// command fails with the reason unless the fallback is warn.
func TestReportWithoutLandlock(t *testing.T) {
	o := Options{Mode: ModeWorkspaceWrite, Self: "/bin/false"}
	r := report(o, Probe{LandlockABI: 0, UserNamespaces: true})
	if r.Enforced || r.Network != NetworkNamespace || len(r.Missing) == 0 || !strings.HasPrefix(r.Missing[0], "landlock:") {
		t.Fatalf("report = %+v", r)
	}
	s := &Sandbox{opts: o, report: r}
	if _, _, _, err := s.Wrap("/bin/bash", []string{"-c", "true"}, &syscall.SysProcAttr{}); err == nil || !strings.Contains(err.Error(), "no Landlock") {
		t.Fatalf("Wrap without Landlock: %v", err)
	}
	s.opts.FallbackWarn = true
	path, _, notice, err := s.Wrap("/bin/bash", []string{"-c", "true"}, &syscall.SysProcAttr{})
	if err != nil || path != "/bin/bash" || !strings.Contains(notice, "unsandboxed") {
		t.Fatalf("Wrap with fallback warn: %s %q %v", path, notice, err)
	}
	r = report(o, Probe{LandlockABI: 7})
	if !r.Enforced || r.Network != NetworkLandlockTCP || !strings.Contains(strings.Join(r.Missing, " "), "UDP") {
		t.Fatalf("report without user namespaces = %+v", r)
	}
}

// TestTightenNeverLoosens: a session's choice may be stricter than the process's, never
// looser, and without a process sandbox it makes one; its write directories (workspace-write
// only, absolute, existing) join the write set.
func TestTightenNeverLoosens(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	on, off := true, false
	ww, err := New(Options{Mode: ModeWorkspaceWrite, Self: self, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// Not below /tmp, which workspace-write writes anyway.
	extra, err := os.MkdirTemp("/var/tmp", "pi-rpc-tighten-")
	if err != nil {
		t.Skip("needs /var/tmp:", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(extra) })
	for _, c := range []struct {
		base   *Config
		choice Choice
		want   Mode // "" : refused
	}{
		{ww, Choice{Mode: ModeReadOnly}, ModeReadOnly},
		{ww, Choice{Network: &off}, ModeWorkspaceWrite},
		{ww, Choice{Mode: ModeOff}, ""},
		{ww, Choice{Network: &on}, ""},
		{nil, Choice{Mode: ModeWorkspaceWrite, Network: &on}, ModeWorkspaceWrite},
		{nil, Choice{Mode: ModeReadOnly}, ModeReadOnly},
		{nil, Choice{}, ModeOff},
		{ww, Choice{Write: []string{extra}}, ModeWorkspaceWrite},
		{nil, Choice{Mode: ModeWorkspaceWrite, Write: []string{extra}}, ModeWorkspaceWrite},
		{ww, Choice{Mode: ModeReadOnly, Write: []string{extra}}, ""},
		{nil, Choice{Write: []string{extra}}, ""},
		{ww, Choice{Write: []string{"relative"}}, ""},
		{ww, Choice{Write: []string{filepath.Join(extra, "missing")}}, ""},
	} {
		got, err := c.base.Tighten(c.choice, Options{Self: self, CacheDir: t.TempDir()})
		switch {
		case c.want == "" && err == nil:
			t.Errorf("Tighten(%v, %+v) loosened to %+v", c.base.Report().Mode, c.choice, got.Report())
		case c.want != "" && err != nil:
			t.Errorf("Tighten(%v, %+v): %v", c.base.Report().Mode, c.choice, err)
		case c.want != "" && got.Report().Mode != c.want:
			t.Errorf("Tighten(%v, %+v) = %s, want %s", c.base.Report().Mode, c.choice, got.Report().Mode, c.want)
		case len(c.choice.Write) > 0 && err == nil:
			sb, err := got.For(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if sb.CheckWrite(filepath.Join(extra, "f")) != nil {
				t.Errorf("Tighten(%v, %+v): the write directory is not writable: %v", c.base.Report().Mode, c.choice, sb.WriteSet())
			}
		}
	}
	if c, err := (*Config)(nil).Tighten(Choice{Mode: ModeWorkspaceWrite}, Options{Self: self, CacheDir: t.TempDir()}); err != nil || c.opts.Network {
		t.Errorf("a sandbox chosen where the process has none has the network on (%v)", err)
	}
	if sb, _ := ww.For(t.TempDir()); sb.CheckWrite(filepath.Join(extra, "f")) == nil {
		t.Errorf("the process's sandbox took a session's write directory: %v", sb.WriteSet())
	}
}

// TestGitHooksReadOnly: with the network off (in the namespaces), the workspace
// repository's .git/hooks and .git/config cannot be written, while committing still works.
func TestGitHooksReadOnly(t *testing.T) {
	p := needKernel(t)
	if !p.UserNamespaces {
		t.Skip("no user namespaces: .git is protected only inside them")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := newFixture(t)
	if out, err := exec.Command("git", "init", "-q", f.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	s := newSandbox(t, ModeWorkspaceWrite, false, f.ws)
	if out, code := run(t, s, f.ws, `echo 'touch /tmp/pwned' > .git/hooks/pre-commit`); code == 0 {
		t.Fatalf("wrote a hook: %s", out)
	}
	if out, code := run(t, s, f.ws, `echo '[core] hooksPath = /tmp' >> .git/config`); code == 0 {
		t.Fatalf("wrote .git/config: %s", out)
	}
	if out, code := run(t, s, f.ws, `git add mine && git -c user.email=t@e -c user.name=t commit -qm m`); code != 0 {
		t.Fatalf("commit in the workspace: exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(f.ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("the hook exists")
	}
}
