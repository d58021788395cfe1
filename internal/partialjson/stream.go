package partialjson

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Parser parses a JSON object that arrives in fragments, such as streamed tool-call
// arguments, so that the arguments parsed so far are at hand after every fragment.
//
// After any sequence of Writes whose concatenation is s, Value returns a value deeply equal
// to Parse(s). The tokens come from a jsontext.Decoder reading the fragments as they arrive:
// its reader reports errMore when it has handed out every byte written, which the decoder
// treats as a transient read error (it keeps its state and tries again on the next read),
// so a token cut by a fragment's end is read once the rest has arrived and a number is never
// taken as finished before the byte after it. The completed tokens build the value (a stack
// of the open objects and arrays); the token still being read when the fragments run out (a
// string or number, see [tailValue]) is shown as far as it goes. As soon as the decoder
// reports a syntax error (garbage, raw control characters, invalid escapes, trailing data) or
// a number is out of float64 range, Parse's repairs may apply, so the parser falls back for
// good to calling Parse on the accumulated text, which it keeps for that purpose.
//
// The zero value is ready to use. A Parser must not be copied after the first Write and is
// not safe for concurrent use.
type Parser struct {
	text strings.Builder // every byte written, for the decoder and the fallback
	in   input
	dec  *jsontext.Decoder

	// fallback is set once the text is no longer a JSON prefix; fbVal caches Parse(text) and
	// fbStale says it needs recomputing.
	fallback bool
	fbStale  bool
	fbVal    map[string]any

	root  map[string]any
	stack []frame
	done  bool // the top-level object has ended

	// The string the decoder is inside when the fragments run out, if any: its content starts
	// at text offset strAt (0: none). While no fragment brings a quote that can close it, the
	// decoder is not asked again (it would read the string from its start each time, which
	// made a long string quadratic). Its content so far is decoded once: strBuf holds it up to
	// text offset strTo.
	strAt, strTo int
	strBuf       strings.Builder
	scratch      []byte
}

// frame is an open container: obj for an object (key is the name whose value is being read,
// wantKey says the next string is a name) or arr for an array (slotSet says its last element
// is the value being read, already shown while it was partial).
type frame struct {
	obj     map[string]any
	arr     []any
	key     string
	wantKey bool
	slotSet bool
}

// errMore is what the decoder's reader says when every byte written so far has been read.
var errMore = errors.New("partialjson: waiting for the next fragment")

// decodeOptions accept what encoding/json (Parse's reading of complete text) accepts:
// duplicate names (the last one wins) and invalid UTF-8 (replaced by U+FFFD).
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// input hands the decoder the bytes written and not yet read.
type input struct {
	text *strings.Builder
	off  int
}

func (in *input) Read(b []byte) (int, error) {
	s := in.text.String()
	if in.off >= len(s) {
		return 0, errMore
	}
	n := copy(b, s[in.off:])
	in.off += n
	return n, nil
}

// Write consumes the next fragment.
func (p *Parser) Write(fragment string) {
	if fragment == "" {
		return
	}
	p.text.WriteString(fragment)
	if p.fallback {
		p.fbStale = true
		return
	}
	if p.strAt > 0 && !p.closesString(p.text.Len()-len(fragment)) {
		return // still inside the string: checked when it is shown (stringSoFar)
	}
	if !p.advance() {
		p.fail()
	}
}

// Value returns what Parse returns for everything written so far. Until the parser falls
// back, the result is the parser's live object: it is valid until the next Write, which may
// modify it, and the caller must not modify it. Callers that keep the value past the next
// Write must copy it.
func (p *Parser) Value() map[string]any {
	if !p.fallback {
		if p.root == nil {
			p.root = map[string]any{}
		}
		if p.dec == nil || p.showTail() {
			return p.root
		}
		p.fail()
	}
	if p.fbStale {
		p.fbVal = Parse(p.text.String())
		p.fbStale = false
	}
	return p.fbVal
}

// Complete returns the text written so far and whether it is exactly one JSON object (with
// surrounding whitespace), as read without any repair.
func (p *Parser) Complete() (string, bool) {
	return p.text.String(), !p.fallback && p.done
}

// fail switches to the fallback for good and drops the incremental state.
func (p *Parser) fail() {
	p.fallback = true
	p.fbStale = true
	p.root = nil
	p.stack = nil
	p.dec = nil
	p.strAt = 0
	p.strBuf = strings.Builder{}
}

