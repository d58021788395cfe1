package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// busy starts a run that never ends on its own and waits until it streams.
func busy(t *testing.T, p *proc) inputResult {
	t.Helper()
	var pr inputResult
	p.result("prompt", map[string]any{"message": "go"}, &pr)
	p.event("message_update")
	return pr
}

// TestSignals: SIGTERM, SIGINT and SIGHUP abort the busy period (its agent_settled is
// written) and exit 143, 130 and 129.
func TestSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			p := start(t, options{faux: fauxScript(hanging())})
			pr := busy(t, p)
			if err := p.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			ev := p.event("agent_settled")
			if s := settledOf(t, ev); !s.Aborted || s.outcome(pr.InputID) != "aborted" {
				t.Errorf("agent_settled = %s, want aborted", ev)
			}
			if code := p.wait(); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}
}

// TestStdinEOF: stdin EOF aborts a running period and exits 0; with --on-eof finish the
// period completes first.
func TestStdinEOF(t *testing.T) {
	t.Run("abort", func(t *testing.T) {
		p := start(t, options{faux: fauxScript(hanging())})
		pr := busy(t, p)
		p.closeStdin()
		ev := p.event("agent_settled")
		if s := settledOf(t, ev); !s.Aborted || s.outcome(pr.InputID) != "aborted" {
			t.Errorf("agent_settled = %s, want aborted", ev)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
	})
	t.Run("finish", func(t *testing.T) {
		cwd := t.TempDir()
		gate := fifo(t, cwd, "gate")
		p := start(t, options{cwd: cwd, args: []string{"--on-eof", "finish"}, faux: fauxScript(bashCall("cat gate"), text("finished"))})
		var pr inputResult
		p.result("prompt", map[string]any{"message": "go"}, &pr)
		p.event("tool_execution_start")
		p.closeStdin()
		release(t, gate)
		ev := p.event("agent_settled")
		if s := settledOf(t, ev); s.Aborted || s.outcome(pr.InputID) != "completed" {
			t.Errorf("agent_settled = %s, want completed", ev)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
	})
}

// TestShutdownExit: shutdown aborts a busy period and answers {sessionFile?} after its
// agent_settled;
// later requests get -32014; exit after shutdown exits 0.
func TestShutdownExit(t *testing.T) {
	t.Run("session file", func(t *testing.T) { testShutdownExit(t) })
	t.Run("no session", func(t *testing.T) { testShutdownExit(t, "--no-session") })
}

func testShutdownExit(t *testing.T, args ...string) {
	p := start(t, options{faux: fauxScript(hanging()), args: args})
	pr := busy(t, p)
	sid := p.request("shutdown", nil)
	ev := p.event("agent_settled")
	resp := p.response(sid)
	var sr struct {
		SessionFile string `json:"sessionFile"`
	}
	resp.decode(t, &sr)
	if len(args) > 0 && string(resp.Result) != "{}" {
		t.Errorf("shutdown with --no-session = %s, want {}", resp.Result)
	}
	if sr.SessionFile != "" {
		if _, err := os.Stat(sr.SessionFile); err != nil {
			t.Errorf("shutdown's sessionFile: %v", err)
		}
	}
	p.before(ev, resp, "the aborted period's agent_settled precedes shutdown's response")
	if s := settledOf(t, ev); !s.Aborted || s.outcome(pr.InputID) != "aborted" {
		t.Errorf("agent_settled = %s, want aborted", ev)
	}
	for _, m := range []string{"prompt", "steer", "setOptions", "listModels"} {
		p.callError(m, map[string]any{"message": "late"}, codeShuttingDown, "shuttingDown")
	}
	p.result("getState", nil, nil)
	p.notify("exit", nil)
	if code := p.wait(); code != 0 {
		t.Errorf("exit after shutdown: code %d, want 0", code)
	}
}

// TestExitWithoutShutdown exits 1.
func TestExitWithoutShutdown(t *testing.T) {
	p := start(t, options{faux: fauxScript()})
	p.result("getState", nil, nil)
	p.notify("exit", nil)
	if code := p.wait(); code != 1 {
		t.Errorf("exit without shutdown: code %d, want 1", code)
	}
}

// TestStartupErrors: each exits 1 with a message on stderr, without reading stdin (stdin
// stays open and empty) and without writing to stdout.
func TestStartupErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	badScript := write("bad-script.json", "{\n  \"responses\": [\n    {\"stopReason\": \"sideways\"}\n  ]\n}\n")
	unknownField := write("unknown-field.json", "{\n  \"responses\": [],\n  \"temperature\": 1\n}\n")
	badModels := write("models.json", "{\n  \"providers\": {\n    \"local\": {\"baseUrl\": 5}\n  }\n}\n")
	tests := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"bad flag", []string{"--no-such-flag"}, []string{"no-such-flag"}},
		{"bad flag value", []string{"--framing", "xml"}, []string{"--framing"}},
		{"unknown provider", []string{"--provider", "gemini"}, []string{"--provider", "gemini"}},
		{"faux without script", []string{"--provider", "faux"}, []string{"--faux-script"}},
		{"unreadable faux script", []string{"--provider", "faux", "--faux-script", filepath.Join(dir, "missing.json")}, []string{"missing.json"}},
		{"invalid faux script", []string{"--provider", "faux", "--faux-script", badScript}, []string{"bad-script.json:3", "stopReason"}},
		{"faux script unknown field", []string{"--provider", "faux", "--faux-script", unknownField}, []string{"unknown-field.json:3", "temperature"}},
		{"invalid models.json", []string{"--models", badModels}, []string{"models.json:3", "baseUrl"}},
		{"unreadable models.json", []string{"--models", filepath.Join(dir, "nope.json")}, []string{"nope.json"}},
		{"bad cwd", []string{"--cwd", filepath.Join(dir, "nowhere")}, []string{"--cwd"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, options{args: tc.args})
			code := p.waitExit()
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			p.closeStdin()
			if p.wait(); len(p.history()) != 0 {
				t.Errorf("stdout not empty: %v", p.history())
			}
			stderr := p.stderrAll()
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}
