package e2e_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// The session-path rule of docs/sessions.md ("Which files pi-rpc writes"), through the built
// binary and every front end: a path that is not a session file (a text file, a FIFO,
// /dev/zero, a directory, ...) named as a session is refused with an error that names it,
// the file is left as it was (bytes, mode, owner, no lock file beside it), the connection
// answers the next request, and the end of input still ends the process.

const notASessionHint = "is not a pi session file"

func TestSessionPathsRefusedJSONRPC(t *testing.T) {
	paths := testkit.NotASessionPaths(t, t.TempDir())
	p := start(t, options{faux: `{"responses":[]}`})
	p.result("initialize", map[string]any{}, nil)
	for _, np := range paths {
		for _, call := range []struct {
			method string
			params map[string]any
		}{
			{"createSession", map[string]any{"sessionFile": np.Path}},
			{"openSession", map[string]any{"session": np.Path}},
		} {
			m := p.call(call.method, call.params)
			if m.Error == nil || !strings.Contains(m.Error.Message, np.Path) || !strings.Contains(m.Error.Message, notASessionHint) {
				t.Fatalf("%s %s: %s, want an error naming the file", call.method, np.Name, m)
			}
			checkError(t, m, call.method, -32011, "invalidState")
			np.Check(t)
			p.result("getState", map[string]any{}, nil) // still serving
		}
	}
	p.closeStdin()
	if code := p.waitExit(); code != 0 {
		t.Fatalf("exit code %d after EOF", code)
	}
}

func TestSessionPathsRefusedPiMode(t *testing.T) {
	paths := testkit.NotASessionPaths(t, t.TempDir())
	p := startPi(t, piOptions{faux: `{"responses":[]}`})
	for i, np := range paths {
		id := "sw" + string(rune('a'+i))
		p.send(map[string]any{"id": id, "type": "switch_session", "sessionPath": np.Path})
		r := p.response(id)
		if r.m["success"] != false || !strings.Contains(r.str("error"), np.Path) || !strings.Contains(r.str("error"), notASessionHint) {
			t.Fatalf("switch_session %s: %s, want a failure naming the file", np.Name, r.raw)
		}
		np.Check(t)
		p.call("st"+id, "get_state", nil)
	}
	_ = p.stdin.Close()
	if code := p.waitExit(); code != 0 {
		t.Fatalf("exit code %d after EOF", code)
	}
}

func TestSessionPathsRefusedACP(t *testing.T) {
	paths := testkit.NotASessionPaths(t, t.TempDir())
	p := startACP(t, nil)
	p.initialize()
	for i, np := range paths {
		p.request(10+i, "session/load", map[string]any{"sessionId": np.Path, "cwd": p.ws, "mcpServers": []any{}})
		m := p.response(10 + i)
		if m.Error == nil || !strings.Contains(m.raw, np.Path) {
			t.Fatalf("session/load %s: %s, want an error naming the file", np.Name, m.raw)
		}
		np.Check(t)
	}
	p.newSession(99) // still serving
	_ = p.stdin.Close()
	<-p.done
}

// --session at startup: the process refuses to start, says why, and the file is untouched.
func TestSessionFlagRefusesNotASession(t *testing.T) {
	for _, np := range testkit.NotASessionPaths(t, t.TempDir()) {
		home := t.TempDir()
		cmd := exec.Command(binary, "--cwd", home, "--session", np.Path)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PI_RPC_HOME=" + home}
		cmd.Stdin = strings.NewReader("")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), notASessionHint) {
			t.Fatalf("--session %s: %v, output %q", np.Name, err, out)
		}
		np.Check(t)
	}
}
