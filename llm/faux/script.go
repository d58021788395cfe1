package faux

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// Script is a parsed script file (the format is in the package documentation): the model,
// provider-wide chunking and pacing, and the queue of steps.
type Script struct {
	// Model is the default model with the script's "model" fields applied.
	Model core.Model
	// ChunkSize, Seed and Delay are the provider-wide chunking and pacing ("chunkSize",
	// "seed", "delayMs"); zero values mean the provider's defaults.
	ChunkSize int
	Seed      uint64
	Delay     time.Duration
	// Steps are the "responses", in order.
	Steps []Step
}

// Options returns the provider options the script sets.
func (s *Script) Options() []Option {
	return []Option{WithModel(s.Model), WithChunkSize(s.ChunkSize), WithSeed(s.Seed), WithDelay(s.Delay)}
}

// NewProvider returns a provider configured by the script with its steps queued; opts come
// after the script's own options, so a caller can still inject a clock or a sleep.
func (s *Script) NewProvider(opts ...Option) *Provider {
	p := New(append(s.Options(), opts...)...)
	p.SetResponses(s.Steps...)
	return p
}

// ScriptError reports a problem in a script file at a line and, when the problem is one
// value's, the path of that value (such as responses[2].content[0].type), because scripts are
// written by hand and a typo should be found without guessing.
type ScriptError struct {
	File string
	// Line is 1-based.
	Line int
	// Field is the path of the offending value; empty for syntax errors.
	Field string
	Err   error
}

// Error formats the error as file:line: field: problem, the form editors and terminals turn
// into a link to the line.
func (e *ScriptError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, e.Field, e.Err)
}

// Unwrap returns the underlying error.
func (e *ScriptError) Unwrap() error { return e.Err }

// LoadScript reads and parses the script file at path.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("faux script: %w", err)
	}
	return ParseScript(path, data)
}

// ParseScript parses a script; name is the file name errors report.
func ParseScript(name string, data []byte) (*Script, error) {
	p := &parser{file: name, data: data}
	if !json.Valid(data) {
		var syn *json.SyntaxError
		if err := json.Unmarshal(data, new(any)); errors.As(err, &syn) {
			return nil, &ScriptError{File: name, Line: p.line(syn.Offset - 1), Err: err}
		}
		return nil, &ScriptError{File: name, Line: 1, Err: errors.New("invalid JSON")}
	}
	p.dec = json.NewDecoder(bytes.NewReader(data))
	s := &Script{Model: DefaultModel()}
	_, err := p.object("", func(key string, off int64) error {
		switch key {
		case "model":
			return p.value("model", &s.Model)
		case "chunkSize":
			return p.nonNegative("chunkSize", off, &s.ChunkSize)
		case "seed":
			return p.value("seed", &s.Seed)
		case "delayMs":
			var ms int
			err := p.nonNegative("delayMs", off, &ms)
			s.Delay = time.Duration(ms) * time.Millisecond
			return err
		case "responses":
			return p.array("responses", func(path string) error {
				step, err := p.response(path)
				s.Steps = append(s.Steps, step)
				return err
			})
		default:
			return p.unknown(off, "", key)
		}
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// parser walks a script with a token decoder, so that every error knows its byte offset.
// The input has been checked to be valid JSON before the walk starts.
type parser struct {
	file string
	data []byte
	dec  *json.Decoder
}

// line returns the 1-based line of the byte at off.
func (p *parser) line(off int64) int {
	off = max(0, min(off, int64(len(p.data))))
	return 1 + bytes.Count(p.data[:off], []byte("\n"))
}

func (p *parser) errorf(off int64, field, format string, args ...any) error {
	return &ScriptError{File: p.file, Line: p.line(off), Field: field, Err: fmt.Errorf(format, args...)}
}

func (p *parser) unknown(off int64, path, key string) error {
	return p.errorf(off, join(path, key), "unknown field")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// object reads an object, calling field for each key with the offset just after the key;
// field must consume the value. It returns the offset of the opening brace.
func (p *parser) object(path string, field func(key string, off int64) error) (int64, error) {
	if err := p.delim(path, '{', "an object"); err != nil {
		return 0, err
	}
	open := p.dec.InputOffset() - 1
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return open, p.errorf(p.dec.InputOffset(), path, "%v", err)
		}
		key, _ := tok.(string)
		if err := field(key, p.dec.InputOffset()); err != nil {
			return open, err
		}
	}
	_, err := p.dec.Token()
	return open, err
}

// array reads an array, calling elem with each element's path; elem must consume the element.
func (p *parser) array(path string, elem func(path string) error) error {
	if err := p.delim(path, '[', "an array"); err != nil {
		return err
	}
	for i := 0; p.dec.More(); i++ {
		if err := elem(fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, err := p.dec.Token()
	return err
}

func (p *parser) delim(path string, want json.Delim, what string) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.errorf(p.dec.InputOffset(), path, "%v", err)
	}
	if d, ok := tok.(json.Delim); ok && d == want {
		return nil
	}
	return p.errorf(p.dec.InputOffset()-1, path, "got %s, want %s", tokenKind(tok), what)
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case float64, json.Number:
		return "number"
	case bool:
		return "bool"
	default:
		return "null"
	}
}

// value decodes the next value into v, rejecting unknown fields.
func (p *parser) value(path string, v any) error {
	var raw json.RawMessage
	if err := p.dec.Decode(&raw); err != nil {
		return p.errorf(p.dec.InputOffset(), path, "%v", err)
	}
	start := p.dec.InputOffset() - int64(len(raw))
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := path
		if te.Field != "" {
			field = join(path, te.Field)
		}
		return p.errorf(start+te.Offset-1, field, "got %s, want %s", te.Value, typeName(te.Type))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		off := start
		if i := bytes.Index(raw, []byte(name)); i >= 0 {
			off += int64(i)
		}
		return p.unknown(off, path, strings.Trim(name, `"`))
	}
	return p.errorf(start, path, "%v", err)
}

