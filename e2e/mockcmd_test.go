package e2e_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// mockCommand is cmd/mock-openai, built once per test binary run.
var mockCommand = testkit.Command{Pkg: "../cmd/mock-openai"}

// runMockCommand builds and runs cmd/mock-openai as a process in dialect (--dialect) with a
// script in the format the dialects share, points pi-rpc at the URL it prints (with the
// options pi returns for it), checks the answer, and checks that the mock exits on stdin EOF.
func runMockCommand(t *testing.T, dialect string, pi func(url string) options) {
	t.Helper()
	dir := t.TempDir()
	bin := mockCommand.Path(t)
	name := "mock-openai --dialect " + dialect
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`{"responses": [{"text": "Hello from the mock.", "chunkSize": 5}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--dialect", dialect, "--script", script)
	stdin, stdout := stdioPipes(t, cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(hangTimeout):
			_ = cmd.Process.Kill()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("first line = %q, %v", line, err)
	}
	go func() { exited <- cmd.Wait() }()
	url := strings.TrimSpace(line)

	p := start(t, pi(url))
	p.promptCompleted("hi")
	if text, _ := textDeltas(p.history()); text != "Hello from the mock." {
		t.Errorf("text = %q", text)
	}
	_ = stdin.Close()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("%s exited with %v", name, err)
		}
	case <-time.After(hangTimeout):
		t.Errorf("%s did not exit on stdin EOF", name)
	}
}
