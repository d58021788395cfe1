package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
)

// DefaultCallTimeout bounds each tools/call, and a server's start (handshake and tool list).
const DefaultCallTimeout = 60 * time.Second

// Options configure a [Set].
type Options struct {
	// CallTimeout bounds each call and each start; default [DefaultCallTimeout].
	CallTimeout time.Duration
	// Cwd is the working directory of stdio servers without their own cwd.
	Cwd string
	// LookupEnv resolves ${VAR} references; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ is the environment stdio servers inherit (their env is added); default
	// os.Environ().
	Environ []string
	// ClientVersion is the version pi-rpc reports to servers.
	ClientVersion string
	// Logger receives the servers' stderr and the set's warnings.
	Logger zerolog.Logger
	// OnToolsChanged is called, on a goroutine of the set, when the tools changed after a
	// server's start: its tool list changed or it failed. The caller fetches Tools again (the
	// agent uses them from its next model request).
	OnToolsChanged func()
	// OnFault is called when a server fails or a call faults (timeout, bad answer).
	OnFault func(Fault)
	// OnStatus is called when a server's start begins (state connecting, from Start or Add
	// itself), when it ends (connected, with its tools, or failed, with the error; from a
	// goroutine of the set, before Starting turns false for it) and when a connected server
	// fails. Calls for one server come in that order; the tools change with them.
	OnStatus func(ServerStatus)
}

// Fault is a server failure or a call's fault.
type Fault struct {
	Server string
	// Tool is the server's tool name when a call faulted, empty when the server failed.
	Tool    string
	Message string
}

func (o *Options) callTimeout() time.Duration {
	if o.CallTimeout > 0 {
		return o.CallTimeout
	}
	return DefaultCallTimeout
}

func (o *Options) lookupEnv() func(string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv
	}
	return os.LookupEnv
}

func (o *Options) environ() []string {
	if o.Environ != nil {
		return slices.Clone(o.Environ)
	}
	return os.Environ()
}

func (o *Options) fault(f Fault) {
	if f.Tool == "" {
		o.Logger.Warn().Str("mcpServer", f.Server).Str("error", f.Message).Msg("MCP server failed")
	} else {
		o.Logger.Warn().Str("mcpServer", f.Server).Str("tool", f.Tool).Msg(f.Message)
	}
	if o.OnFault != nil {
		o.OnFault(f)
	}
}

// Set is the MCP servers of one session: it starts them, gives their tools to the agent and
// closes them. Its methods are safe for concurrent use.
type Set struct {
	opts Options
	ctx  context.Context // cancelled by Close: ends starts still under way
	stop context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server
	retired []*server // replaced servers, waited for by Close
	closed  bool
	// pending counts the servers whose start is under way; idle is closed when it drops to
	// zero and made anew when it rises from zero.
	pending int
	idle    chan struct{}
	starts  sync.WaitGroup // the start goroutines, waited for by Close
}

// NewSet returns a set without servers; Start or Add connects them.
func NewSet(opts Options) *Set {
	ctx, stop := context.WithCancel(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &Set{opts: opts, ctx: ctx, stop: stop, servers: map[string]*server{}, idle: idle}
}

// Connect starts servers and returns when each is connected or has failed. A failed server
// is reported in Status and by OnFault and has no tools; the error joins the failures, for
// the log (the set is usable either way).
func Connect(ctx context.Context, servers []ServerConfig, opts Options) (*Set, error) {
	s := NewSet(opts)
	return s, s.Add(ctx, servers)
}

// Add starts more servers, like Connect: it returns when each is connected or has failed,
// and ending ctx ends the starts still under way. A server whose name is already in the set
// replaces the old one, which is closed first.
func (s *Set) Add(ctx context.Context, servers []ServerConfig) error {
	starts, err := s.launch(ctx, servers)
	if err != nil {
		return err
	}
	errs := make([]error, len(starts))
	for i, st := range starts {
		<-st.done
		errs[i] = st.err
	}
	return errors.Join(errs...)
}

// Start starts more servers and returns at once: each is connecting until its start (process,
// handshake, tool list, within CallTimeout) ends, reported through OnStatus and the log;
// Starting and WaitStarted say when none is under way any more. A server whose name is
// already in the set replaces the old one, which is closed first.
func (s *Set) Start(servers []ServerConfig) error {
	_, err := s.launch(context.Background(), servers)
	return err
}

// Starting reports whether a server's start is under way.
func (s *Set) Starting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending > 0
}