// typeName names a Go type the way a script author thinks of JSON.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return t.String()
	}
}

func (p *parser) nonNegative(path string, off int64, n *int) error {
	if err := p.value(path, n); err != nil {
		return err
	}
	if *n < 0 {
		return p.errorf(off, path, "got %d, want a number >= 0", *n)
	}
	return nil
}

// scriptUsage is the usage a script may give; totals and cost are computed.
type scriptUsage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
}

var stopReasons = []core.StopReason{
	core.StopReasonStop, core.StopReasonLength, core.StopReasonToolUse, core.StopReasonError, core.StopReasonAborted,
}

var errorKinds = []core.ErrorKind{
	core.ErrorRetryable, core.ErrorOverflow, core.ErrorAuth, core.ErrorAborted, core.ErrorOther,
}

// response reads one element of "responses".
func (p *parser) response(path string) (Step, error) {
	var st Step
	offs := map[string]int64{}
	_, err := p.object(path, func(key string, off int64) error {
		offs[key] = off
		field := join(path, key)
		switch key {
		case "content":
			return p.array(field, func(path string) error {
				blk, err := p.block(path)
				st.Content = append(st.Content, blk)
				return err
			})
		case "stopReason":
			if err := p.value(field, &st.StopReason); err != nil {
				return err
			}
			return oneOf(p, off, field, st.StopReason, stopReasons)
		case "errorMessage":
			return p.value(field, &st.ErrorMessage)
		case "errorKind":
			if err := p.value(field, &st.ErrorKind); err != nil {
				return err
			}
			return oneOf(p, off, field, st.ErrorKind, errorKinds)
		case "retryAfterMs":
			var ms int
			err := p.nonNegative(field, off, &ms)
			st.RetryAfter = time.Duration(ms) * time.Millisecond
			return err
		case "usage":
			var u scriptUsage
			err := p.value(field, &u)
			st.Usage = &core.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
			return err
		case "responseId":
			return p.value(field, &st.ResponseID)
		case "chunkSize":
			return p.nonNegative(field, off, &st.ChunkSize)
		case "delayMs":
			var ms int
			err := p.nonNegative(field, off, &ms)
			st.Delay = time.Duration(ms) * time.Millisecond
			return err
		case "hangAfter":
			st.Hang = true
			return p.nonNegative(field, off, &st.HangAfter)
		default:
			return p.unknown(off, path, key)
		}
	})
	if err != nil {
		return st, err
	}
	failing := st.StopReason == core.StopReasonError || st.StopReason == core.StopReasonAborted
	if off, ok := offs["errorMessage"]; ok && !failing {
		return st, p.errorf(off, join(path, "errorMessage"), `needs stopReason "error" or "aborted"`)
	}
	for _, key := range []string{"errorKind", "retryAfterMs"} {
		if off, ok := offs[key]; ok && st.StopReason != core.StopReasonError {
			return st, p.errorf(off, join(path, key), `needs stopReason "error"`)
		}
	}
	return st, nil
}

