package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pi-rpc/pi-rpc/internal/proctree"
)

// Server states, as [ServerStatus.State] reports them.
const (
	StateConnecting = "connecting"
	StateConnected  = "connected"
	StateFailed     = "failed"
	StateClosed     = "closed"
)

// closeGrace is how long a closing stdio server gets to exit after its stdin is closed before
// its process group is killed.
const closeGrace = 2 * time.Second

// server is one MCP server and the connection to it. It owns the client session, the child
// process group (stdio) and the goroutines that read the child's stderr and watch the
// connection; Close ends all of them.
type server struct {
	cfg  ServerConfig
	opts *Options
	// changed is called (without locks held) when the server's tools changed or it failed;
	// failed (likewise) when a connected server failed, before changed.
	changed func()
	failed  func(*server)

	mu        sync.Mutex
	state     string
	failure   string // why the server is failed
	lastError string // the last call fault while connected; cleared by a good call
	info      *sdk.Implementation
	tools     []*sdk.Tool
	session   *sdk.ClientSession
	pgid      int            // the stdio child's process group, 0 when there is none
	tree      *proctree.Tree // the stdio child's process tree (its Job Object on Windows), nil when there is none
	stderr    *os.File
	lastLine  string // the child's last line of stderr, for failure messages
	closing   bool
	endLife   context.CancelFunc // ends the connection's context

	watching bool // the connection watcher runs (it closes watched)

	refreshMu sync.Mutex    // one tools/list refresh at a time
	watched   chan struct{} // closed when the connection watcher ends, or when none started
	stderrEOF chan struct{} // closed when the stderr reader ends, or when none started
}

func newServer(cfg ServerConfig, opts *Options, changed func(), failed func(*server)) *server {
	return &server{cfg: cfg, opts: opts, changed: changed, failed: failed, state: StateConnecting,
		watched: make(chan struct{}), stderrEOF: make(chan struct{})}
}

// connect starts the server, runs the MCP handshake and lists its tools, within
// opts.CallTimeout. A failure leaves the server failed with the reason.
func (s *server) connect(ctx context.Context) error {
	err := s.start(ctx)
	s.mu.Lock()
	if !s.watching {
		close(s.watched)
	}
	if s.stderr == nil {
		close(s.stderrEOF)
	}
	endLife := s.endLife
	s.mu.Unlock()
	if err != nil {
		s.fail(err.Error())
		s.kill()
		if endLife != nil {
			endLife()
		}
	}
	return err
}

func (s *server) start(ctx context.Context) error {
	if err := s.cfg.Validate(); err != nil {
		return err
	}
	cfg, err := s.cfg.resolve(s.opts.lookupEnv())
	if err != nil {
		return err
	}
	// The SSE transport keeps the context of Connect for its stream, so the connection gets a
	// context of its own, ended by close; the start's bounds (the timeout, the caller giving
	// up) end it only while the start is under way. It is registered before anything starts,
	// under the lock close takes: a close from now on ends the start, and one before it is
	// seen here.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.endLife = endLife
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return errors.New("closed while starting")
	}
	var transport sdk.Transport
	var cmd *exec.Cmd
	switch cfg.Transport() {
	case TransportStdio:
		if cmd, err = s.command(cfg); err != nil {
			return err
		}
		transport = &startTransport{
			CommandTransport: &sdk.CommandTransport{Command: cmd, TerminateDuration: closeGrace},
			started:          func() error { return s.afterStart(cmd) },
		}
	case TransportHTTP:
		transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers), MaxRetries: 1}
	case TransportSSE:
		transport = &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg.Headers)}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "pi-rpc", Version: s.opts.ClientVersion}, &sdk.ClientOptions{
		// The refresh calls the server, so it must not run on the connection's reader.
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { go s.refresh() },
	})
	var timedOut atomic.Bool
	timer := time.AfterFunc(s.opts.callTimeout(), func() {
		timedOut.Store(true)
		endLife()
	})
	stopCaller := context.AfterFunc(ctx, endLife)
	defer func() {
		timer.Stop()
		stopCaller()
	}()
	session, err := client.Connect(life, transport, nil)
	if cmd != nil && cmd.Process == nil {
		closeStderr(cmd) // (not started: afterStart did not run)
	}
	if err != nil {
		return s.reason("cannot start", err, timedOut.Load())
	}
	s.mu.Lock()
	closing = s.closing
	if !closing {
		s.session = session
		s.info = session.InitializeResult().ServerInfo
		s.watching = true
		go s.watch(session)
	}
	s.mu.Unlock()
	if closing {
		_ = session.Close()
		return errors.New("closed while starting")
	}
	tools, err := listTools(life, session)
	if err != nil {
		return s.reason("cannot list tools", err, timedOut.Load())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateConnecting {
		s.state, s.tools = StateConnected, tools
	}
	return nil
}

