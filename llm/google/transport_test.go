package google

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSSEFilter drops comments and non-data fields, collapses the blank lines they leave,
// keeps data lines byte for byte (CRLF or LF, a last line without its end), whatever the read
// sizes.
func TestSSEFilter(t *testing.T) {
	in := ": keep-alive\r\n\r\ndata: {\"a\":1}\r\n\r\n: ping\r\n\r\nevent: x\nid: 2\ndata: {\"b\":2}\n\n\n\nretry: 5\n\ndata: {\"c\":3}"
	want := "data: {\"a\":1}\r\n\r\ndata: {\"b\":2}\n\ndata: {\"c\":3}"
	for name, r := range map[string]io.Reader{
		"whole":       strings.NewReader(in),
		"byte a time": iotest.OneByteReader(strings.NewReader(in)),
	} {
		got, err := io.ReadAll(newSSEFilter(io.NopCloser(r)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v\nwant %q", name, got, err, want)
		}
	}
	// A read error after data: the data first, then the error.
	got, err := io.ReadAll(newSSEFilter(io.NopCloser(io.MultiReader(strings.NewReader("data: {}\n\n"), iotest.ErrReader(io.ErrUnexpectedEOF)))))
	if string(got) != "data: {}\n\n" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%q, %v", got, err)
	}
}
