//go:build !windows

package testkit

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// fileOwner is a file's owner's uid.
func fileOwner(fi fs.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}

// devZero is the endless device file.
const devZero = "/dev/zero"

// symlinksMayFail: any user may create a symlink.
const symlinksMayFail = false

// Mkfifo makes a named pipe at path for a test, which it fails if that is not possible.
func Mkfifo(t testing.TB, path string, mode uint32) {
	t.Helper()
	if err := syscall.Mkfifo(path, mode); err != nil {
		t.Fatal(err)
	}
}

// ProcessAlive reports whether a process with pid exists (kill(pid, 0); a zombie counts).
func ProcessAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// WaitProcessExit waits up to timeout for the process with pid to be gone, and says whether
// it is (a zombie counts as gone: it runs nothing). Another process's exit cannot be waited
// on here, so it polls the process table.
func WaitProcessExit(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if !ProcessAlive(pid) || zombie(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond) // polling the process table: there is nothing to wait on
	}
}

// zombie reports whether /proc says pid has exited and not been reaped (false where there
// is no /proc).
func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat))
	return len(f) > 2 && f[2] == "Z"
}