// advance reads every token the text written so far completes; it reports false once the
// text is no longer a prefix of a JSON object.
func (p *Parser) advance() bool {
	if p.dec == nil {
		if p.root == nil {
			p.root = map[string]any{}
		}
		p.in = input{text: &p.text}
		p.dec = jsontext.NewDecoder(&p.in, decodeOptions...)
	}
	for {
		tok, err := p.dec.ReadToken()
		if err != nil {
			if !errors.Is(err, errMore) {
				return false
			}
			p.noteOpenString()
			return true
		}
		if !p.apply(tok) {
			return false
		}
	}
}

// noteOpenString records where the string the decoder is waiting in starts, if it is in one.
func (p *Parser) noteOpenString() {
	unread := p.dec.UnreadBuffer()
	tail := bytes.TrimLeft(unread, " \t\r\n,:")
	at := 0
	if len(tail) > 0 && tail[0] == '"' {
		at = int(p.dec.InputOffset()) + len(unread) - len(tail) + 1
	}
	if at != p.strAt {
		p.strAt, p.strTo = at, at
		p.strBuf = strings.Builder{} // strings shown before keep the old builder's bytes
	}
}

// closesString reports whether the text from offset from has a quote that may end the open
// string: one after an even number of backslashes (an escaped quote does not end it).
func (p *Parser) closesString(from int) bool {
	s := p.text.String()
	for i := from; ; {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return false
		}
		q := i + j
		n := 0
		for k := q - 1; k >= p.strAt && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
		i = q + 1
	}
}

// stringSoFar decodes the open string's content so far. The part that jsontext reads as
// complete, strictly valid string content is decoded once and kept; the rest (an escape or
// UTF-8 sequence cut off, a high surrogate waiting for its low half, or content with invalid
// UTF-8) is decoded again each time by stringPrefix. The result is checked JSON as far as it
// goes unless the rest needed cutting, whose bytes then still need the decoder's word
// (sure is false); ok is false when no prefix decodes.
func (p *Parser) stringSoFar() (s string, sure, ok bool) {
	text := p.text.String()
	rest := text[p.strTo:]
	for cut := 0; cut <= 6 && cut <= len(rest); cut++ {
		chunk := rest[:len(rest)-cut]
		p.scratch = append(append(append(p.scratch[:0], '"'), chunk...), '"')
		// AppendUnquote reports invalid UTF-8 and lone surrogates too: no error is strictly
		// valid content.
		if decoded, err := jsontext.AppendUnquote(p.scratch[len(p.scratch):], p.scratch); err == nil {
			p.strBuf.Write(decoded)
			p.strTo += len(chunk)
			break
		}
	}
	s = p.strBuf.String()
	rest = text[p.strTo:]
	if rest == "" {
		return s, true, true
	}
	more, cut, ok := stringPrefix([]byte(rest))
	return s + more, cut == 0, ok
}

// apply adds a token to the value; it reports false for a token no JSON object prefix
// has there (a top-level value other than an object, a second top-level value) and for a
// number out of float64 range.
func (p *Parser) apply(tok jsontext.Token) bool {
	if p.done {
		return false
	}
	kind := tok.Kind()
	if len(p.stack) == 0 {
		if kind != '{' {
			return false
		}
		p.stack = append(p.stack, frame{obj: p.root, wantKey: true})
		return true
	}
	if f := &p.stack[len(p.stack)-1]; f.obj != nil && f.wantKey {
		if kind == '}' {
			p.closeContainer()
			return true
		}
		f.key, f.wantKey = tok.String(), false
		return true
	}
	var v any
	switch kind {
	case '}', ']':
		p.closeContainer()
		return true
	case '{':
		m := map[string]any{}
		p.store(m)
		p.stack = append(p.stack, frame{obj: m, wantKey: true})
		return true
	case '[':
		a := []any{}
		p.store(a)
		p.stack = append(p.stack, frame{arr: a})
		return true
	case '"':
		v = tok.String()
	case '0':
		f, err := strconv.ParseFloat(tok.String(), 64)
		if err != nil {
			return false
		}
		v = f
	case 'n':
		v = nil
	default: // true or false
		v = kind == 't'
	}
	p.store(v)
	p.endValue()
	return true
}

// store sets v as the value being read in the innermost container. An array that grows is
// stored again in its parent, since appending changes the slice the parent holds.
func (p *Parser) store(v any) {
	i := len(p.stack) - 1
	f := &p.stack[i]
	if f.obj != nil {
		f.obj[f.key] = v
		return
	}
	if f.slotSet {
		f.arr[len(f.arr)-1] = v
		return
	}
	f.arr = append(f.arr, v)
	f.slotSet = true
	parent := &p.stack[i-1] // the top-level value is an object: an array has a parent
	if parent.obj != nil {
		parent.obj[parent.key] = f.arr
	} else {
		parent.arr[len(parent.arr)-1] = f.arr
	}
}

