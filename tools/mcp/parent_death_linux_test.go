//go:build linux

package mcp

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A SIGKILLed pi-rpc cannot close its servers; the kernel ends them instead (docs/mcp.md).
func TestServerDiesWithTheProcess(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentModeEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })

	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	child := 0
	for child == 0 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the parent exited before its server started")
			}
			var entry struct{ Stderr string }
			if json.Unmarshal([]byte(line), &entry) == nil && strings.HasPrefix(entry.Stderr, "child ") {
				n, err := strconv.Atoi(strings.TrimPrefix(entry.Stderr, "child "))
				if err != nil {
					t.Fatalf("pid in %q: %v", line, err)
				}
				child = n
			}
		case <-time.After(hangTimeout):
			t.Fatal("the server never said its pid")
		}
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })

	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	gone(t, child)
}
