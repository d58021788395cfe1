package core

import (
	"encoding/json"
	"fmt"
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

	// ID, Name, Arguments and ThoughtSignature belong to tool calls. Arguments is never nil in
	// a finished message.
	ID               string         `json:"id"`
	Name             string         `json:"name"`
	Arguments        map[string]any `json:"arguments"`
	ThoughtSignature string         `json:"thoughtSignature"`
}

// The JSON tags above are for decoding only, which then needs no custom code and reads a
// message in one pass; encoding writes exactly pi's fields for the block's type (MarshalJSON).

// TextBlock returns a text block.
func TextBlock(text string) Content { return Content{Type: ContentText, Text: text} }

// ThinkingBlock returns a thinking block.
func ThinkingBlock(thinking string) Content {
	return Content{Type: ContentThinking, Thinking: thinking}
}

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
	Type             ContentType    `json:"type"`
	ID               string         `json:"id"`
	Name             string         `json:"name"`
	Arguments        map[string]any `json:"arguments"`
	ThoughtSignature string         `json:"thoughtSignature,omitempty"`
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
		args := c.Arguments
		if args == nil {
			args = map[string]any{}
		}
		return json.Marshal(toolCallJSON{c.Type, c.ID, c.Name, args, c.ThoughtSignature})
	default:
		return nil, fmt.Errorf("core: cannot marshal content of type %q", c.Type)
	}
}

// checkBlocks validates decoded blocks: every type must be one of pi's four, and a tool call's
// arguments are an object, never null.
func checkBlocks(blocks []Content) error {
	for i := range blocks {
		switch blocks[i].Type {
		case ContentText, ContentThinking, ContentImage:
		case ContentToolCall:
			if blocks[i].Arguments == nil {
				blocks[i].Arguments = map[string]any{}
			}
		default:
			return fmt.Errorf("core: unknown content type %q", blocks[i].Type)
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
