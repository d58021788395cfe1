package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// headScanner reads a line's head (type, id, parent id, and a message's role) the way
// json.Unmarshal into lineHead would, and checks in the same pass that the line is valid
// JSON (validJSON's grammar), without decoding anything else: a large session opens in one
// pass over each line. It walks the line with jsontext's Decoder (github.com/go-json-experiment/json),
// which skips every other value (a message's content, most of the line) while validating
// it, and which reads from a bytes.Buffer in place, so that the values it returns are the
// line's own bytes: strings without escapes share the line's memory (a file's content, never
// modified). Keys match case-insensitively and the last of a repeated key wins, as with
// encoding/json. A scanner is reused line after line (one per decoding goroutine); scanning
// allocates nothing but where a head string has an escape (a user message's text with a
// newline never is one: only type, id, parentId and role are read).
type headScanner struct {
	buf bytes.Buffer
	dec jsontext.Decoder
}

var (
	errInvalidJSON = errors.New("invalid JSON")
	errNotObject   = errors.New("json: cannot unmarshal non-object into Go value of type session.lineHead")
)

// scan reads b's head into h (ParentID and Message point into h itself, and are copied out
// by the caller before the next line). It returns errInvalidJSON when b is not one valid JSON
// value, whatever else is wrong with it, and otherwise the error json.Unmarshal would return
// for a head of the wrong shape.
func (s *headScanner) scan(b []byte, h *lineHead) error {
	s.buf = *bytes.NewBuffer(b)
	s.dec.Reset(&s.buf, validOptions...)
	err := s.object(h)
	if err == nil {
		// One value and nothing after it.
		if _, end := s.dec.ReadToken(); !errors.Is(end, io.EOF) {
			err = errInvalidJSON
		}
	}
	if err != nil && !errors.Is(err, errInvalidJSON) && !validJSON(b) {
		// A head of the wrong shape was found before the rest was read: the line must
		// still be valid JSON for that to be its error.
		err = errInvalidJSON
	}
	return err
}

// object reads the top-level object, member by member.
func (s *headScanner) object(h *lineHead) error {
	switch s.dec.PeekKind() {
	case '{':
	case 0:
		return errInvalidJSON
	default:
		return errNotObject
	}
	return s.members(func(key string) error { return s.member(h, key) })
}

// members reads the object the decoder is at, calling value with each member's name to read
// the member's value.
func (s *headScanner) members(value func(key string) error) error {
	d := &s.dec
	if _, err := d.ReadToken(); err != nil {
		return errInvalidJSON
	}
	for {
		switch d.PeekKind() {
		case '}':
			if _, err := d.ReadToken(); err != nil {
				return errInvalidJSON
			}
			return nil
		case '"':
			k, err := d.ReadValue()
			if err != nil {
				return errInvalidJSON
			}
			if err := value(valueString(k)); err != nil {
				return err
			}
		default:
			return errInvalidJSON
		}
	}
}

// member sets what the top-level member key sets in h, reading its value.
func (s *headScanner) member(h *lineHead, key string) error {
	d := &s.dec
	kind := d.PeekKind()
	if kind == 0 {
		return errInvalidJSON
	}
	if kind == 'n' {
		// null leaves a string as it was and sets a pointer to nil.
		if _, err := d.ReadValue(); err != nil {
			return errInvalidJSON
		}
		switch {
		case strings.EqualFold(key, "parentId"):
			h.ParentID = nil
		case strings.EqualFold(key, "message"):
			h.Message = nil
		}
		return nil
	}
	switch {
	case strings.EqualFold(key, "type"):
		v, err := s.headString("type")
		h.Type = sessionapi.EntryType(v)
		return err
	case strings.EqualFold(key, "id"):
		v, err := s.headString("id")
		h.ID = v
		return err
	case strings.EqualFold(key, "parentId"):
		v, err := s.headString("parentId")
		if err == nil {
			h.parent = v
			h.ParentID = &h.parent
		}
		return err
	case strings.EqualFold(key, "message"):
		return s.message(h)
	}
	if d.SkipValue() != nil {
		return errInvalidJSON
	}
	return nil
}

// message reads the message object's members for its role.
func (s *headScanner) message(h *lineHead) error {
	if s.dec.PeekKind() != '{' {
		return errors.New("json: cannot unmarshal non-object into Go struct field lineHead.message")
	}
	if h.Message == nil {
		// A new message, as encoding/json makes for a nil pointer; a repeated key reuses
		// the one it has.
		h.message = messageHead{}
		h.Message = &h.message
	}
	return s.members(func(key string) error {
		if !strings.EqualFold(key, "role") || s.dec.PeekKind() == 'n' {
			if s.dec.SkipValue() != nil {
				return errInvalidJSON
			}
			return nil
		}
		role, err := s.headString("message.role")
		if err == nil {
			h.Message.Role = role
		}
		return err
	})
}

// headString reads a string value (the caller has seen it is not null).
func (s *headScanner) headString(field string) (string, error) {
	if s.dec.PeekKind() != '"' {
		return "", errors.New("json: cannot unmarshal non-string into Go struct field lineHead." + field + " of type string")
	}
	v, err := s.dec.ReadValue()
	if err != nil {
		return "", errInvalidJSON
	}
	return valueString(v), nil
}

// valueString is the JSON string v (a name or a string value, quoted, as the line holds it) as
// json.Unmarshal reads it: without escapes and in valid UTF-8 it is v's own bytes (the
// line's memory); escapes and invalid UTF-8 (which encoding/json replaces with U+FFFD) are
// rare in heads and left to json.Unmarshal, so that no unescaping of ours has to agree with
// encoding/json's.
func valueString(v jsontext.Value) string {
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		if len(raw) == 0 {
			return ""
		}
		return unsafe.String(&raw[0], len(raw))
	}
	var str string
	_ = json.Unmarshal(v, &str) // valid JSON: the decoder read it
	return str
}
