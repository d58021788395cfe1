package core

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PartialJSON parses a JSON object that arrives in fragments, such as streamed tool-call
// arguments, so that the arguments parsed so far are always at hand without reparsing the
// whole prefix after every fragment (which made a long tool call quadratic).
//
// After any sequence of Writes whose concatenation is s, Value returns a value deeply equal to
// ParsePartialJSON(s). The common case, a well-formed object cut into arbitrary fragments
// (even inside escapes and UTF-8 sequences), is parsed incrementally: a stack of the open
// objects and arrays is kept, strings grow in a strings.Builder whose String() shares its
// bytes, and each Write costs time proportional to its own length. As soon as the text stops
// being a prefix of a JSON object (garbage, raw control characters, invalid escapes, trailing
// data, numbers out of float64 range) ParsePartialJSON's repairs may apply, so the parser
// falls back for good to calling ParsePartialJSON on the accumulated text, which it keeps for
// that purpose.
//
// The zero value is ready to use. A PartialJSON must not be copied after the first Write and
// is not safe for concurrent use.
type PartialJSON struct {
	text strings.Builder // every byte written, for the fallback

	// fallback is set once the text is no longer a JSON prefix; fbVal caches
	// ParsePartialJSON(text) and fbStale says it needs recomputing.
	fallback bool
	fbStale  bool
	fbVal    map[string]any

	state pjState
	root  map[string]any
	stack []pjFrame
	// slotSet records whether the value being read has been stored in the innermost array
	// (stored values of an object need no such record: the key is simply assigned again).
	slotSet bool
	// dirtyFrom is at most the lowest stack index whose array may have grown since its header
	// was last stored in its parent (appending to a slice changes the header the parent
	// holds); 0 in the zero value.
	dirtyFrom int
	// pending says the string or number being read has changed since Value last stored it.
	pending bool

	// The string being read: its decoded bytes so far, whether it is a key, the escape in
	// progress (esc 0: none, 1: after the backslash, 2-5: after \u and esc-2 hex digits, with
	// their value in hex), a high surrogate that waits for its low half, and the UTF-8
	// sequence in progress (u8need continuation bytes to come, the next in u8lo..u8hi).
	sb         strings.Builder
	isKey      bool
	esc        uint8
	hex        rune
	hi         rune
	u8need     uint8
	u8lo, u8hi byte
	badUTF8    bool // json.Unmarshal would replace invalid UTF-8; the partial parse keeps it
	tok        []byte
	num        numState
	lit        string // the literal being read: "true", "false" or "null"
	litV       any
}

type pjState uint8

const (
	pjTop           pjState = iota // before the top-level '{'
	pjObjKeyOrEnd                  // after '{'
	pjObjKey                       // after ',' in an object
	pjColon                        // after a key
	pjObjValue                     // after ':'
	pjArrValueOrEnd                // after '['
	pjArrValue                     // after ',' in an array
	pjAfterValue                   // after a value: ',' or the container's end
	pjString
	pjNumber
	pjLiteral
	pjDone // after the top-level '}'
)

// numState follows JSON's number grammar; only the states marked final may end a number.
type numState uint8

const (
	numMinus   numState = iota // "-"
	numZero                    // "0", "-0" (final)
	numInt                     // integer digits (final)
	numDot                     // "1."
	numFrac                    // fraction digits (final)
	numExp                     // "1e"
	numExpSign                 // "1e+"
	numExpInt                  // exponent digits (final)
)

// pjFrame is an open container: obj for an object (with key, the key whose value is being
// read) or arr for an array.
type pjFrame struct {
	obj   map[string]any
	arr   []any
	key   string
	dirty bool
}

// Write consumes the next fragment.
func (p *PartialJSON) Write(fragment string) {
	if fragment == "" {
		return
	}
	p.text.WriteString(fragment)
	if p.fallback {
		p.fbStale = true
		return
	}
	if !p.scan(fragment) {
		p.fail()
	}
}

// Value returns what ParsePartialJSON returns for everything written so far. On the
// incremental path the result is the parser's live object: it is valid until the next Write,
// which may modify it, and the caller must not modify it. Callers that keep the value past
// the next Write must copy it.
func (p *PartialJSON) Value() map[string]any {
	if !p.fallback {
		if p.flush() {
			return p.root
		}
		p.fail()
	}
	if p.fbStale {
		p.fbVal = ParsePartialJSON(p.text.String())
		p.fbStale = false
	}
	return p.fbVal
}

