package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/pi-rpc/pi-rpc/internal/transport"
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

// writer is the connection's outbox in ACP's dialect, over internal/transport's writer,
// which owns stdout: one FIFO lane of messages (responses, notifications and requests
// alike), written in the order they were queued (the transport's ordered lane). Queueing
// never blocks; [writer.wait] blocks a run goroutine while more than limit bytes are queued,
// which is how a client that stops reading slows the agent down. mu also guards the
// per-session state the event translation keeps (see sink.go), so an event and the lines it
// makes are one step.
type writer struct {
	mu  sync.Mutex
	out *transport.Writer
	seq int64
	// broken is closed when a write to the client failed.
	broken  <-chan struct{}
	nextReq int64
	pending map[int64]chan *message
	// late holds what to do with the answer to a withdrawn request that left something
	// behind in the client (a terminal it created anyway).
	late map[int64]func(*message)
}

func newWriter(out io.Writer, limit int) *writer {
	t := transport.NewWriter(out, limit)
	t.Start(transport.NDJSON)
	return &writer{out: t, broken: t.Broken(), pending: map[int64]chan *message{}, late: map[int64]func(*message){}}
}

// queueLocked appends one message, encoded now. The caller holds w.mu, which keeps the
// lane in the order messages are made.
func (w *writer) queueLocked(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value queued is built from the SDK's types and plain data; a failure is a bug,
		// answered as an internal error rather than a broken line.
		b, _ = json.Marshal(outNotification{JSONRPC: "2.0", Method: "_pi-rpc/encodingError", Params: map[string]string{"error": err.Error()}})
	}
	w.out.Send(b)
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

// withdraw forgets a request to the client and tells the client it is cancelled. A client
// may answer anyway (the cancellation crossed its answer, or it ignores cancellations):
// onLate, when not nil, gets that answer on its own goroutine.
func (w *writer) withdraw(id int64, onLate func(*message)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.pending[id]; !ok {
		return
	}
	delete(w.pending, id)
	if onLate != nil {
		w.late[id] = onLate
	}
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
	onLate, late := w.late[id]
	delete(w.late, id)
	w.mu.Unlock()
	switch {
	case ok:
		ch <- m
	case late:
		go onLate(m)
	}
	return ok || late
}

// wait blocks while the client is behind (more than limit bytes queued).
func (w *writer) wait(ctx context.Context) { w.out.Wait(ctx) }

// close writes what is queued, for at most timeout, then stops.
func (w *writer) close(timeout time.Duration) { w.out.Close(timeout) }

// errTooLarge reports a line over the limit (the transport's).
var errTooLarge = transport.ErrTooLarge

// newLineReader reads the client's newline-delimited messages of at most max bytes; a
// longer line is skipped and reported as errTooLarge.
func newLineReader(in io.Reader, max int) transport.Reader {
	return transport.NewLineReader(in, max)
}
