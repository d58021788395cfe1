package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// TestHelp: --help exits 0 with nothing on stderr and prints the usage, the flags, and the
// script format of the dialect --dialect names (OpenAI's by default).
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"toolCalls", "interleave", "reasoningField", "docs/testing.md"}},
		{[]string{"--dialect", "anthropic", "--help"}, []string{"internal/mockanthropic", "redactedThinking", "stopReason"}},
		{[]string{"--dialect", "google", "--help"}, []string{"internal/mockgoogle", "thoughtSignature", "finishReason"}},
	} {
		var out, errOut bytes.Buffer
		if code := command.Run(tc.args, nil, &out, &errOut); code != 0 || errOut.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q", tc.args, code, errOut.String())
		}
		for _, want := range append([]string{"Usage:", "-script", "-addr", "-dialect", "Script format", `"responses"`, "stallAfter", "chunkIntervalUs"}, tc.want...) {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: help lacks %q:\n%s", tc.args, want, out.String())
			}
		}
	}
}

// TestFlagErrors: a bad command line exits 1 with one line on stderr naming the command: an
// unknown flag or dialect, a missing --script, a script file that does not exist, and one
// that is not a script (whose decode error comes before the address is checked), in each
// dialect.
func TestFlagErrors(t *testing.T) {
	// The missing file's error as this system words it.
	_, missing := os.Open("/nonexistent/s.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "mock-openai: flag provided but not defined: -nope (see mock-openai --help)\n"},
		{[]string{"--dialect", "bedrock", "--script", "s.json"}, "mock-openai: --dialect \"bedrock\": want one of openai, anthropic, google (see mock-openai --help)\n"},
		{[]string{"--dialect", "bedrock", "--help"}, "mock-openai: --dialect \"bedrock\": want one of openai, anthropic, google (see mock-openai --help)\n"},
		{nil, "mock-openai: --script is required (see mock-openai --help)\n"},
		{[]string{"--dialect", "google"}, "mock-openai: --script is required (see mock-openai --help)\n"},
		{[]string{"--script", "/nonexistent/s.json"}, "mock-openai: " + missing.Error() + "\n"},
		{[]string{"--dialect", "anthropic", "--script", "/nonexistent/s.json"}, "mock-openai: " + missing.Error() + "\n"},
	} {
		var out, errOut bytes.Buffer
		if code := command.Run(tc.args, nil, &out, &errOut); code != 1 || out.Len() != 0 || errOut.String() != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, nothing, %q", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
	for _, d := range []string{"openai", "anthropic", "google"} {
		var out, errOut bytes.Buffer
		code := command.Run([]string{"--dialect", d, "--script", "/dev/null", "--addr", "0.0.0.0:0"}, nil, &out, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), "/dev/null") {
			t.Errorf("%s: exit %d, stderr %q; want the decode error naming /dev/null", d, code, errOut.String())
		}
	}
}

// mockCommand is the command, built once per test binary run.
var mockCommand = testkit.Command{Pkg: "."}

func TestMain(m *testing.M) {
	code := m.Run()
	mockCommand.Remove()
	os.Exit(code)
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
	if runtime.GOOS == "windows" {
		t.Skip("the server is stopped with SIGTERM here, which Windows does not have")
	}
	bin, script := mockCommand.Path(t), writeScript(t)
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
	bin, script := mockCommand.Path(t), writeScript(t)
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

// TestDialectsServeTheirWire starts the binary in each dialect on the same script: the URL
// it prints has the dialect's suffix, and the dialect's request path streams the text.
func TestDialectsServeTheirWire(t *testing.T) {
	bin, script := mockCommand.Path(t), writeScript(t)
	for _, tc := range []struct {
		dialect, suffix, path, want string
	}{
		{"openai", "/v1", "/chat/completions", `"content":"one"`},
		{"anthropic", "", "/v1/messages", `"text_delta","text":"one"`},
		{"google", "/v1beta", "/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `"text":"one"`},
	} {
		cmd := exec.Command(bin, "--dialect", tc.dialect, "--script", script)
		if _, err := cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		url, _ := startMock(t, cmd)
		if rest, ok := strings.CutPrefix(url, "http://127.0.0.1:"); !ok || !strings.HasSuffix(rest, tc.suffix) || strings.Contains(strings.TrimSuffix(rest, tc.suffix), "/") {
			t.Errorf("%s: URL %q, want the loopback root plus %q", tc.dialect, url, tc.suffix)
		}
		resp, err := http.Post(url+tc.path, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %s, want 200 with %s", tc.dialect, resp.StatusCode, body, tc.want)
		}
	}
}
