//go:build !windows

package testkit

import (
	"io/fs"
	"syscall"
	"testing"
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
