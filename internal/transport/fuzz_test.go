package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/internal/transport/fuzzseed"
)

// The fuzz targets share one seed corpus: fuzzseed's, added to each target and also checked
// in under testdata/fuzz/<Target>/ (rewrite with -write-fuzz-seeds), where `go test -fuzz`
// adds the interesting inputs it finds.

// fuzzMax is the message limit the reader targets use: small, so that oversized messages,
// and lines longer than the 16-byte bufio buffer, are common.
const fuzzMax = 64

// lspBuffer is the LSP reader's buffer: header lines longer than the buffer are cut (by
// design: the server's is 64 KiB), so it must hold a whole Content-Length line.
const lspBuffer = 64

var fuzzTargets = []string{"FuzzLineReader", "FuzzContentLengthReader", "FuzzClassify"}

// TestWriteFuzzSeeds writes the shared seed corpus (with -write-fuzz-seeds).
func TestWriteFuzzSeeds(t *testing.T) { fuzzseed.WriteIfAsked(t, fuzzTargets, fuzzMax) }

func addSeeds(f *testing.F) { fuzzseed.Add(f, fuzzMax) }

// readAll drives a Reader to the end, failing on a hang (a call that consumes nothing
// forever) through a bound on calls.
func readAll(t *testing.T, r Reader, inputLen int) (msgs [][]byte, tooLarge []int, last error) {
	for calls := 0; ; calls++ {
		if calls > inputLen+2 {
			t.Fatalf("reader made %d calls on %d input bytes without ending", calls, inputLen)
		}
		msg, err := r.Next()
		var bad *BadHeaderError
		switch {
		case err == nil:
			if len(msg) > fuzzMax {
				t.Fatalf("message of %d bytes over the %d limit: %q", len(msg), fuzzMax, msg)
			}
			msgs = append(msgs, append([]byte(nil), msg...))
		case errors.Is(err, ErrTooLarge):
			tooLarge = append(tooLarge, len(msgs))
			msgs = append(msgs, nil)
		case errors.As(err, &bad):
			msgs = append(msgs, nil)
		default:
			return msgs, tooLarge, err
		}
	}
}

// FuzzLineReader: the ndjson reader returns exactly the input's \n-separated lines (one
// trailing \r dropped), each line over the limit replaced by ErrTooLarge.
func FuzzLineReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newLineReaderSize(bytes.NewReader(data), 16, fuzzMax)
		msgs, tooLarge, err := readAll(t, r, len(data))
		if !errors.Is(err, io.EOF) {
			t.Fatalf("reader ended with %v, want io.EOF", err)
		}
		var want [][]byte
		lines := bytes.Split(data, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1] // the input ends with \n (or is empty)
		}
		var wantLarge []int
		for _, l := range lines {
			l = bytes.TrimSuffix(l, []byte("\r"))
			if len(l) > fuzzMax {
				wantLarge = append(wantLarge, len(want))
				want = append(want, nil)
				continue
			}
			want = append(want, l)
		}
		if len(msgs) != len(want) {
			t.Fatalf("got %d messages, want %d lines\ngot  %q\nwant %q", len(msgs), len(want), msgs, want)
		}
		for i := range want {
			if !bytes.Equal(msgs[i], want[i]) {
				t.Fatalf("message %d = %q, want %q", i, msgs[i], want[i])
			}
		}
		if fmt.Sprint(tooLarge) != fmt.Sprint(wantLarge) {
			t.Fatalf("ErrTooLarge at %v, want at %v (the oversized lines)", tooLarge, wantLarge)
		}
	})
}

// FuzzContentLengthReader: the Content-Length reader never panics or hangs, returns nothing over the
// limit, reports ErrTooLarge only when the input declares a length over the limit, and reads
// back any body framed with a valid header.
func FuzzContentLengthReader(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewContentLengthReader(bytes.NewReader(data), lspBuffer, fuzzMax)
		_, tooLarge, err := readAll(t, r, len(data))
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("reader ended with %v, want EOF", err)
		}
		if len(tooLarge) > 0 && !declaresOversized(data) {
			t.Fatalf("ErrTooLarge, but no Content-Length over %d in %q", fuzzMax, data)
		}

		// The data as the body of a well-formed message, followed by a second one.
		framed := append(AppendHeader(nil, len(data)), data...)
		framed = append(AppendHeader(framed, 2), "{}"...)
		r = NewContentLengthReader(bytes.NewReader(framed), lspBuffer, fuzzMax)
		msg, err := r.Next()
		switch {
		case len(data) > fuzzMax && !errors.Is(err, ErrTooLarge):
			t.Fatalf("body of %d bytes: got %q, %v; want ErrTooLarge", len(data), msg, err)
		case len(data) <= fuzzMax && (err != nil || !bytes.Equal(msg, data)):
			t.Fatalf("body %q: got %q, %v", data, msg, err)
		}
		// A body that is not JSON is searched for a complete header block, and what follows
		// it is read again; otherwise the second message comes next, and last.
		rest, _, err := readAll(t, r, len(framed))
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("reader ended with %v, want EOF", err)
		}
		if len(data) > fuzzMax || json.Valid(data) || headerIndex(data) < 0 {
			if len(rest) != 1 || string(rest[0]) != "{}" {
				t.Fatalf("messages after the body %q: got %q; want {}", data, rest)
			}
		}
	})
}

// declaresOversized reports whether data has a Content-Length header over fuzzMax.
func declaresOversized(data []byte) bool {
	lower := bytes.ToLower(data)
	for {
		i := bytes.Index(lower, []byte("content-length:"))
		if i < 0 {
			return false
		}
		lower = lower[i+len("content-length:"):]
		end := bytes.IndexByte(lower, '\n')
		if end < 0 {
			end = len(lower)
		}
		v := strings.TrimSpace(strings.TrimSuffix(string(lower[:end]), "\r"))
		if n, err := strconv.Atoi(v); err == nil && n > fuzzMax {
			return true
		}
	}
}