func oneOf[T ~string](p *parser, off int64, field string, v T, allowed []T) error {
	names := make([]string, len(allowed))
	for i, a := range allowed {
		if a == v {
			return nil
		}
		names[i] = string(a)
	}
	return p.errorf(off, field, "got %q, want one of %s", v, strings.Join(names, ", "))
}

// blockFields lists, per block type, the fields it may have besides "type".
var blockFields = map[core.ContentType][]string{
	core.ContentText:     {"text", "deltas"},
	core.ContentThinking: {"thinking", "signature", "deltas"},
	core.ContentToolCall: {"id", "name", "arguments", "deltas"},
}

// block reads one content block. Values are read first and checked against the type after,
// because "type" may come last.
func (p *parser) block(path string) (Block, error) {
	var blk Block
	var text, thinking string
	offs := map[string]int64{}
	start, err := p.object(path, func(key string, off int64) error {
		offs[key] = off
		field := join(path, key)
		switch key {
		case "type":
			return p.value(field, &blk.Type)
		case "text":
			return p.value(field, &text)
		case "thinking":
			return p.value(field, &thinking)
		case "signature":
			return p.value(field, &blk.Signature)
		case "id":
			return p.value(field, &blk.ID)
		case "name":
			return p.value(field, &blk.Name)
		case "arguments":
			return p.value(field, &blk.Arguments)
		case "deltas":
			if err := p.value(field, &blk.Deltas); err != nil {
				return err
			}
			if blk.Deltas == nil {
				blk.Deltas = []string{}
			}
			return nil
		default:
			return p.unknown(off, path, key)
		}
	})
	if err != nil {
		return blk, err
	}
	allowed, known := blockFields[blk.Type]
	if !known {
		off, ok := offs["type"]
		if !ok {
			return blk, p.errorf(start, join(path, "type"), "missing")
		}
		return blk, p.errorf(off, join(path, "type"), `got %q, want one of text, thinking, toolCall`, blk.Type)
	}
	if key, off, bad := firstNotIn(offs, allowed); bad {
		return blk, p.errorf(off, join(path, key), "not allowed in a %s block", blk.Type)
	}
	blk.Text = text + thinking
	deltasOff, hasDeltas := offs["deltas"]
	switch blk.Type {
	case core.ContentToolCall:
		if _, ok := offs["name"]; !ok || blk.Name == "" {
			return blk, p.errorf(start, join(path, "name"), "a toolCall block needs a name")
		}
		if _, ok := offs["arguments"]; ok && hasDeltas {
			return blk, p.errorf(deltasOff, join(path, "deltas"), "give arguments or deltas, not both")
		}
	default:
		if _, ok := offs[string(blk.Type)]; ok && hasDeltas {
			return blk, p.errorf(deltasOff, join(path, "deltas"), "give %s or deltas, not both", blk.Type)
		}
		if hasDeltas {
			blk.Text = concat(blk.Deltas)
		}
	}
	return blk, nil
}

// firstNotIn returns the earliest key in offs, other than "type", that allowed lacks.
func firstNotIn(offs map[string]int64, allowed []string) (key string, off int64, found bool) {
	for k, o := range offs {
		if k == "type" || contains(allowed, k) {
			continue
		}
		if !found || o < off {
			key, off, found = k, o, true
		}
	}
	return key, off, found
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
