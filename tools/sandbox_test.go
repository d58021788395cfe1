//go:build !windows

// The sandbox (--sandbox) exists only on Linux; on Windows it refuses to start.

package tools

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeSandbox allows writes below dir only, runs commands through env(1) with a marker
// variable (so the test sees the wrap), or refuses them.
type fakeSandbox struct {
	dir     string
	refuse  error
	notice  string
	wrapped int
	off     bool
}

func (f *fakeSandbox) Confines() bool { return !f.off }

func (f *fakeSandbox) Wrap(shell string, args []string, attr *syscall.SysProcAttr) (string, []string, string, error) {
	f.wrapped++
	if f.refuse != nil {
		return "", nil, "", f.refuse
	}
	if !attr.Setpgid {
		return "", nil, "", errors.New("the process group attribute was lost")
	}
	return "/usr/bin/env", append([]string{"/usr/bin/env", "SANDBOXED=yes", shell}, args...), f.notice, nil
}

func (f *fakeSandbox) CheckWrite(p string) error {
	if within(p, f.dir) {
		return nil
	}
	return errors.New("Refused by the sandbox (fake): " + p)
}

// Under a sandbox, write and edit refuse what it refuses, even with --allow-outside-cwd.
func TestWriteRefusedBySandbox(t *testing.T) {
	cwd := t.TempDir()
	ok := filepath.Join(cwd, "ok")
	sb := &fakeSandbox{dir: ok}
	writeFiles(t, cwd, map[string]string{"ok/a.txt": "a", "b.txt": "b"})
	w := toolFor(t, "write", Options{Cwd: cwd, AllowOutsideCwd: true, Sandbox: sb})
	if _, _, err := run(t, w, map[string]any{"path": "ok/new.txt", "content": "x"}); err != nil {
		t.Fatalf("write inside the write set: %v", err)
	}
	_, _, err := run(t, w, map[string]any{"path": "b.txt", "content": "x"})
	if err == nil || !strings.Contains(err.Error(), "Refused by the sandbox") {
		t.Fatalf("write outside the write set: %v", err)
	}
	e := toolFor(t, "edit", Options{Cwd: cwd, Sandbox: sb})
	_, _, err = run(t, e, map[string]any{"path": "b.txt", "oldText": "b", "newText": "c"})
	if err == nil || !strings.Contains(err.Error(), "Refused by the sandbox") {
		t.Fatalf("edit outside the write set: %v", err)
	}
	if got := readFile(t, filepath.Join(cwd, "b.txt")); got != "b" {
		t.Fatalf("b.txt = %q", got)
	}
}

// Under a sandbox, bash runs through its wrap (keeping the process group), fails with its
// refusal, and carries its notice.
func TestBashThroughSandbox(t *testing.T) {
	cwd := t.TempDir()
	sb := &fakeSandbox{dir: cwd}
	bash := toolFor(t, "bash", Options{Cwd: cwd, Sandbox: sb})
	out, _, err := run(t, bash, map[string]any{"command": "echo $SANDBOXED"})
	if err != nil || !strings.Contains(out, "yes") {
		t.Fatalf("bash under the sandbox: %q %v", out, err)
	}
	sb.notice = "[ran unsandboxed]"
	if out, _, err = run(t, bash, map[string]any{"command": "echo hi"}); err != nil || !strings.Contains(out, "hi") || !strings.HasSuffix(out, "[ran unsandboxed]") {
		t.Fatalf("bash with a notice: %q %v", out, err)
	}
	sb.refuse = errors.New("cannot be enforced")
	if _, _, err = run(t, bash, map[string]any{"command": "echo hi"}); err == nil || !strings.Contains(err.Error(), "cannot be enforced") {
		t.Fatalf("bash refused by the sandbox: %v", err)
	}
	if sb.wrapped != 3 {
		t.Fatalf("wrapped %d commands, want 3", sb.wrapped)
	}
}

// Bash goes to the client's command runner only while the sandbox is off: a session whose
// sandbox is switched on runs its next command locally, confined.
func TestBashRunnerOnlyWhileTheSandboxIsOff(t *testing.T) {
	cwd := t.TempDir()
	sb := &fakeSandbox{dir: cwd, off: true}
	r := &fakeRunner{out: CommandOutput{Output: "from the terminal\n", ExitCode: intp(0)}}
	bash := toolFor(t, "bash", Options{Cwd: cwd, Sandbox: sb, Access: Access{Commands: r}})
	if out, _, err := run(t, bash, map[string]any{"command": "echo $SANDBOXED"}); err != nil || !strings.Contains(out, "from the terminal") {
		t.Fatalf("bash with the sandbox off: %q %v", out, err)
	}
	sb.off = false
	if out, _, err := run(t, bash, map[string]any{"command": "echo $SANDBOXED"}); err != nil || !strings.Contains(out, "yes") {
		t.Fatalf("bash with the sandbox on: %q %v", out, err)
	}
	if len(r.got) != 1 || sb.wrapped != 1 {
		t.Fatalf("the terminal ran %d commands, the sandbox wrapped %d; want 1 and 1", len(r.got), sb.wrapped)
	}
}
