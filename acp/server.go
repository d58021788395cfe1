package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/tools"
	"github.com/pi-rpc/pi-rpc/tools/mcp"
)

// OpenExtra is what an ACP session asks of the process's opener besides a
// session.OpenRequest's own fields; it is the request's Extra.
type OpenExtra struct {
	// MCPServers are the editor's MCP servers for this session.
	MCPServers []mcp.ServerConfig
	// Access is where the session's tools read, write and run: the client's files and
	// terminals where it offers them (fs.go, terminal.go).
	Access tools.Access
	// BeforeToolCall is the session's agent hook (core.Options.BeforeToolCall), which its
	// supervisor runs for each call it lets run, after approving it: the call's ACP status
	// goes from pending to in_progress then.
	BeforeToolCall func(ctx context.Context, c *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error)
}

// Options configure a [Server].
type Options struct {
	In  io.Reader
	Out io.Writer
	// Host opens the sessions (session/new, session/load, with an [OpenExtra]) within its
	// MaxSessions, closes them, lists the saved ones (session/list) and holds the model
	// catalogue (a session's model option, /model) and the provider problems (an auth
	// method explains the first).
	Host *session.Host
	// Approval is the --approval mode; empty means ask.
	Approval string
	// Sandbox, when set, offers each session's OS sandbox as the sandbox config option and
	// reports the process's in initialize's agentInfo._meta.
	Sandbox         Sandboxes
	MaxMessageBytes int
	Version         string
	Logger          zerolog.Logger
}

// Sandboxes are the sessions' OS sandboxes (cmd/pi-rpc's, docs/editors.md#modes-and-options).
type Sandboxes interface {
	// Modes are the sandbox modes sup may choose now, loosest first (the command line
	// bounds them), and its current one; none: the option is not offered.
	Modes(sup *session.Supervisor) (modes []string, current string)
	// SetMode changes sup's sandbox mode from its next command on.
	SetMode(sup *session.Supervisor, mode string) error
	// Info is the process's sandbox, for initialize's agentInfo._meta["pi-rpc"].sandbox.
	Info() any
}

// Server is one ACP connection.
type Server struct {
	opts Options
	host *session.Host
	w    *writer
	log  zerolog.Logger

	mu       sync.Mutex
	sessions map[string]*acpSession
	// loading holds, by requested id, the session/loads in flight (opening.go).
	loading  map[string]chan struct{}
	shutDown bool
	// initialized is set by initialize, which must come before a session is opened: the
	// client's capabilities decide what its sessions' tools use.
	initialized bool
	client      sdk.ClientCapabilities
	closing     sync.WaitGroup
	// opening counts the session/new and session/load requests being opened (opening.go).
	opening sync.WaitGroup
	done    chan struct{}
	// life ends at Shutdown (stop cancels it), for sessions still opening.
	life context.Context
	stop context.CancelFunc
}

// NewServer returns a server for one connection; Serve runs it.
func NewServer(opts Options) *Server {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = 64 << 20
	}
	life, stop := context.WithCancel(context.Background())
	return &Server{
		life: life, stop: stop,
		opts: opts, host: opts.Host, log: opts.Logger,
		w:        newWriter(opts.Out, 1<<20),
		sessions: map[string]*acpSession{},
		loading:  map[string]chan struct{}{},
		done:     make(chan struct{}),
	}
}

// Broken is closed when writing to the client failed.
func (s *Server) Broken() <-chan struct{} { return s.w.broken }

// Serve reads and handles messages until the input ends, then returns. Requests are handled
// one at a time in arrival order; a turn's answer is written when the turn settles.
func (s *Server) Serve() error {
	lr := newLineReader(s.opts.In, s.opts.MaxMessageBytes)
	for {
		line, err := lr.Next()
		switch {
		case errors.Is(err, errTooLarge):
			if answerTooLarge(s.w, err, s.opts.MaxMessageBytes) {
				s.log.Warn().Int("limit", s.opts.MaxMessageBytes).Msg("an answer of the editor was larger than the limit")
				continue
			}
			s.w.fail(nil, reqError(codeInvalidRequest, fmt.Sprintf("message larger than %d bytes", s.opts.MaxMessageBytes), nil))
			continue
		case err != nil:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		s.handleLine(line)
	}
}

// Drain waits, until ctx ends, for the sessions being opened to open and be answered: a
// session/new or session/load read before the input ended is served, as every request
// read is. Shutdown then closes them with the others; one still opening when ctx ends is
// refused as the agent shutting down.
func (s *Server) Drain(ctx context.Context) {
	opened := make(chan struct{})
	go func() {
		s.opening.Wait()
		close(opened)
	}()
	select {
	case <-opened:
	case <-ctx.Done():
	}
}

// Shutdown ends every session: aborts its turn, waits for it to settle (its prompt is
// answered cancelled) and closes it; then the queued output is written.
func (s *Server) Shutdown(ctx context.Context) {
	s.stop()
	s.mu.Lock()
	s.shutDown = true
	list := make([]*acpSession, 0, len(s.sessions))
	for _, st := range s.sessions {
		list = append(list, st)
	}
	s.sessions = map[string]*acpSession{}
	s.mu.Unlock()
	closed := make([]*session.Pending[struct{}], 0, len(list))
	for _, st := range list {
		closed = append(closed, s.host.CloseSession(ctx, st.opened))
	}
	for i, c := range closed {
		s.closed(list[i], c)
	}
	s.closing.Wait()
	s.w.close(2 * time.Second)
}
