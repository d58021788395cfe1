// Package sse reads a server-sent event stream (the WHATWG "text/event-stream" format) as the
// providers under llm/ receive it: the data of each event, one event at a time, without
// copying the body more than once.
//
// The rules, those of the format: a line ends at LF, CR or CRLF; a line starting with ':' is
// a comment; "data" lines are joined with "\n", and a single space after the colon is not
// part of the value; a line without a colon is a field with an empty value; a blank line ends
// an event; a leading byte-order mark is skipped. Events without data (only comments, or only
// "event:", "id:" or "retry:" fields, which this package ignores) are not returned. Unlike a
// browser, a last event that the body ends without a blank line is returned too: some servers
// close the stream right after their final "data: [DONE]".
//
// A line or an event's data longer than the reader's limit fails the stream with
// [ErrTooLarge] rather than growing without bound.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEvent bounds an event's data and each line: far above any chunk a model server
// sends, low enough that a broken server cannot exhaust memory.
const DefaultMaxEvent = 32 << 20

// ErrTooLarge is returned (wrapped, with the limit) for a line or an event over the limit.
var ErrTooLarge = errors.New("server-sent event too large")

// Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	scn  *bufio.Scanner
	max  int
	data []byte
	// skipLF is set when the last line ended with a CR at the end of the buffered bytes: an
	// LF that follows belongs to that line end.
	skipLF bool
	first  bool
	err    error
}

// NewReader returns a reader of r whose lines and event data are at most max bytes (max <= 0
// means [DefaultMaxEvent]).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxEvent
	}
	rd := &Reader{max: max, first: true}
	rd.scn = bufio.NewScanner(r)
	// The buffer starts small and grows to the limit (and the two bytes of a CRLF).
	rd.scn.Buffer(make([]byte, 0, min(4096, max+2)), max+2)
	rd.scn.Split(rd.split)
	return rd
}

// split is a [bufio.SplitFunc] that ends lines at LF, CR or CRLF. A CR is a line end at once,
// so a server that ends lines with CR alone is not held back until its next byte.
func (r *Reader) split(data []byte, atEOF bool) (int, []byte, error) {
	skip := 0
	if r.skipLF && len(data) > 0 {
		r.skipLF = false
		if data[0] == '\n' {
			skip = 1
			data = data[1:]
		}
	}
	i := bytes.IndexByte(data, '\n')
	line := data
	if i >= 0 {
		line = data[:i]
	}
	if j := bytes.IndexByte(line, '\r'); j >= 0 {
		if j+1 < len(data) {
			if data[j+1] == '\n' {
				return skip + j + 2, data[:j], nil
			}
		} else {
			r.skipLF = true
		}
		return skip + j + 1, data[:j], nil
	}
	if i >= 0 {
		return skip + i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return skip + len(data), data, nil
	}
	// Nothing complete yet; an LF skipped above is consumed all the same.
	return skip, nil, nil
}

// Next returns the data of the next event that has any, or an error: [io.EOF] at the clean
// end of the body, [ErrTooLarge] for an oversized line or event, or the body's read error.
// The returned slice is valid until the next call.
func (r *Reader) Next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.data = r.data[:0]
	hasData := false
	for r.scn.Scan() {
		line := r.scn.Bytes()
		if r.first {
			r.first = false
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if len(line) == 0 {
			if hasData {
				return r.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value := line, []byte(nil)
		if k := bytes.IndexByte(line, ':'); k >= 0 {
			name, value = line[:k], line[k+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(name) != "data" {
			continue
		}
		if hasData {
			r.data = append(r.data, '\n')
		}
		if len(r.data)+len(value) > r.max {
			r.err = fmt.Errorf("%w: data over %d bytes", ErrTooLarge, r.max)
			return nil, r.err
		}
		r.data = append(r.data, value...)
		hasData = true
	}
	switch err := r.scn.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		r.err = fmt.Errorf("%w: a line over %d bytes", ErrTooLarge, r.max)
	case err != nil:
		// A failed read: whatever the event had so far is incomplete.
		r.err = err
	default:
		r.err = io.EOF
		if hasData {
			// The body ended cleanly without the blank line after its last event.
			return r.data, nil
		}
	}
	return nil, r.err
}
