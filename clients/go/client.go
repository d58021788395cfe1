package piclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pi-rpc/pi-rpc/protocol"
)

// ErrClosed is the error of calls made after [Client.Close], and of calls still pending when
// a client wrapping a stream ([New]) is closed.
var ErrClosed = errors.New("piclient: client closed")

// closeGrace bounds how long Close waits for the server to shut down and exit before killing
// it (docs/protocol.md#ending gives the server at most 2 s to flush).
const closeGrace = 2 * time.Second

// Options configure a [Client].
type Options struct {
	// OnPermission answers the server's permission/request. It runs on its own goroutine, so
	// it may block (ask a person, make calls on the client); ctx is cancelled when the server
	// withdraws the request or the connection ends. Nil answers every request with -32601,
	// which the server counts as deny.
	//
	// Setting it makes [Client.Initialize] declare capabilities.permissions, which is what
	// makes the server ask (docs/permissions.md#choosing-the-mode): call Initialize before the
	// first prompt, or the server runs in approval mode auto and never asks.
	OnPermission func(ctx context.Context, req PermissionRequest) PermissionDecision
}

// Client is a connection to pi-rpc. Its methods are safe for concurrent use.
type Client struct {
	opts   Options
	w      io.Writer
	closer io.Closer
	proc   *process // nil unless spawned

	wmu    sync.Mutex // one message per Write, whole
	nextID atomic.Int64

	mu       sync.Mutex
	pending  map[int64]chan *wireMessage
	inbound  map[string]context.CancelFunc // server requests being answered, by raw id
	closing  bool
	exitSent bool

	done   chan struct{} // closed when the connection is down; err says why
	err    error
	events eventQueue

	closeOnce sync.Once
	closeErr  error
}

// New returns a client speaking newline-delimited JSON-RPC over rwc, which it owns: Close
// closes it. The caller must not read from or write to rwc afterwards.
func New(rwc io.ReadWriteCloser, opts Options) *Client {
	c := newClient(rwc, rwc, opts)
	go c.read(rwc)
	return c
}

func newClient(w io.Writer, closer io.Closer, opts Options) *Client {
	c := &Client{
		opts:    opts,
		w:       w,
		closer:  closer,
		pending: map[int64]chan *wireMessage{},
		inbound: map[string]context.CancelFunc{},
		done:    make(chan struct{}),
	}
	c.events.init()
	return c
}

// wireMessage is any JSON-RPC 2.0 message. Result is "null" (not nil) for a null result.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Done is closed when the connection has ended: the server exited or closed its output, the
// client was closed, or the server sent something that is not JSON-RPC. [Client.Err] says
// which.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended: an [*ExitError] for a spawned server that exited,
// [ErrClosed] after Close, another error otherwise. It is nil while the connection is up.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Call sends a request and decodes its result into result (which may be nil to discard it).
// params nil sends no params. When ctx ends first, Call sends $/cancelRequest for the
// request and returns ctx.Err(); the server's late answer is dropped. A JSON-RPC error comes
// back as [*Error].
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.call(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("piclient: %s: decoding result: %w", method, err)
	}
	return nil
}

// call sends a request and returns its raw result.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	id := c.nextID.Add(1)
	reply := make(chan *wireMessage, 1)
	c.mu.Lock()
	if err := c.unusableLocked(); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = reply
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}

	if err := c.send(id, method, params); err != nil {
		forget()
		return nil, c.sendFailed(ctx, err)
	}
	select {
	case msg := <-reply:
		return msg.outcome()
	case <-ctx.Done():
		forget()
		// The cancellation must go out even though ctx is over: it is the reason to send it.
		_ = c.notify(protocol.MethodCancelRequest, protocol.CancelRequestParams{ID: id})
		return nil, ctx.Err()
	case <-c.done:
		select { // a response that arrived just before the end still counts
		case msg := <-reply:
			return msg.outcome()
		default:
			return nil, c.err
		}
	}
}

func (m *wireMessage) outcome() (json.RawMessage, error) {
	if m.Error != nil {
		return nil, m.Error
	}
	return m.Result, nil
}

// unusableLocked reports why no new request may start.
func (c *Client) unusableLocked() error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	if c.closing {
		return ErrClosed
	}
	return nil
}

// sendFailed turns a write error into the error a caller should see. A write fails because
// the server went away; for a spawned server the reader is about to learn the exit status,
// which says far more than "broken pipe", so wait for it (bounded by ctx).
func (c *Client) sendFailed(ctx context.Context, err error) error {
	if c.proc == nil {
		return fmt.Errorf("piclient: write: %w", err)
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(closeGrace):
		return fmt.Errorf("piclient: write: %w", err)
	}
}

// Notify sends a notification. Most callers want the typed [Client.Exit].
func (c *Client) Notify(method string, params any) error {
	c.mu.Lock()
	err := c.unusableLocked()
	c.mu.Unlock()
	if err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return c.notify(method, params)
}

func (c *Client) notify(method string, params any) error {
	return c.send(0, method, params)
}

// send writes a request (id > 0) or a notification (id 0).
func (c *Client) send(id int64, method string, params any) error {
	buf := []byte(`{"jsonrpc":"2.0"`)
	if id > 0 {
		buf = append(buf, `,"id":`...)
		buf = strconv.AppendInt(buf, id, 10)
	}
	buf = append(buf, `,"method":`...)
	buf = strconv.AppendQuote(buf, method)
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("piclient: %s: encoding params: %w", method, err)
		}
		buf = append(buf, `,"params":`...)
		buf = append(buf, p...)
	}
	buf = append(buf, "}\n"...)
	return c.write(buf)
}

