package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// Options configure a [Server].
type Options struct {
	// Host holds the models, the provider problems and the live sessions; the connection
	// starts with the sessions it has (at least one), and createSession opens more with it.
	// Every session's sink must be Writer.
	Host *session.Host
	// FinishOnEOF says the process lets busy periods finish when stdin ends (--on-eof
	// finish); otherwise the end of input aborts them.
	FinishOnEOF bool
	// Writer must be every session's Sink.
	Writer          *Writer
	In              io.Reader
	Framing         Framing
	MaxMessageBytes int
	Logger          zerolog.Logger
	Version         string
	Warnings        []string
	// Sandbox, when set, reports a session's sandbox to initialize, getState, createSession
	// and setOptions, and changes it for setOptions; nil: every session's is off.
	Sandbox Sandboxes
	// MCP is the session's MCP servers; nil when none can be added.
	MCP MCPHost
}

// Sandboxes are the sessions' sandboxes (cmd/pi-rpc's, over internal/sandbox).
type Sandboxes interface {
	// Status is sup's sandbox; nil when off.
	Status(sup *session.Supervisor) *protocol.SandboxStatus
	// Set changes sup's sandbox from its next command on; an error (a *session.Error)
	// leaves it as it was.
	Set(sup *session.Supervisor, choice protocol.SandboxChoice) error
}

// Server serves the protocol on one connection. Requests are handled in order on the read
// goroutine, and handlers never block on the client: methods that wait (waitSettled,
// compact, shutdown) answer from their own goroutine.
type Server struct {
	opts   Options
	host   *session.Host
	stream *stream
	conn   *jsonrpc2.Conn
	log    zerolog.Logger

	mu           sync.Mutex
	caps         protocol.ClientCapabilities
	initialized  bool
	shutdownSeen bool
	cancels      map[string]context.CancelFunc
	// inflight counts waiting requests that have not answered yet.
	inflight sync.WaitGroup

	exit     chan int
	exitOnce sync.Once
}

// NewServer returns a server; Serve starts it.
func NewServer(opts Options) *Server {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = 64 << 20
	}
	s := &Server{
		opts:    opts,
		host:    opts.Host,
		log:     opts.Logger,
		cancels: map[string]context.CancelFunc{},
		exit:    make(chan int, 1),
	}
	s.stream = newStream(opts.In, opts.Framing, opts.MaxMessageBytes, opts.Writer, opts.Logger)
	for _, sup := range s.host.Sessions() {
		s.attach(sup)
	}
	return s
}

// Serve reads and handles messages until the input ends (or the connection closes); it
// returns the channel that is closed then.
func (s *Server) Serve(ctx context.Context) <-chan struct{} {
	s.conn = jsonrpc2.NewConn(ctx, s.stream, s, jsonrpc2.SetLogger(logAdapter{s.log}))
	return s.conn.DisconnectNotify()
}

// InputClosed is closed when stdin ends (or fails). The connection stays open, so pending
// requests can still be answered, until Close.
func (s *Server) InputClosed() <-chan struct{} { return s.stream.eof }

// Close closes the connection.
func (s *Server) Close() {
	s.stream.closeInput()
	if s.conn != nil {
		_ = s.conn.Close()
	}
}

// Exit delivers the exit code asked for by an exit notification: 0 after shutdown, else 1.
func (s *Server) Exit() <-chan int { return s.exit }

// ShutdownRequested reports whether the client sent shutdown.
func (s *Server) ShutdownRequested() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutdownSeen
}

// logAdapter sends jsonrpc2's log lines to zerolog at debug level, never to stdout. jsonrpc2
// ends its formats with "\n" (written for the log package); a JSON log message does not.
type logAdapter struct{ log zerolog.Logger }

func (l logAdapter) Printf(format string, v ...any) {
	l.log.Debug().Msg(strings.TrimRight(fmt.Sprintf(format, v...), "\n"))
}

// call is one request being answered. Exactly one reply is sent.
type call struct {
	s      *Server
	id     jsonrpc2.ID
	method string
	// sup is the session a session-scoped method applies to.
	sup     *session.Supervisor
	replied atomic.Bool
}

func (c *call) reply(result any) {
	if !c.replied.CompareAndSwap(false, true) {
		return
	}
	data, err := json.Marshal(result)
	if err != nil {
		c.s.log.Error().Err(err).Str("method", c.method).Msg("cannot encode result")
		c.send(nil, errorObject(toWireError(fmt.Errorf("cannot encode the result: %w", err))))
		return
	}
	c.send(data, nil)
}

// answerAfter answers as answer does, after the event with seq has been written (0: at
// once). These are rule 1's exceptions in docs/protocol.md#ordering-contract: waitSettled
// after its agent_settled, compact after compaction_end, bash after its last bash_update.
func (c *call) answerAfter(result any, err error, seq int64) {
	c.s.stream.answerAfter(c.id.Str, seq)
	c.answer(result, err)
}

// answer replies with result, or fails with err when it is not nil.
func (c *call) answer(result any, err error) {
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(result)
}

func (c *call) fail(err error) {
	if !c.replied.CompareAndSwap(false, true) {
		return
	}
	c.send(nil, errorObject(toWireError(err)))
}

