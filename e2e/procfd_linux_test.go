//go:build linux

package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the unprivileged user a root test runs pi-rpc as: the kernel lets root (and any
// holder of CAP_SYS_PTRACE) into every process's /proc, so the protection shows only for an
// ordinary user.
const nobody = 65534

// A command the model runs, as the same ordinary user as pi-rpc, cannot open pi-rpc's stdin
// or environment through /proc/$PPID (docs/permissions.md, "What a command can reach of
// pi-rpc itself"), and every request the client sends afterwards is answered.
func TestModelCommandCannotReadPiRPCStdin(t *testing.T) {
	o := options{}
	if os.Geteuid() == 0 {
		// Run pi-rpc as nobody, from a binary and directories nobody can use.
		root := t.TempDir()
		for _, d := range []string{filepath.Dir(root), root} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		o.bin = filepath.Join(root, "pi-rpc")
		data, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o.bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		o.home, o.cwd = filepath.Join(root, "home"), filepath.Join(root, "work")
		for _, d := range []string{o.home, o.cwd} {
			if err := os.Mkdir(d, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(d, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
		o.attr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	// Opening the pipe only (exec 3<) would be enough for a reader to take requests; it
	// consumes nothing, so the test never races the client for its own requests.
	cmd := `exec 3</proc/$PPID/fd/0 && echo "stdin OPENED" || echo "stdin DENIED"; ` +
		`cat /proc/$PPID/environ >/dev/null && echo "environ OPENED" || echo "environ DENIED"`
	script, _ := json.Marshal(map[string]any{"responses": []any{
		map[string]any{"content": []any{map[string]any{"type": "toolCall", "name": "bash", "arguments": map[string]any{"command": cmd}}}},
		map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}},
	}})
	o.faux = string(script)
	o.args = []string{"--approval", "auto"}
	p := start(t, o)
	p.result("initialize", map[string]any{}, nil)
	p.result("prompt", map[string]any{"message": "look at your parent"}, nil)
	end := p.event("tool_execution_end")
	out := string(end.Params)
	if !strings.Contains(out, "stdin DENIED") || !strings.Contains(out, "environ DENIED") || !strings.Contains(out, "Permission denied") {
		t.Fatalf("the command reached pi-rpc's /proc entries: %s", out)
	}
	p.event("agent_settled")
	for range 10 {
		p.result("getState", map[string]any{}, nil)
	}
	p.closeExpectExit0()
}
