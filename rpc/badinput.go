package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// The bad-input table of docs/protocol.md#bad-input, applied to each frame before jsonrpc2
// sees it. sourcegraph/jsonrpc2 closes the connection on any message it cannot decode (not
// JSON, not an object, a batch, an id of another type, a number id beyond int64: pitfall 5 of
// STYLE.md), while bad input must be answered and the connection go on; what passes is
// rebuilt in the one form jsonrpc2 decodes (sanitised).

// accept checks one frame (on the transport's classification) and returns the messages to
// hand to jsonrpc2.
func (s *stream) accept(frame []byte) [][]byte {
	f := transport.Classify(frame)
	switch {
	case !f.ValidUTF8:
		s.replyError(nil, protocol.CodeParseError, "Parse error: invalid UTF-8", nil)
		return nil
	case f.Kind == transport.Empty:
		s.replyError(nil, protocol.CodeParseError, "Parse error: empty message", nil)
		return nil
	case f.Kind == transport.NotJSON:
		s.replyError(nil, protocol.CodeParseError, "Parse error: "+f.Reason, nil)
		return nil
	case f.Kind == transport.Batch:
		return s.acceptBatch(f.Data)
	}
	out, errResp := s.acceptOne(f.Data, nil, 0)
	if errResp != nil {
		s.w.Response(errResp)
	}
	if out == nil {
		return nil
	}
	return [][]byte{out}
}

// acceptBatch checks the elements of a batch (docs/protocol.md#messages): jsonrpc2 gets them
// one by one, and their responses are gathered into one array (replies.go), written before
// any event the batch causes, so events are held until it is complete.
func (s *stream) acceptBatch(data []byte) [][]byte {
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil || len(elems) == 0 {
		s.replyError(nil, protocol.CodeInvalidRequest, "Invalid request: empty batch", nil)
		return nil
	}
	b := &batch{}
	var out [][]byte
	s.mu.Lock()
	s.w.Hold()
	s.mu.Unlock()
	for _, el := range elems {
		slot := len(b.slots)
		msg, errResp := s.acceptOne(el, b, slot)
		switch {
		case errResp != nil:
			b.slots = append(b.slots, errResp)
		case msg != nil:
			out = append(out, msg)
		}
	}
	s.mu.Lock()
	done := b.missing == 0
	s.mu.Unlock()
	if done {
		s.finishBatch(b)
	}
	return out
}

// acceptOne checks one message. It returns the sanitised message for jsonrpc2, or an error
// response to send (in a batch: to place in its slot), or neither (an ignored notification).
func (s *stream) acceptOne(data []byte, b *batch, slot int) (msg, errResp []byte) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, errorResponse(nil, protocol.CodeInvalidRequest, "Invalid request: expected a JSON object", nil)
	}
	rawID, hasID := fields["id"]
	idOK := hasID && validID(rawID)
	echo := func() []byte {
		if idOK {
			return rawID
		}
		return nil
	}
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	rawMethod, hasMethod := fields["method"]
	if !hasMethod && (hasResult || hasError || s.isAsked(rawID)) {
		// An answer to one of our requests, never answered itself (client_responses.go).
		return s.acceptResponse(data, fields), nil
	}
	if v, ok := fields["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return nil, errorResponse(echo(), protocol.CodeInvalidRequest, `Invalid request: "jsonrpc" must be "2.0"`, nil)
	}
	if hasID && !idOK {
		return nil, errorResponse(nil, protocol.CodeInvalidRequest, "Invalid request: id must be a string or a number", nil)
	}
	var method string
	if !hasMethod || json.Unmarshal(rawMethod, &method) != nil {
		if !hasID {
			s.log.Warn().Msg("ignoring a notification without a method")
			return nil, nil
		}
		return nil, errorResponse(echo(), protocol.CodeInvalidRequest, `Invalid request: "method" must be a string`, nil)
	}
	params, hasParams := fields["params"]
	if hasParams && !isObject(params) {
		if !hasID {
			s.log.Warn().Str("method", method).Msg("ignoring a notification whose params are not an object")
			return nil, nil
		}
		return nil, errorResponse(echo(), protocol.CodeInvalidParams, "Invalid params: params must be an object", nil)
	}
	if !hasID {
		return sanitised(nil, method, params), nil
	}
	if b != nil && answersAfterItsEvents[method] {
		return nil, errorResponse(rawID, protocol.CodeInvalidRequest, "Invalid request: "+method+" is not allowed in a batch", nil)
	}
	key, ok := s.open(rawID, method, b, slot)
	if !ok {
		return nil, errorResponse(rawID, protocol.CodeInvalidRequest, fmt.Sprintf("Invalid request: id %s is already in use", bytes.TrimSpace(rawID)), nil)
	}
	return sanitised(&key, method, params), nil
}

// answersAfterItsEvents are the methods whose answer follows events they cause (rule 1's
// exceptions in docs/protocol.md#ordering-contract); a batch's array is written before its
// elements' events, so they cannot be answered in one.
var answersAfterItsEvents = map[string]bool{
	protocol.MethodWaitSettled: true,
	protocol.MethodCompact:     true,
	protocol.MethodShutdown:    true,
	protocol.MethodBash:        true,
}

func (s *stream) replyError(id []byte, code int, message string, data any) {
	s.w.Response(errorResponse(id, code, message, data))
}

// sanitised rebuilds a checked request for jsonrpc2: "jsonrpc", the id (its key as a JSON
// string, see replies.go), "method" and "params" as sent.
func sanitised(key *string, method string, params json.RawMessage) []byte {
	out := []byte(`{"jsonrpc":"2.0"`)
	if key != nil {
		out = appendKey(append(out, `,"id":`...), *key)
	}
	m, _ := json.Marshal(method)
	out = append(append(out, `,"method":`...), m...)
	if params != nil {
		out = append(append(out, `,"params":`...), params...)
	}
	return append(out, '}')
}

// appendKey appends a key as a JSON string. The key comes from an id of a message that
// decoded as JSON (badinput's checks come first): valid UTF-8 without raw control
// characters, so only the quotes and backslashes inside a string id need escaping.
func appendKey(out []byte, key string) []byte {
	out = append(out, '"')
	for i := 0; i < len(key); i++ {
		if c := key[i]; c == '"' || c == '\\' {
			out = append(out, '\\')
		}
		out = append(out, key[i])
	}
	return append(out, '"')
}

// validID reports whether raw is an id the protocol accepts: a string or a number, of any
// size (docs/protocol.md#messages).
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
