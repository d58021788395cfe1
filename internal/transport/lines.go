package transport

import (
	"bufio"
	"errors"
	"io"
)

// LineReader reads newline-delimited messages. Only LF separates messages (U+2028 and
// U+2029 do not); one trailing CR is dropped; a last line without LF is read at EOF.
//
// A line's length is not known before its end, so a line is held until it ends or passes
// the limit, and no further: a line over the limit is reported ([ErrTooLarge]) as soon as
// it passes it, and the rest of it is discarded as it arrives, at the start of the next
// call, through the bufio buffer only. The bytes held are kept in blocks, not in a slice
// grown by copying, so an oversized line costs the limit at most, not a multiple of it.
type LineReader struct {
	r   *bufio.Reader
	max int
	// skipping is set when an oversized line was reported before its end: the next call
	// discards up to its LF first.
	skipping bool
}

// NewLineReader reads lines of at most max bytes (without the line ending) from in.
func NewLineReader(in io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(in, readBuffer), max: max}
}

// Next implements [Reader]. The message returned is the caller's.
func (l *LineReader) Next() ([]byte, error) {
	if l.skipping {
		l.skipping = false
		if err := l.skipLine(); err != nil {
			return nil, err
		}
	}
	var blocks [][]byte
	held := 0
	for {
		chunk, err := l.r.ReadSlice('\n')
		if held+len(chunk) > l.max+2 { // +2: the line ending is not part of the message
			l.skipping = errors.Is(err, bufio.ErrBufferFull)
			return nil, tooLarge(blocks, chunk)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			blocks = append(blocks, append([]byte(nil), chunk...))
			held += len(chunk)
			continue
		case err == nil, errors.Is(err, io.EOF) && held+len(chunk) > 0:
			msg := make([]byte, 0, held+len(chunk))
			for _, b := range blocks {
				msg = append(msg, b...)
			}
			msg = trimEOL(append(msg, chunk...))
			if len(msg) > l.max {
				return nil, tooLarge(nil, msg)
			}
			return msg, nil
		default:
			return nil, err
		}
	}
}

// tooLarge reports an oversized line with its first bytes, from the held blocks and chunk.
func tooLarge(blocks [][]byte, chunk []byte) *TooLargeError {
	var head []byte
	for _, b := range append(blocks, chunk) {
		if len(head) == headBytes {
			break
		}
		head = append(head, b[:min(len(b), headBytes-len(head))]...)
	}
	return &TooLargeError{Head: trimEOL(head)}
}

// skipLine discards the rest of an oversized line without keeping it. The end of the input
// ends the line.
func (l *LineReader) skipLine() error {
	for {
		_, err := l.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return err
	}
}
