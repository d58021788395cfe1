package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// lineSource is an input of a prefix, n filler bytes and a suffix, produced as it is read
// (nothing held), that counts how far it has been read.
type lineSource struct {
	prefix, suffix []byte
	n              int
	read           int
}

// newLineReaderSize is [NewLineReader] with a bufio buffer of size bytes, so a test can make
// lines longer than the buffer without megabytes of input.
func newLineReaderSize(in io.Reader, size, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(in, size), max: max}
}

func (s *lineSource) Read(b []byte) (int, error) {
	total := len(s.prefix) + s.n + len(s.suffix)
	if s.read >= total {
		return 0, io.EOF
	}
	k := 0
	for k < len(b) && s.read < total {
		switch {
		case s.read < len(s.prefix):
			c := copy(b[k:], s.prefix[s.read:])
			k, s.read = k+c, s.read+c
		case s.read < len(s.prefix)+s.n:
			c := min(len(b)-k, len(s.prefix)+s.n-s.read)
			for i := range c {
				b[k+i] = 'x'
			}
			k, s.read = k+c, s.read+c
		default:
			c := copy(b[k:], s.suffix[s.read-len(s.prefix)-s.n:])
			k, s.read = k+c, s.read+c
		}
	}
	return k, nil
}

// heapAllocated is the bytes allocated by f (cumulative, so the collector cannot hide any).
func heapAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An oversized ndjson line is reported as soon as it passes the limit, before the rest of
// it has been read; what the reader allocated for it is about the limit, not a multiple of
// it or the line; the rest is then discarded and the next line read.
func TestLineReaderOversizedLineIsNotHeld(t *testing.T) {
	const max, buf, line = 1 << 20, 64 << 10, 64 << 20
	next := `{"jsonrpc":"2.0","id":2,"method":"getState"}`
	src := &lineSource{prefix: []byte(`{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"`), n: line, suffix: []byte("\"}}\n" + next + "\n")}
	r := newLineReaderSize(src, buf, max)
	var err error
	alloc := heapAllocated(func() { _, err = r.Next() })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized line: %v, want ErrTooLarge", err)
	}
	var tl *TooLargeError
	if !errors.As(err, &tl) || len(tl.Head) != headBytes || !bytes.HasPrefix(tl.Head, src.prefix) {
		t.Fatalf("the error's head is %q, want the line's first %d bytes", tl.Head, headBytes)
	}
	if src.read > max+2*buf {
		t.Errorf("the reader read %d bytes of a %d-byte line before reporting it (limit %d)", src.read, line, max)
	}
	if alloc > max+max/4 {
		t.Errorf("the reader allocated %d bytes for an oversized line (limit %d)", alloc, max)
	}
	var msg []byte
	alloc = heapAllocated(func() { msg, err = r.Next() })
	if err != nil || string(msg) != next {
		t.Fatalf("line after the oversized one: %q, %v", msg, err)
	}
	if alloc > 4*buf {
		t.Errorf("skipping the rest of the line allocated %d bytes", alloc)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v, want io.EOF", err)
	}
}

// A line just over the limit that ends within the buffer, or at the end of the input, is
// reported once and does not eat the next line.
func TestLineReaderOversizedLineEndings(t *testing.T) {
	const max = 64
	for _, in := range []string{
		strings.Repeat("a", max+1) + "\n{}\n",
		strings.Repeat("a", max) + "b\r\n{}\n",
		strings.Repeat("a", 5*max) + "\n{}",
	} {
		r := newLineReaderSize(strings.NewReader(in), 16, max)
		_, err := r.Next()
		var tl *TooLargeError
		if !errors.As(err, &tl) {
			t.Fatalf("%q: first line: %v, want ErrTooLarge", in, err)
		}
		if !strings.HasPrefix(in, string(tl.Head)) || len(tl.Head) <= max || strings.ContainsAny(string(tl.Head), "\r\n") {
			t.Fatalf("%q: head %q", in, tl.Head)
		}
		if msg, err := r.Next(); err != nil || string(msg) != "{}" {
			t.Fatalf("%q: second line: %q, %v", in, msg, err)
		}
		if _, err := r.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("%q: end: %v", in, err)
		}
	}
	r := newLineReaderSize(strings.NewReader(strings.Repeat("a", 5*max)), 16, max)
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("unterminated oversized line: %v", err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after an unterminated oversized line: %v, want io.EOF", err)
	}
}

// A Content-Length over the limit is reported before its body is read, and the body is then
// discarded as it arrives, without being held.
func TestContentLengthReaderOversizedLength(t *testing.T) {
	const max, buf, body = 1 << 20, 64 << 10, 64 << 20
	next := `{"jsonrpc":"2.0","id":2,"method":"getState"}`
	src := &lineSource{prefix: fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", body), n: body, suffix: AppendHeader(nil, len(next))}
	src.suffix = append(src.suffix, next...)
	r := NewContentLengthReader(src, buf, max)
	var err error
	alloc := heapAllocated(func() { _, err = r.Next() })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized length: %v, want ErrTooLarge", err)
	}
	if src.read > 2*buf {
		t.Errorf("the reader read %d bytes before reporting a length over the limit", src.read)
	}
	var msg []byte
	alloc += heapAllocated(func() { msg, err = r.Next() })
	if err != nil || string(msg) != next {
		t.Fatalf("message after the oversized one: %q, %v", msg, err)
	}
	if alloc > 4*buf {
		t.Errorf("the reader allocated %d bytes for a %d-byte body over the limit", alloc, body)
	}
}

