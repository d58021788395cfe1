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
		default:
			end, ok := jsonscan.Scalar(v.b, v.i)
			if !ok {
				return false
			}
			v.i = end
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
	end, _, ok := jsonscan.String(v.b, v.i)
	if !ok {
		return false
	}
	v.i = end
	v.space()
	if v.i >= len(v.b) || v.b[v.i] != ':' {
		return false
	}
	v.i++
	v.space()
	return true
}
