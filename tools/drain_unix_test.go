//go:build !windows

package tools

import (
	"os"
	"strings"
	"testing"
	"time"
)

// When drainGrace has run out before the reader got to the pipe (on a loaded machine the
// reading goroutine may not run for longer than that), what the pipe already holds is still
// read. Here a background process still holds the write end, and the deadline has passed
// before the first read.
func TestPumpKeepsWhatThePipeHoldsAfterTheGrace(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close() // the background process that outlives the shell
	// 30 KB: less than a pipe holds, so the write completes with no reader.
	want := strings.Repeat("line of output\n", 2000) + "the tail"
	if _, err := pw.WriteString(want); err != nil {
		t.Fatal(err)
	}
	if err := pr.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	acc := newOutputAccumulator(1<<20, 1<<30, t.TempDir())
	pumpOutput(pr, acc, &throttle{acc: acc}, nil)
	acc.finish()
	if got := acc.snapshot().Output; got != want {
		t.Fatalf("read %d of %d bytes after the grace; ends %q", len(got), len(want), got[max(0, len(got)-20):])
	}
}
