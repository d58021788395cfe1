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
	ok := p.object(chunkFields, 0, func(n int) bool {
		switch n {
		case 0:
			return p.reusedString(&c.ID, p.id)
		case 1:
			return p.reusedString(&c.Model, p.model)
		case 2:
			return p.choices(c)
		case 3:
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

// The field names of each object the parser reads, in the order of the cases of its
// switch on the index object calls it with.
var (
	chunkFields  = []string{"id", "model", "choices", "usage", "error"}
	choiceFields = []string{"index", "delta", "finish_reason", "usage"}
	deltaFields  = []string{"content", "reasoning_content", "reasoning", "reasoning_text", "tool_calls"}
	callFields   = []string{"index", "id", "function"}
	funcFields   = []string{"name", "arguments"}
	usageFields  = []string{"prompt_tokens", "completion_tokens", "prompt_cache_hit_tokens", "prompt_tokens_details"}
	detailFields = []string{"cached_tokens", "cache_write_tokens"}
)

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

// object parses an object whose field names are fields (at most eight), calling field with
// the index of each key that names one (positioned at its value), and skipping the values of
// the others as values depth deep. A key named twice, or one that folds to a field's name
// without being it (encoding/json matches keys case-insensitively), leaves the object to
// encoding/json. A key with escapes or bytes outside ASCII is left to it too: it may match a
// field as encoding/json unescapes and folds it.
func (p *chunkParser) object(fields []string, depth int, field func(n int) bool) bool {
	var seen uint8
	p.ws()
	if empty, ok := p.open('{', '}'); empty || !ok {
		return ok
	}
	for {
		p.ws()
		start := p.i
		end, flags, ok := jsonscan.String(p.b, start)
		if !ok || flags != 0 {
			return false
		}
		key := p.b[start+1 : end-1]
		p.i = end
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		switch n := fieldIndex(key, fields); {
		case n == fieldUnknown:
			if !p.skip(depth) {
				return false
			}
		case n < 0 || seen&(1<<n) != 0:
			return false
		default:
			seen |= 1 << n
			if !field(n) {
				return false
			}
		}
		if more, ok := p.next('}'); !more {
			return ok
		}
	}
}

// What fieldIndex returns for a key that names no field.
const (
	fieldUnknown = -1
	fieldRefused = -2
)

// fieldIndex returns the index of the field of fields that key names, fieldUnknown for a
// key that names none, and fieldRefused for one that folds to a field's name without being
// it (see object).
func fieldIndex(key []byte, fields []string) int {
	for n, f := range fields {
		if len(f) == len(key) {
			if string(key) == f {
				return n
			}
			if asciiEqualFold(f, key) {
				return fieldRefused
			}
		}
	}
	return fieldUnknown
}

// array parses an array, calling elem at each element.
func (p *chunkParser) array(elem func() bool) bool {
	if empty, ok := p.open('[', ']'); empty || !ok {
		return ok
	}
	for {
		p.ws()
		if !elem() {
			return false
		}
		if more, ok := p.next(']'); !more {
			return ok
		}
	}
}

// open reads a container's opening byte and whitespace, and the closing byte if the
// container is empty.
func (p *chunkParser) open(opener, closer byte) (empty, ok bool) {
	if p.i >= len(p.b) || p.b[p.i] != opener {
		return false, false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == closer {
		p.i++
		return true, true
	}
	return false, true
}

// next reads what follows a member or an element: a comma (more reports true) or the
// container's closing byte; anything else is not ok.
func (p *chunkParser) next(closer byte) (more, ok bool) {
	p.ws()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return true, true
	case closer:
		p.i++
		return false, true
	}
	return false, false
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
	return p.object(choiceFields, 0, func(n int) bool {
		switch n {
		case 0:
			return p.intValue(&ch.Index)
		case 1:
			if p.null() {
				return true
			}
			return p.delta(&ch.Delta)
		case 2:
			return p.finishReason(&ch.FinishReason)
		default:
			return p.usagePtr(&ch.Usage)
		}
	})
}

func (p *chunkParser) delta(d *chunkDelta) bool {
	return p.object(deltaFields, 0, func(n int) bool {
		switch n {
		case 0:
			return p.stringValue(&d.Content)
		case 1:
			return p.stringValue(&d.ReasoningContent)
		case 2:
			return p.stringValue(&d.Reasoning)
		case 3:
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
	return p.object(callFields, 0, func(n int) bool {
		switch n {
		case 0:
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
		case 1:
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
	return p.object(funcFields, 0, func(n int) bool {
		switch n {
		case 0:
			return p.stringValue(&tc.Function.Name)
		default:
			return p.stringValue(&tc.Function.Arguments)
		}
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
	return p.object(usageFields, 0, func(n int) bool {
		switch n {
		case 0:
			return p.intValue(&u.PromptTokens)
		case 1:
			return p.intValue(&u.CompletionTokens)
		case 2:
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
	return p.object(detailFields, 0, func(n int) bool {
		switch n {
		case 0:
			return p.intPtr(&d.CachedTokens)
		default:
			return p.intValue(&d.CacheWriteTokens)
		}
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
	start := p.i
	end, flags, ok := jsonscan.String(p.b, start)
	if !ok {
		return nil, false
	}
	raw := p.b[start+1 : end-1]
	p.i = end
	if flags&jsonscan.NonASCII != 0 && !utf8.Valid(raw) {
		// Invalid UTF-8 becomes U+FFFD in encoding/json: left to it.
		return nil, false
	}
	if flags&jsonscan.Escaped == 0 {
		return raw, true
	}
	return unescape(raw)
}

// unescape decodes the escapes of a string already checked by jsonscan.String, as encoding/json
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
		end, _, ok := jsonscan.String(p.b, p.i)
		p.i = end
		return ok
	case '{':
		return p.object(nil, depth+1, nil)
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

// literal skips the literal s (true, false or null).
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
