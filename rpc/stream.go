package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/internal/transport"
	"github.com/pi-rpc/pi-rpc/protocol"
)

// stream is the connection's jsonrpc2.ObjectStream over internal/transport's framing: the
// transport's readers cut stdin into frames (ndjson or Content-Length, detected from the
// first byte) and Writer frames what goes to stdout. ReadObject is called only by jsonrpc2's
// read loop, WriteObject only by jsonrpc2's send (our requests to the client).
//
// What it adds to a plain stream is what docs/protocol.md asks and sourcegraph/jsonrpc2
// (v0.2.3) cannot give; each piece says where it stands:
//   - the bad-input table (badinput.go): jsonrpc2 closes the connection on the first frame
//     it cannot parse, so every frame is checked and answered here first;
//   - the client's ids (replies.go): jsonrpc2.ID holds a uint64 or a string, and ids are
//     echoed byte for byte, so jsonrpc2 sees each request under its id bytes as a string;
//   - batches (badinput.go, replies.go): jsonrpc2 does not take them;
//   - answers from the client (client_responses.go): a malformed one would close the
//     connection too;
//   - the end-of-input latch (ended).
type stream struct {
	in      io.Reader
	framing Framing
	max     int
	w       *Writer
	log     zerolog.Logger
	reader  transport.Reader

	// ready holds checked messages waiting for jsonrpc2 (the elements of a batch).
	ready [][]byte

	// eof is closed when the input ends; release lets ReadObject report it (closeInput).
	eof      chan struct{}
	release  chan struct{}
	once     sync.Once
	released sync.Once

	mu sync.Mutex
	// pending holds the requests being answered, by key (keyOf, replies.go).
	pending map[string]*pendingRequest
	// after maps the id of a request to the client to the seq of the event it must follow.
	after map[string]int64
	// asked holds the ids of our requests to the client still waiting for an answer
	// (client_responses.go).
	asked map[string]bool
}

func newStream(in io.Reader, framing Framing, max int, w *Writer, log zerolog.Logger) *stream {
	return &stream{
		in:      in,
		framing: framing,
		max:     max,
		w:       w,
		log:     log,
		pending: map[string]*pendingRequest{},
		after:   map[string]int64{},
		asked:   map[string]bool{},
		eof:     make(chan struct{}),
		release: make(chan struct{}),
	}
}

// ended records the end of the input and holds it back from jsonrpc2 until closeInput. The
// latch exists because jsonrpc2 closes the Conn when ReadObject fails, and a closed Conn
// sends nothing: after stdin ends the process still serves (docs/protocol.md#ending: the
// pending requests are answered; with --on-eof finish the run goes on), and a
// permission_requested is still followed by its permission/request (ordering rule 6),
// sent through the Conn, before it resolves as denied by disconnect (docs/permissions.md).
func (s *stream) ended(err error) error {
	s.once.Do(func() { close(s.eof) })
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

// ReadObject implements jsonrpc2.ObjectStream: the next checked message, in input order.
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

// WriteObject implements jsonrpc2.ObjectStream. jsonrpc2 writes only our requests to the
// client (responses are written by respond, replies.go): a permission/request goes after its
// permission_requested event (ordering rule 6), and its id is remembered as asked.
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
		if id, ok := stringID(*head.ID); ok {
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

// requestAfter makes the request to the client with id follow the event with seq (a
// permission/request after its permission_requested).
func (s *stream) requestAfter(id string, seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.after[id] = seq
}

// Close implements jsonrpc2.ObjectStream. stdin and stdout belong to the process; closing
// the connection does not close them.
func (s *stream) Close() error { return nil }
