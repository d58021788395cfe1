package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/pi-rpc/pi-rpc/internal/jsonscan"
	"github.com/pi-rpc/pi-rpc/llm/internal/failure"
)

// chunkDecoder decodes the chunks of one stream. Decoding is most of the provider's CPU
// when many sessions stream at once, so the common shape of a chunk is read by a
// hand-written one-pass parser into one reused value: it allocates only the strings that
// outlive the chunk (the deltas), and reuses the response id and model, which every chunk
// repeats. Anything the parser does not take as encoding/json would (a syntax error, a
// value of another type, a duplicate or case-folded key, an escaped key, invalid UTF-8,
// deep nesting) is decoded by encoding/json instead, so the result, and the error, are
// always encoding/json's (FuzzChunkDecoder checks this).
type chunkDecoder struct {
	c chunk
	// The reused backing arrays of c's slices, and of the tool-call indexes.
	choices []chunkChoice
	calls   []toolCallDelta
	indexes []int
}

// decode decodes one event's data. The chunk is valid until the next call.
func (d *chunkDecoder) decode(data []byte) (*chunk, error) {
	if len(data) == 0 || data[0] != '{' {
		return nil, failure.ErrNotObject
	}
	id, model := d.c.ID, d.c.Model
	d.c = chunk{}
	d.calls, d.indexes = d.calls[:0], d.indexes[:0]
	p := chunkParser{b: data, d: d, id: id, model: model}
	if p.chunk(&d.c) {
		return &d.c, nil
	}
	d.c = chunk{}
	if err := json.Unmarshal(data, &d.c); err != nil {
		return nil, err
	}
	return &d.c, nil
}

// chunkParser reads one chunk. Every method reports false for input it leaves to
// encoding/json.
type chunkParser struct {
	b []byte
	i int
	d *chunkDecoder
	// id and model are the previous chunk's, reused when repeated.
	id, model string
}

// maxDepth bounds the nesting of skipped values; deeper input goes to encoding/json.
const maxDepth = 64

// ws skips whitespace.
func (p *chunkParser) ws() { p.i = jsonscan.Space(p.b, p.i) }

// chunk parses the whole input as one chunk object.
func (p *chunkParser) chunk(c *chunk) bool {
	var seen uint8
	ok := p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "id":
			bit = 1
		case "model":
			bit = 2
		case "choices":
			bit = 4
		case "usage":
			bit = 8
		case "error":
			bit = 16
		default:
			return p.unknown(key, chunkFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			return p.reusedString(&c.ID, p.id)
		case 2:
			return p.reusedString(&c.Model, p.model)
		case 4:
			return p.choices(c)
		case 8:
			return p.usagePtr(&c.Usage)
		default:
			start := p.i
			if !p.skip(0) {
				return false
			}
			c.Error = json.RawMessage(bytes.Clone(p.b[start:p.i]))
			return true
		}
	})
	if !ok {
		return false
	}
	p.ws()
	return p.i == len(p.b)
}

var (
	chunkFields  = []string{"id", "model", "choices", "usage", "error"}
	choiceFields = []string{"index", "delta", "finish_reason", "usage"}
	deltaFields  = []string{"content", "reasoning_content", "reasoning", "reasoning_text", "tool_calls"}
	callFields   = []string{"index", "id", "function"}
	funcFields   = []string{"name", "arguments"}
	usageFields  = []string{"prompt_tokens", "completion_tokens", "prompt_cache_hit_tokens", "prompt_tokens_details"}
	detailFields = []string{"cached_tokens", "cache_write_tokens"}
)

// unknown skips the value of a key no field is named for. encoding/json matches keys
// case-insensitively, so a key that folds to a field's name is left to it (and object
// already leaves it every key outside ASCII, which Unicode folding may match).
func (p *chunkParser) unknown(key []byte, fields []string) bool {
	for _, f := range fields {
		if len(f) == len(key) && asciiEqualFold(f, key) {
			return false
		}
	}
	return p.skip(0)
}