// endValue records that the innermost container's value being read is complete.
func (p *Parser) endValue() {
	f := &p.stack[len(p.stack)-1]
	f.slotSet = false
	f.wantKey = f.obj != nil
}

func (p *Parser) closeContainer() {
	i := len(p.stack) - 1
	p.stack[i] = frame{}
	p.stack = p.stack[:i]
	if i == 0 {
		p.done = true
		return
	}
	p.endValue()
}

// showTail stores the value the fragments so far leave unfinished, as Parse shows it; it
// reports false if that value makes the text no prefix of a JSON object (a number out of
// range).
func (p *Parser) showTail() bool {
	if p.done {
		// After the object only space may follow; the decoder waits for the end of a
		// string, number or literal before it refuses a second value.
		return p.strAt == 0 && len(bytes.TrimLeft(p.dec.UnreadBuffer(), " \t\r\n")) == 0
	}
	if p.strAt > 0 {
		return p.showString()
	}
	if len(p.stack) == 0 {
		return true
	}
	unread := p.dec.UnreadBuffer()
	if f := &p.stack[len(p.stack)-1]; f.obj != nil && f.wantKey {
		// Where a name belongs, the decoder waits for the end of a number or literal before
		// it refuses it: anything but a string there is no prefix of an object.
		tail := bytes.TrimLeft(unread, " \t\r\n,")
		return len(tail) == 0
	}
	v, shown, ok := tailValue(unread)
	if shown {
		p.store(v)
	}
	return ok
}

// showString shows the open string (a name is checked, not shown).
func (p *Parser) showString() bool {
	s, sure, ok := p.stringSoFar()
	if !ok || !sure && !p.validRest() {
		return false
	}
	if len(p.stack) == 0 {
		return true // a top-level string: not an object, refused once it ends
	}
	if f := &p.stack[len(p.stack)-1]; f.obj == nil || !f.wantKey {
		p.store(s)
	}
	return true
}

// escapeEnds complete every beginning of an escape: a lone backslash, and \u with 0 to 3 hex
// digits.
var escapeEnds = []string{"n", "0000", "000", "00", "0"}

// validRest reports whether the open string's bytes after its checked part can begin the rest
// of a string: as they are, or with the end of an escape they have begun.
func (p *Parser) validRest() bool {
	rest := p.text.String()[p.strTo:]
	for _, end := range append([]string{""}, escapeEnds...) {
		p.scratch = append(append(append(append(p.scratch[:0], '"'), rest...), end...), '"')
		if jsontext.Value(p.scratch).IsValid(decodeOptions...) {
			return true
		}
	}
	return false
}

// tailValue is the value a decoder waiting for more input has begun: unread is what it holds
// after the last token (space, perhaps the ',' or ':' before the value, and the value's
// beginning). A string shows what it has so far; a number shows its longest prefix that is a
// number; a literal is not shown until it is whole. ok is false for a number out of range.
func tailValue(unread []byte) (v any, shown, ok bool) {
	raw := bytes.TrimLeft(unread, " \t\r\n,:")
	if len(raw) == 0 {
		return nil, false, true
	}
	if raw[0] == '"' {
		s, _, valid := stringPrefix(raw[1:])
		return s, valid, valid
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return nil, false, true // a literal
	}
	text := strings.TrimRight(string(raw), "+-.eE")
	if text == "" {
		return nil, false, true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, false, false
	}
	return f, true, true
}

// stringPrefix decodes the content of a string cut off after raw (which the decoder has
// checked as far as it goes): the longest prefix of raw that jsontext reads as a string once
// closed, which leaves out an escape cut off at the end (at most 5 bytes: `\u` and 3 hex
// digits). A high surrogate whose low half has not come shows as U+FFFD, as in a string that
// ends after it.
func stringPrefix(raw []byte) (s string, cut int, ok bool) {
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	for cut := 0; cut <= 5 && cut <= len(raw); cut++ {
		closed := append(q[:len(q)-cut-1], '"') // overwrites only bytes later cuts drop
		if jsontext.Value(closed).IsValid(decodeOptions...) {
			s, _ := jsontext.AppendUnquote(nil, closed) // invalid UTF-8 is replaced, as Parse does
			return string(s), cut, true
		}
	}
	return "", 0, false
}
