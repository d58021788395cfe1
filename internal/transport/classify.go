package transport

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Kind is what a frame holds, as far as it can be told before decoding it as a message.
type Kind int

// The kinds of frame, in the order [Classify] tells them apart.
const (
	// Object: a JSON object, the only frame that can be a message.
	Object Kind = iota
	// Empty: nothing but white space.
	Empty
	// NotJSON: not valid JSON; [Frame.Reason] says why.
	NotJSON
	// Batch: a JSON array.
	Batch
	// NotObject: valid JSON that is neither an object nor an array (a string, a number,
	// true, false or null).
	NotObject
)

// Frame is a classified frame.
type Frame struct {
	Kind Kind
	// Data is the frame without leading and trailing white space.
	Data []byte
	// ValidUTF8 reports whether the whole frame is valid UTF-8. JSON's grammar does not
	// check it (invalid bytes inside a string pass json.Valid), so a front end that
	// rejects invalid UTF-8 does so first.
	ValidUTF8 bool
	// Reason, for NotJSON, is the decoder's description of the first error.
	Reason string
}

// Classify sorts a frame (a message as read, without its framing) by what it holds. It
// decodes nothing but JSON's syntax.
func Classify(frame []byte) Frame {
	f := Frame{Data: bytes.TrimSpace(frame), ValidUTF8: utf8.Valid(frame)}
	switch {
	case len(f.Data) == 0:
		f.Kind = Empty
	case !json.Valid(f.Data):
		f.Kind = NotJSON
		f.Reason = syntaxError(f.Data)
	case f.Data[0] == '{':
		f.Kind = Object
	case f.Data[0] == '[':
		f.Kind = Batch
	default:
		f.Kind = NotObject
	}
	return f
}

// syntaxError describes why data is not JSON, in the decoder's words.
func syntaxError(data []byte) string {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}
