package pimode

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t *testing.T, in string, max int) (lines []string, long []bool) {
	t.Helper()
	r := newLineReader(strings.NewReader(in), max)
	for {
		line, tooLong, err := r.next()
		if errors.Is(err, io.EOF) {
			return lines, long
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
		long = append(long, tooLong)
	}
}

func TestLineReaderFraming(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"LF", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"CRLF strips one CR", "{\"a\":1}\r\n{\"b\":2}\r\r\n", []string{`{"a":1}`, "{\"b\":2}\r"}},
		{"U+2028 and U+2029 are not separators", "{\"a\":\"x\u2028y\u2029z\"}\n", []string{"{\"a\":\"x\u2028y\u2029z\"}"}},
		{"final line without LF", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}},
		{"empty lines are records", "\n\n", []string{"", ""}},
		{"lone CR is not a separator", "a\rb\n", []string{"a\rb"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := readAll(t, c.in, 1<<20)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestLineReaderTooLong(t *testing.T) {
	big := strings.Repeat("x", 300<<10) // longer than the bufio buffer, so it spans reads
	got, long := readAll(t, "ok\n"+big+"\nafter\n"+big, 1024)
	if len(got) != 4 {
		t.Fatalf("got %d lines, want 4", len(got))
	}
	want := []bool{false, true, false, true}
	for i := range want {
		if long[i] != want[i] {
			t.Fatalf("line %d: tooLong %v, want %v", i, long[i], want[i])
		}
	}
	if got[0] != "ok" || got[2] != "after" {
		t.Fatalf("lines around the long ones: %q, %q", got[0], got[2])
	}
}
