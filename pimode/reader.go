package pimode

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads pi's framing: records end at LF (0x0A) only, one trailing CR is
// stripped, U+2028 and U+2029 are ordinary characters, and a final line without LF is a
// record at EOF. A line longer than max is skipped up to its LF and reported as too long,
// so one bad line costs one error response, never the connection.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line (valid until the following call). tooLong reports a line over
// the limit, whose content is dropped. err is io.EOF after the last line, or a read error.
func (r *lineReader) next() (line []byte, tooLong bool, err error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			if len(r.buf)+len(chunk) > r.max+2 { // +2: the LF and an optional CR
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) && (len(r.buf) > 0 || tooLong) {
				return trimLine(r.buf), tooLong, nil
			}
			return nil, false, err
		}
		line = trimLine(r.buf)
		if !tooLong && len(line) > r.max {
			tooLong = true
		}
		return line, tooLong, nil
	}
}

func trimLine(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
