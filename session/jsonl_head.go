package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unsafe"

	"github.com/pi-rpc/pi-rpc/internal/jsonscan"
)

// scanHead reads a line's head (type, id, parent id, and a message's role) the way
// json.Unmarshal into lineHead would, without decoding anything else: a large session opens
// in one pass over each line without allocating (ParentID and Message point into h itself,
// and are copied out by the caller before the next line). The line must be valid JSON
// (the caller checks with json.Valid); keys match case-insensitively and the last of a
// repeated key wins, as with encoding/json. Strings without escapes share b's memory (b is a
// file's content, never modified).
func scanHead(b []byte, h *lineHead) error {
	i := jsonscan.Space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errors.New("json: cannot unmarshal non-object into Go value of type session.lineHead")
	}
	return scanObject(b, i, func(key string, v []byte) error {
		var err error
		if v[0] == 'n' {
			// null leaves a string as it was and sets a pointer to nil.
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
			var s string
			s, err = headString(v, "type")
			h.Type = EntryType(s)
		case strings.EqualFold(key, "id"):
			h.ID, err = headString(v, "id")
		case strings.EqualFold(key, "parentId"):
			var s string
			if s, err = headString(v, "parentId"); err == nil {
				h.parent = s
				h.ParentID = &h.parent
			}
		case strings.EqualFold(key, "message"):
			if v[0] != '{' {
				return errors.New("json: cannot unmarshal non-object into Go struct field lineHead.message")
			}
			if h.Message == nil {
				// A new message, as encoding/json makes for a nil pointer; a repeated key
				// reuses the one it has.
				h.message = messageHead{}
				h.Message = &h.message
			}
			return scanObject(v, 0, func(key string, v []byte) error {
				if !strings.EqualFold(key, "role") || v[0] == 'n' {
					return nil
				}
				var err error
				h.Message.Role, err = headString(v, "message.role")
				return err
			})
		}
		return err
	})
}

// headString is a JSON string value (null leaves it empty, as encoding/json does).
func headString(v []byte, field string) (string, error) {
	switch v[0] {
	case 'n':
		return "", nil
	case '"':
	default:
		return "", errors.New("json: cannot unmarshal non-string into Go struct field lineHead." + field + " of type string")
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		// Escapes and non-ASCII (which encoding/json checks for valid UTF-8) are rare in
		// heads: json.Unmarshal reads them.
		if c == '\\' || c >= 0x80 {
			var s string
			err := json.Unmarshal(v, &s)
			return s, err
		}
	}
	if len(inner) == 0 {
		return "", nil
	}
	return unsafe.String(&inner[0], len(inner)), nil
}

// scanObject calls f with each key and raw value of the valid JSON object starting at b[i].
func scanObject(b []byte, i int, f func(key string, v []byte) error) error {
	i = jsonscan.Space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		end := skipValue(b, i)
		key, err := headString(b[i:end], "key")
		if err != nil {
			return err
		}
		i = jsonscan.Space(b, end)
		i = jsonscan.Space(b, i+1) // the colon
		end = skipValue(b, i)
		if err := f(key, b[i:end]); err != nil {
			return err
		}
		i = jsonscan.Space(b, end)
		if i >= len(b) || b[i] == '}' {
			return nil
		}
		i = jsonscan.Space(b, i+1) // the comma
	}
	return nil
}

// skipValue returns the index just after the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index just after the string starting at b[i]: the first quote not
// escaped by an odd run of backslashes (found with bytes.IndexByte, which is fast over long
// texts).
func skipString(b []byte, i int) int {
	for i++; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		i += q
		backslashes := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			backslashes++
		}
		i++
		if backslashes%2 == 0 {
			return i
		}
	}
	return i
}
