package rpc

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pi-rpc/pi-rpc/session"
)

// getEntries' result is written from the entries' lines as the session file holds them
// (docs/benchmarks.md, scenario 7): encoding/json would scan, validate and copy every line
// again (a long session's answer is megabytes), while the lines were validated when the file
// was read and entries made in this process were encoded by encoding/json already. The bytes
// are the ones json.Marshal of protocol.EntriesResult gives: each line compacted, with <, >,
// &, U+2028 and U+2029 escaped as encoding/json escapes them. The result is a
// transport.Body: the writer writes it from the lines into its buffer when the response's
// turn comes, so the answer is never built whole (the lines do not change once read).

// entriesAnswer is getEntries' result (protocol.EntriesResult on the wire), which answers
// the call itself.
type entriesAnswer session.EntriesPage

func (a *entriesAnswer) replyTo(c *call) { c.replyEntries(session.EntriesPage(*a)) }

// replyEntries answers getEntries with the page, written from its lines into the stream.
func (c *call) replyEntries(page session.EntriesPage) {
	if err := checkEntries(page.Entries); err != nil {
		c.fail(err)
		return
	}
	if !c.replied.CompareAndSwap(false, true) {
		return
	}
	if err := c.s.stream.respondBody(c.id.Str, newEntriesResult(page)); err != nil {
		c.s.log.Debug().Err(err).Str("method", c.method).Msg("reply not sent")
	}
}

// checkEntries refuses a page with an empty entry (no valid JSON: the answer would not be).
func checkEntries(entries []json.RawMessage) error {
	for i, e := range entries {
		if len(e) == 0 {
			return fmt.Errorf("cannot encode the result: entry %d of the page is empty", i)
		}
	}
	return nil
}

// entriesResult is the result object of a page of entries (non-empty valid JSON values that
// do not change), written by WriteTo.
type entriesResult struct {
	entries []json.RawMessage
	cursor  []byte // the encoded cursor; nil for none
	// size is the exact length once Size has counted it (-1 before): only a Content-Length
	// header, a batch and the ordered lane's backpressure need it, so a plain NDJSON response
	// scans the lines once, when it is written.
	size int
}

func newEntriesResult(page session.EntriesPage) *entriesResult {
	r := &entriesResult{entries: page.Entries, size: -1}
	if page.NextCursor != "" {
		r.cursor, _ = json.Marshal(page.NextCursor) // a string always encodes
	}
	return r
}

// Size is the length of what WriteTo writes, counted by writing it once to io.Discard the
// first time it is asked for. The transport writer asks under its lock or after taking the
// message under it, so the calls never overlap.
func (r *entriesResult) Size() int {
	if r.size < 0 {
		n, _ := r.WriteTo(io.Discard) // io.Discard does not fail
		r.size = int(n)
	}
	return r.size
}

// WriteTo writes `{"entries":[...],"nextCursor":...}`.
func (r *entriesResult) WriteTo(w io.Writer) (int64, error) {
	o := output{w: w}
	o.write(entriesOpen)
	for i, e := range r.entries {
		if i > 0 {
			o.write(comma)
		}
		o.writeCompactJSON(e)
	}
	o.write(entriesClose)
	if r.cursor != nil {
		o.write(cursorKey)
		o.write(r.cursor)
	}
	o.write(closeBrace)
	return o.n, o.err
}

var (
	entriesOpen  = []byte(`{"entries":[`)
	entriesClose = []byte(`]`)
	cursorKey    = []byte(`,"nextCursor":`)
	comma        = []byte(`,`)
)

// output counts what it writes to w and keeps the first error, after which it writes nothing.
type output struct {
	w   io.Writer
	n   int64
	err error
}

func (o *output) write(b []byte) {
	if o.err != nil || len(b) == 0 {
		return
	}
	k, err := o.w.Write(b)
	o.n += int64(k)
	o.err = err
}

// jsonSpecial marks the bytes writeCompactJSON looks at: inside a string the quote, the
// backslash and what encoding/json escapes; outside, whitespace too.
var jsonSpecial = [256]uint8{
	'"': 1, '\\': 1, '<': 1, '>': 1, '&': 1, 0xE2: 1,
	' ': 2, '\t': 2, '\n': 2, '\r': 2,
}

// The escapes encoding/json writes for <, >, &, U+2028 and U+2029.
var (
	escLess      = []byte(`\u003c`)
	escGreater   = []byte(`\u003e`)
	escAmpersand = []byte(`\u0026`)
	escLineSep   = []byte(`\u2028`)
	escParaSep   = []byte(`\u2029`)
)

// writeCompactJSON writes the valid JSON value src as encoding/json compacts a
// json.Marshaler's output with HTML escaping on: whitespace between tokens dropped, <, > and &
// written as \u003c, \u003e and \u0026, U+2028 and U+2029 as \u2028 and \u2029. Runs of plain
// bytes are written at once, so a line that needs nothing is one write.
func (o *output) writeCompactJSON(src []byte) {
	inString := false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		k := jsonSpecial[c]
		if k == 0 || (k == 2 && inString) {
			continue
		}
		switch c {
		case '"':
			inString = !inString
		case '\\':
			i++ // the escaped byte (valid JSON: never past the end)
		case '<', '>', '&':
			o.write(src[start:i])
			switch c {
			case '<':
				o.write(escLess)
			case '>':
				o.write(escGreater)
			default:
				o.write(escAmpersand)
			}
			start = i + 1
		case 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
				o.write(src[start:i])
				if src[i+2] == 0xA8 {
					o.write(escLineSep)
				} else {
					o.write(escParaSep)
				}
				start = i + 3
				i += 2
			}
		default: // whitespace outside a string
			o.write(src[start:i])
			start = i + 1
		}
	}
	o.write(src[start:])
}