func asciiEqualFold(s string, b []byte) bool {
	for i := range len(s) {
		x, y := s[i], b[i]
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// object parses an object, calling field with each key (positioned at its value).
func (p *chunkParser) object(field func(key []byte) bool) bool {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return true
	}
	for {
		p.ws()
		key, escaped, nonASCII, ok := p.rawString()
		if !ok || escaped || nonASCII {
			// Escaped and non-ASCII keys may match a field as encoding/json folds them.
			return false
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		if !field(key) {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

// array parses an array, calling elem at each element.
func (p *chunkParser) array(elem func() bool) bool {
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return true
	}
	for {
		p.ws()
		if !elem() {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// null consumes a null literal if one is next.
func (p *chunkParser) null() bool {
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

func (p *chunkParser) choices(c *chunk) bool {
	if p.null() {
		c.Choices = nil
		return true
	}
	list := p.d.choices[:0]
	if list == nil {
		list = make([]chunkChoice, 0, 1)
	}
	ok := p.array(func() bool {
		if p.i < len(p.b) && p.b[p.i] != '{' {
			return false
		}
		list = append(list, chunkChoice{})
		return p.choice(&list[len(list)-1])
	})
	p.d.choices = list
	c.Choices = list
	return ok
}

func (p *chunkParser) choice(ch *chunkChoice) bool {
	var seen uint8
	return p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "index":
			bit = 1
		case "delta":
			bit = 2
		case "finish_reason":
			bit = 4
		case "usage":
			bit = 8
		default:
			return p.unknown(key, choiceFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			return p.intValue(&ch.Index)
		case 2:
			if p.null() {
				return true
			}
			return p.delta(&ch.Delta)
		case 4:
			return p.finishReason(&ch.FinishReason)
		default:
			return p.usagePtr(&ch.Usage)
		}
	})
}

func (p *chunkParser) delta(d *chunkDelta) bool {
	var seen uint8
	return p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "content":
			bit = 1
		case "reasoning_content":
			bit = 2
		case "reasoning":
			bit = 4
		case "reasoning_text":
			bit = 8
		case "tool_calls":
			bit = 16
		default:
			return p.unknown(key, deltaFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			return p.stringValue(&d.Content)
		case 2:
			return p.stringValue(&d.ReasoningContent)
		case 4:
			return p.stringValue(&d.Reasoning)
		case 8:
			return p.stringValue(&d.ReasoningText)
		default:
			return p.toolCalls(d)
		}
	})
}

func (p *chunkParser) toolCalls(d *chunkDelta) bool {
	if p.null() {
		d.ToolCalls = nil
		return true
	}
	start := len(p.d.calls)
	list := p.d.calls
	if list == nil {
		list = make([]toolCallDelta, 0, 1)
	}
	ok := p.array(func() bool {
		if p.i < len(p.b) && p.b[p.i] != '{' {
			return false
		}
		list = append(list, toolCallDelta{})
		return p.toolCall(&list[len(list)-1])
	})
	p.d.calls = list
	d.ToolCalls = list[start:len(list):len(list)]
	return ok
}

func (p *chunkParser) toolCall(tc *toolCallDelta) bool {
	var seen uint8
	return p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "index":
			bit = 1
		case "id":
			bit = 2
		case "function":
			bit = 4
		default:
			return p.unknown(key, callFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			if p.null() {
				tc.Index = nil
				return true
			}
			var n int
			if !p.intValue(&n) {
				return false
			}
			p.d.indexes = append(p.d.indexes, n)
			tc.Index = &p.d.indexes[len(p.d.indexes)-1]
			return true
		case 2:
			return p.stringValue(&tc.ID)
		default:
			if p.null() {
				return true
			}
			return p.function(tc)
		}
	})
}

func (p *chunkParser) function(tc *toolCallDelta) bool {
	var seen uint8
	return p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "name":
			bit = 1
		case "arguments":
			bit = 2
		default:
			return p.unknown(key, funcFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if bit == 1 {
			return p.stringValue(&tc.Function.Name)
		}
		return p.stringValue(&tc.Function.Arguments)
	})
}

func (p *chunkParser) usagePtr(u **chunkUsage) bool {
	if p.null() {
		*u = nil
		return true
	}
	if p.i < len(p.b) && p.b[p.i] != '{' {
		return false
	}
	*u = &chunkUsage{}
	return p.usage(*u)
}

func (p *chunkParser) usage(u *chunkUsage) bool {
	var seen uint8
	return p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "prompt_tokens":
			bit = 1
		case "completion_tokens":
			bit = 2
		case "prompt_cache_hit_tokens":
			bit = 4
		case "prompt_tokens_details":
			bit = 8
		default:
			return p.unknown(key, usageFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case 1:
			return p.intValue(&u.PromptTokens)
		case 2:
			return p.intValue(&u.CompletionTokens)
		case 4:
			return p.intPtr(&u.PromptCacheHitTokens)
		default:
			if p.null() {
				u.PromptTokensDetails = nil
				return true
			}
			if p.i < len(p.b) && p.b[p.i] != '{' {
				return false
			}
			u.PromptTokensDetails = &usageDetails{}
			return p.details(u.PromptTokensDetails)
		}
	})
}

