package faux

import "testing"

// TestEstimateTokens is pi's estimate, a quarter of the UTF-16 length rounded up: a rune
// outside the Basic Multilingual Plane counts two.
func TestEstimateTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abcd": 1, "abcde": 2, "😀😀": 1, "😀😀a": 2} {
		if got := estimateTokens(s); got != want {
			t.Errorf("estimateTokens(%q) = %d, want %d", s, got, want)
		}
	}
}
