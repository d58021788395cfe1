package session

import "testing"

// TestUTF16Len counts UTF-16 code units as JavaScript's String.length does: two for a rune
// outside the Basic Multilingual Plane, one for an invalid byte (read as U+FFFD).
func TestUTF16Len(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "é→": 2, "a😀b": 4, "\xff": 1} {
		if got := utf16Len(s); got != want {
			t.Errorf("utf16Len(%q) = %d, want %d", s, got, want)
		}
	}
}
