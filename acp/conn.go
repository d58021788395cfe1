package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// JSON-RPC and ACP error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	codeCancelled      = -32800
	codeAuthRequired   = -32000
	codeNotFound       = -32002
)

// message is any JSON-RPC 2.0 message as read from the wire.
type message struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      *json.RawMessage  `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  json.RawMessage   `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   *sdk.RequestError `json:"error,omitempty"`
}

type outRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type outResult struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type outError struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Error   *sdk.RequestError `json:"error"`
}

var nullID = json.RawMessage("null")

// reqError builds a JSON-RPC error with a message and optional data.
func reqError(code int, msg string, data any) *sdk.RequestError {
	return &sdk.RequestError{Code: code, Message: msg, Data: data}
}

// writer owns stdout: one FIFO lane of complete lines (responses, notifications and requests
// alike), written by one goroutine in the order they were queued. Queueing never blocks;
// [writer.wait] blocks a run goroutine while more than limit bytes are queued, which is how a
// client that stops reading slows the agent down. mu also guards the per-session state the
// event translation keeps (see sink.go), so an event and the lines it makes are one step.
type writer struct {
	mu      sync.Mutex
	out     io.Writer
	queue   [][]byte
	bytes   int
	limit   int
	seq     int64
	err     error
	closing bool
	wake    chan struct{}
	room    chan struct{}
	done    chan struct{}
	broken  chan struct{}
	nextReq int64
	pending map[int64]chan *message
}

func newWriter(out io.Writer, limit int) *writer {
	w := &writer{
		out: out, limit: limit,
		wake: make(chan struct{}, 1), room: make(chan struct{}), done: make(chan struct{}), broken: make(chan struct{}),
		pending: map[int64]chan *message{},
	}
	go w.loop()
	return w
}

// queueLocked appends one message, encoded now. The caller holds w.mu.
func (w *writer) queueLocked(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value queued is built from the SDK's types and plain data; a failure is a bug,
		// answered as an internal error rather than a broken line.
		b, _ = json.Marshal(outNotification{JSONRPC: "2.0", Method: "_pi-rpc/encodingError", Params: map[string]string{"error": err.Error()}})
	}
	if w.err != nil || w.closing {
		return
	}
	b = append(b, '\n')
	w.queue = append(w.queue, b)
	w.bytes += len(b)
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *writer) send(v any) {
	w.mu.Lock()
	w.queueLocked(v)
	w.mu.Unlock()
}

func (w *writer) result(id json.RawMessage, v any) {
	w.send(outResult{JSONRPC: "2.0", ID: id, Result: v})
}

func (w *writer) fail(id json.RawMessage, e *sdk.RequestError) {
	if id == nil {
		id = nullID
	}
	w.send(outError{JSONRPC: "2.0", ID: id, Error: e})
}

func (w *writer) notifyLocked(method string, params any) {
	w.queueLocked(outNotification{JSONRPC: "2.0", Method: method, Params: params})
}

// requestLocked queues a request to the client and returns its id and the channel its
// response arrives on. The caller holds w.mu.
func (w *writer) requestLocked(method string, params any) (int64, chan *message) {
	w.nextReq++
	id := w.nextReq
	ch := make(chan *message, 1)
	w.pending[id] = ch
	w.queueLocked(outRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	return id, ch
}

// withdraw forgets a request to the client and tells the client it is cancelled.
func (w *writer) withdraw(id int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.pending[id]; !ok {
		return
	}
	delete(w.pending, id)
	w.notifyLocked("$/cancel_request", map[string]any{"requestId": id})
}

// answer hands a client's response to the request waiting for it; it reports false for an
// id nobody waits for.
func (w *writer) answer(m *message) bool {
	id, err := strconv.ParseInt(string(bytes.TrimSpace(*m.ID)), 10, 64)
	if err != nil {
		return false
	}
	w.mu.Lock()
	ch, ok := w.pending[id]
	delete(w.pending, id)
	w.mu.Unlock()
	if ok {
		ch <- m
	}
	return ok
}

// wait blocks while the client is behind (more than limit bytes queued).
func (w *writer) wait(ctx context.Context) {
	for {
		w.mu.Lock()
		if w.bytes <= w.limit || w.err != nil || w.closing {
			w.mu.Unlock()
			return
		}
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return
		}
	}
}

func (w *writer) loop() {
	defer close(w.done)
	bw := bufio.NewWriterSize(w.out, 64<<10)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 {
			if w.closing || w.err != nil {
				w.mu.Unlock()
				_ = bw.Flush()
				return
			}
			w.mu.Unlock()
			<-w.wake
			w.mu.Lock()
		}
		batch := w.queue
		w.queue = nil

		w.bytes = 0
		close(w.room)
		w.room = make(chan struct{})
		w.mu.Unlock()
		var err error
		for _, b := range batch {
			if _, err = bw.Write(b); err != nil {
				break
			}
		}
		if err == nil {
			err = bw.Flush()
		}

		if err != nil {
			w.mu.Lock()
			w.err = err
			close(w.broken)
			w.mu.Unlock()
			return
		}
	}
}

// close writes what is queued, for at most timeout, then stops.
func (w *writer) close(timeout time.Duration) {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	select {
	case <-w.done:
	case <-time.After(timeout):
	}
}

// lineReader reads newline-delimited messages of at most max bytes; a longer line is
// skipped whole and reported as too large.
type lineReader struct {
	r   *bufio.Reader
	max int
}

var errTooLarge = errors.New("message too large")

func (l *lineReader) next() ([]byte, error) {
	var line []byte
	tooLarge := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLarge {
			if len(line)+len(chunk) > l.max+1 {
				tooLarge, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLarge {
				return nil, errTooLarge
			}
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0 && !tooLarge:
			return bytes.TrimRight(line, "\r\n"), nil
		default:
			return nil, err
		}
	}
}
