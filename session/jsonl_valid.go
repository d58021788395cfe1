package session

import "github.com/pi-rpc/pi-rpc/internal/jsonscan"

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

// space skips whitespace.
func (v *validator) space() { v.i = jsonscan.Space(v.b, v.i) }

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

// literal checks the literal word (true, false or null) at v.i.
func (v *validator) literal(word string) bool {
	end, ok := jsonscan.Literal(v.b, v.i, word)
	v.i = end
	return ok
}

// str checks the string starting at v.i (its UTF-8 is not checked, as json.Valid does not).
func (v *validator) str() bool {
	end, _, ok := jsonscan.String(v.b, v.i)
	v.i = end
	return ok
}

// number checks the number starting at v.i.
func (v *validator) number() bool {
	end, ok := jsonscan.Number(v.b, v.i)
	v.i = end
	return ok
}
