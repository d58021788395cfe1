package transport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets share one seed corpus: fuzzSeeds, added to each target and also checked
// in under testdata/fuzz/<Target>/ (rewrite with -write-fuzz-seeds), where `go test -fuzz`
// adds the interesting inputs it finds.

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "write the shared seed corpus to testdata/fuzz")

// fuzzMax is the message limit the reader targets use: small, so that oversized messages,
// and lines longer than the 16-byte bufio buffer, are common.
const fuzzMax = 64

// lspBuffer is the LSP reader's buffer: header lines longer than the buffer are cut (by
// design: the server's is 64 KiB), so it must hold a whole Content-Length line.
const lspBuffer = 64

var fuzzTargets = []string{"FuzzLineReader", "FuzzContentLengthReader", "FuzzClassify"}

func fuzzSeeds() [][]byte {
	req := `{"jsonrpc":"2.0","id":1,"method":"getState"}`
	lsp := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	seeds := []string{
		"",
		"\n",
		"\r\n",
		"\r",
		req + "\n",
		req + "\r\n" + req,
		req,
		"\xEF\xBB\xBF" + req + "\n",
		"  \t\n" + req + "\n",
		"{oops\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"p\":\"\xff\"}\n",
		"42\n\"s\"\nnull\ntrue\n[]\n[1]\n",
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"w","method":"waitSettled"}]` + "\n",
		`[{"jsonrpc":"2.0","method":"n"}]` + "\n",
		`{"jsonrpc":"2.0","id":{},"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"a"}` + "\n",
		`{"jsonrpc":"2.0","id":1e400,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":-0.5,"method":"a"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"b"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":5}` + "\n" + `{"jsonrpc":"2.0","id":2}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}` + "\n" + `{"jsonrpc":"2.0","method":"a","params":"x"}` + "\n",
		`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}` + "\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\u2028b\"}\n",
		strings.Repeat("x", fuzzMax) + "\n" + strings.Repeat("y", fuzzMax+1) + "\n" + strings.Repeat("z", fuzzMax+2) + "\r\n",
		strings.Repeat("a", 3*fuzzMax),
		lsp(req),
		lsp(req) + lsp(req),
		"content-length: 2\n\n{}",
		"CONTENT-LENGTH:2\r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		"Content-Type: x\r\n\r\n{}Content-Length: 2\r\n\r\n{}",
		"Content-Length: nine\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 1000\r\n\r\n" + strings.Repeat("q", 1000) + lsp(req),
		"garbage\r\n\r\nxx Content-Length: 2\r\n\r\n{}",
		"Content-Length: 10\r\n\r\n{}",
		"\r\n\r\n" + lsp(req),
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}}",
		// Raw U+2028/U+2029 in ids, answers with ids of every type, a length longer than
		// its body, an oversized line that ends after the buffer.
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\u2028b\u2029\",\"method\":\"x\"}\n{\"jsonrpc\":\"1.0\",\"id\":\"\u2028\",\"method\":\"x\"}\n",
		`{"jsonrpc":"2.0","id":{"a":1},"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":[1],"error":{"code":1,"message":"m"}}` + "\n" + `{"jsonrpc":"2.0","id":null,"result":1}` + "\n" + `{"jsonrpc":"2.0","id":true,"result":1}` + "\n",
		`{"jsonrpc":"2.0","id":"p","result":{},"error":{"code":1,"message":"m"}}` + "\n" + `{"id":"p","result":{}}` + "\n",
		"Content-Length: 60\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"a"}` + lsp(`{"id":2}`) + lsp(`{"id":3}`),
		"Content-Length: 30\r\n\r\n{}" + lsp("{}") + "xx",
		strings.Repeat("w", 4*fuzzMax) + "\n" + req + "\n",
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// TestWriteFuzzSeeds writes the shared seed corpus (with -write-fuzz-seeds).
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		return
	}
	for _, target := range fuzzTargets {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, s := range fuzzSeeds() {
			sum := sha256.Sum256(s)
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(s)))
			if err := os.WriteFile(filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8])), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
}

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
		r := NewLineReaderSize(bytes.NewReader(data), 16, fuzzMax)
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
