package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Framing is how messages are delimited on stdin and stdout.
type Framing string

// The framings (DESIGN.md §3).
const (
	// FramingNDJSON: one JSON message per line.
	FramingNDJSON Framing = "ndjson"
	// FramingLSP: a Content-Length header block before each message (vscode-jsonrpc).
	FramingLSP Framing = "lsp"
	// FramingAuto: decided by the first input byte.
	FramingAuto Framing = "auto"
)

// errTooLarge reports a message over the size limit; the reader has skipped it.
var errTooLarge = errors.New("message too large")

// errBadHeader reports an LSP header block without a usable Content-Length; the reader has
// resynchronised at the next Content-Length line.
type errBadHeader struct{ msg string }

func (e *errBadHeader) Error() string { return e.msg }

// frameReader reads one message at a time. A message over the limit is skipped without
// being buffered and reported as errTooLarge; the reader then goes on with the next one.
type frameReader interface {
	next() ([]byte, error)
}

// detectFraming reads past a UTF-8 BOM and ASCII whitespace and decides the framing from the
// first meaningful byte: { or [ is ndjson, C or c is LSP, anything else ndjson (that line
// then gets a parse error). It consumes nothing but the skipped bytes.
func detectFraming(r *bufio.Reader) (Framing, error) {
	if b, err := r.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = r.Discard(3)
	}
	for {
		b, err := r.Peek(1)
		if err != nil {
			return FramingNDJSON, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = r.Discard(1)
			continue
		case 'C', 'c':
			return FramingLSP, nil
		}
		return FramingNDJSON, nil
	}
}

// lineReader reads newline-delimited messages. Only \n separates messages (U+2028 and
// U+2029 do not); a trailing \r is dropped; a last line without \n is read at EOF.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func (l *lineReader) next() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(buf)+len(chunk) > l.max+2 { // +2: the line ending is not part of the message
			if errors.Is(err, bufio.ErrBufferFull) {
				if serr := l.skipLine(); serr != nil && !errors.Is(serr, io.EOF) {
					return nil, serr
				}
			}
			return nil, errTooLarge
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil, errors.Is(err, io.EOF) && len(buf) > 0:
			msg := trimEOL(buf)
			if len(msg) > l.max {
				return nil, errTooLarge
			}
			return msg, nil
		default:
			return nil, err
		}
	}
}

// skipLine discards the rest of an oversized line without keeping it.
func (l *lineReader) skipLine() error {
	for {
		_, err := l.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return err
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// lspReader reads Content-Length framed messages. Header names are case-insensitive, lines
// end in \r\n or a bare \n, Content-Type is ignored. A block without a valid Content-Length,
// or with one over the limit, is reported and the reader resynchronises at the next
// Content-Length line.
type lspReader struct {
	r   *bufio.Reader
	max int
	// resync is set after a bad header block: skip to the next Content-Length line.
	resync bool
}

func (l *lspReader) next() ([]byte, error) {
	length := -1
	sawHeader := false
	for {
		line, err := l.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && sawHeader {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if l.resync {
			// The bad block's body has no known length: skip to the next Content-Length,
			// wherever it starts on a line.
			i := bytes.Index(bytes.ToLower(line), []byte("content-length:"))
			if i < 0 {
				continue
			}
			line = line[i:]
			l.resync = false
		}
		if len(line) == 0 {
			if !sawHeader {
				continue // blank lines between messages
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			l.resync = true
			return nil, &errBadHeader{fmt.Sprintf("malformed header line %q", truncate(string(line), 80))}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				l.resync = true
				return nil, &errBadHeader{fmt.Sprintf("invalid Content-Length %q", strings.TrimSpace(value))}
			}
			length = n
		}
	}
	if length < 0 {
		l.resync = true
		return nil, &errBadHeader{"missing Content-Length header"}
	}
	if length > l.max {
		if _, err := l.r.Discard(length); err != nil {
			return nil, err
		}
		return nil, errTooLarge
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(l.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// readLine reads one header line without its line ending; header lines are short, and a
// very long one is cut.
func (l *lspReader) readLine() ([]byte, error) {
	line, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		out := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = l.r.ReadSlice('\n')
		}
		return out, err
	}
	if err != nil && (len(line) == 0 || !errors.Is(err, io.EOF)) {
		return nil, err
	}
	return trimEOL(append([]byte(nil), line...)), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// lspHeader appends the header block of an LSP-framed message of n bytes.
func lspHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}