// complete returns the text written so far and whether it is exactly one JSON object (with
// surrounding whitespace), as read without any repair.
func (p *PartialJSON) complete() (string, bool) {
	return p.text.String(), !p.fallback && p.state == pjDone
}

// fail switches to the fallback for good and drops the incremental state.
func (p *PartialJSON) fail() {
	p.fallback = true
	p.fbStale = true
	p.root = nil
	p.stack = nil
	p.sb = strings.Builder{}
	p.tok = nil
}

// flush stores the string or number being read and the grown arrays into their parents. It
// reports false if a number is out of float64 range (ParsePartialJSON then fails as a whole).
func (p *PartialJSON) flush() bool {
	if p.root == nil {
		p.root = map[string]any{}
	}
	if p.pending {
		p.pending = false
		switch p.state {
		case pjString:
			if !p.isKey {
				s := p.sb.String()
				if p.hi != 0 {
					// ParsePartialJSON shows a high surrogate whose low half has not been seen as
					// U+FFFD; it may still become a pair, so it is not written to sb. This copy is
					// the one place a Write can cost more than its own length.
					s += string(utf8.RuneError)
				}
				p.setSlot(s)
			}
		case pjNumber:
			text := strings.TrimRight(string(p.tok), "+-.eE")
			if text != "" { // nothing parseable yet: dropped, as an unfinished literal is
				f, err := strconv.ParseFloat(text, 64)
				if err != nil {
					return false
				}
				p.setSlot(f)
			}
		}
	}
	for i := len(p.stack) - 1; i >= p.dirtyFrom && i > 0; i-- {
		if p.stack[i].dirty {
			p.storeArr(i)
		}
	}
	p.dirtyFrom = math.MaxInt
	return true
}

// setSlot stores v as the value being read in the innermost container.
func (p *PartialJSON) setSlot(v any) {
	i := len(p.stack) - 1
	f := &p.stack[i]
	if f.obj != nil {
		f.obj[f.key] = v
		return
	}
	if p.slotSet {
		f.arr[len(f.arr)-1] = v
		return
	}
	f.arr = append(f.arr, v)
	p.slotSet = true
	if !f.dirty {
		f.dirty = true
		p.dirtyFrom = min(p.dirtyFrom, i)
	}
}

