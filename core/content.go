package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// ContentType names the kind of a [Content] block.
type ContentType string

// The content block kinds of pi's data model.
const (
	ContentText     ContentType = "text"
	ContentThinking ContentType = "thinking"
	ContentImage    ContentType = "image"
	ContentToolCall ContentType = "toolCall"
)

// Content is one block of message content: text, thinking, an image or (in assistant messages
// only) a tool call. It is one flat struct rather than an interface so that a message's content
// is a plain slice that streams append to without allocating per block; Type says which fields
// apply, and the JSON form has exactly pi's fields for that type.
type Content struct {
	Type ContentType `json:"type"`

	// Text and TextSignature belong to text blocks.
	Text          string `json:"text"`
	TextSignature string `json:"textSignature"`

	// Thinking, ThinkingSignature and Redacted belong to thinking blocks. For OpenAI-compatible
	// providers ThinkingSignature holds the name of the delta field the reasoning came from.
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature"`
	Redacted          bool   `json:"redacted"`

	// Data (base64) and MimeType belong to image blocks.
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`

	// ID, Name, Arguments, RawArguments and ThoughtSignature belong to tool calls. Arguments
	// is never nil in a finished message.
	ID               string         `json:"id"`
	Name             string         `json:"name"`
	Arguments        map[string]any `json:"-"`
	ThoughtSignature string         `json:"thoughtSignature"`

	// RawArguments is the JSON text of Arguments as the model wrote it (compacted), when it
	// was a complete object: the builder keeps it from the streamed fragments and decoding
	// from the message's JSON. Encoding and providers send it in place of Arguments, so the
	// model sees its arguments back with its own key order (a map's are sorted). Code that
	// changes Arguments must set it to nil; it is nil for blocks built in code.
	RawArguments json.RawMessage `json:"arguments"`
}

// The JSON tags above are for decoding only, which then needs no custom code and reads a
// message in one pass (a tool call's arguments are parsed from RawArguments afterwards, by
// checkBlocks); encoding writes exactly pi's fields for the block's type (MarshalJSON).

// TextBlock returns a text block.
func TextBlock(text string) Content { return Content{Type: ContentText, Text: text} }

// ImageBlock returns an image block from base64 data.
func ImageBlock(data, mimeType string) Content {
	return Content{Type: ContentImage, Data: data, MimeType: mimeType}
}

// ToolCallBlock returns a tool-call block; nil arguments become an empty object.
func ToolCallBlock(id, name string, args map[string]any) Content {
	if args == nil {
		args = map[string]any{}
	}
	return Content{Type: ContentToolCall, ID: id, Name: name, Arguments: args}
}

type textJSON struct {
	Type          ContentType `json:"type"`
	Text          string      `json:"text"`
	TextSignature string      `json:"textSignature,omitempty"`
}

type thinkingJSON struct {
	Type              ContentType `json:"type"`
	Thinking          string      `json:"thinking"`
	ThinkingSignature string      `json:"thinkingSignature,omitempty"`
	Redacted          bool        `json:"redacted,omitempty"`
}

type imageJSON struct {
	Type     ContentType `json:"type"`
	Data     string      `json:"data"`
	MimeType string      `json:"mimeType"`
}

type toolCallJSON struct {
	Type             ContentType `json:"type"`
	ID               string      `json:"id"`
	Name             string      `json:"name"`
	Arguments        any         `json:"arguments"`
	ThoughtSignature string      `json:"thoughtSignature,omitempty"`
}

// MarshalJSON writes the block in pi's shape for its type.
func (c Content) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentText:
		return json.Marshal(textJSON{c.Type, c.Text, c.TextSignature})
	case ContentThinking:
		return json.Marshal(thinkingJSON{c.Type, c.Thinking, c.ThinkingSignature, c.Redacted})
	case ContentImage:
		return json.Marshal(imageJSON{c.Type, c.Data, c.MimeType})
	case ContentToolCall:
		var args any = c.Arguments
		switch {
		case c.RawArguments != nil:
			args = c.RawArguments
		case c.Arguments == nil:
			args = map[string]any{}
		}
		return json.Marshal(toolCallJSON{c.Type, c.ID, c.Name, args, c.ThoughtSignature})
	default:
		return nil, fmt.Errorf("core: cannot marshal content of type %q", c.Type)
	}
}

// ArgumentsJSON returns the JSON text a provider sends for a tool call's arguments: the
// model's own text when known (RawArguments), else Arguments encoded as JavaScript's
// JSON.stringify would (compact, "<", ">" and "&" as themselves).
func (c *Content) ArgumentsJSON() string {
	if c.RawArguments != nil {
		return string(c.RawArguments)
	}
	if len(c.Arguments) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.Arguments); err != nil {
		return "{}"
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
}

// checkBlocks validates decoded blocks: every type must be one of pi's four, and a tool call's
// arguments are an object, never null. A tool call's arguments are parsed from the text the
// decoder kept in RawArguments, which stays (normalised) when it is an object.
func checkBlocks(blocks []Content) error {
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case ContentText, ContentThinking, ContentImage:
		case ContentToolCall:
			if b.Arguments != nil {
				// Already decoded (checkBlocks may run twice on the same blocks).
				break
			}
			raw := bytes.TrimSpace(b.RawArguments)
			b.RawArguments = nil
			if len(raw) == 0 || string(raw) == "null" {
				b.Arguments = map[string]any{}
				break
			}
			if raw[0] != '{' {
				return fmt.Errorf("core: tool call %q: arguments are not a JSON object", b.ID)
			}
			if err := json.Unmarshal(raw, &b.Arguments); err != nil {
				return fmt.Errorf("core: tool call %q: arguments: %w", b.ID, err)
			}
			b.RawArguments = normalizeArguments(raw)
		default:
			return fmt.Errorf("core: unknown content type %q", b.Type)
		}
	}
	return nil
}

// decodeBlocks reads message content that pi writes either as a plain string or as an array
// of blocks; a string becomes a single text block.
func decodeBlocks(raw json.RawMessage) ([]Content, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return []Content{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []Content{TextBlock(s)}, nil
	}
	blocks := []Content{}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, err
	}
	return blocks, checkBlocks(blocks)
}

// nonNil returns blocks, or an empty slice for nil, so content is never written as null.
func nonNil(blocks []Content) []Content {
	if blocks == nil {
		return []Content{}
	}
	return blocks
}

// TextOf concatenates the text blocks of content.
func TextOf(blocks []Content) string {
	n := 0
	for i := range blocks {
		if blocks[i].Type == ContentText {
			n += len(blocks[i].Text)
		}
	}
	buf := make([]byte, 0, n)
	for i := range blocks {
		if blocks[i].Type == ContentText {
			buf = append(buf, blocks[i].Text...)
		}
	}
	return string(buf)
}

// normalizeArguments returns a tool call's arguments text (valid JSON) in the form that is
// kept and sent back: compact, as JSON.stringify writes it, and with the escapes Go's encoder
// adds to strings ("\u003c", "\u003e", "\u0026", "\u2028", "\u2029") written as the
// characters, so that text read back from a file is the text the model wrote. A []byte that
// needs no change is returned as it is.
func normalizeArguments[T ~string | ~[]byte](src T) json.RawMessage {
	if b, ok := any(src).([]byte); ok && !needsNormalizing(b) {
		return b
	}
	out := make([]byte, 0, len(src))
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			if isJSONSpace(c) {
				continue
			}
			inString = c == '"'
			out = append(out, c)
			continue
		}
		switch {
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(src):
			if r, ok := htmlEscape(src, i); ok {
				out = utf8.AppendRune(out, r)
				i += 5
				continue
			}
			out = append(out, c, src[i+1])
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// needsNormalizing reports whether normalizeArguments would change src.
func needsNormalizing(src []byte) bool {
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case !inString:
			if isJSONSpace(c) {
				return true
			}
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\':
			if _, ok := htmlEscape(src, i); ok {
				return true
			}
			i++
		}
	}
	return false
}

// htmlEscape decodes the escape at src[i] ('\\') if it is one that Go's encoder adds and
// JSON.stringify does not write.
func htmlEscape[T ~string | ~[]byte](src T, i int) (rune, bool) {
	if i+5 >= len(src) || src[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for j := i + 2; j < i+6; j++ {
		d := hexDigit(src[j])
		if d < 0 {
			return 0, false
		}
		r = r<<4 | d
	}
	switch r {
	case '<', '>', '&', '\u2028', '\u2029':
		return r, true
	}
	return 0, false
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

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
