package testkit

import (
	"slices"
	"strings"
	"testing"
)

// LineDiff is a line where two texts differ: its number (from 1) and its text in each ("" past
// the end of the shorter text).
type LineDiff struct {
	Line      int
	Want, Got string
}

// DiffLines compares want and got line by line (a golden transcript against the one a test
// produced, say) and returns the first most lines that differ, none when the texts are equal.
func DiffLines(want, got string, most int) []LineDiff {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []LineDiff
	for i := 0; i < max(len(w), len(g)) && len(out) < most; i++ {
		d := LineDiff{Line: i + 1}
		if i < len(w) {
			d.Want = w[i]
		}
		if i < len(g) {
			d.Got = g[i]
		}
		if d.Want != d.Got {
			out = append(out, d)
		}
	}
	return out
}

// Position is where want first stands in list; it fails the test if want is not there.
func Position(t testing.TB, list []string, want string) int {
	t.Helper()
	i := slices.Index(list, want)
	if i < 0 {
		t.Fatalf("no %s among %v", want, list)
	}
	return i
}
