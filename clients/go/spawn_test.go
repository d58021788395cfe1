package piclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// helperEnv selects TestHelperProcess's behaviour in a re-executed test binary.
const helperEnv = "PICLIENT_HELPER"

// TestHelperProcess is not a test: spawned as a child with PICLIENT_HELPER set, it plays a
// server that misbehaves in the way the parent test needs.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process only")
	}
	in := bufio.NewScanner(os.Stdin)
	switch mode {
	case "die":
		// Read one request, then die the way a crashing server does: a burst of stderr and
		// a non-zero status, with the request unanswered.
		in.Scan()
		for i := 1; i <= 25; i++ {
			fmt.Fprintf(os.Stderr, "line %d\n", i)
		}
		fmt.Fprint(os.Stderr, "fatal: no newline at the end")
		os.Exit(3)
	case "polite":
		// Answer shutdown, then exit 0 on exit, as pi-rpc does.
		for in.Scan() {
			var m wireMessage
			_ = json.Unmarshal(in.Bytes(), &m)
			switch m.Method {
			case "shutdown":
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID)
			case "exit":
				os.Exit(0)
			}
		}
		os.Exit(1)
	case "deaf":
		// Ignore everything, stdin EOF included: Close must kill it.
		for in.Scan() {
		}
		select {}
	}
	os.Exit(2)
}

func spawnHelper(t *testing.T, mode string, stderr *strings.Builder) *Client {
	t.Helper()
	var mu sync.Mutex
	opts := SpawnOptions{
		Binary: os.Args[0],
		Args:   []string{"-test.run=^TestHelperProcess$", "--", "--framing", "ndjson"},
		Env:    append(os.Environ(), helperEnv+"="+mode),
	}
	if stderr != nil {
		opts.Stderr = lockedWriter{&mu, stderr}
	}
	c, err := Spawn(hangCtx(t), opts)
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *strings.Builder
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestProcessDeathFailsPendingCalls(t *testing.T) {
	var tee strings.Builder
	c := spawnHelper(t, "die", &tee)
	_, err := c.GetState(hangCtx(t))
	var exit *ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("GetState error = %v (%T), want *ExitError", err, err)
	}
	if exit.Code != 3 || exit.Signal != "" {
		t.Errorf("exit code = %d signal %q, want 3", exit.Code, exit.Signal)
	}
	var want []string
	for i := 7; i <= 25; i++ {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	want = append(want, "fatal: no newline at the end")
	if got := strings.Split(exit.Stderr, "\n"); !slices.Equal(got, want) {
		t.Errorf("stderr tail = %q, want the last 20 lines %q", got, want)
	}
	if msg := err.Error(); !strings.Contains(msg, "exited with status 3: line 7\n") {
		t.Errorf("error message = %q, want the status and the stderr tail", msg)
	}
	if !strings.HasPrefix(tee.String(), "line 1\nline 2\n") {
		t.Errorf("stderr tee starts %q, want everything from line 1", tee.String()[:min(20, tee.Len())])
	}
	if !errors.Is(c.Err(), err) {
		t.Errorf("Err() = %v, want the exit error", c.Err())
	}
	if _, later := c.GetState(hangCtx(t)); !errors.As(later, &exit) {
		t.Errorf("later call error = %v, want *ExitError", later)
	}
}

func TestClose(t *testing.T) {
	tests := []struct {
		mode   string
		killed bool // false for a clean exit
	}{
		{"polite", false},
		{"deaf", true},
	}
	// A killed process ends by SIGKILL on Unix; on Windows it exits with status 1, no signal.
	wantSignal := "killed"
	if runtime.GOOS == "windows" {
		wantSignal = ""
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			c := spawnHelper(t, tc.mode, nil)
			err := c.Close()
			var exit *ExitError
			switch {
			case !tc.killed && err != nil:
				t.Errorf("Close = %v, want nil", err)
			case tc.killed && (!errors.As(err, &exit) || !exit.Killed || exit.Signal != wantSignal):
				t.Errorf("Close = %v (%+v), want killed, signal %q", err, exit, wantSignal)
			case tc.killed && !strings.Contains(err.Error(), "was killed"):
				t.Errorf("Close = %q, want it to say the process was killed", err)
			}
			if !errors.As(c.Err(), &exit) {
				t.Errorf("Err() after Close = %v, want *ExitError", c.Err())
			}
		})
	}
}

func TestSpawnMissingBinary(t *testing.T) {
	_, err := Spawn(context.Background(), SpawnOptions{Binary: t.TempDir() + "/no-such-pi-rpc"})
	if err == nil {
		t.Fatal("Spawn of a missing binary succeeded")
	}
}

func TestSpawnArgs(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{nil, []string{"--framing", "ndjson"}},
		{[]string{"--provider", "faux"}, []string{"--framing", "ndjson", "--provider", "faux"}},
		{[]string{"--framing", "lsp"}, []string{"--framing", "lsp"}},
		{[]string{"--framing=auto", "--no-tools"}, []string{"--framing=auto", "--no-tools"}},
		{[]string{"-framing=ndjson"}, []string{"-framing=ndjson"}},
	}
	for _, tc := range tests {
		if got := spawnArgs(tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("spawnArgs(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestTailWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"empty", nil, ""},
		{"one line", []string{"panic: boom\n"}, "panic: boom"},
		{"split writes", []string{"pa", "nic: bo", "om\ngorou", "tine 1"}, "panic: boom\ngoroutine 1"},
		{"keeps the last three", []string{"1\n2\n3\n4\n5\n"}, "3\n4\n5"},
		{"partial line counts", []string{"1\n2\n3\n4"}, "2\n3\n4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &tailWriter{max: 3}
			for _, s := range tc.writes {
				if _, err := w.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			if got := w.tail(); got != tc.want {
				t.Errorf("tail() = %q, want %q", got, tc.want)
			}
		})
	}
}

// Spawn's context ending kills the server, and the exit error says the client killed it (on
// Windows the status alone, 1, would not tell).
func TestSpawnContextKills(t *testing.T) {
	ctx, cancel := context.WithCancel(hangCtx(t))
	c, err := Spawn(ctx, SpawnOptions{
		Binary: os.Args[0],
		Args:   []string{"-test.run=^TestHelperProcess$", "--", "--framing", "ndjson"},
		Env:    append(os.Environ(), helperEnv+"=deaf"),
	})
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	cancel()
	select {
	case <-c.Done():
	case <-hangCtx(t).Done():
		t.Fatal("the connection did not end after the context was cancelled")
	}
	var exit *ExitError
	if !errors.As(c.Err(), &exit) || !exit.Killed || !strings.Contains(exit.Error(), "was killed") {
		t.Fatalf("Err() = %v (%+v), want killed", c.Err(), exit)
	}
}
