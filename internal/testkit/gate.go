package testkit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// NewGate makes a named pipe that a test program (mcp-testserver -gate) reads before it goes
// on: the program waits until the test calls ReleaseGate, so a test decides when a slow start
// ends without sleeping.
func NewGate(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gate")
	if err := mkfifo(path); errors.Is(err, errors.ErrUnsupported) {
		t.Skip("a gate is a named pipe (mkfifo), which Windows does not have")
	} else if err != nil {
		t.Fatal(err)
	}
	return path
}

// ReleaseGate lets the program waiting on the gate go on (the open waits until it has opened
// its end).
func ReleaseGate(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
}
