package rpc

import (
	"bytes"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"
)

// Answers from the client to our requests (permission/request). jsonrpc2 matches an answer
// to its call by id, but it closes the connection on one it cannot decode (an id of another
// type, both result and error, ...), logs one that matches no call only at its logger's
// level, and does not say which ids it waits for. The protocol (docs/protocol.md#messages)
// asks that every malformed or unmatched answer be ignored and logged at warn, and that a
// message without a method and with the id of a pending permission/request count as an
// answer; so the ids asked are kept here (asked) and an answer reaches jsonrpc2 only when
// it is well-formed and awaited.

// acceptResponse returns an answer from the client for jsonrpc2, or nil after logging why
// it is dropped.
func (s *stream) acceptResponse(data []byte, fields map[string]json.RawMessage) []byte {
	if reason := malformedResponse(data, fields); reason != "" {
		s.log.Warn().Str("reason", reason).Str("message", truncate(string(data), 200)).Msg("ignoring a malformed response")
		return nil
	}
	id, _ := stringID(fields["id"])
	s.mu.Lock()
	asked := s.asked[id]
	delete(s.asked, id)
	s.mu.Unlock()
	if !asked {
		s.log.Warn().Str("message", truncate(string(data), 200)).Msg("ignoring a response that matches no request")
		return nil
	}
	return data
}

// malformedResponse says what is wrong with an answer from the client, or "" if jsonrpc2
// can take it: "jsonrpc":"2.0", a string id (ours all are), and exactly one of a result or
// an error object.
func malformedResponse(data []byte, fields map[string]json.RawMessage) string {
	if v, ok := fields["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return `"jsonrpc" must be "2.0"`
	}
	if _, ok := stringID(fields["id"]); !ok {
		return "id must be a string"
	}
	_, hasResult := fields["result"]
	errObj, hasError := fields["error"]
	if hasError && string(bytes.TrimSpace(errObj)) == "null" {
		hasError = false // "error":null beside a result is tolerated
	}
	switch {
	case hasResult && hasError:
		return "both result and error"
	case !hasResult && !hasError:
		return "neither result nor error"
	case hasError && !isObject(errObj):
		return "error must be an object"
	}
	var r jsonrpc2.Response
	if err := json.Unmarshal(data, &r); err != nil {
		return err.Error()
	}
	return ""
}

// isAsked reports whether raw is the id of one of our requests still waiting for an answer.
func (s *stream) isAsked(raw json.RawMessage) bool {
	id, ok := stringID(raw)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[id]
}

// stringID decodes an id that is a JSON string (absent, null and other types are not).
func stringID(raw json.RawMessage) (string, bool) {
	var id string
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &id) != nil {
		return "", false
	}
	return id, true
}

// forget ends the wait for an answer to our request id (answered, cancelled or abandoned).
func (s *stream) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.asked, id)
}
