package main

// The reader's line classification: what a stdout line of the server is (event or response,
// its type, id and seq), read from its first bytes where that is safe.

import (
	"bytes"
	"encoding/json"
)

var (
	rpcEventPrefix = []byte(`{"jsonrpc":"2.0","method":"event","params":{"type":"`)
	rpcRespPrefix  = []byte(`{"jsonrpc":"2.0","id":`)
	piEventPrefix  = []byte(`{"type":"`)
	piRespPrefix   = []byte(`{"id":"`)
)

// classify reads a line's kind, type and id from its first bytes where the server's key order
// makes that safe, and decodes the line only otherwise: pi's 2,000-delta reply is about 20 MB,
// and a client that parsed all of it would measure itself.
func classify(kind impl, line []byte) msg {
	var m msg
	head := line[:min(len(line), 400)]
	switch {
	case kind == implACP:
		return classifyACP(line)
	case kind == implPiRPC && bytes.HasPrefix(line, rpcEventPrefix):
		m.event = true
		m.typ = quoted(line[len(rpcEventPrefix):])
		m.seq = seqOf(line)
	case kind == implPiRPC && bytes.HasPrefix(line, rpcRespPrefix):
		rest := line[len(rpcRespPrefix):]
		end := bytes.IndexByte(rest, ',')
		if end < 0 {
			return decodeLine(kind, line)
		}
		m.id = string(rest[:end])
		m.ok = bytes.HasPrefix(rest[end:], []byte(`,"result":`))
		m.line = line
		return m
	case kind == implPi && bytes.HasPrefix(line, piEventPrefix):
		m.event = true
		m.typ = quoted(line[len(piEventPrefix):])
		if m.typ == "response" {
			return decodeLine(kind, line)
		}
	case kind == implPi && bytes.HasPrefix(line, piRespPrefix) && bytes.Contains(head, []byte(`"type":"response"`)):
		m.id = quoted(line[len(piRespPrefix):])
		m.ok = bytes.Contains(head, []byte(`"success":true`))
		m.line = line
		return m
	default:
		return decodeLine(kind, line)
	}
	switch m.typ {
	case "message_update":
		m.sub = after(head, `"assistantMessageEvent":{"type":"`)
		if m.sub == "" {
			// pi-rpc --mode rpc writes message before assistantMessageEvent. The key can only
			// occur once outside a string (a string's quotes are escaped), so a scan is safe.
			m.sub = after(line, `"assistantMessageEvent":{"type":"`)
		}
	case "message_start", "message_end":
		m.sub = after(head, `"role":"`)
	}
	return m
}

// eventFields are the fields of an event that decodeLine reads: pi-rpc writes them in a
// notification's params, pi at the top of the line.
type eventFields struct {
	Type    string `json:"type"`
	Message struct {
		Role string `json:"role"`
	} `json:"message"`
	AssistantMessageEvent struct {
		Type string `json:"type"`
	} `json:"assistantMessageEvent"`
}

// sub is the event's subtype: the streamed assistant event's type, else the message's role.
func (e *eventFields) sub() string {
	if e.AssistantMessageEvent.Type != "" {
		return e.AssistantMessageEvent.Type
	}
	return e.Message.Role
}

// decodeLine is classify's slow path: a full decode of a line whose layout is not the usual one.
func decodeLine(kind impl, line []byte) msg {
	var v struct {
		ID      json.RawMessage `json:"id"`
		Success bool            `json:"success"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Params  eventFields     `json:"params"`
		eventFields
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return msg{typ: "unparsable"}
	}
	var m msg
	if kind == implPiRPC {
		if v.Method == "event" {
			m.event, m.typ, m.seq, m.sub = true, v.Params.Type, seqOf(line), v.Params.sub()
			return m
		}
		if len(v.ID) > 0 {
			m.id, m.ok, m.line = string(v.ID), v.Result != nil, line
		}
		return m
	}
	if v.Type == "response" {
		var id string
		_ = json.Unmarshal(v.ID, &id)
		m.id, m.ok, m.line = id, v.Success, line
		return m
	}
	m.event, m.typ, m.sub = true, v.Type, v.sub()
	return m
}

// quoted returns b up to its first double quote.
func quoted(b []byte) string {
	if i := bytes.IndexByte(b, '"'); i >= 0 {
		return string(b[:i])
	}
	return ""
}

// after returns the quoted value that follows key in b, or "".
func after(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	return quoted(b[i+len(key):])
}
