package session_test

import (
	"os"
	"testing"

	"github.com/pi-rpc/pi-rpc/session"
)

// TestClosedSessionFilesCanBeMovedAndRemoved: once its session is closed, or switched away
// from, a session file and its .lock are held by nothing: another program may rename or
// delete them. On Windows, where an open file cannot be deleted or replaced, a handle the
// store kept would make both fail (make test-windows runs this under Wine).
func TestClosedSessionFilesCanBeMovedAndRemoved(t *testing.T) {
	h, _ := fileHarness(t, textReplies("one", "two")...)
	h.prompt("first")
	h.settle()
	first := h.sup.State().SessionFile

	// Switched away from: the new session's first prompt writes its own file.
	if _, err := h.sup.NewSession(); err != nil {
		t.Fatal(err)
	}
	h.prompt("second")
	h.settle()
	second := h.sup.State().SessionFile
	if second == first {
		t.Fatalf("newSession kept the file %s", first)
	}
	moveAndRemove(t, first)

	// Closed.
	if err := h.sup.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	moveAndRemove(t, second)
}

// moveAndRemove renames a session file, removes it under its new name, and removes its lock.
func moveAndRemove(t *testing.T, file string) {
	t.Helper()
	moved := file + ".moved"
	if err := os.Rename(file, moved); err != nil {
		t.Fatalf("rename of a closed session file: %v", err)
	}
	if err := os.Remove(moved); err != nil {
		t.Fatalf("remove of a closed session file: %v", err)
	}
	if err := os.Remove(session.LockPath(file)); err != nil {
		t.Fatalf("remove of a closed session's lock: %v", err)
	}
}
