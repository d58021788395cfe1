package session

// validJSON reports whether b is one valid JSON value with optional surrounding whitespace,
// exactly as json.Valid does (the same grammar, no UTF-8 check, nesting at most 10,000 deep),
// in one tight pass: opening a large session checks every line, and json.Valid's scanner
// (a function call per byte) was most of the open's time (docs/benchmarks.md).
func validJSON(b []byte) bool {
	var stack []byte
	return validJSONWith(b, &stack)
}

// validJSONWith is validJSON with a stack kept between calls (a loader's scratch), so that
// checking a line allocates nothing.
func validJSONWith(b []byte, stack *[]byte) bool {
	v := validator{b: b, stack: (*stack)[:0]}
	v.space()
	ok := v.value()
	*stack = v.stack
	if !ok {
		return false
	}
	v.space()
	return v.i == len(b)
}

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

type validator struct {
	b []byte
	i int
	// stack holds the open containers, '{' or '['.
	stack []byte
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// value checks one value and what it contains, iteratively (no recursion, whatever the
// depth).
func (v *validator) value() bool {
	base := len(v.stack)
	for {
		// A value starts here.
		if v.i >= len(v.b) {
			return false
		}
		switch c := v.b[v.i]; c {
		case '{', '[':
			if len(v.stack) >= maxJSONDepth {
				return false
			}
			v.stack = append(v.stack, c)
			v.i++
			v.space()
			if v.i < len(v.b) && v.b[v.i] == closerOf(c) {
				v.i++
				v.stack = v.stack[:len(v.stack)-1]
				break
			}
			if c == '{' && !v.key() {
				return false
			}
			continue
		case '"':
			if !v.str() {
				return false
			}
		case 't':
			if !v.literal("true") {
				return false
			}
		case 'f':
			if !v.literal("false") {
				return false
			}
		case 'n':
			if !v.literal("null") {
				return false
			}
		default:
			if !v.number() {
				return false
			}
		}
		// After a value: close containers or go on to the next element.
		for {
			if len(v.stack) == base {
				return true
			}
			v.space()
			if v.i >= len(v.b) {
				return false
			}
			top := v.stack[len(v.stack)-1]
			c := v.b[v.i]
			if c == closerOf(top) {
				v.i++
				v.stack = v.stack[:len(v.stack)-1]
				continue
			}
			if c != ',' {
				return false
			}
			v.i++
			v.space()
			if top == '{' && !v.key() {
				return false
			}
			break
		}
	}
}

func closerOf(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// key checks an object key and its colon, leaving v at the value.
func (v *validator) key() bool {
	if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
		return false
	}
	v.space()
	if v.i >= len(v.b) || v.b[v.i] != ':' {
		return false
	}
	v.i++
	v.space()
	return true
}

func (v *validator) literal(word string) bool {
	if len(v.b)-v.i < len(word) || string(v.b[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

// str checks the string starting at v.i.
func (v *validator) str() bool {
	b := v.b
	i := v.i + 1
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			v.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			i++
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(b)-i < 5 {
					return false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return false
					}
				}
				i += 5
			default:
				return false
			}
		default:
			i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	b, i := v.b, v.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	v.i = i
	return true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