// command builds the stdio child: in its own process group (so Close can kill what it
// spawns), in its directory, with the configured environment over the process's, and its
// stderr on a pipe of ours that is copied to the log.
func (s *server) command(cfg ServerConfig) (*exec.Cmd, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...) //nolint:noctx // the server outlives any one context; close kills its process group.
	cmd.Dir = s.opts.Cwd
	if cfg.Cwd != "" {
		cmd.Dir = cfg.Cwd
		if !filepath.IsAbs(cfg.Cwd) && s.opts.Cwd != "" {
			cmd.Dir = filepath.Join(s.opts.Cwd, cfg.Cwd)
		}
	}
	cmd.Env = s.opts.environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = childAttrs()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// An *os.File, not a writer: exec then copies nothing, and Wait never waits for a
	// grandchild that keeps stderr open.
	cmd.Stderr = w
	s.mu.Lock()
	s.stderr = r
	s.mu.Unlock()
	go s.readStderr(r)
	return cmd, nil
}

// startTransport is the SDK's CommandTransport, which starts the stdio server in Connect,
// followed at once by started: the server joins its process tree before the SDK's handshake
// (on Windows, where childAttrs has it created suspended, before it runs at all), so that
// nothing it spawns while it starts escapes the tree that close kills.
type startTransport struct {
	*sdk.CommandTransport
	started func() error
}

func (t *startTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := t.started(); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// afterStart closes our copy of the stderr pipe's write end once the child has started, and
// records the child's process tree (its process group; on Windows its Job Object, which
// Attach puts it in and then resumes it).
func (s *server) afterStart(cmd *exec.Cmd) error {
	closeStderr(cmd)
	tree, err := proctree.Attach(cmd.Process, true)
	if err != nil {
		return fmt.Errorf("process tree: %w", err)
	}
	s.mu.Lock()
	s.pgid = cmd.Process.Pid
	s.tree = tree
	s.mu.Unlock()
	return nil
}

// closeStderr closes the write end of the child's stderr pipe that command made (the child
// has its own copy once started).
func closeStderr(cmd *exec.Cmd) {
	if w, ok := cmd.Stderr.(*os.File); ok {
		_ = w.Close()
	}
}

// readStderr copies the child's stderr to the log, line by line, keeping the last line.
func (s *server) readStderr(r *os.File) {
	defer close(s.stderrEOF)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		s.mu.Lock()
		s.lastLine = line
		s.mu.Unlock()
		s.opts.Logger.Info().Str("mcpServer", s.cfg.Name).Str("stderr", line).Msg("mcp server")
	}
}

// watch waits for the connection to end; an end that Close did not cause fails the server.
func (s *server) watch(session *sdk.ClientSession) {
	defer close(s.watched)
	err := session.Wait()
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return
	}
	// The child's last words explain a crash better than the closed pipe does; a child that
	// exited has closed its stderr, one still alive is not waited for long.
	select {
	case <-s.stderrEOF:
	case <-time.After(100 * time.Millisecond):
	}
	msg := "the connection closed"
	if err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		msg += ": " + err.Error()
	}
	s.fail(s.withStderr(msg))
	s.kill()
	s.failed(s)
	s.opts.fault(Fault{Server: s.cfg.Name, Message: s.failureMessage()})
	s.changed()
}

