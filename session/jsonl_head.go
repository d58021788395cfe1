package session

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/tidwall/gjson"
)

// scanHead reads a line's head (type, id, parent id, and a message's role) the way
// json.Unmarshal into lineHead would, without decoding anything else: a large session opens
// in one pass over each line (ParentID and Message point into h itself, and are copied out by
// the caller before the next line). The line must be valid JSON (the caller checks with
// validJSON). gjson walks the line's object and its message's in order, its keys and values
// substrings of the line, so that keys can match case-insensitively and the last of a
// repeated key win, as with encoding/json; strings without escapes share b's memory (b is a
// file's content, never modified). Scanning allocates nothing but where gjson unescapes a
// string value at either of those two levels (a user message's text with a newline).
//
// Why gjson (github.com/tidwall/gjson, which the Anthropic SDK brings anyway) rather than
// jsontext, which validates the line: its ForEach skips a nested value (a message's content,
// most of the line) without checking it again, and hands out substrings of the line where
// jsontext's Decoder copies tokens into its own buffer.
func scanHead(b []byte, h *lineHead) error {
	if len(b) == 0 {
		return errNotObject
	}
	top := gjson.Parse(unsafe.String(&b[0], len(b)))
	if !top.IsObject() {
		return errNotObject
	}
	var err error
	top.ForEach(func(key, v gjson.Result) bool {
		err = headField(h, gjsonString(key), v)
		return err == nil
	})
	return err
}

var errNotObject = errors.New("json: cannot unmarshal non-object into Go value of type session.lineHead")

// headField sets what the top-level member key: v sets in h.
func headField(h *lineHead, key string, v gjson.Result) error {
	if v.Type == gjson.Null {
		// null leaves a string as it was and sets a pointer to nil.
		switch {
		case strings.EqualFold(key, "parentId"):
			h.ParentID = nil
		case strings.EqualFold(key, "message"):
			h.Message = nil
		}
		return nil
	}
	var err error
	switch {
	case strings.EqualFold(key, "type"):
		var s string
		s, err = headString(v, "type")
		h.Type = sessionapi.EntryType(s)
	case strings.EqualFold(key, "id"):
		h.ID, err = headString(v, "id")
	case strings.EqualFold(key, "parentId"):
		var s string
		if s, err = headString(v, "parentId"); err == nil {
			h.parent = s
			h.ParentID = &h.parent
		}
	case strings.EqualFold(key, "message"):
		if !v.IsObject() {
			return errors.New("json: cannot unmarshal non-object into Go struct field lineHead.message")
		}
		if h.Message == nil {
			// A new message, as encoding/json makes for a nil pointer; a repeated key
			// reuses the one it has.
			h.message = messageHead{}
			h.Message = &h.message
		}
		v.ForEach(func(key, v gjson.Result) bool {
			if v.Type != gjson.Null && strings.EqualFold(gjsonString(key), "role") {
				h.Message.Role, err = headString(v, "message.role")
			}
			return err == nil
		})
	}
	return err
}

// headString is a JSON string value (null leaves it empty, as encoding/json does).
func headString(v gjson.Result, field string) (string, error) {
	switch v.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return gjsonString(v), nil
	default:
		return "", errors.New("json: cannot unmarshal non-string into Go struct field lineHead." + field + " of type string")
	}
}

// gjsonString is the string v (a key or a string value) as json.Unmarshal reads it. Escapes and
// invalid UTF-8 (which encoding/json replaces with U+FFFD) are rare in heads and left to
// json.Unmarshal, so that gjson's unescaping never has to agree with encoding/json's.
func gjsonString(v gjson.Result) string {
	raw := v.Raw
	if strings.IndexByte(raw, '\\') < 0 && utf8.ValidString(raw) {
		return v.Str
	}
	var s string
	_ = json.Unmarshal([]byte(raw), &s) // valid JSON: the caller checked
	return s
}
