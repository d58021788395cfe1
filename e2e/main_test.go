// Package e2e_test drives the real pi-rpc binary over real pipes: it is built once by
// TestMain, started per test with an explicit environment, and spoken to with a small raw
// JSON-RPC helper (not clients/go), so that what is tested is exactly the bytes on the wire.
//
// Every test gets, for free, the checks that hold for any output of the server: stdout
// purity (every byte is part of a well-formed JSON-RPC message in the detected framing) and
// the stream invariants of docs/protocol.md (gap-free seq from 1, runId from agent_start to
// agent_end inclusive, one agent_end per agent_start, agent_settled outside any run and with
// lastSeq its own seq, every input settled at most once, sessionId only where it belongs).
//
// Nothing sleeps to synchronise: waits are on messages, and a wait that sees nothing for
// hangTimeout fails the test (a hang detector, not a latency bound).
package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/testkit"
)

// hangTimeout is how long a wait may see no progress before the test fails as hung.
const hangTimeout = 10 * time.Second

// binary is the pi-rpc built by TestMain.
var binary string

// execHooks run first in TestMain: one that recognises its environment variable makes the
// test binary a wrapper that execs another program (sandbox_linux_test.go's simulated kernel
// without Landlock) and never returns.
var execHooks []func()

func TestMain(m *testing.M) {
	for _, hook := range execHooks {
		hook()
	}
	dir, err := os.MkdirTemp("", "pi-rpc-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "pi-rpc")
	if err := testkit.ReadModuleSources(".."); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", binary, "../cmd/pi-rpc")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building pi-rpc:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	mcpServer.Remove()
	mockCommand.Remove()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