// reason words a start failure, naming a timeout as one.
func (s *server) reason(what string, err error, timedOut bool) error {
	if timedOut {
		return errors.New(s.withStderr(fmt.Sprintf("%s: no answer within %s", what, s.opts.callTimeout())))
	}
	return errors.New(s.withStderr(fmt.Sprintf("%s: %v", what, err)))
}

// withStderr appends the child's last stderr line to msg.
func (s *server) withStderr(msg string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastLine != "" {
		return msg + " (stderr: " + s.lastLine + ")"
	}
	return msg
}

// fail marks the server failed, once, dropping its tools.
func (s *server) fail(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateFailed || s.state == StateClosed {
		return
	}
	s.state, s.failure, s.tools = StateFailed, reason, nil
}

func (s *server) failureMessage() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure
}

// kill ends the child's whole process tree.
func (s *server) kill() {
	s.mu.Lock()
	tree := s.tree
	s.mu.Unlock()
	if tree != nil {
		tree.Kill()
	}
}

// close ends the connection: stdin closed and closeGrace to exit, then the process group is
// killed; an HTTP session is ended with the server. It returns when the child is gone.
func (s *server) close() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	session, endLife := s.session, s.endLife
	s.state, s.tools = StateClosed, nil
	s.mu.Unlock()
	if session != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = session.Close()
		}()
		select {
		case <-done:
		case <-time.After(closeGrace):
			s.kill()
			<-done
		}
	}
	s.kill()
	s.mu.Lock()
	tree := s.tree
	s.tree = nil // a later kill must not reach a closed (and perhaps reused) handle
	s.mu.Unlock()
	if tree != nil {
		tree.Release() // the Job Object's handle, on Windows
	}
	if endLife != nil {
		endLife()
	}
}

// wait waits for the watcher and the stderr reader to end, after close; the pipe is closed
// when only an escaped grandchild could still hold it.
func (s *server) wait() {
	<-s.watched
	select {
	case <-s.stderrEOF:
	case <-time.After(closeGrace):
	}
	s.mu.Lock()
	r := s.stderr
	s.mu.Unlock()
	if r != nil {
		_ = r.Close()
	}
}

// refresh lists the tools again after notifications/tools/list_changed.
func (s *server) refresh() {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	s.mu.Lock()
	session, state := s.session, s.state
	s.mu.Unlock()
	if session == nil || state != StateConnected {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.callTimeout())
	defer cancel()
	tools, err := listTools(ctx, session)
	if err != nil {
		s.opts.Logger.Warn().Str("mcpServer", s.cfg.Name).Err(err).Msg("cannot refresh the tool list")
		s.setLastError("cannot refresh the tool list: " + err.Error())
		return
	}
	s.mu.Lock()
	if s.state != StateConnected {
		s.mu.Unlock()
		return
	}
	s.tools = tools
	s.mu.Unlock()
	s.changed()
}

func (s *server) setLastError(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastError = msg
}

// listTools reads every page of tools/list.
func listTools(ctx context.Context, session *sdk.ClientSession) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// snapshot is the server's state for Tools and Status.
type snapshot struct {
	state, failure, lastError string
	info                      *sdk.Implementation
	tools                     []*sdk.Tool
}

func (s *server) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{state: s.state, failure: s.failure, lastError: s.lastError, info: s.info, tools: s.tools}
}

// httpClient sends the configured headers with every request.
func httpClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return &http.Client{}
	}
	return &http.Client{Transport: headerTransport{headers: headers, base: http.DefaultTransport}}
}

type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}
