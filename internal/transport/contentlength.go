package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ContentLengthReader reads Content-Length framed messages (LSP). Header names are
// case-insensitive, lines end in \r\n or a bare \n, Content-Type is ignored.
//
// A Content-Length is trusted, as vscode-jsonrpc trusts it: on a stream a short body cannot
// be told from a slow sender, so the reader waits for that many bytes, and they are the
// body whatever they hold.
//   - A length over the limit is reported ([ErrTooLarge]) at once, and that many bytes are
//     then discarded as they arrive, through the bufio buffer only, never held.
//   - A body within the limit that is not JSON (the front end answers it with a parse error)
//     is searched for a complete header block (headerIndex): a length larger than the
//     bytes the client meant swallows its next messages into the body, so the bytes from
//     that block on are read again as input, after the body has been answered. A body that
//     is JSON is never searched (it may quote a header). A body cut short by the end of the
//     input is searched the same way.
//   - A header block without a valid Content-Length is reported ([*BadHeaderError]) and the
//     reader resynchronises at the next line that contains "Content-Length:", wherever it
//     starts on that line.
type ContentLengthReader struct {
	r   *bufio.Reader
	src *replayReader
	max int
	// resync is set after a bad header block: skip to the next Content-Length line.
	resync bool
	// skip is the number of bytes of an oversized body still to discard.
	skip int
}

// NewContentLengthReader reads from in through a buffer of size bytes.
func NewContentLengthReader(in io.Reader, size, max int) *ContentLengthReader {
	src := &replayReader{r: in}
	return &ContentLengthReader{r: bufio.NewReaderSize(src, size), src: src, max: max}
}

// replayReader serves bytes handed back by the LSP reader (the part of a bad body from a
// header on) before the rest of the input.
type replayReader struct {
	replay []byte
	r      io.Reader
}

func (p *replayReader) Read(b []byte) (int, error) {
	if len(p.replay) > 0 {
		n := copy(b, p.replay)
		p.replay = p.replay[n:]
		if len(p.replay) == 0 {
			p.replay = nil
		}
		return n, nil
	}
	return p.r.Read(b)
}

// again makes b the next bytes read, ahead of what the buffer holds.
func (l *ContentLengthReader) again(b []byte) {
	buffered, _ := l.r.Peek(l.r.Buffered())
	replay := make([]byte, 0, len(b)+len(buffered)+len(l.src.replay))
	replay = append(append(append(replay, b...), buffered...), l.src.replay...)
	l.src.replay = replay
	l.r.Reset(l.src)
}

// Next implements [Reader]. The message returned is the caller's.
func (l *ContentLengthReader) Next() ([]byte, error) {
	if l.skip > 0 {
		n := l.skip
		l.skip = 0
		if _, err := l.r.Discard(n); err != nil {
			return nil, err
		}
	}
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
			return nil, &BadHeaderError{fmt.Sprintf("malformed header line %q", truncate(string(line), 80))}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				l.resync = true
				return nil, &BadHeaderError{fmt.Sprintf("invalid Content-Length %q", strings.TrimSpace(value))}
			}
			length = n
		}
	}
	if length < 0 {
		l.resync = true
		return nil, &BadHeaderError{"missing Content-Length header"}
	}
	if length > l.max {
		l.skip = length
		return nil, ErrTooLarge
	}
	body := make([]byte, length)
	n, err := io.ReadFull(l.r, body)
	cut := errors.Is(err, io.ErrUnexpectedEOF) // the input ended within the body
	if err != nil && !cut {
		return nil, err
	}
	body = body[:n]
	if i := headerIndex(body); i >= 0 && (cut || !utf8.Valid(body) || !json.Valid(body)) {
		l.again(body[i:])
		return body, nil
	}
	if cut {
		return nil, io.ErrUnexpectedEOF
	}
	return body, nil
}

// contentLength is the header name the reader resynchronises on, in lower case.
const contentLength = "content-length:"

// headerIndex is the offset in b of the first complete header block: a "Content-Length: N"
// line (in any case, starting anywhere on its line) with a valid N, then header lines up to
// an empty line, all within b; -1 if there is none. Only such a block is taken for a
// message swallowed into a body, so a body that merely mentions the header is not.
func headerIndex(b []byte) int {
	for off := 0; off < len(b); {
		i := bytes.IndexByte(b[off:], ':')
		if i < 0 {
			return -1
		}
		end := off + i + 1
		off = end
		start := end - len(contentLength)
		if start < 0 || !bytes.EqualFold(b[start:end], []byte(contentLength)) {
			continue
		}
		if completeHeaderBlock(b[start:]) {
			return start
		}
	}
	return -1
}

// completeHeaderBlock reports whether b starts with a header block whose first line is a
// valid Content-Length and which ends with an empty line within b.
func completeHeaderBlock(b []byte) bool {
	for first := true; ; first = false {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return false
		}
		line := bytes.TrimSuffix(b[:nl], []byte("\r"))
		b = b[nl+1:]
		if len(line) == 0 {
			return !first
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return false
		}
		if first {
			if n, err := strconv.Atoi(string(bytes.TrimSpace(value))); err != nil || n < 0 {
				return false
			}
		} else if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			return false // a second length: not a block this reader would take either
		}
	}
}

// readLine reads one header line without its line ending; header lines are short, and a
// very long one is cut.
func (l *ContentLengthReader) readLine() ([]byte, error) {
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
