package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// Framing is how messages are delimited on the input and the output.
type Framing string

// The framings (docs/protocol.md#transport-and-framing).
const (
	// NDJSON: one message per line.
	NDJSON Framing = "ndjson"
	// ContentLength: a Content-Length header block before each message (LSP, vscode-jsonrpc).
	ContentLength Framing = "lsp"
	// Auto: decided by the first meaningful input byte (see [Detect]).
	Auto Framing = "auto"
)

// readBuffer is the size of the input buffer; a message longer than it is held in blocks.
const readBuffer = 64 << 10

// ErrTooLarge reports a message over the size limit. The reader skips it without holding
// more of it than the limit (lines) or anything (Content-Length), and goes on with the
// next one.
var ErrTooLarge = errors.New("message too large")

// headBytes is how much of an oversized line a [TooLargeError] keeps.
const headBytes = 512

// TooLargeError is the [ErrTooLarge] of a line (errors.Is matches it). Head is the line's
// first bytes, at most 512: enough for a front end to read the id of a response it waits for
// (an editor's answer too large to take), so that request fails instead of waiting.
type TooLargeError struct{ Head []byte }

func (e *TooLargeError) Error() string { return ErrTooLarge.Error() }

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// BadHeaderError reports a Content-Length header block without a usable length; the reader
// has resynchronised at the next Content-Length line.
type BadHeaderError struct{ Msg string }

func (e *BadHeaderError) Error() string { return e.Msg }

// Reader reads one message at a time. Next returns a message (the caller may keep it), or
// [ErrTooLarge] or a [*BadHeaderError] for a message that was skipped (call Next again), or
// the input's end (io.EOF) or failure.
type Reader interface {
	Next() ([]byte, error)
}

// Open returns the reader of in for framing. It blocks until the first meaningful byte
// arrives (a BOM and white space before it are skipped, whatever the framing); with [Auto]
// that byte decides the framing. The framing in use is returned (the writer answers in
// it). An error is the input's end or failure before that byte.
func Open(in io.Reader, framing Framing, max int) (Reader, Framing, error) {
	br := bufio.NewReaderSize(in, readBuffer)
	detected, err := Detect(br)
	if err != nil {
		return nil, NDJSON, err
	}
	if framing == Auto || framing == "" {
		framing = detected
	}
	if framing == ContentLength {
		return NewContentLengthReader(br, readBuffer, max), framing, nil
	}
	return &LineReader{r: br, max: max}, framing, nil
}

// Detect reads past a UTF-8 BOM and ASCII whitespace and decides the framing from the first
// meaningful byte: { or [ is NDJSON, C or c is Content-Length, anything else NDJSON (that
// line then gets a parse error). It consumes nothing but the skipped bytes.
func Detect(r *bufio.Reader) (Framing, error) {
	if b, err := r.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		_, _ = r.Discard(3)
	}
	for {
		b, err := r.Peek(1)
		if err != nil {
			return NDJSON, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = r.Discard(1)
			continue
		case 'C', 'c':
			return ContentLength, nil
		}
		return NDJSON, nil
	}
}

// AppendHeader appends the Content-Length header block of a message of n bytes.
func AppendHeader(dst []byte, n int) []byte {
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, "\r\n\r\n"...)
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
