package proctree

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// helperEnv makes the test binary a process of the tree under test: "parent" starts a child
// of the same kind, both print a line and then wait on stdin, which never ends, so only a
// kill ends them.
const helperEnv = "PROCTREE_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "parent":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), helperEnv+"=child")
		child.Stdin, child.Stdout = os.Stdin, os.Stdout
		if err := child.Start(); err != nil {
			os.Exit(3)
		}
		_, _ = os.Stdout.WriteString("parent\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "child":
		_, _ = os.Stdout.WriteString("child\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startTree starts the helper parent (which starts the child) prepared and attached, and
// waits until both run. Reading its stdout to EOF then says that every process holding the
// pipe, the child included, is gone.
func startTree(t *testing.T, suspended bool) (*exec.Cmd, *Tree, *bufio.Reader) {
	t.Helper()
	stdin, stdinW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdinW.Close() })
	out, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=parent")
	cmd.Stdin, cmd.Stdout = stdin, outW
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	Prepare(cmd.SysProcAttr, suspended)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = stdin.Close()
	_ = outW.Close()
	tree, err := Attach(cmd.Process, suspended)
	if err != nil {
		_ = cmd.Process.Kill()
		t.Fatal(err)
	}
	t.Cleanup(tree.Release)
	r := bufio.NewReader(out)
	seen := map[string]bool{}
	for len(seen) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("helpers did not start: %v (seen %v)", err, seen)
		}
		seen[strings.TrimSpace(line)] = true
	}
	return cmd, tree, r
}

// TestKillEndsTheWholeTree: Kill ends the process and the child it started (a grandchild of
// the test), which a kill of the process alone would leave running with the pipe open.
func TestKillEndsTheWholeTree(t *testing.T) {
	for _, suspended := range []bool{true, false} {
		cmd, tree, r := startTree(t, suspended)
		if !tree.Alive() {
			t.Fatal("Alive is false while the helpers run")
		}
		tree.Kill()
		if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
			t.Fatalf("reading to EOF: %q, %v", rest, err)
		}
		_ = cmd.Wait()
	}
}

// TestTerminateEndsTheWholeTree: Terminate (SIGTERM; on Windows TerminateJobObject) ends the
// helpers, which do not catch it.
func TestTerminateEndsTheWholeTree(t *testing.T) {
	cmd, tree, r := startTree(t, true)
	tree.Terminate()
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Fatalf("reading to EOF: %q, %v", rest, err)
	}
	_ = cmd.Wait()
}
