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
