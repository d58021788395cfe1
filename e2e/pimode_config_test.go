package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// writePiAgentDir writes pi's models.json (a provider "local" at the mock, two models, one
// reasoning) and settings.json into a fresh agent dir.
func writePiAgentDir(t *testing.T, mock *mockopenai.Server, settings string) string {
	t.Helper()
	dir := t.TempDir()
	models := fmt.Sprintf(`{"providers":{"local":{"baseUrl":%q,"api":"openai-completions","apiKey":"LOCAL_KEY",
  "models":[{"id":"m1","reasoning":true,"contextWindow":64000},{"id":"m2","contextWindow":32000}]}}}`, mock.URL())
	if err := os.WriteFile(filepath.Join(dir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	if settings != "" {
		if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// settings.json picks provider, model, thinking level and steering mode; sessions go to the
// agent dir's sessions/<encoded cwd>/; unknown keys are ignored.
func TestPiModeSettingsAndAgentDir(t *testing.T) {
	mock := newMock(t, mockopenai.Response{Text: "from local"})
	agent := writePiAgentDir(t, mock, `{"defaultProvider":"local","defaultModel":"m1","defaultThinkingLevel":"high",
  "steeringMode":"all","theme":"dark","retry":{"enabled":false},"compaction":{"enabled":false}}`)
	p := startPi(t, piOptions{env: []string{"PI_CODING_AGENT_DIR=" + agent, "LOCAL_KEY=secret"}})
	st := p.call("1", "get_state", nil).data()
	model := st["model"].(map[string]any)
	if model["provider"] != "local" || model["id"] != "m1" || st["thinkingLevel"] != "high" ||
		st["steeringMode"] != "all" || st["autoCompactionEnabled"] != false {
		t.Fatalf("get_state = %v", st)
	}
	p.call("2", "prompt", map[string]any{"message": "hi"})
	p.event("agent_settled")
	if got := p.call("3", "get_last_assistant_text", nil).data()["text"]; got != "from local" {
		t.Fatalf("reply %v", got)
	}
	if auth := mock.Requests()[0].Header.Get("Authorization"); auth != "Bearer secret" {
		t.Fatalf("Authorization %q", auth)
	}
	file := p.call("4", "get_state", nil).data()["sessionFile"].(string)
	if rel, err := filepath.Rel(filepath.Join(agent, "sessions"), file); err != nil || strings.HasPrefix(rel, "..") ||
		strings.Count(rel, string(filepath.Separator)) != 1 {
		t.Fatalf("session file %s is not in %s/sessions/<encoded cwd>/", file, agent)
	}
}

// --provider P --model ID:thinking, PI_CODING_AGENT_SESSION_DIR, --models scope for
// cycle_model.
func TestPiModeCommandLine(t *testing.T) {
	mock := newMock(t)
	agent := writePiAgentDir(t, mock, "")
	sessions := t.TempDir()
	p := startPi(t, piOptions{
		env:  []string{"PI_CODING_AGENT_DIR=" + agent, "LOCAL_KEY=k", "PI_CODING_AGENT_SESSION_DIR=" + sessions},
		args: []string{"--provider", "local", "--model", "m1:low", "--models", "local/m*", "--no-themes", "--no-extensions", "--no-skills", "--offline", "--extension", "x.ts"},
	})
	st := p.call("1", "get_state", nil).data()
	if st["model"].(map[string]any)["id"] != "m1" || st["thinkingLevel"] != "low" {
		t.Fatalf("get_state = %v", st)
	}
	c := p.call("2", "cycle_model", nil).data()
	if c["model"].(map[string]any)["id"] != "m2" || c["isScoped"] != true {
		t.Fatalf("cycle_model = %v", c)
	}
	p.call("3", "prompt", map[string]any{"message": "hi"})
	p.event("agent_settled")
	file := p.call("4", "get_state", nil).data()["sessionFile"].(string)
	if filepath.Dir(file) != sessions {
		t.Fatalf("session file %s not in PI_CODING_AGENT_SESSION_DIR %s", file, sessions)
	}
}

// Startup refusals exit 1 before reading stdin, with the reason on stderr and nothing on
// stdout.
func TestPiModeStartupErrors(t *testing.T) {
	home := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"--mode", "rpc"}, "No models available"},
		{"@file", []string{"--mode", "rpc", "--provider", "openai", "@notes.md"}, "@file arguments are not supported in RPC mode"},
		{"pi flag outside pi mode", []string{"--no-themes"}, "only accepted with --mode rpc"},
		{"unknown mode", []string{"--mode", "json"}, "--mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binary, c.args...)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "PI_CODING_AGENT_DIR=" + filepath.Join(home, "agent")}
			cmd.Dir = home
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			// stdin stays open (a pipe nobody writes): the process must not wait for it.
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = in.Close() }()
			err = cmd.Run()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
				t.Fatalf("exit: %v; stderr %s", err, stderr.String())
			}
			if stdout.Len() != 0 || !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("stdout %q, stderr %q (want %q)", stdout.String(), stderr.String(), c.want)
			}
		})
	}
}