func (c *Client) write(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(line)
	return err
}

// read is the reader goroutine: it never blocks on anything but the stream, so responses,
// events and server requests are taken in wire order however slow their consumers are.
func (c *Client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := c.dispatch(bytes.TrimSpace(line)); perr != nil {
				c.fail(c.endReason(perr))
				return
			}
		}
		if err != nil {
			c.fail(c.endReason(err))
			return
		}
	}
}

// endReason decides the error every pending and later call gets once the stream ends.
func (c *Client) endReason(cause error) error {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	var perr *ProtocolError
	switch {
	case errors.As(cause, &perr):
		return perr
	case c.proc != nil:
		return c.proc.exitError(cause)
	case closing:
		return ErrClosed
	case errors.Is(cause, io.EOF):
		return fmt.Errorf("piclient: server closed the connection: %w", cause)
	default:
		return fmt.Errorf("piclient: reading from server: %w", cause)
	}
}

// ProtocolError reports a message from the server that is not JSON-RPC 2.0. The client
// treats it as the end of the connection: pi-rpc's stdout carries protocol messages only, so
// anything else is a bug to surface, not to skip.
type ProtocolError struct {
	Line   string
	Reason string
}

func (e *ProtocolError) Error() string {
	line := e.Line
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return fmt.Sprintf("piclient: malformed message from server (%s): %s", e.Reason, line)
}

// dispatch handles one message from the server.
func (c *Client) dispatch(line []byte) error {
	var msg wireMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return &ProtocolError{Line: string(line), Reason: err.Error()}
	}
	if msg.JSONRPC != "2.0" {
		return &ProtocolError{Line: string(line), Reason: `"jsonrpc" is not "2.0"`}
	}
	switch {
	case msg.Method != "" && msg.ID == nil:
		return c.onNotification(&msg, line)
	case msg.Method != "":
		c.onRequest(&msg)
		return nil
	case msg.Result == nil && msg.Error == nil:
		return &ProtocolError{Line: string(line), Reason: "neither a request nor a response"}
	}
	id, err := strconv.ParseInt(string(msg.ID), 10, 64)
	if err != nil {
		// Only our own requests get responses, and their ids are numbers; id:null answers a
		// message the server could not read, which this client never sends.
		return &ProtocolError{Line: string(line), Reason: "response to an id this client never used"}
	}
	c.mu.Lock()
	reply := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if reply != nil { // nil: the call was cancelled and no longer waits
		reply <- &msg
	}
	return nil
}

func (c *Client) onNotification(msg *wireMessage, line []byte) error {
	switch msg.Method {
	case protocol.MethodEvent:
		ev, err := decodeEvent(msg.Params)
		if err != nil {
			return &ProtocolError{Line: string(line), Reason: err.Error()}
		}
		c.events.push(ev)
	case protocol.MethodCancelRequest:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(msg.Params, &p) == nil && p.ID != nil {
			c.mu.Lock()
			cancel := c.inbound[string(p.ID)]
			c.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
	}
	// Other notifications are for later protocol versions; ignoring them is the contract.
	return nil
}

// onRequest answers a server-to-client request on its own goroutine.
func (c *Client) onRequest(msg *wireMessage) {
	if msg.Method != protocol.MethodPermissionRequest || c.opts.OnPermission == nil {
		go c.respond(msg.ID, nil, &Error{Code: protocol.CodeMethodNotFound, Message: "Method not found: " + msg.Method})
		return
	}
	var req PermissionRequest
	if err := json.Unmarshal(msg.Params, &req); err != nil {
		go c.respond(msg.ID, nil, &Error{Code: protocol.CodeInvalidParams, Message: "Invalid params: " + err.Error()})
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	key := string(msg.ID)
	c.mu.Lock()
	c.inbound[key] = cancel
	c.mu.Unlock()
	go func() {
		defer func() {
			c.mu.Lock()
			delete(c.inbound, key)
			c.mu.Unlock()
			cancel()
		}()
		d := c.opts.OnPermission(ctx, req)
		c.respond(msg.ID, d, nil)
	}()
}

// respond writes a response to a server request. A failed write means the connection is
// going away, which the reader reports.
func (c *Client) respond(id json.RawMessage, result any, rerr *Error) {
	out := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *Error          `json:"error,omitempty"`
	}{"2.0", id, result, rerr}
	buf, err := json.Marshal(out)
	if err != nil {
		return
	}
	_ = c.write(append(buf, '\n'))
}

// fail ends the connection once: pending calls get err, handlers are cancelled, and the
// event queue ends after the events already queued.
func (c *Client) fail(err error) {
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return
	default:
	}
	c.err = err
	close(c.done)
	for _, cancel := range c.inbound {
		cancel()
	}
	c.mu.Unlock()
	c.events.close()
}

// Close ends the session politely, then firmly: shutdown (unless already sent) and exit,
// then for a spawned server up to two seconds for it to exit before it is killed. It
// returns nil when the server exited with status 0 (or, for a wrapped stream, when the
// stream closed cleanly), else the reason it did not.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.close() })
	return c.closeErr
}

func (c *Client) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	if c.Err() == nil {
		c.mu.Lock()
		exitSent := c.exitSent
		c.mu.Unlock()
		if !exitSent {
			// Without a shutdown answer the exit still ends the server, with status 1.
			_, _ = c.Shutdown(ctx)
			_ = c.Exit()
		}
	}
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	if c.proc != nil {
		return c.proc.stop(ctx, c)
	}
	err := c.closer.Close()
	c.fail(ErrClosed)
	return err
}
