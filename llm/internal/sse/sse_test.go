package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll returns every event's data, and the error that ended the stream.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		d, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"one event", "data: {}\n\n", []string{"{}"}},
		{"no space after the colon", "data:{}\n\n", []string{"{}"}},
		{"only one space is dropped", "data:  x\n\n", []string{" x"}},
		{"lines joined with LF", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"empty data line", "data\ndata: b\n\n", []string{"\nb"}},
		{"data with only empty lines", "data:\n\ndata: x\n\n", []string{"", "x"}},
		{"CRLF", "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n", []string{"a\nb", "c"}},
		{"CR", "data: a\rdata: b\r\rdata: c\r\r", []string{"a\nb", "c"}},
		{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r\n", []string{"a\nb\nc", "d"}},
		{"CR then LF is one line end", "data: a\r\n\r\n", []string{"a"}},
		{"LF then CR is two", "data: a\n\rdata: b\n\n", []string{"a", "b"}},
		{"comments", ": OPENROUTER PROCESSING\n\n:ping\ndata: x\n: mid\ndata: y\n\n", []string{"x\ny"}},
		{"other fields ignored", "event: message\nid: 7\nretry: 100\ndata: x\n\nevent: ping\n\n", []string{"x"}},
		{"unknown field and field without colon", "foo: bar\nfoo\ndata: x\n\n", []string{"x"}},
		{"colon in the value", "data: a: b\n\n", []string{"a: b"}},
		{"field name is case-sensitive", "Data: x\n\ndata: y\n\n", []string{"y"}},
		{"leading space is part of the name", " data: x\n\n", nil},
		{"byte-order mark", "\xEF\xBB\xBFdata: x\n\n", []string{"x"}},
		{"only the first BOM", "data: x\n\n\xEF\xBB\xBFdata: y\n\n", []string{"x"}},
		{"last event without a blank line", "data: a\n\ndata: [DONE]\n", []string{"a", "[DONE]"}},
		{"last line without an end", "data: a\n\ndata: [DONE]", []string{"a", "[DONE]"}},
		{"last line ends with CR", "data: [DONE]\r", []string{"[DONE]"}},
		{"blank lines between events", "\n\n\ndata: a\n\n\n\ndata: b\n\n", []string{"a", "b"}},
		{"empty body", "", nil},
		{"NUL and invalid UTF-8 kept", "data: \x00\xff\n\n", []string{"\x00\xff"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, wrap := range []struct {
				name string
				r    func(io.Reader) io.Reader
			}{
				{"whole", func(r io.Reader) io.Reader { return r }},
				{"byte by byte", iotest.OneByteReader},
				{"data with EOF", iotest.DataErrReader},
			} {
				got, err := readAll(NewReader(wrap.r(strings.NewReader(tc.in)), 0))
				if !errors.Is(err, io.EOF) {
					t.Errorf("%s: err = %v, want EOF", wrap.name, err)
				}
				if !equal(got, tc.want) {
					t.Errorf("%s: got %q, want %q", wrap.name, got, tc.want)
				}
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A CR at the end of what has arrived ends the line at once: the event is returned without
// waiting for the server's next byte.
func TestReaderCRDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewReader(pr, 0)
	go func() {
		_, _ = pw.Write([]byte("data: a\r\r"))
	}()
	d, err := r.Next()
	if err != nil || string(d) != "a" {
		t.Fatalf("Next = %q, %v", d, err)
	}
	go func() {
		_, _ = pw.Write([]byte("\ndata: b\r\n\r\n"))
		_ = pw.Close()
	}()
	got, err := readAll(r)
	if !errors.Is(err, io.EOF) || !equal(got, []string{"b"}) {
		t.Fatalf("rest = %q, %v; want [b], EOF (the LF after the CR starts no new line)", got, err)
	}
}

// A read error mid-event drops the incomplete event and is returned as it is.
func TestReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	body := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(NewReader(body, 0))
	if !errors.Is(err, boom) || !equal(got, []string{"a"}) {
		t.Fatalf("got %q, %v; want [a] then the read error", got, err)
	}
	// The error sticks.
	r := NewReader(iotest.ErrReader(boom), 0)
	for range 2 {
		if _, err := r.Next(); !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
	}
}

// Lines and events over the limit fail with ErrTooLarge; at the limit they pass.
func TestReaderLimit(t *testing.T) {
	const limit = 64
	at := strings.Repeat("x", limit)
	tests := []struct {
		name string
		in   string
		want []string
		err  bool
	}{
		{"data at the limit", "data:" + at[:limit-5] + "\n\n", []string{at[:limit-5]}, false},
		{"one line over", "data: " + at + "x\n\n", nil, true},
		{"joined data over", strings.Repeat("data: "+at[:20]+"\n", 4) + "\n", nil, true},
		{"a comment over", ": " + at + at + "\ndata: x\n\n", nil, true},
		{"over after an event", "data: a\n\ndata: " + at + at + "\n\n", []string{"a"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(NewReader(iotest.HalfReader(strings.NewReader(tc.in)), limit))
			if tc.err != errors.Is(err, ErrTooLarge) || !tc.err && !errors.Is(err, io.EOF) {
				t.Fatalf("err = %v, want too large %v", err, tc.err)
			}
			if !equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	_, err := NewReader(strings.NewReader("data: "+strings.Repeat("x", 100)), 10).Next()
	if err == nil || !strings.Contains(err.Error(), "server-sent event too large") || !strings.Contains(err.Error(), "10 bytes") {
		t.Fatalf("err = %v, want it to say what and the limit", err)
	}
}

// reference is the format's algorithm written the obvious way, over the whole body at once.
func reference(body []byte) []string {
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	s := strings.ReplaceAll(string(body), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		// The body's last line end starts no line.
		lines = lines[:len(lines)-1]
	}
	var out, data []string
	dispatch := func() {
		if data != nil {
			out = append(out, strings.Join(data, "\n"))
		}
		data = nil
	}
	for _, l := range lines {
		if l == "" {
			dispatch()
			continue
		}
		if l[0] == ':' {
			continue
		}
		name, value, found := strings.Cut(l, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		if name == "data" {
			data = append(data, value)
		}
	}
	dispatch()
	return out
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n", "data: a\r\ndata: b\r\n\r\n", "data: a\rdata: b\r\r", ": c\n\nevent: x\ndata\n\n",
		"\xEF\xBB\xBFdata: x", "data:  x\n\rdata:y\r\n", "data: [DONE]",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, body []byte, chunk uint8) {
		var in io.Reader = bytes.NewReader(body)
		if chunk > 0 {
			in = &chunkReader{b: body, n: int(chunk)}
		}
		got, err := readAll(NewReader(in, 0))
		if !errors.Is(err, io.EOF) {
			t.Fatalf("err = %v", err)
		}
		if want := reference(body); !equal(got, want) {
			t.Fatalf("chunk %d: got %q, reference %q", chunk, got, want)
		}
	})
}

// chunkReader returns at most n bytes per read, so lines and CRLFs split across reads.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.b))
	copy(p, c.b[:k])
	c.b = c.b[k:]
	return k, nil
}
