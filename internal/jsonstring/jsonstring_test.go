package jsonstring

import (
	"encoding/json"
	"testing"
)

func TestAppend(t *testing.T) {
	tests := []string{"plain", "q\"b\\s", "\n\r\t\x01", "é漢字🙂", "bad\xffutf8", "sep\u2028\u2029", "<>&"}
	for _, s := range tests {
		got := Append(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("Append(%q) = %s: not JSON: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("Append(%q) decodes to %q, want %q", s, back, wantBack)
		}
	}
	if got := string(Append(nil, "a\u2028b")); got != `"a\u2028b"` {
		t.Errorf("U+2028 written as %s, want escaped", got)
	}
}

// JSControl writes what JSON.stringify writes: letters where JavaScript has them, \u00XX
// (lower-case hex) for the rest.
func TestJSControl(t *testing.T) {
	tests := map[byte]string{'\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`, 0: `\u0000`, 0x01: `\u0001`, 0x1b: `\u001b`, 0x1f: `\u001f`}
	for c, want := range tests {
		if got := JSControl(c); got != want {
			t.Errorf("JSControl(%#x) = %s, want %s", c, got, want)
		}
	}
}
