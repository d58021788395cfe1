package transport

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// readLines reads in to its end: each line, "TOO LARGE" for each one over max.
func readLines(t *testing.T, in string, max int) []string {
	t.Helper()
	r := NewLineReader(strings.NewReader(in), max)
	var lines []string
	for {
		line, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			return lines
		case errors.Is(err, ErrTooLarge):
			lines = append(lines, "TOO LARGE")
		case err != nil:
			t.Fatal(err)
		default:
			lines = append(lines, string(line))
		}
	}
}

// The strict-LF framing pi mode and ACP rely on (and rpc's ndjson).
func TestLineReaderFraming(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"LF", "{\"a\":1}\n{\"b\":2}\n", 1 << 20, []string{`{"a":1}`, `{"b":2}`}},
		{"CRLF strips one CR", "{\"a\":1}\r\n{\"b\":2}\r\r\n", 1 << 20, []string{`{"a":1}`, "{\"b\":2}\r"}},
		{"U+2028 and U+2029 are not separators", "{\"a\":\"x\u2028y\u2029z\"}\n", 1 << 20, []string{"{\"a\":\"x\u2028y\u2029z\"}"}},
		{"final line without LF", "{\"a\":1}\n{\"b\":2}", 1 << 20, []string{`{"a":1}`, `{"b":2}`}},
		{"empty lines are records", "\n\n", 1 << 20, []string{"", ""}},
		{"lone CR is not a separator", "a\rb\n", 1 << 20, []string{"a\rb"}},
		{"the limit is the message without its line ending", "abcd\r\nabcde\n", 4, []string{"abcd", "TOO LARGE"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readLines(t, c.in, c.max)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// Lines longer than the buffer and the limit are each reported once, and the lines around
// them are intact, including an oversized last line without LF.
func TestLineReaderTooLong(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // longer than the bufio buffer, so it spans reads
	got := readLines(t, "ok\n"+big+"\nafter\n"+big, 1024)
	if want := []string{"ok", "TOO LARGE", "after", "TOO LARGE"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}
