package jsonscan

import "unicode/utf8"

// Space returns the index of the first byte at or after i that is not JSON whitespace
// (space, tab, newline, carriage return).
func Space(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// Scalar returns the end of the value at b[i] that is not an object or an array: a string,
// true, false, null or a number.
func Scalar(b []byte, i int) (end int, ok bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		end, _, ok = String(b, i)
		return end, ok
	case 't':
		return Literal(b, i, "true")
	case 'f':
		return Literal(b, i, "false")
	case 'n':
		return Literal(b, i, "null")
	default:
		return Number(b, i)
	}
}

// Literal reports whether word (true, false or null) stands at b[i], and where it ends.
func Literal(b []byte, i int, word string) (end int, ok bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// Number returns the end of the number of JSON's grammar at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. What follows it is not checked (a
// parser's next token decides whether "01" or "1x" is an error).
func Number(b []byte, i int) (end int, ok bool) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = Digits(b, i)
	default:
		return start, false
	}
	if i < len(b) && b[i] == '.' {
		j := Digits(b, i+1)
		if j == i+1 {
			return start, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := Digits(b, i)
		if j == i {
			return start, false
		}
		i = j
	}
	return i, true
}

// Digits returns the index of the first byte at or after i that is not an ASCII digit.
func Digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// StringFlags says what a string token holds beyond plain ASCII text.
type StringFlags uint8

const (
	// Escaped: the string has backslash escapes (its text is not its bytes).
	Escaped StringFlags = 1 << iota
	// NonASCII: the string has bytes outside ASCII, which may not be valid UTF-8
	// (encoding/json's Valid accepts them; its Unmarshal turns invalid ones into U+FFFD).
	NonASCII
)

// String returns the end (just after the closing quote) of the string token at b[i], and
// what it holds. It is a string as encoding/json's scanner sees one: no control character
// below U+0020, escapes only of \" \\ \/ \b \f \n \r \t and \u with four hex digits. UTF-8
// is not checked here: see NonASCII.
func String(b []byte, i int) (end int, flags StringFlags, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return i, 0, false
	}
	for j := i + 1; j < len(b); {
		// Plain text, the bulk of a string, in a tight loop (over a subslice, which spares
		// the loop its bounds checks).
		text := b[j:]
		n := 0
		for n < len(text) && !stringSpecial[text[n]] {
			n++
		}
		j += n
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, flags, true
		case c == '\\':
			flags |= Escaped
			if j+1 >= len(b) {
				return i, 0, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !IsHex(b[j+2]) || !IsHex(b[j+3]) || !IsHex(b[j+4]) || !IsHex(b[j+5]) {
					return i, 0, false
				}
				j += 6
			default:
				return i, 0, false
			}
		case c < 0x20:
			return i, 0, false
		default:
			flags |= NonASCII
			j++
		}
	}
	return i, 0, false
}

// stringSpecial marks the bytes that end a run of plain string text: the quote, the
// backslash, control characters and bytes outside ASCII.
var stringSpecial = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
