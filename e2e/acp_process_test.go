package e2e_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/mockopenai"
)

// exitCode waits for the process to end and returns its exit code.
func (p *acpProc) exitCode() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.t.Fatal("the process did not exit")
	}
	return p.cmd.ProcessState.ExitCode()
}

// Process life under ACP is the other front ends': stdin EOF exits 0, SIGTERM 143, SIGINT
// 130, SIGHUP 129, with or without a session open.
func TestACPProcessLife(t *testing.T) {
	mock := mockOf(mockopenai.Response{Text: "fine"})
	defer mock.Close()
	p := startACP(t, mock)
	p.initialize()
	p.newSession(1)
	_ = p.stdin.Close()
	if code := p.exitCode(); code != 0 {
		t.Fatalf("exit %d at stdin EOF, want 0", code)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
		p := startACP(t, mock)
		p.initialize()
		p.newSession(1)
		if err := p.cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		if code := p.exitCode(); code != tc.code {
			t.Fatalf("exit %d on %v, want %d", code, tc.sig, tc.code)
		}
	}
}
