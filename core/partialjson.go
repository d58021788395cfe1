package core

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParsePartialJSON parses streamed tool-call arguments that may be cut off anywhere (pi-ai's
// parseStreamingJson). Complete JSON parses as usual; otherwise the value is read as far as it
// goes: open strings keep what they have, open objects and arrays close, a key without a value
// is dropped. Raw control characters inside strings and invalid escapes, which some models
// emit, are repaired. The result is always an object; anything unusable gives an empty one.
func ParsePartialJSON(s string) map[string]any {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err == nil && v != nil {
		return v
	}
	if obj, ok := parsePartialObject(s); ok {
		return obj
	}
	if repaired := repairJSON(s); repaired != s {
		if err := json.Unmarshal([]byte(repaired), &v); err == nil && v != nil {
			return v
		}
		if obj, ok := parsePartialObject(repaired); ok {
			return obj
		}
	}
	return map[string]any{}
}

func parsePartialObject(s string) (map[string]any, bool) {
	p := partialParser{s: s}
	p.ws()
	if p.eof() || p.s[p.i] != '{' {
		return nil, false
	}
	v, ok := p.value()
	if !ok {
		return nil, false
	}
	p.ws()
	if !p.eof() {
		return nil, false // trailing garbage: not a prefix of JSON
	}
	obj, isObj := v.(map[string]any)
	return obj, isObj
}

// partialParser reads a JSON prefix. value reports ok=false for input that is not a prefix
// of any JSON text; a value cut off by the end of input is returned as far as it goes, with
// partial set when it is incomplete.
type partialParser struct {
	s       string
	i       int
	partial bool
}

func (p *partialParser) eof() bool { return p.i >= len(p.s) }

func (p *partialParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *partialParser) value() (any, bool) {
	p.ws()
	if p.eof() {
		p.partial = true
		return nil, true
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return p.literal()
	}
}

func (p *partialParser) object() (any, bool) {
	p.i++ // {
	obj := map[string]any{}
	for {
		p.ws()
		if p.eof() {
			p.partial = true
			return obj, true
		}
		if p.s[p.i] == '}' {
			p.i++
			return obj, true
		}
		if p.s[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		if p.partial {
			return obj, true // a key cut off: drop it
		}
		p.ws()
		if p.eof() {
			p.partial = true
			return obj, true
		}
		if p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.ws()
		if p.eof() {
			p.partial = true
			return obj, true
		}
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		if p.partial {
			if v != nil { // an unfinished literal or number is dropped, not kept as null
				obj[k.(string)] = v
			}
			return obj, true
		}
		obj[k.(string)] = v
		p.ws()
		if p.eof() {
			p.partial = true
			return obj, true
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return obj, true
		default:
			return nil, false
		}
	}
}

func (p *partialParser) array() (any, bool) {
	p.i++ // [
	arr := []any{}
	for {
		p.ws()
		if p.eof() {
			p.partial = true
			return arr, true
		}
		if p.s[p.i] == ']' {
			p.i++
			return arr, true
		}
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		if p.partial {
			if v != nil {
				arr = append(arr, v)
			}
			return arr, true
		}
		arr = append(arr, v)
		p.ws()
		if p.eof() {
			p.partial = true
			return arr, true
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return arr, true
		default:
			return nil, false
		}
	}
}

func (p *partialParser) str() (any, bool) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), true
		case c == '\\':
			if p.i+1 >= len(p.s) {
				p.i = len(p.s)
				p.partial = true
				return b.String(), true
			}
			e := p.s[p.i+1]
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if p.i+6 > len(p.s) {
					p.i = len(p.s)
					p.partial = true
					return b.String(), true
				}
				r, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32)
				if err != nil {
					return nil, false
				}
				p.i += 6
				if utf16IsHigh(rune(r)) && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					if lo, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32); err == nil && utf16IsLow(rune(lo)) {
						b.WriteRune((rune(r)-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000)
						p.i += 6
						continue
					}
				}
				if utf16IsHigh(rune(r)) || utf16IsLow(rune(r)) {
					b.WriteRune(utf8.RuneError)
				} else {
					b.WriteRune(rune(r))
				}
				continue
			default:
				return nil, false
			}
			p.i += 2
		case c < 0x20:
			return nil, false
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	p.partial = true
	return b.String(), true
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r < 0xDC00 }
func utf16IsLow(r rune) bool  { return r >= 0xDC00 && r < 0xE000 }

func (p *partialParser) number() (any, bool) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	text := p.s[start:p.i]
	if p.eof() {
		p.partial = true
		text = strings.TrimRight(text, "+-.eE")
		if text == "" {
			return nil, true
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

func (p *partialParser) literal() (any, bool) {
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		rest := p.s[p.i:]
		if strings.HasPrefix(rest, lit.text) {
			p.i += len(lit.text)
			return lit.v, true
		}
		if len(rest) < len(lit.text) && strings.HasPrefix(lit.text, rest) {
			p.i = len(p.s)
			p.partial = true
			return nil, true
		}
	}
	return nil, false
}

// repairJSON escapes raw control characters inside strings and doubles backslashes that
// start invalid escapes (pi's repairJson).
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
			switch c {
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[c>>4])
				b.WriteByte("0123456789abcdef"[c&0xF])
			}
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