func (p *chunkParser) details(d *usageDetails) bool {
	var seen uint8
	return p.object(func(key []byte) bool {
		var bit uint8
		switch string(key) {
		case "cached_tokens":
			bit = 1
		case "cache_write_tokens":
			bit = 2
		default:
			return p.unknown(key, detailFields)
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if bit == 1 {
			return p.intPtr(&d.CachedTokens)
		}
		return p.intValue(&d.CacheWriteTokens)
	})
}

// intValue reads a plain integer (null leaves v as it is, as encoding/json does).
// Fractions, exponents and values near the int range are left to encoding/json.
func (p *chunkParser) intValue(v *int) bool {
	if p.null() {
		return true
	}
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	p.i = jsonscan.Digits(p.b, p.i)
	n := p.i - digits
	if n == 0 || n > 18 || n > 1 && p.b[digits] == '0' {
		return false
	}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case '.', 'e', 'E':
			return false
		}
	}
	x, err := strconv.Atoi(string(p.b[start:p.i]))
	if err != nil {
		return false
	}
	*v = x
	return true
}

func (p *chunkParser) intPtr(v **int) bool {
	if p.null() {
		*v = nil
		return true
	}
	var n int
	if !p.intValue(&n) {
		return false
	}
	*v = &n
	return true
}

// stringValue reads a string into a new Go string (null leaves s as it is).
func (p *chunkParser) stringValue(s *string) bool {
	if p.null() {
		return true
	}
	b, ok := p.stringBytes()
	if !ok {
		return false
	}
	*s = string(b)
	return true
}

// reusedString reads a string, reusing prev when it is the same text.
func (p *chunkParser) reusedString(s *string, prev string) bool {
	if p.null() {
		return true
	}
	b, ok := p.stringBytes()
	if !ok {
		return false
	}
	if string(b) == prev {
		*s = prev
	} else {
		*s = string(b)
	}
	return true
}

// finishReason reads a finish reason without allocating for the usual ones.
func (p *chunkParser) finishReason(s *string) bool {
	if p.null() {
		return true
	}
	b, ok := p.stringBytes()
	if !ok {
		return false
	}
	switch string(b) {
	case "stop":
		*s = "stop"
	case "length":
		*s = "length"
	case "tool_calls":
		*s = "tool_calls"
	default:
		*s = string(b)
	}
	return true
}

// stringBytes reads a string value and returns its text, unescaped; without escapes it is
// a slice of the input.
func (p *chunkParser) stringBytes() ([]byte, bool) {
	raw, escaped, nonASCII, ok := p.rawString()
	if !ok || nonASCII && !utf8.Valid(raw) {
		// Invalid UTF-8 becomes U+FFFD in encoding/json: left to it.
		return nil, false
	}
	if !escaped {
		return raw, true
	}
	return unescape(raw)
}

// rawString reads a string token and returns its bytes between the quotes, whether it has
// escapes, whether it has bytes outside ASCII, and whether it is a valid JSON string (no
// control characters, valid escapes).
func (p *chunkParser) rawString() (raw []byte, escaped, nonASCII, ok bool) {
	end, flags, ok := jsonscan.String(p.b, p.i)
	if !ok {
		return nil, false, false, false
	}
	raw = p.b[p.i+1 : end-1]
	p.i = end
	return raw, flags&jsonscan.Escaped != 0, flags&jsonscan.NonASCII != 0, true
}

// unescape decodes the escapes of a string already checked by rawString, as encoding/json
// does: a lone or mismatched surrogate becomes U+FFFD.
func unescape(raw []byte) ([]byte, bool) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case '"', '\\', '/':
			out = append(out, raw[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		}
		i += 2
	}
	return out, true
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// skip skips any valid JSON value.
func (p *chunkParser) skip(depth int) bool {
	if p.i >= len(p.b) || depth > maxDepth {
		return false
	}
	switch p.b[p.i] {
	case '"':
		_, _, _, ok := p.rawString()
		return ok
	case '{':
		return p.object(func([]byte) bool { return p.skip(depth + 1) })
	case '[':
		return p.array(func() bool { return p.skip(depth + 1) })
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		return p.number()
	}
}

func (p *chunkParser) literal(s string) bool {
	end, ok := jsonscan.Literal(p.b, p.i, s)
	p.i = end
	return ok
}

// number skips a number.
func (p *chunkParser) number() bool {
	end, ok := jsonscan.Number(p.b, p.i)
	p.i = end
	return ok
}
