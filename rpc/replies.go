package rpc

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pi-rpc/pi-rpc/internal/transport"
)

// Requests being answered, and their responses.
//
// jsonrpc2 sees each request under its key (keyOf), the client's id bytes handed to it as a
// JSON string, so that jsonrpc2.ID (a uint64 or a string) carries any id, and two ids are
// the same while their bytes are. The response is written by the server
// (respond), not by jsonrpc2's Reply, because the protocol asks what Reply cannot do:
//   - the id echoed byte for byte (docs/protocol.md#messages); Reply would write the key as
//     a string, and "jsonrpc" after the result ({"id":..,"result":..,"jsonrpc":"2.0"}),
//     where every response of the protocol begins {"jsonrpc":"2.0","id":...;
//   - a response placed after the event it follows (waitSettled, compact, bash, shutdown:
//     ordering rule 1's exceptions), or into its batch's array, where Reply writes at once;
//   - a result that writes itself (getEntries, entries_result.go), never built whole;
//   - the result encoded once: Reply's path (SetResult, then the Response's and the
//     stream's json.Marshal) encodes and scans it three times.

// pendingRequest is a request jsonrpc2 is handling.
type pendingRequest struct {
	// key is the client's id's (keyOf); original is the id as it is written back (echoID).
	key      string
	original []byte
	method   string
	batch    *batch
	slot     int
	// after, when positive, is the seq of the event the response must follow.
	after int64
}

// batch collects the responses of one batch in input order.
type batch struct {
	slots   [][]byte
	missing int
}

// keyOf is the key of the client's id raw: a number's bytes as sent (`7`, `-1.5e3`), a
// string's bytes between its quotes after an apostrophe (`"a"` is `'a`), which no number
// begins with. Without the quotes the key of a plain string id needs no escaping, so
// jsonrpc2 decodes it without unescaping.
func keyOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) >= 2 && raw[0] == '"' {
		return "'" + string(raw[1:len(raw)-1])
	}
	return string(raw)
}

// open records a request with the client's id rawID (in slot of batch b, if any) and returns
// its key; ok is false when a request with that id is still pending (an id may be reused
// only once its request is answered).
func (s *stream) open(rawID []byte, method string, b *batch, slot int) (key string, ok bool) {
	key = keyOf(rawID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.pending[key]; busy {
		return key, false
	}
	s.pending[key] = &pendingRequest{key: key, original: echoID(rawID), method: method, batch: b, slot: slot}
	if b != nil {
		b.slots = append(b.slots, nil)
		b.missing++
	}
	return key, true
}

// answerAfter makes the response to the request with key follow the event with seq.
func (s *stream) answerAfter(key string, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pending[key]; p != nil {
		p.after = seq
	}
}

// respond writes the response to a pending request: result, or the error object errObj,
// with the client's own id, after the event it must follow if any, or into its batch.
func (s *stream) respond(key string, result, errObj []byte) error {
	p, err := s.take(key)
	if err != nil {
		return err
	}
	out := make([]byte, 0, len(result)+len(errObj)+len(p.original)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, p.original...)
	if errObj != nil {
		out = append(append(out, `,"error":`...), errObj...)
	} else {
		out = append(append(out, `,"result":`...), result...)
	}
	out = append(out, '}')
	if p.batch == nil {
		if p.after > 0 {
			s.w.ResponseAfter(out, p.after)
		} else {
			s.w.Response(out)
		}
		return nil
	}
	s.fillSlot(p, out)
	return nil
}

// respondBody is respond with a result that writes itself (rpc/entries_result.go): the
// response is written from it when the writer comes to it, never built whole, except as an
// element of a batch, whose array is built.
func (s *stream) respondBody(key string, result transport.Body) error {
	p, err := s.take(key)
	if err != nil {
		return err
	}
	head := make([]byte, 0, len(p.original)+40)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, p.original...)
	head = append(head, `,"result":`...)
	msg := &resultMessage{head: head, result: result}
	if p.batch == nil {
		if p.after > 0 {
			s.w.ResponseBodyAfter(msg, p.after)
		} else {
			s.w.ResponseBody(msg)
		}
		return nil
	}
	var out bytes.Buffer
	out.Grow(msg.Size())
	if _, err := msg.WriteTo(&out); err != nil {
		return err // a bytes.Buffer does not fail
	}
	s.fillSlot(p, out.Bytes())
	return nil
}

// take removes the pending request with key.
func (s *stream) take(key string) (*pendingRequest, error) {
	s.mu.Lock()
	p := s.pending[key]
	delete(s.pending, key)
	s.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("rpc: response to unknown request %s", key)
	}
	return p, nil
}

// fillSlot puts a batch element's response in its place and writes the batch once it is
// complete.
func (s *stream) fillSlot(p *pendingRequest, out []byte) {
	s.mu.Lock()
	p.batch.slots[p.slot] = out
	p.batch.missing--
	done := p.batch.missing == 0
	s.mu.Unlock()
	if done {
		s.finishBatch(p.batch)
	}
}

// finishBatch writes a batch's responses as one array and releases held events. A batch of
// notifications only gets no reply.
func (s *stream) finishBatch(b *batch) {
	if len(b.slots) > 0 {
		out := []byte{'['}
		for i, r := range b.slots {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, r...)
		}
		s.w.Response(append(out, ']'))
	}
	s.w.Release()
}

// resultMessage is a response whose result writes itself: head is the message up to the
// result (`{"jsonrpc":"2.0","id":ID,"result":`), and the closing brace follows it.
type resultMessage struct {
	head   []byte
	result transport.Body
}

func (m *resultMessage) Size() int { return len(m.head) + m.result.Size() + 1 }

func (m *resultMessage) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(m.head)
	if err != nil {
		return int64(n), err
	}
	k, err := m.result.WriteTo(w)
	if err != nil {
		return int64(n) + k, err
	}
	c, err := w.Write(closeBrace)
	return int64(n) + k + int64(c), err
}

var closeBrace = []byte{'}'}

var (
	lineSep = []byte("\u2028")
	paraSep = []byte("\u2029")
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
