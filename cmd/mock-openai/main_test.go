package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"--help"}, nil, &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	for _, want := range []string{"Usage:", "-script", "-addr", "Script format", `"responses"`, "toolCalls", "stallAfter", "docs/testing.md"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "mock-openai: flag provided but not defined: -nope (see mock-openai --help)\n"},
		{nil, "mock-openai: --script is required (see mock-openai --help)\n"},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, nil, &out, &errOut); code != 1 || out.Len() != 0 || errOut.String() != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, nothing, %q", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
}

// buildMock builds the command into a temporary directory.
func buildMock(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mock-openai")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func writeScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(`{"responses": [{"text": "one"}, {"text": "two"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startMock starts the binary with stdin set up by the caller and returns its base URL.
func startMock(t *testing.T, cmd *exec.Cmd) (string, *bytes.Buffer) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL: %v", err)
	}
	return strings.TrimSpace(line), &stderr
}

func complete(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	return string(body)
}

// With stdin at /dev/null (a shell's background job) the server keeps serving; SIGTERM
// stops it with status 0.
func TestServesWithDevNullStdin(t *testing.T) {
	bin, script := buildMock(t), writeScript(t)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd := exec.Command(bin, "--script", script)
	cmd.Stdin = devnull
	url, stderr := startMock(t, cmd)
	for _, want := range []string{`"content":"one"`, `"content":"two"`} {
		if got := complete(t, url); !strings.Contains(got, want) {
			t.Errorf("response lacks %s: %s", want, got)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr %s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "served 2 requests, 0 scripted responses left") {
		t.Errorf("stderr %q", stderr)
	}
}

// With stdin a pipe, its EOF (the parent closing it, or dying) stops the server.
func TestStopsAtPipeEOF(t *testing.T) {
	bin, script := buildMock(t), writeScript(t)
	cmd := exec.Command(bin, "--script", script)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	url, stderr := startMock(t, cmd)
	complete(t, url)
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after stdin EOF: %v; stderr %s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "served 1 requests, 1 scripted responses left") {
		t.Errorf("stderr %q", stderr)
	}
}
