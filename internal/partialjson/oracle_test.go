package partialjson

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The hand-written parser pi-rpc used before it read tool-call arguments with jsontext,
// kept as the oracle the new one is compared with (see TestAgreesWithTheOldParser).

// oldParse parses streamed tool-call arguments that may be cut off anywhere (pi-ai's
// parseStreamingJson). Complete JSON parses as usual; otherwise the value is read as far as it
// goes: open strings keep what they have, open objects and arrays close, a key without a value
// is dropped. Raw control characters inside strings and invalid escapes, which some models
// emit, are repaired. The result is always an object; anything unusable gives an empty one.
func oldParse(s string) map[string]any {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err == nil && v != nil {
		return v
	}
	if obj, ok := oldPrefixObject(s); ok {
		return obj
	}
	if repaired := repairJSON(s); repaired != s {
		if err := json.Unmarshal([]byte(repaired), &v); err == nil && v != nil {
			return v
		}
		if obj, ok := oldPrefixObject(repaired); ok {
			return obj
		}
	}
	return map[string]any{}
}

func oldPrefixObject(s string) (map[string]any, bool) {
	p := oldPartialParser{s: s}
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

// oldPartialParser reads a JSON prefix. value reports ok=false for input that is not a prefix
// of any JSON text; a value cut off by the end of input is returned as far as it goes, with
// partial set when it is incomplete.
type oldPartialParser struct {
	s       string
	i       int
	partial bool
}

func (p *oldPartialParser) eof() bool { return p.i >= len(p.s) }

func (p *oldPartialParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *oldPartialParser) value() (any, bool) {
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

func (p *oldPartialParser) object() (any, bool) {
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

func (p *oldPartialParser) array() (any, bool) {
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

func (p *oldPartialParser) str() (any, bool) {
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
				if oldIsHigh(rune(r)) && p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					if lo, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 32); err == nil && oldIsLow(rune(lo)) {
						b.WriteRune((rune(r)-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000)
						p.i += 6
						continue
					}
				}
				if oldIsHigh(rune(r)) || oldIsLow(rune(r)) {
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

func oldIsHigh(r rune) bool { return r >= 0xD800 && r < 0xDC00 }
func oldIsLow(r rune) bool  { return r >= 0xDC00 && r < 0xE000 }

func (p *oldPartialParser) number() (any, bool) {
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

func (p *oldPartialParser) literal() (any, bool) {
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
