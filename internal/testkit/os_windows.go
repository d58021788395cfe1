package testkit

import (
	"errors"
	"io/fs"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// mkfifo: Windows has no FIFOs on disk (its named pipes live under \\.\pipe\).
func mkfifo(string) error { return errors.ErrUnsupported }

// fileOwner: files have no uid on Windows.
func fileOwner(fs.FileInfo) (uint32, bool) { return 0, false }

// devZero: Windows has no endless device file.
const devZero = ""

// symlinksMayFail: creating a symlink needs a privilege or Developer Mode on Windows.
const symlinksMayFail = true

// Mkfifo skips the test: Windows has no FIFOs on disk.
func Mkfifo(t testing.TB, path string, mode uint32) {
	t.Helper()
	t.Skip("needs a FIFO on disk (mkfifo), which Windows does not have")
}

// ProcessAlive reports whether a process with pid is still running.
func ProcessAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer func() { _ = windows.CloseHandle(h) }()
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code == stillActive
}

// stillActive is STILL_ACTIVE, GetExitCodeProcess's code of a running process.
const stillActive = 259

// WaitProcessExit waits up to timeout for the process with pid to exit (WaitForSingleObject
// on its handle), and says whether it has: a pid no process has any more counts as exited.
func WaitProcessExit(pid int, timeout time.Duration) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return true
	}
	defer func() { _ = windows.CloseHandle(h) }()
	ev, err := windows.WaitForSingleObject(h, uint32(timeout.Milliseconds()))
	return err == nil && ev == windows.WAIT_OBJECT_0
}
