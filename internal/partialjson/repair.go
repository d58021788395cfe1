package partialjson

import (
	"strings"

	"github.com/pi-rpc/pi-rpc/internal/jsonstring"
)

// repairJSON escapes raw control characters inside strings and doubles backslashes that
// start invalid escapes (pi's repairJson). It is the one pass over JSON text of our own: it
// rewrites text that is not JSON (which every JSON library refuses, and none repairs) into
// text that is, so that the library can read it; it tells a string's bytes from the rest
// by its quotes and backslashes only, and decodes nothing.
func repairJSON(s string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '"':
			inString = false
			b.WriteByte(c)
		case c == '\\':
			if i+1 < len(s) && validEscape(s, i+1) {
				b.WriteByte(c)
				b.WriteByte(s[i+1])
				i++
			} else if i+1 < len(s) {
				b.WriteString(`\\`)
			} else {
				b.WriteByte(c)
			}
		case c < 0x20:
			b.WriteString(jsonstring.JSControl(c))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func validEscape(s string, i int) bool {
	switch s[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if i+5 > len(s) {
			return i+1 == len(s) || isHexPrefix(s[i+1:])
		}
		return isHexPrefix(s[i+1 : i+5])
	}
	return false
}

func isHexPrefix(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		isHex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		if !isHex {
			return false
		}
	}
	return true
}
