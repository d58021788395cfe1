package testkit

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// UpToDate is a generator's freshness test (gopls's TestGenerated): got is the file as the
// code go generate runs makes it in memory, file the committed copy, named name in a failure
// that tells how to regenerate it (regen). With update set it rewrites the file instead.
func UpToDate(t testing.TB, got []byte, file, name, regen string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v: %s", err, regen)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("%s is stale: %s\nfirst difference at line %d:\n  generated: %s\n  file:      %s", name, regen, i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("%s is stale: %s: %d lines generated, %d in the file", name, regen, len(gl), len(wl))
}