// storeArr stores the array of frame i (i > 0) in its parent, where it is the last value.
func (p *PartialJSON) storeArr(i int) {
	f := &p.stack[i]
	f.dirty = false
	parent := &p.stack[i-1]
	if parent.obj != nil {
		parent.obj[parent.key] = f.arr
	} else {
		parent.arr[len(parent.arr)-1] = f.arr
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scan advances the incremental parse over s; it reports false once the text is no longer
// a prefix of a JSON object.
func (p *PartialJSON) scan(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch p.state {
		case pjString:
			if p.esc == 0 && p.u8need == 0 {
				j := i
				for j < len(s) {
					c := s[j]
					if c < utf8.RuneSelf {
						if c < 0x20 || c == '"' || c == '\\' {
							break
						}
						j++
						continue
					}
					r, size := utf8.DecodeRuneInString(s[j:])
					if r == utf8.RuneError && size == 1 {
						break // invalid or cut off: byte by byte below
					}
					j += size
				}
				if j > i {
					p.flushHigh()
					p.sb.WriteString(s[i:j])
					p.pending = true
					i = j
					continue
				}
			}
			if !p.stringByte(c) {
				return false
			}
			i++
		case pjNumber:
			if p.numByte(c) {
				p.pending = true
				i++
				continue
			}
			if !p.endNumber() {
				return false
			}
			// c is read again after the number.
		case pjLiteral:
			n := len(p.tok)
			if c != p.lit[n] {
				return false
			}
			p.tok = append(p.tok, c)
			if n+1 == len(p.lit) {
				p.setSlot(p.litV)
				p.state = pjAfterValue
			}
			i++
		default:
			if isJSONSpace(c) {
				i++
				continue
			}
			if !p.structural(c) {
				return false
			}
			i++
		}
	}
	return true
}

// structural handles a non-space byte outside strings, numbers and literals.
func (p *PartialJSON) structural(c byte) bool {
	switch p.state {
	case pjTop:
		if c != '{' {
			return false
		}
		if p.root == nil {
			p.root = map[string]any{}
		}
		p.stack = append(p.stack, pjFrame{obj: p.root})
		p.state = pjObjKeyOrEnd
		return true
	case pjObjKeyOrEnd, pjObjKey:
		if c == '"' {
			p.startString(true)
			return true
		}
		if c == '}' && p.state == pjObjKeyOrEnd {
			p.closeContainer()
			return true
		}
		return false
	case pjColon:
		if c != ':' {
			return false
		}
		p.state = pjObjValue
		return true
	case pjObjValue, pjArrValue:
		return p.startValue(c)
	case pjArrValueOrEnd:
		if c == ']' {
			p.closeContainer()
			return true
		}
		return p.startValue(c)
	case pjAfterValue:
		f := &p.stack[len(p.stack)-1]
		switch {
		case c == ',' && f.obj != nil:
			p.state = pjObjKey
		case c == ',':
			p.state = pjArrValue
		case c == '}' && f.obj != nil, c == ']' && f.obj == nil:
			p.closeContainer()
		default:
			return false
		}
		return true
	}
	return false // pjDone: trailing data
}

func (p *PartialJSON) startValue(c byte) bool {
	p.slotSet = false
	switch {
	case c == '"':
		p.startString(false)
		p.pending = true // an empty string is already a value
	case c == '{':
		m := map[string]any{}
		p.setSlot(m)
		p.stack = append(p.stack, pjFrame{obj: m})
		p.state = pjObjKeyOrEnd
	case c == '[':
		a := []any{}
		p.setSlot(a)
		p.stack = append(p.stack, pjFrame{arr: a})
		p.state = pjArrValueOrEnd
	case c == '-':
		p.startNumber(c, numMinus)
	case c == '0':
		p.startNumber(c, numZero)
	case c >= '1' && c <= '9':
		p.startNumber(c, numInt)
	case c == 't':
		p.startLiteral(c, "true", true)
	case c == 'f':
		p.startLiteral(c, "false", false)
	case c == 'n':
		p.startLiteral(c, "null", nil)
	default:
		return false
	}
	return true
}

func (p *PartialJSON) closeContainer() {
	i := len(p.stack) - 1
	if p.stack[i].dirty {
		p.storeArr(i)
	}
	p.stack[i] = pjFrame{}
	p.stack = p.stack[:i]
	if i > 0 {
		p.state = pjAfterValue
		return
	}
	p.state = pjDone
	if p.badUTF8 {
		// The text is complete JSON, which ParsePartialJSON decodes with json.Unmarshal,
		// replacing invalid UTF-8 with U+FFFD.
		p.fail()
	}
}

func (p *PartialJSON) startString(isKey bool) {
	p.sb = strings.Builder{} // earlier strings keep the old builder's bytes
	p.isKey = isKey
	p.esc, p.hi, p.u8need = 0, 0, 0
	p.state = pjString
}

func (p *PartialJSON) endString() {
	p.flushHigh()
	s := p.sb.String()
	p.pending = false
	if p.isKey {
		p.stack[len(p.stack)-1].key = s
		p.state = pjColon
		return
	}
	p.setSlot(s)
	p.state = pjAfterValue
}

// flushHigh writes a high surrogate that turned out to be alone as U+FFFD.
func (p *PartialJSON) flushHigh() {
	if p.hi != 0 {
		p.sb.WriteRune(utf8.RuneError)
		p.hi = 0
	}
}

// stringByte reads one byte of a string the slow way: escapes, UTF-8 sequences that are
// cut off or invalid, and the closing quote.
func (p *PartialJSON) stringByte(c byte) bool {
	p.pending = true
	switch {
	case p.esc == 1:
		var d byte
		switch c {
		case '"', '\\', '/':
			d = c
		case 'b':
			d = '\b'
		case 'f':
			d = '\f'
		case 'n':
			d = '\n'
		case 'r':
			d = '\r'
		case 't':
			d = '\t'
		case 'u':
			p.esc, p.hex = 2, 0
			return true
		default:
			return false
		}
		p.esc = 0
		p.flushHigh()
		p.sb.WriteByte(d)
		return true
	case p.esc > 1:
		h := hexDigit(c)
		if h < 0 {
			return false
		}
		p.hex = p.hex<<4 | h
		if p.esc++; p.esc < 6 {
			return true
		}
		p.esc = 0
		p.escapedRune(p.hex)
		return true
	}
	if p.u8need > 0 {
		if c >= p.u8lo && c <= p.u8hi {
			p.u8need--
			p.u8lo, p.u8hi = 0x80, 0xBF
			p.sb.WriteByte(c)
			return true
		}
		p.badUTF8 = true
		p.u8need = 0
	}
	switch {
	case c == '"':
		p.endString()
	case c == '\\':
		p.esc = 1
	case c < 0x20:
		return false
	default:
		p.flushHigh()
		if c >= utf8.RuneSelf {
			p.utf8Start(c)
		}
		p.sb.WriteByte(c)
	}
	return true
}

// escapedRune writes the rune of a \u escape, pairing surrogates as ParsePartialJSON and
// json.Unmarshal do: a high surrogate followed by a low one is one rune; any other surrogate
// is U+FFFD.
func (p *PartialJSON) escapedRune(r rune) {
	if p.hi != 0 {
		if utf16IsLow(r) {
			p.sb.WriteRune((p.hi-0xD800)<<10 + (r - 0xDC00) + 0x10000)
			p.hi = 0
			return
		}
		p.flushHigh()
	}
	switch {
	case utf16IsHigh(r):
		p.hi = r
	case utf16IsLow(r):
		p.sb.WriteRune(utf8.RuneError)
	default:
		p.sb.WriteRune(r)
	}
}

// utf8Start begins a multi-byte sequence at lead byte c, setting the range of the next byte
// as utf8.DecodeRune requires (no overlong forms, surrogates or runes past U+10FFFF).
func (p *PartialJSON) utf8Start(c byte) {
	p.u8lo, p.u8hi = 0x80, 0xBF
	switch {
	case c >= 0xC2 && c <= 0xDF:
		p.u8need = 1
	case c == 0xE0:
		p.u8need, p.u8lo = 2, 0xA0
	case c == 0xED:
		p.u8need, p.u8hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		p.u8need = 2
	case c == 0xF0:
		p.u8need, p.u8lo = 3, 0x90
	case c == 0xF4:
		p.u8need, p.u8hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		p.u8need = 3
	default:
		p.badUTF8 = true
	}
}

func hexDigit(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

func (p *PartialJSON) startNumber(c byte, s numState) {
	p.tok = append(p.tok[:0], c)
	p.num = s
	p.state = pjNumber
	p.pending = true
}

// numByte extends the number with c if the grammar allows it.
func (p *PartialJSON) numByte(c byte) bool {
	digit := c >= '0' && c <= '9'
	next := p.num
	switch p.num {
	case numMinus:
		switch {
		case c == '0':
			next = numZero
		case digit:
			next = numInt
		default:
			return false
		}
	case numZero, numInt:
		switch {
		case digit && p.num == numInt:
		case c == '.':
			next = numDot
		case c == 'e' || c == 'E':
			next = numExp
		default:
			return false
		}
	case numDot, numFrac:
		switch {
		case digit:
			next = numFrac
		case (c == 'e' || c == 'E') && p.num == numFrac:
			next = numExp
		default:
			return false
		}
	case numExp:
		switch {
		case c == '+' || c == '-':
			next = numExpSign
		case digit:
			next = numExpInt
		default:
			return false
		}
	case numExpSign, numExpInt:
		if !digit {
			return false
		}
		next = numExpInt
	}
	p.num = next
	p.tok = append(p.tok, c)
	return true
}

// endNumber finishes the number at a byte that cannot continue it.
func (p *PartialJSON) endNumber() bool {
	switch p.num {
	case numZero, numInt, numFrac, numExpInt:
	default:
		return false
	}
	f, err := strconv.ParseFloat(string(p.tok), 64)
	if err != nil {
		return false
	}
	p.setSlot(f)
	p.pending = false
	p.state = pjAfterValue
	return true
}

func (p *PartialJSON) startLiteral(c byte, lit string, v any) {
	p.tok = append(p.tok[:0], c)
	p.lit, p.litV = lit, v
	p.state = pjLiteral
}
