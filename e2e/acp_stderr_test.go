package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// An editor shows whatever an agent writes on stderr as its errors (Emacs's acp.el does):
// a normal ACP session writes nothing there, unless --log-level asks for the info lines;
// --log-file gets them without it.
func TestACPStderrQuiet(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "pi-rpc.log")
	for _, c := range []struct {
		name    string
		args    []string
		startup bool
	}{
		{"default", nil, false},
		{"log-level info", []string{"--log-level", "info"}, true},
		{"log-file", []string{"--log-file", logFile}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mock := mockOf(toolCall("c1", "read", map[string]any{"path": "a.txt"}), mockopenai.Response{Text: "It says one."})
			defer mock.Close()
			p := startACP(t, mock, c.args...)
			writeFile(t, p.ws, "a.txt", "one\n")
			p.initialize()
			sid := p.newSession(1)
			if r := stopReason(t, p.prompt(2, sid, "read a.txt")); r != "end_turn" {
				t.Fatalf("stopReason %q", r)
			}
			if code := p.closeInput(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			stderr := p.stderr.String()
			switch {
			case c.startup && !strings.Contains(stderr, `"message":"pi-rpc started"`):
				t.Fatalf("stderr has no startup line: %q", stderr)
			case !c.startup && stderr != "":
				t.Fatalf("stderr is not empty: %q", stderr)
			}
			if c.name == "log-file" {
				// The log file has the info lines stderr does not.
				b, err := os.ReadFile(logFile)
				if err != nil || !strings.Contains(string(b), `"message":"pi-rpc started"`) {
					t.Fatalf("log file: %q %v", b, err)
				}
			}
		})
	}
}
