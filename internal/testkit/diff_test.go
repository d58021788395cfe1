package testkit

import (
	"reflect"
	"testing"
)

func TestDiffLines(t *testing.T) {
	for _, tc := range []struct {
		name, want, got string
		most            int
		diffs           []LineDiff
	}{
		{"equal", "a\nb\n", "a\nb\n", 5, nil},
		{"one line changed", "a\nb\nc", "a\nB\nc", 5, []LineDiff{{2, "b", "B"}}},
		{"got is longer", "a", "a\nb", 5, []LineDiff{{2, "", "b"}}},
		{"want is longer", "a\nb", "a", 5, []LineDiff{{2, "b", ""}}},
		{"at most most", "a\nb\nc", "x\ny\nz", 2, []LineDiff{{1, "a", "x"}, {2, "b", "y"}}},
	} {
		if got := DiffLines(tc.want, tc.got, tc.most); !reflect.DeepEqual(got, tc.diffs) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.diffs)
		}
	}
}

func TestBufferTakeAndJSONLines(t *testing.T) {
	var b Buffer
	_, _ = b.Write([]byte(`{"level":"warn"}` + "\n\n"))
	_, _ = b.Write([]byte(`{"level":"info"}` + "\n"))
	lines := JSONLines(t, b.Take())
	if len(lines) != 2 || lines[0]["level"] != "warn" || lines[1]["level"] != "info" {
		t.Fatalf("lines %v", lines)
	}
	if s := b.Take(); s != "" {
		t.Fatalf("after Take: %q", s)
	}
	_, _ = b.Write([]byte("x"))
	if first, second := b.String(), b.String(); first != "x" || second != "x" {
		t.Fatalf("String = %q, then %q; want x both times", first, second)
	}
}

func TestPosition(t *testing.T) {
	if i := Position(t, []string{"a", "b", "b"}, "b"); i != 1 {
		t.Fatalf("Position = %d, want 1", i)
	}
}