// A Content-Length larger than the body the client meant: the declared bytes are the body
// (not JSON, so answered with a parse error by the stream), and the messages swallowed into
// it are read again from their header on.
func TestContentLengthReaderLengthLongerThanBody(t *testing.T) {
	a := `{"jsonrpc":"2.0","id":1,"method":"getState"}`
	b := `{"jsonrpc":"2.0","id":2,"method":"getState"}`
	c := `{"jsonrpc":"2.0","id":3,"method":"getState"}`
	framedB := string(AppendHeader(nil, len(b))) + b
	framedC := string(AppendHeader(nil, len(c))) + c
	// The length covers a, b's message and the first 5 bytes of c's header: read again,
	// those 5 bytes join the rest of the header, and nothing is lost.
	long := len(a) + len(framedB) + 5
	in := fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s%s", long, a, framedB, framedC)
	if got, want := readMessages(t, in), []string{a + framedB + framedC[:5], b, c}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("messages: %q, want %q", got, want)
	}

	// When no complete header block is within the body, nothing is read again: the rest of
	// a header cut by the body's end is a bad header block, and that message is lost.
	in = fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s%s", len(a)+5, a, framedB, framedC)
	if got, want := readMessages(t, in), []string{a + framedB[:5], "bad header", c}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("messages: %q, want %q", got, want)
	}

	// When the declared length ends on a message boundary, nothing is lost either.
	in = fmt.Sprintf("Content-Length: %d\r\n\r\n%s%s%s", len(a)+len(framedB), a, framedB, framedC)
	if got, want := readMessages(t, in), []string{a + framedB, b, c}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("messages: %q, want %q", got, want)
	}
}

// readMessages reads in with the LSP reader to its end: the messages, "bad header" for each
// bad header block.
func readMessages(t *testing.T, in string) []string {
	t.Helper()
	r := NewContentLengthReader(strings.NewReader(in), 64, 4096)
	var got []string
	for {
		msg, err := r.Next()
		var bad *BadHeaderError
		switch {
		case err == nil:
			got = append(got, string(msg))
		case errors.As(err, &bad):
			got = append(got, "bad header")
		case errors.Is(err, io.EOF):
			return got
		default:
			t.Fatalf("reader ended with %v", err)
		}
	}
}

// A body that is JSON is the message even if it quotes a header; a body cut short by the end
// of the input is searched for swallowed messages too; one without any ends the input.
func TestContentLengthReaderBodySearch(t *testing.T) {
	b := `{"jsonrpc":"2.0","id":2,"method":"getState"}`
	quoted := `{"jsonrpc":"2.0","id":1,"method":"prompt","params":{"message":"Content-Length: 2\r\n\r\n{}"}}`
	r := NewContentLengthReader(strings.NewReader(string(AppendHeader(nil, len(quoted)))+quoted+string(AppendHeader(nil, len(b)))+b), 64, 4096)
	if msg, err := r.Next(); err != nil || string(msg) != quoted {
		t.Fatalf("JSON body quoting a header: %q, %v", msg, err)
	}
	if msg, err := r.Next(); err != nil || string(msg) != b {
		t.Fatalf("after it: %q, %v", msg, err)
	}

	framedB := string(AppendHeader(nil, len(b))) + b
	r = NewContentLengthReader(strings.NewReader("Content-Length: 500\r\n\r\n{\"x\":"+framedB), 64, 4096)
	if msg, err := r.Next(); err != nil || string(msg) != `{"x":`+framedB {
		t.Fatalf("body cut short by EOF: %q, %v", msg, err)
	}
	if msg, err := r.Next(); err != nil || string(msg) != b {
		t.Fatalf("message swallowed into a body cut short by EOF: %q, %v", msg, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}

	r = NewContentLengthReader(strings.NewReader("Content-Length: 500\r\n\r\n{\"x\":1}"), 64, 4096)
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("body cut short by EOF without a header: %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestHeaderIndex(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"Content-Length: 2\r\n\r\n{}", 0},
		{"xx content-LENGTH:2\n\n", 3},
		{"Content-Length: 2\r\nContent-Type: a\r\n\r\n", 0},
		{"Content-Length: 2\r\n", -1},                          // no end of block
		{"Content-Length: x\r\n\r\n", -1},                      // invalid length
		{"Content-Length: 2\r\njunk\r\n\r\n", -1},              // malformed line
		{"Content-Length: 2\r\nContent-Length: 3\r\n\r\n", 19}, // the second starts a block
		{"Length: 2\r\n\r\nContent-Length: 1\n\n", 13},
		{"", -1},
		{":::", -1},
	} {
		if got := headerIndex([]byte(tc.in)); got != tc.want {
			t.Errorf("headerIndex(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
