package tools

import "unicode/utf8"

// sanitizer turns a command's raw output stream into text a model and a JSON client can
// take: ANSI escape sequences and carriage returns are removed, other control characters and
// invalid UTF-8 are dropped. It is streaming: an escape sequence or a UTF-8 character split
// across two reads is held back until the next one.
type sanitizer struct {
	pending []byte
}

// maxPendingEscape bounds how long an unterminated escape sequence is held back; past it the
// bytes are treated as ordinary (and mostly dropped) output.
const maxPendingEscape = 256

func (s *sanitizer) write(p []byte, final bool) []byte {
	buf := p
	if len(s.pending) > 0 {
		buf = append(s.pending, p...)
		s.pending = nil
	}
	out := make([]byte, 0, len(buf))
	for i := 0; i < len(buf); {
		c := buf[i]
		switch {
		case c == 0x1b:
			n, complete := escapeLen(buf[i:])
			if !complete {
				if !final && len(buf)-i <= maxPendingEscape {
					s.pending = append([]byte(nil), buf[i:]...)
					return out
				}
				n = 1
			}
			i += n
		case c == '\n' || c == '\t':
			out = append(out, c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < 0x80:
			out = append(out, c)
			i++
		default:
			if !utf8.FullRune(buf[i:]) && !final {
				s.pending = append([]byte(nil), buf[i:]...)
				return out
			}
			r, n := utf8.DecodeRune(buf[i:])
			if r != utf8.RuneError || n > 1 {
				if r < 0xA0 && r >= 0x80 { // C1 controls
					i += n
					continue
				}
				out = append(out, buf[i:i+n]...)
			}
			i += n
		}
	}
	return out
}

// escapeLen measures the escape sequence at the start of b (b[0] is ESC). complete is false
// when b ends before the sequence does.
func escapeLen(b []byte) (n int, complete bool) {
	if len(b) < 2 {
		return 0, false
	}
	switch b[1] {
	case '[': // CSI: parameters, intermediates, one final byte
		for j := 2; j < len(b); j++ {
			c := b[j]
			switch {
			case c >= 0x30 && c <= 0x3f, c >= 0x20 && c <= 0x2f:
			case c >= 0x40 && c <= 0x7e:
				return j + 1, true
			default:
				return j, true // malformed: drop what was read
			}
		}
		return 0, false
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: up to BEL or ST
		for j := 2; j < len(b); j++ {
			if b[j] == 0x07 && b[1] == ']' {
				return j + 1, true
			}
			if b[j] == 0x1b {
				if j+1 >= len(b) {
					return 0, false
				}
				if b[j+1] == '\\' {
					return j + 2, true
				}
			}
		}
		return 0, false
	case '(', ')', '*', '+', '#', '%':
		if len(b) < 3 {
			return 0, false
		}
		return 3, true
	default:
		return 2, true
	}
}