// send writes the response itself: the result is encoded once and framed with the client's
// id, without going through jsonrpc2 (which would encode it twice more).
func (c *call) send(result, errObj json.RawMessage) {
	if err := c.s.stream.respond(c.id.Str, result, errObj); err != nil {
		c.s.log.Debug().Err(err).Str("method", c.method).Msg("reply not sent")
	}
}

// errorObject encodes a JSON-RPC error object.
func errorObject(e *jsonrpc2.Error) json.RawMessage {
	data, _ := json.Marshal(e)
	return data
}

// method is one entry of the method table.
type method struct {
	// notification methods take no id; every other method is request-only.
	notification bool
	// allowedAfterShutdown methods still run after shutdown.
	allowedAfterShutdown bool
	// scoped methods apply to one session, named by params.sessionId (default the first).
	scoped bool
	handle func(s *Server, ctx context.Context, c *call, params *json.RawMessage)
}

// later is the answer of a method that waits: run goes on its own goroutine, with a context
// that $/cancelRequest (or the client going away) cancels, and returns the result or the
// error and the seq of the event the answer is written after (0: none).
type later struct {
	run func(ctx context.Context) (result any, after int64, err error)
}

func deferred(run func(ctx context.Context) (any, int64, error)) *later { return &later{run: run} }

// after answers when the session's pending work has finished, after the event its Seq
// names. Cancelling the request cancels the work where it can be cancelled on its own.
func after[T any](p *session.Pending[T]) *later {
	return deferred(func(ctx context.Context) (any, int64, error) {
		stop := context.AfterFunc(ctx, p.Cancel)
		defer stop()
		v, err := p.Result()
		return v, p.Seq(), err
	})
}

// selfAnswer is a result that writes its own response (getEntries' pre-encoded lines).
type selfAnswer interface{ replyTo(c *call) }

// typed adapts a handler: it decodes and validates the params (errors answer -32602 naming
// the field), calls the handler with the session the method is scoped to (nil for the
// others), and answers with what it returns: a result or an error at once, or, for a
// *later, from its own goroutine.
func typed[P, R any](f func(s *Server, ctx context.Context, sup *session.Supervisor, p *P) (R, error)) func(*Server, context.Context, *call, *json.RawMessage) {
	return func(s *Server, ctx context.Context, c *call, raw *json.RawMessage) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			c.fail(err)
			return
		}
		if v, ok := any(p).(interface {
			validate(raw *json.RawMessage) error
		}); ok {
			if err := v.validate(raw); err != nil {
				c.fail(err)
				return
			}
		}
		res, err := f(s, ctx, c.sup, p)
		if r, ok := any(res).(selfAnswer); ok && err == nil {
			r.replyTo(c)
			return
		}
		if l, ok := any(res).(*later); ok && l != nil && err == nil {
			s.async(c, func(ctx context.Context) {
				v, seq, err := l.run(ctx)
				c.answerAfter(v, err, seq)
			})
			return
		}
		c.answer(res, err)
	}
}

// Handle implements jsonrpc2.Handler. It runs on the read goroutine, in order.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	m, known := methods[req.Method]
	if req.Notif {
		switch {
		case !known:
			s.log.Debug().Str("method", req.Method).Msg("ignoring unknown notification")
		case !m.notification:
			s.log.Warn().Str("method", req.Method).Msg("ignoring a request-only method sent as a notification")
		default:
			m.handle(s, ctx, &call{s: s, method: req.Method}, req.Params)
		}
		return
	}
	c := &call{s: s, id: req.ID, method: req.Method}
	switch {
	case known && m.notification:
		c.fail(invalidRequest(req.Method + " is a notification"))
		return
	case !known:
		c.fail(methodNotFound(req.Method))
		return
	}
	s.mu.Lock()
	down := s.shutdownSeen
	s.mu.Unlock()
	if down && !m.allowedAfterShutdown {
		c.fail(&session.Error{Kind: session.KindShuttingDown, Message: "The server is shutting down"})
		return
	}
	// Events caused by a handler wait until it has answered: a response is queued ahead of
	// events, so holding them while it runs keeps rule 1 for every method, including those
	// that change state and emit at once (setModel, clearQueues, ...).
	s.opts.Writer.Hold()
	defer s.opts.Writer.Release()
	if m.scoped {
		sup, err := s.sessionOf(req.Params)
		if err != nil {
			c.fail(err)
			return
		}
		c.sup = sup
	}
	defer func() {
		// A bug in one method answers that request with an internal error instead of taking
		// the whole agent down with it.
		if r := recover(); r != nil {
			s.log.Error().Str("method", req.Method).Interface("panic", r).Msg("handler panicked")
			c.fail(fmt.Errorf("internal error in %s: %v", req.Method, r))
		}
	}()
	m.handle(s, ctx, c, req.Params)
}

// async runs a waiting method on its own goroutine with a context that $/cancelRequest
// cancels.
func (s *Server) async(c *call, f func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.cancels[c.id.Str] = cancel
	s.mu.Unlock()
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		defer func() {
			s.mu.Lock()
			delete(s.cancels, c.id.Str)
			s.mu.Unlock()
			cancel()
		}()
		f(ctx)
	}()
}

// AwaitReplies waits, at most timeout, for waiting requests to answer.
func (s *Server) AwaitReplies(timeout time.Duration) {
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(timeout):
	}
}

// CancelAll cancels every waiting request (the client went away).
func (s *Server) CancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.cancels {
		cancel()
	}
}
