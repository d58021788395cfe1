package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// stream sits between the transport and jsonrpc2. It reads frames, answers every kind of bad
// input itself (docs/protocol.md#bad-input) so that bad input never reaches jsonrpc2 (which would
// close the connection), gives each inbound request an internal numeric id and restores the
// client's id bytes on the response, and answers a batch with one array.
//
// It implements jsonrpc2.ObjectStream; ReadObject is called only by jsonrpc2's read loop.
type stream struct {
	in      io.Reader
	framing Framing
	max     int
	w       *Writer
	log     zerolog.Logger
	reader  transport.Reader

	// ready holds sanitised messages waiting for jsonrpc2 (the elements of a batch).
	ready [][]byte

	// eof is closed when the input ends; ReadObject then waits for release before it
	// reports the end to jsonrpc2, so that the connection stays open and requests still
	// pending (a waitSettled) can be answered while the server winds down.
	eof      chan struct{}
	eofErr   error
	release  chan struct{}
	once     sync.Once
	released sync.Once

	mu     sync.Mutex
	nextID int64
	// after maps the id of a request to the client to the seq of the event it must follow.
	after   map[string]int64
	pending map[string]*pendingRequest // by the client's id bytes
	byID    map[int64]*pendingRequest  // by internal id
	// asked holds the ids of our requests to the client still waiting for an answer: a
	// message without a method that carries one of them is a (malformed) answer, not a
	// request.
	asked map[string]bool
}

// pendingRequest is a request jsonrpc2 is handling.
type pendingRequest struct {
	internal int64
	// key is the client's id bytes; original is the id as it is written back (echoID).
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

func newStream(in io.Reader, framing Framing, max int, w *Writer, log zerolog.Logger) *stream {
	return &stream{
		in:      in,
		framing: framing,
		max:     max,
		w:       w,
		log:     log,
		pending: map[string]*pendingRequest{},
		byID:    map[int64]*pendingRequest{},
		after:   map[string]int64{},
		asked:   map[string]bool{},
		eof:     make(chan struct{}),
		release: make(chan struct{}),
	}
}

// ended records the end of the input and waits until the server lets the connection close.
func (s *stream) ended(err error) error {
	s.once.Do(func() {
		s.eofErr = err
		close(s.eof)
	})
	<-s.release
	return err
}

// closeInput lets ReadObject report the end of input to jsonrpc2.
func (s *stream) closeInput() { s.released.Do(func() { close(s.release) }) }

// start opens the reader, which detects the framing (if auto) once the first byte
// arrives, and starts the writer: nothing is written before the first input byte.
func (s *stream) start() error {
	r, f, err := transport.Open(s.in, s.framing, s.max)
	if err != nil {
		return err
	}
	s.reader, s.framing = r, f
	s.w.Start(f)
	return nil
}

// ReadObject implements jsonrpc2.ObjectStream.
func (s *stream) ReadObject(v any) error {
	if s.reader == nil {
		if err := s.start(); err != nil {
			return s.ended(err)
		}
	}
	for len(s.ready) == 0 {
		msg, err := s.reader.Next()
		var bad *transport.BadHeaderError
		switch {
		case errors.Is(err, transport.ErrTooLarge):
			s.replyError(nil, protocol.CodeInvalidRequest, "message too large", nil)
			continue
		case errors.As(err, &bad):
			s.replyError(nil, protocol.CodeInvalidRequest, "Invalid request: "+bad.Msg, nil)
			continue
		case err != nil:
			return s.ended(err)
		}
		s.ready = s.accept(msg)
	}
	msg := s.ready[0]
	s.ready = s.ready[1:]
	return json.Unmarshal(msg, v)
}

// accept validates one frame (the bad-input table of docs/protocol.md#bad-input, on the
// transport's classification) and returns the messages to hand to jsonrpc2.
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

// acceptOne validates one message. It returns the sanitised message for jsonrpc2, or an
// error response to send (in a batch: to place in its slot), or neither (an ignored
// notification).
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
		// An answer to one of our requests. It is never answered: one that is malformed or
		// matches no request of ours is logged and dropped here (jsonrpc2 would close the
		// connection on one it cannot parse); the others go to jsonrpc2, which matches them
		// by id.
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
	key := string(bytes.TrimSpace(rawID))
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.pending[key]; busy {
		return nil, errorResponse(rawID, protocol.CodeInvalidRequest, fmt.Sprintf("Invalid request: id %s is already in use", key), nil)
	}
	s.nextID++
	p := &pendingRequest{internal: s.nextID, key: key, original: echoID(rawID), method: method, batch: b, slot: slot}
	s.pending[key] = p
	s.byID[p.internal] = p
	if b != nil {
		b.slots = append(b.slots, nil)
		b.missing++
	}
	return sanitised(&p.internal, method, params), nil
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

var (
	lineSep = []byte("\u2028")
	paraSep = []byte("\u2029")
)

func (s *stream) replyError(id []byte, code int, message string, data any) {
	s.w.Response(errorResponse(id, code, message, data))
}

// WriteObject implements jsonrpc2.ObjectStream. jsonrpc2 writes only our requests and
// notifications to the client (responses are written by respond, without it): a
// permission/request goes after its permission_requested event.
func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var head struct {
		ID     *json.RawMessage `json:"id"`
		Method *string          `json:"method"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	if head.Method == nil {
		return fmt.Errorf("rpc: jsonrpc2 wrote a response; responses are written by the server")
	}
	if head.ID != nil {
		var id string
		if json.Unmarshal(*head.ID, &id) == nil {
			s.mu.Lock()
			s.asked[id] = true
			seq, ok := s.after[id]
			delete(s.after, id)
			s.mu.Unlock()
			if ok {
				s.w.ResponseAfter(data, seq)
				return nil
			}
		}
	}
	s.w.Response(data)
	return nil
}

// respond writes the response to a pending request: result, or the error object errObj,
// with the client's own id, after the event it must follow if any, or into its batch.
func (s *stream) respond(internal int64, result, errObj json.RawMessage) error {
	p, err := s.take(internal)
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
func (s *stream) respondBody(internal int64, result transport.Body) error {
	p, err := s.take(internal)
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

// take removes the pending request with the internal id.
func (s *stream) take(internal int64) (*pendingRequest, error) {
	s.mu.Lock()
	p := s.byID[internal]
	if p != nil {
		delete(s.byID, internal)
		delete(s.pending, p.key)
	}
	s.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("rpc: response to unknown request %d", internal)
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

// requestAfter makes the request to the client with id follow the event with seq (a
// permission/request after its permission_requested).
func (s *stream) requestAfter(id string, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.after[id] = seq
}

// answerAfter makes the response to an internal id follow the event with seq.
func (s *stream) answerAfter(internal, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.byID[internal]; p != nil {
		p.after = seq
	}
}

// internalID maps a client's id (as in $/cancelRequest) to the internal id of a pending
// request.
func (s *stream) internalID(original json.RawMessage) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending[string(bytes.TrimSpace(original))]
	if p == nil {
		return 0, false
	}
	return p.internal, true
}

// Close implements jsonrpc2.ObjectStream. stdin and stdout belong to the process; closing
// the connection does not close them.
func (s *stream) Close() error { return nil }
