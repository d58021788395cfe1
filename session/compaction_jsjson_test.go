package session

import (
	"math"
	"slices"
	"testing"
)

// The expectations are JavaScript's JSON.stringify output (node), for objects whose keys were
// inserted in sorted order.
func TestJSJSON(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"no HTML or U+2028 escaping", "ls <a> & b\u2028", "\"ls <a> & b\u2028\""},
		{"control characters", "\t\x01\"\\\b\f\n\r\x7f", `"\t\u0001\"\\\b\f\n\r` + "\x7f\""},
		{"supplementary characters raw", "😀é", `"😀é"`},
		{"numbers", []any{1.0, 1.5, 1e21, 1e-7, 1.5e-8, math.Copysign(0, -1), 123456789012.0, 0.1, 1e300, 2.5e-10, 123e-20, 0.000001, 1234.5678},
			"[1,1.5,1e+21,1e-7,1.5e-8,0,123456789012,0.1,1e+300,2.5e-10,1.23e-18,0.000001,1234.5678]"},
		{"array-index keys first, numerically", map[string]any{"b": true, "10": nil, "9": "x", "a": "y", "01": 1.0},
			`{"9":"x","10":null,"01":1,"a":"y","b":true}`},
		{"nested and empty", map[string]any{"e": "", "o": map[string]any{}, "l": []any{}}, `{"e":"","l":[],"o":{}}`},
		{"Go values are normalised", map[string]any{"n": 3, "s": []string{"a"}}, `{"n":3,"s":["a"]}`},
		{"nil", nil, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsJSON(tt.v); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCompareUTF16(t *testing.T) {
	// JavaScript's default sort: U+FF5E sorts after U+1F600 (surrogate 0xD83D < 0xFF5E).
	got := []string{"\uff5e", "😀", "b", "a", "ab", "😁"}
	slices.SortFunc(got, compareUTF16)
	want := []string{"a", "ab", "b", "😀", "😁", "\uff5e"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
