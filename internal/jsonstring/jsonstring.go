// Package jsonstring writes Go strings as JSON strings without reflection or allocation, for
// the event encoders' hot path (a streamed reply's deltas) and the hand-built lines of the
// front ends. Its output decodes to what encoding/json's would; the bytes differ only where
// this package is stricter about line-based readers (see [Append]).
package jsonstring

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string. Like encoding/json it replaces invalid UTF-8
// with U+FFFD and escapes U+2028 and U+2029, so no line-based reader ever splits a message;
// unlike it, it leaves <, > and & alone.
func Append(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsControl holds, per control character, the escape JavaScript's JSON.stringify writes.
var jsControl = func() (t [0x20]string) {
	for c := range t {
		t[c] = `\u00` + string(hexDigits[c>>4]) + string(hexDigits[c&0xF])
	}
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = `\b`, `\f`, `\n`, `\r`, `\t`
	return t
}()

// JSControl is the escape JavaScript's JSON.stringify writes for the control character c
// (below 0x20): \b, \f, \n, \r and \t by letter, the others as \u00XX. Text that must match
// pi's byte for byte (a repaired tool-argument string, a summary request's arguments) is
// escaped so; [Append] follows encoding/json, which writes \b and \f as \u0008 and \u000c.
func JSControl(c byte) string { return jsControl[c] }
