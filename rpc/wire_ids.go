package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// echoID is a client's id as it is written back: its bytes as sent, except that U+2028 and
// U+2029, which JSON allows raw inside a string, are escaped as in every other string of
// the output (docs/protocol.md, ndjson), so that no output line holds a character that
// some line readers take for a line end. The raw bytes can only occur inside a string of
// valid JSON, where the escape means the same character.
func echoID(raw []byte) []byte {
	raw = bytes.TrimSpace(raw)
	out := append([]byte(nil), raw...)
	if bytes.Contains(raw, lineSep) || bytes.Contains(raw, paraSep) {
		out = bytes.ReplaceAll(out, lineSep, []byte(`\u2028`))
		out = bytes.ReplaceAll(out, paraSep, []byte(`\u2029`))
	}
	return out
}

// sanitised rebuilds a request for jsonrpc2 with an internal id.
func sanitised(id *int64, method string, params json.RawMessage) []byte {
	out := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		out = append(out, `,"id":`...)
		out = strconv.AppendInt(out, *id, 10)
	}
	out = append(out, `,"method":`...)
	m, _ := json.Marshal(method)
	out = append(out, m...)
	if params != nil {
		out = append(out, `,"params":`...)
		out = append(out, params...)
	}
	return append(out, '}')
}

func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// errorResponse builds an error response; a nil id is written as null.
func errorResponse(id []byte, code int, message string, data any) []byte {
	out := []byte(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		out = append(out, "null"...)
	} else {
		out = append(out, echoID(id)...)
	}
	e := struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, message, data}
	body, _ := json.Marshal(e)
	out = append(out, `,"error":`...)
	out = append(out, body...)
	return append(out, '}')
}
