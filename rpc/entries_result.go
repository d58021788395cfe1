package rpc

import (
	"encoding/json"
	"fmt"

	"github.com/pi-rpc/pi-rpc/session"
)

// getEntries' result is written from the entries' lines as the session file holds them
// (docs/benchmarks.md, scenario 7): encoding/json would scan, validate and copy every line
// again (a long session's answer is megabytes), while the lines were validated when the file
// was read and entries made in this process were encoded by encoding/json already. The bytes
// are the ones json.Marshal of protocol.EntriesResult gives: each line compacted, with <, >,
// &, U+2028 and U+2029 escaped as encoding/json escapes them.

// entriesAnswer is getEntries' result (protocol.EntriesResult on the wire), which answers
// the call itself.
type entriesAnswer session.EntriesPage

func (a *entriesAnswer) replyTo(c *call) { c.replyEntries(session.EntriesPage(*a)) }

// replyEntries answers getEntries with the page, encoded straight into the response.
func (c *call) replyEntries(page session.EntriesPage) {
	if err := checkEntries(page.Entries); err != nil {
		c.fail(err)
		return
	}
	var cursor []byte
	if page.NextCursor != "" {
		cursor, _ = json.Marshal(page.NextCursor) // a string always encodes
	}
	if !c.replied.CompareAndSwap(false, true) {
		return
	}
	size := len(`,"result":{"entries":[],"nextCursor":}`) + len(cursor)
	for _, e := range page.Entries {
		size += len(e) + 1
	}
	size += size / 64 // escapes
	err := c.s.stream.respondWith(int64(c.id.Num), size, func(out []byte) []byte {
		out = append(out, `,"result":`...)
		return appendEntriesResult(out, page.Entries, cursor)
	})
	if err != nil {
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

// appendEntriesResult appends the result object of entries (non-empty valid JSON values) and
// the encoded cursor (nil for none).
func appendEntriesResult(out []byte, entries []json.RawMessage, cursor []byte) []byte {
	out = append(out, `{"entries":[`...)
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendCompactJSON(out, e)
	}
	out = append(out, ']')
	if cursor != nil {
		out = append(out, `,"nextCursor":`...)
		out = append(out, cursor...)
	}
	return append(out, '}')
}

// jsonSpecial marks the bytes appendCompactJSON looks at: inside a string the quote, the
// backslash and what encoding/json escapes; outside, whitespace too.
var jsonSpecial = [256]uint8{
	'"': 1, '\\': 1, '<': 1, '>': 1, '&': 1, 0xE2: 1,
	' ': 2, '\t': 2, '\n': 2, '\r': 2,
}

const hexDigits = "0123456789abcdef"

// appendCompactJSON appends the valid JSON value src as encoding/json compacts a
// json.Marshaler's output with HTML escaping on: whitespace between tokens dropped, <, > and &
// written as \u003c, \u003e and \u0026, U+2028 and U+2029 as \u2028 and \u2029. Runs of plain
// bytes are copied at once, so a line that needs nothing is one copy.
func appendCompactJSON(dst, src []byte) []byte {
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
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		case 0xE2:
			if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
				dst = append(dst, src[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
				start = i + 3
				i += 2
			}
		default: // whitespace outside a string
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