// WaitStarted returns nil when no server's start is under way (each is connected or has
// failed, and OnStatus has been called for it), or ctx's error when ctx ends first.
func (s *Set) WaitStarted(ctx context.Context) error {
	for {
		s.mu.Lock()
		pending, idle := s.pending, s.idle
		s.mu.Unlock()
		if pending == 0 {
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// start is one server's start: done is closed when it ended, err then says why it failed.
type start struct {
	srv  *server
	done chan struct{}
	err  error
}

// launch puts the servers in the set, reports each as connecting, and starts them on
// goroutines of the set (after closing the servers they replace). ctx and Close end a start.
func (s *Set) launch(ctx context.Context, servers []ServerConfig) ([]*start, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the MCP server set is closed")
	}
	var replaced []*server
	starts := make([]*start, 0, len(servers))
	for _, cfg := range servers {
		if old := s.servers[cfg.Name]; old != nil {
			replaced = append(replaced, old)
			s.retired = append(s.retired, old)
		}
		srv := newServer(cfg, &s.opts, s.toolsChanged, s.reportFailure)
		s.servers[cfg.Name] = srv
		starts = append(starts, &start{srv: srv, done: make(chan struct{})})
	}
	if len(starts) > 0 && s.pending == 0 {
		s.idle = make(chan struct{})
	}
	s.pending += len(starts)
	s.starts.Add(1)
	s.mu.Unlock()
	for _, st := range starts {
		s.opts.Logger.Info().Str("mcpServer", st.srv.cfg.Name).Str("transport", st.srv.cfg.Transport()).Msg("MCP server starting")
		s.report(st.srv)
	}
	go func() {
		defer s.starts.Done()
		for _, old := range replaced {
			old.close()
		}
		var wg sync.WaitGroup
		for _, st := range starts {
			wg.Go(func() { s.run(ctx, st) })
		}
		wg.Wait()
	}()
	return starts, nil
}

// run carries out one start and reports how it ended.
func (s *Set) run(ctx context.Context, st *start) {
	defer close(st.done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	began := time.Now()
	srv := st.srv
	if err := srv.connect(ctx); err != nil {
		st.err = fmt.Errorf("MCP server %s: %w", srv.cfg.Name, err)
		if s.reporting(srv) {
			s.report(srv)
			s.opts.fault(Fault{Server: srv.cfg.Name, Message: srv.failureMessage()})
		}
	} else if s.reporting(srv) {
		s.opts.Logger.Info().Str("mcpServer", srv.cfg.Name).Int("tools", len(srv.snapshot().tools)).
			Int64("ms", time.Since(began).Milliseconds()).Msg("MCP server ready")
		s.report(srv)
	}
	s.mu.Lock()
	s.pending--
	if s.pending == 0 {
		close(s.idle)
	}
	s.mu.Unlock()
}

// reporting says whether what happens to srv is reported: not once the set is closing, nor
// for a server another of its name replaced.
func (s *Set) reporting(srv *server) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closed && s.servers[srv.cfg.Name] == srv
}

// reportFailure reports a connected server that failed.
func (s *Set) reportFailure(srv *server) {
	if s.reporting(srv) {
		s.report(srv)
	}
}

// report hands the server's status to OnStatus.
func (s *Set) report(srv *server) {
	if s.opts.OnStatus == nil {
		return
	}
	s.opts.OnStatus(s.statusOf(srv, s.Tools()))
}

// toolsChanged tells the owner to fetch Tools again.
func (s *Set) toolsChanged() {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed && s.opts.OnToolsChanged != nil {
		s.opts.OnToolsChanged()
	}
}

// Tools returns the tools of every connected server, sorted by name. Each call builds them
// anew, so names follow the servers' current lists.
func (s *Set) Tools() []core.Tool {
	s.mu.Lock()
	servers := make([]*server, 0, len(s.servers))
	for _, srv := range s.servers {
		servers = append(servers, srv)
	}
	s.mu.Unlock()
	var keys []toolKey
	byKey := map[toolKey]*Tool{}
	for _, srv := range servers {
		snap := srv.snapshot()
		if snap.state != StateConnected {
			continue
		}
		for _, def := range snap.tools {
			k := toolKey{srv.cfg.Name, def.Name}
			if _, dup := byKey[k]; dup {
				continue
			}
			keys = append(keys, k)
			byKey[k] = &Tool{srv: srv, def: def}
		}
	}
	names := assignNames(keys)
	out := make([]core.Tool, 0, len(keys))
	for k, t := range byKey {
		t.name = names[k]
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b core.Tool) int { return strings.Compare(a.Info().Name, b.Info().Name) })
	return out
}

// ServerStatus is one server's state and tools.
type ServerStatus struct {
	Name      string
	Transport string
	// State is connecting, connected, failed or closed.
	State string
	// Error is why the server failed.
	Error string
	// LastError is the last call fault of a connected server, cleared by a good call.
	LastError     string
	ServerName    string
	ServerVersion string
	Source        string
	Tools         []ToolStatus
}

// ToolStatus describes one tool of a server.
type ToolStatus struct {
	// Name is the agent's name for the tool; ServerTool the server's.
	Name        string
	ServerTool  string
	Description string
	ReadOnly    bool
	Destructive bool
}

// Status returns every server's status, sorted by name.
func (s *Set) Status() []ServerStatus {
	tools := s.Tools()
	s.mu.Lock()
	servers := make([]*server, 0, len(s.servers))
	for _, srv := range s.servers {
		servers = append(servers, srv)
	}
	s.mu.Unlock()
	slices.SortFunc(servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	out := make([]ServerStatus, 0, len(servers))
	for _, srv := range servers {
		out = append(out, s.statusOf(srv, tools))
	}
	return out
}

// statusOf is one server's status; tools are the set's (Tools), which name its tools.
func (s *Set) statusOf(srv *server, tools []core.Tool) ServerStatus {
	snap := srv.snapshot()
	st := ServerStatus{Name: srv.cfg.Name, Transport: srv.cfg.Transport(), State: snap.state, Error: snap.failure,
		LastError: snap.lastError, Source: srv.cfg.Source, Tools: []ToolStatus{}}
	if snap.info != nil {
		st.ServerName, st.ServerVersion = snap.info.Name, snap.info.Version
	}
	for _, t := range tools {
		mt := t.(*Tool)
		if mt.srv != srv {
			continue
		}
		info := mt.Info()
		st.Tools = append(st.Tools, ToolStatus{Name: info.Name, ServerTool: mt.ServerTool(), Description: info.Description,
			ReadOnly: mt.ReadOnly(), Destructive: mt.Destructive()})
	}
	return st
}

// Close closes every server (stdin closed, a grace period, then the process group killed)
// and returns when their processes are gone. Starts still under way are cancelled.
func (s *Set) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	servers := slices.Collect(func(yield func(*server) bool) {
		for _, srv := range s.servers {
			if !yield(srv) {
				return
			}
		}
	})
	servers = append(servers, s.retired...)
	s.mu.Unlock()
	s.stop()
	var wg sync.WaitGroup
	for _, srv := range servers {
		wg.Go(srv.close)
	}
	wg.Wait()
	s.starts.Wait()
	for _, srv := range servers {
		srv.wait()
	}
	return nil
}
