package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/rs/zerolog"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/transport"
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

func (s *Server) handleLine(line []byte) {
	f := transport.Classify(line)
	switch f.Kind {
	case transport.Empty:
		return
	case transport.NotJSON:
		s.w.fail(nil, reqError(codeParseError, "Parse error: "+f.Reason, nil))
		return
	case transport.Batch:
		// ACP's stdio transport carries one message per line.
		s.w.fail(nil, reqError(codeInvalidRequest, "batches are not accepted", nil))
		return
	case transport.NotObject:
		s.w.fail(nil, reqError(codeInvalidRequest, "a message is a JSON object", nil))
		return
	}
	var m message
	if err := json.Unmarshal(f.Data, &m); err != nil {
		s.w.fail(nil, reqError(codeInvalidRequest, wrongType(err), nil))
		return
	}
	var id json.RawMessage
	if m.ID != nil {
		id = *m.ID
	}
	if m.JSONRPC != "2.0" {
		if id != nil || m.Method != "" {
			s.w.fail(id, reqError(codeInvalidRequest, `jsonrpc must be "2.0"`, nil))
		}
		return
	}
	if m.Method == "" {
		if id != nil && (m.Result != nil || m.Error != nil) {
			if !s.w.answer(&m) {
				s.log.Debug().RawJSON("id", id).Msg("response to no pending request")
			}
			return
		}
		s.w.fail(id, reqError(codeInvalidRequest, "a message needs a method, or is a response with result or error", nil))
		return
	}
	if id == nil {
		s.notification(m.Method, m.Params)
		return
	}
	s.request(id, m.Method, m.Params)
}

// wrongType describes a message field of the wrong type in the protocol's terms, not Go's.
func wrongType(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("Invalid Request: %s must not be a %s", te.Field, te.Value)
	}
	return "Invalid Request: " + err.Error()
}

func decode[T any](params json.RawMessage) (T, *sdk.RequestError) {
	var v T
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, &v); err != nil {
		return v, reqError(codeInvalidParams, "Invalid params: "+err.Error(), nil)
	}
	return v, nil
}

func (s *Server) notification(method string, params json.RawMessage) {
	switch method {
	case sdk.AgentMethodSessionCancel:
		switch err := s.cancel(params); {
		case err == nil:
		case err.Code == codeNotFound:
			// a session just closed, as a cancel crossing a close: nothing to cancel
			s.log.Debug().Str("error", err.Message).Msg("session/cancel")
		default:
			s.log.Warn().Str("error", err.Message).Msg("session/cancel")
		}
	case "$/cancel_request":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		// Cancelling a prompt cancels its turn; it is then answered with stopReason cancelled.
		s.mu.Lock()
		var target *acpSession
		for _, st := range s.sessions {
			if st.hasPrompt(s.w, p.RequestID) {
				target = st
			}
		}
		s.mu.Unlock()
		if target != nil {
			target.cancelled.Store(true)
			target.sup.Abort()
		}
	default:
		s.log.Debug().Str("method", method).Msg("notification ignored")
	}
}

// cancel cancels a session's turn (session/cancel): its prompt is then answered with
// stopReason cancelled.
func (s *Server) cancel(params json.RawMessage) *sdk.RequestError {
	p, err := decode[sdk.CancelNotification](params)
	if err != nil {
		return err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return notFound(p.SessionId)
	}
	st.cancelled.Store(true)
	st.sup.Abort()
	return nil
}

// session returns an open session by id. A session/load of that id still in flight is
// waited for, so a request pipelined after it finds the session it opens.
func (s *Server) session(id string) *acpSession {
	s.awaitLoad(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

func notFound(id sdk.SessionId) *sdk.RequestError {
	return reqError(codeNotFound, fmt.Sprintf("Resource not found: session %q", id), map[string]any{"sessionId": id})
}

func (s *Server) request(id json.RawMessage, method string, params json.RawMessage) {
	var res any
	var err *sdk.RequestError
	switch method {
	case sdk.AgentMethodInitialize:
		res, err = s.initialize(params)
	case sdk.AgentMethodAuthenticate:
		if problem := s.authProblem(); problem != "" {
			err = reqError(codeAuthRequired, problem, nil)
		} else {
			res = sdk.AuthenticateResponse{}
		}
	case sdk.AgentMethodSessionNew:
		s.newSession(id, params)
		return
	case sdk.AgentMethodSessionLoad:
		s.loadSession(id, params)
		return
	case sdk.AgentMethodSessionPrompt:
		s.prompt(id, params)
		return
	case sdk.AgentMethodSessionCancel:
		// A notification in ACP; sent as a request it cancels all the same and is answered
		// with a null result.
		err = s.cancel(params)
	case "_pi-rpc/steer":
		res, err = s.steer(params)
	case sdk.AgentMethodSessionSetMode:
		res, err = s.setMode(params)
	case sdk.AgentMethodSessionSetConfigOption:
		res, err = s.setConfigOption(params)
	case sdk.AgentMethodSessionClose:
		s.close(id, params)
		return
	case sdk.AgentMethodSessionList:
		res, err = s.list(params)
	default:
		err = reqError(codeMethodNotFound, "Method not found: "+method, map[string]any{"method": method})
	}
	if err != nil {
		s.w.fail(id, err)
		return
	}
	s.w.result(id, res)
}

func (s *Server) initialize(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.InitializeRequest](params)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.initialized = true
	s.mu.Unlock()
	res := sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersion(sdk.ProtocolVersionNumber),
		AgentInfo:       s.agentInfo(),
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:  &sdk.SessionListCapabilities{},
				Close: &sdk.SessionCloseCapabilities{},
			},
			Meta: map[string]any{"pi-rpc": map[string]any{"steer": "_pi-rpc/steer"}},
		},
		AuthMethods: []sdk.AuthMethod{},
	}
	if problem := s.authProblem(); problem != "" {
		res.AuthMethods = append(res.AuthMethods, sdk.AuthMethod{Agent: &sdk.AuthMethodAgent{
			Id: "environment", Name: "Set the provider's API key", Description: sdk.Ptr(problem),
		}})
	}
	return res, nil
}

// agentInfo names pi-rpc and, in its _meta, says what sandbox its commands run in.
func (s *Server) agentInfo() *sdk.Implementation {
	info := &sdk.Implementation{Name: "pi-rpc", Title: sdk.Ptr("pi-rpc"), Version: s.opts.Version}
	if s.opts.Sandbox != nil {
		info.Meta = map[string]any{"pi-rpc": map[string]any{"sandbox": s.opts.Sandbox.Info()}}
	}
	return info
}

// authProblem is why no model can be called (a missing key), "" when one can: the host's
// first provider problem.
func (s *Server) authProblem() string {
	if ps := s.host.Problems(); len(ps) > 0 {
		return ps[0].Message
	}
	return ""
}

// mcpServers maps session/new's MCP servers to tools/mcp configurations.
func mcpServers(list []sdk.McpServer, cwd string) ([]mcp.ServerConfig, *sdk.RequestError) {
	out := make([]mcp.ServerConfig, 0, len(list))
	headers := func(hs []sdk.HttpHeader) map[string]string {
		m := map[string]string{}
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for i, m := range list {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, mcp.ServerConfig{Name: m.Stdio.Name, Type: mcp.TransportStdio, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env, Cwd: cwd, Source: "session/new"})
		case m.Http != nil:
			out = append(out, mcp.ServerConfig{Name: m.Http.Name, Type: mcp.TransportHTTP, URL: m.Http.Url, Headers: headers(m.Http.Headers), Source: "session/new"})
		case m.Sse != nil:
			out = append(out, mcp.ServerConfig{Name: m.Sse.Name, Type: mcp.TransportSSE, URL: m.Sse.Url, Headers: headers(m.Sse.Headers), Source: "session/new"})
		default:
			return nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: mcpServers[%d] has a transport pi-rpc does not support", i), nil)
		}
	}
	slices.SortFunc(out, func(a, b mcp.ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func checkCwd(cwd string) *sdk.RequestError {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return reqError(codeInvalidParams, fmt.Sprintf("Invalid params: cwd must be an absolute path, not %q", cwd), nil)
	}
	return nil
}

// notInitialized refuses a method that needs initialize first; nil once initialize is
// answered.
func (s *Server) notInitialized(method string) *sdk.RequestError {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil
	}
	return reqError(codeInvalidRequest, "initialize must come first: "+method+" was sent before initialize", nil)
}

func (s *Server) newSession(id json.RawMessage, params json.RawMessage) {
	err := s.notInitialized(sdk.AgentMethodSessionNew)
	var p sdk.NewSessionRequest
	if err == nil {
		p, err = decode[sdk.NewSessionRequest](params)
	}
	if err == nil {
		err = checkCwd(p.Cwd)
	}
	var servers []mcp.ServerConfig
	if err == nil {
		servers, err = mcpServers(p.McpServers, p.Cwd)
	}
	if err != nil {
		s.w.fail(id, err)
		return
	}
	s.openAsync(id, "", session.OpenRequest{Cwd: filepath.Clean(p.Cwd)}, OpenExtra{MCPServers: servers}, func(st *acpSession) {
		st.goLive(s.w, id, sdk.NewSessionResponse{SessionId: sdk.SessionId(st.id), Modes: st.modes(), ConfigOptions: s.configOptions(st)}, nil)
		st.announceCommands(s.w)
	})
}

// open opens a session through the host and registers it; it is not live (nothing of it is
// written) until its response is queued.
func (s *Server) open(req session.OpenRequest, extra OpenExtra) (*acpSession, *sdk.RequestError) {
	s.mu.Lock()
	if s.shutDown {
		s.mu.Unlock()
		return nil, reqError(codeInvalidRequest, "the agent is shutting down", nil)
	}
	caps := s.client
	s.mu.Unlock()
	st := &acpSession{cwd: req.Cwd, calls: map[string]*toolCall{}, rejected: map[string]bool{}, caps: caps}
	req.Ctx = s.life
	req.Sink = &sessionSink{w: s.w, st: st}
	extra.Access = st.clientAccess(s.w)
	extra.BeforeToolCall = func(_ context.Context, c *core.BeforeToolCallContext) (*core.BeforeToolCallResult, error) {
		st.running(s.w, c.Call.ID)
		return nil, nil
	}
	req.Extra = extra
	opened, oerr := s.host.Open(req)
	if oerr != nil {
		var se *session.Error
		switch {
		case errors.Is(oerr, session.ErrTooManySessions):
			return nil, reqError(codeInvalidRequest, fmt.Sprintf("too many sessions open (at most %d, see --max-sessions)", s.host.MaxSessions()), nil)
		case errors.As(oerr, &se) && se.Kind == session.KindNotFound:
			return nil, reqError(codeNotFound, "Resource not found: "+se.Message, nil)
		}
		return nil, reqError(codeInvalidParams, "Invalid params: "+oerr.Error(), nil)
	}
	st.opened, st.sup = opened, opened.Supervisor
	st.id = st.sup.SessionID()
	st.loadedUsage = st.initUsage()
	mode := s.opts.Approval
	if mode == "" {
		mode = session.ApprovalAsk
	}
	st.sup.SetOptions(session.OptionsPatch{Approval: &mode})
	st.sup.SetPermissionAsker(&asker{w: s.w, st: st})
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.sessions[st.id]; old != nil || s.shutDown {
		// a duplicate is refused, its store released
		<-s.host.CloseSession(context.Background(), opened).Done()
		if s.shutDown {
			return nil, reqError(codeInvalidRequest, "the agent is shutting down", nil)
		}
		return nil, reqError(codeInvalidRequest, fmt.Sprintf("session %s is already open on this connection", st.id), nil)
	}
	s.sessions[st.id] = st
	return st, nil
}

func (s *Server) prompt(id json.RawMessage, params json.RawMessage) {
	p, err := decode[sdk.PromptRequest](params)
	if err != nil {
		s.w.fail(id, err)
		return
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		s.w.fail(id, notFound(p.SessionId))
		return
	}
	if cmd, args := slashCommand(p.Prompt); cmd != nil {
		cmd.run(s, st, id, args)
		return
	}
	text, images, err := promptInput(p.Prompt, st.cwd)
	if err != nil {
		s.w.fail(id, err)
		return
	}
	// The prompt is answered by the sink, at its input's message_start or agent_settled, which
	// may come before Prompt returns: it is named and registered first.
	inputID := s.host.IDs().Input()
	st.addPrompt(s.w, inputID, id)
	if _, perr := st.sup.Prompt(session.PromptRequest{Message: text, Images: images, WhenBusy: "followUp", InputID: inputID}); perr != nil {
		st.dropPrompt(s.w, inputID)
		s.w.fail(id, engineError(perr))
	}
}

func (s *Server) steer(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.PromptRequest](params)
	if err != nil {
		return nil, err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return nil, notFound(p.SessionId)
	}
	text, images, err := promptInput(p.Prompt, st.cwd)
	if err != nil {
		return nil, err
	}
	acc, serr := st.sup.Steer(session.QueueRequest{Message: text, Images: images, WhenIdle: "reject"})
	if serr != nil {
		return nil, engineError(serr)
	}
	return map[string]any{"inputId": acc.InputID}, nil
}

// engineError is a supervisor error as a JSON-RPC error.
func engineError(err error) *sdk.RequestError {
	var se *session.Error
	if errors.As(err, &se) {
		code := codeInvalidRequest
		switch se.Kind {
		case session.KindProviderNotConfigured:
			code = codeAuthRequired
		case session.KindNotFound:
			code = codeNotFound
		}
		return reqError(code, se.Message, map[string]any{"kind": se.Kind})
	}
	return reqError(codeInternalError, err.Error(), nil)
}

// Modes are the approval policies.
var modes = []struct{ id, approval, name, desc string }{
	{"ask", session.ApprovalAsk, "Ask", "Ask before every write, edit and command"},
	{"auto", session.ApprovalAuto, "Auto", "Run every tool without asking"},
	{"read-only", session.ApprovalDenyWrites, "Read-only", "Refuse writes, edits and commands"},
}

// sandboxModes name and describe the sandbox config option's values.
var sandboxModes = map[string][2]string{
	"off":             {"Off", "Commands run with your user's permissions"},
	"workspace-write": {"Workspace", "Commands write only the workspace, /tmp and the --sandbox-write directories"},
	"read-only":       {"Read-only", "Commands write nowhere"},
}

func (st *acpSession) modes() *sdk.SessionModeState {
	cur := st.sup.State().Options.Approval
	out := &sdk.SessionModeState{AvailableModes: []sdk.SessionMode{}}
	for _, m := range modes {
		out.AvailableModes = append(out.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: sdk.Ptr(m.desc)})
		if m.approval == cur {
			out.CurrentModeId = sdk.SessionModeId(m.id)
		}
	}
	return out
}

func (s *Server) setMode(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.SetSessionModeRequest](params)
	if err != nil {
		return nil, err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return nil, notFound(p.SessionId)
	}
	if err := setApproval(st, string(p.ModeId)); err != nil {
		return nil, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

// setApproval sets the approval mode of a session/set_mode or of the mode config option.
func setApproval(st *acpSession, id string) *sdk.RequestError {
	for _, m := range modes {
		if id == m.id {
			st.sup.SetOptions(session.OptionsPatch{Approval: sdk.Ptr(m.approval)})
			return nil
		}
	}
	return reqError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown mode %q (ask, auto, read-only)", id), nil)
}

// modeOption is the approval modes as the mode config option: a client that reads
// configOptions ignores modes, as ACP says it should.
func modeOption(st *acpSession) sdk.SessionConfigOption {
	state := st.modes()
	opts := sdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range state.AvailableModes {
		opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.Id), Name: m.Name, Description: m.Description})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(state.CurrentModeId), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name, o.Select.Category = "mode", "Approval", sdk.Ptr(sdk.SessionConfigOptionCategoryMode)
	o.Select.Description = sdk.Ptr("Who approves writes, edits and commands")
	return o
}

// sandboxOption is the session's OS sandbox as the sandbox config option; false when the
// process offers none.
func (s *Server) sandboxOption(st *acpSession) (sdk.SessionConfigOption, bool) {
	if s.opts.Sandbox == nil {
		return sdk.SessionConfigOption{}, false
	}
	list, cur := s.opts.Sandbox.Modes(st.sup)
	if len(list) == 0 {
		return sdk.SessionConfigOption{}, false
	}
	opts := sdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range list {
		name, desc := m, ""
		if d, ok := sandboxModes[m]; ok {
			name, desc = d[0], d[1]
		}
		opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: name, Description: sdk.Ptr(desc)})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(cur), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id, o.Select.Name = "sandbox", "Sandbox"
	o.Select.Description = sdk.Ptr("The OS sandbox of the agent's commands, from the next one on")
	return o, true
}

var thinkingLevels = []core.ThinkingLevel{"off", "minimal", "low", "medium", "high", "xhigh"}

func (s *Server) configOptions(st *acpSession) []sdk.SessionConfigOption {
	snap := st.sup.State()
	out := []sdk.SessionConfigOption{modeOption(st)}
	if o, ok := s.sandboxOption(st); ok {
		out = append(out, o)
	}
	if snap.Model.ID != "" {
		cur := snap.Model.Provider + "/" + snap.Model.ID
		opts := sdk.SessionConfigSelectOptionsUngrouped{}
		seen := false
		for _, m := range s.host.Models() {
			ref := m.Provider + "/" + m.ID
			seen = seen || ref == cur
			opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(ref), Name: modelName(m)})
		}
		if !seen {
			opts = append([]sdk.SessionConfigSelectOption{{Value: sdk.SessionConfigValueId(cur), Name: modelName(snap.Model)}}, opts...)
		}
		o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(cur), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
		o.Select.Id, o.Select.Name, o.Select.Category = "model", "Model", sdk.Ptr(sdk.SessionConfigOptionCategory("model"))
		out = append(out, o)
		if snap.Model.Reasoning {
			levels := sdk.SessionConfigSelectOptionsUngrouped{}
			for _, l := range thinkingLevels {
				if snap.Model.ClampThinkingLevel(l) == l {
					levels = append(levels, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(l), Name: string(l)})
				}
			}
			t := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(snap.ThinkingLevel), sdk.SessionConfigSelectOptions{Ungrouped: &levels})
			t.Select.Id, t.Select.Name, t.Select.Category = "thought_level", "Thinking", sdk.Ptr(sdk.SessionConfigOptionCategory("thought_level"))
			out = append(out, t)
		}
	}
	return out
}

func modelName(m core.Model) string {
	if m.Name != "" {
		return m.Name
	}
	return m.ID
}

func (s *Server) setConfigOption(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.SetSessionConfigOptionValueId](params)
	if err != nil {
		return nil, err
	}
	st := s.session(string(p.SessionId))
	if st == nil {
		return nil, notFound(p.SessionId)
	}
	switch p.ConfigId {
	case "mode":
		if err := setApproval(st, string(p.Value)); err != nil {
			return nil, err
		}
	case "sandbox":
		if _, ok := s.sandboxOption(st); !ok {
			return nil, reqError(codeInvalidParams, "Invalid params: this agent offers no sandbox", nil)
		}
		if serr := s.opts.Sandbox.SetMode(st.sup, string(p.Value)); serr != nil {
			return nil, reqError(codeInvalidParams, "Invalid params: "+serr.Error(), nil)
		}
	case "model":
		if serr := s.setModel(st, string(p.Value)); serr != nil {
			return nil, reqError(codeInvalidParams, "Invalid params: "+serr.Error(), nil)
		}
	case "thought_level":
		l := core.ThinkingLevel(p.Value)
		if !slices.Contains(thinkingLevels, l) {
			return nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown thinking level %q", p.Value), nil)
		}
		st.sup.SetThinkingLevel(l)
	default:
		return nil, reqError(codeInvalidParams, fmt.Sprintf("Invalid params: unknown config option %q", p.ConfigId), nil)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions(st)}, nil
}

func (s *Server) close(id json.RawMessage, params json.RawMessage) {
	p, err := decode[sdk.CloseSessionRequest](params)
	if err != nil {
		s.w.fail(id, err)
		return
	}
	s.mu.Lock()
	st := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if st == nil {
		s.w.fail(id, notFound(p.SessionId))
		return
	}
	// The turn is cancelled and settles (its prompt answered) before the close is answered.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	closed := s.host.CloseSession(ctx, st.opened)
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		defer cancel()
		s.closed(st, closed)
		s.w.result(id, sdk.CloseSessionResponse{})
	}()
}

// closed waits for a session the host is closing to close.
func (s *Server) closed(st *acpSession, c *session.Pending[struct{}]) {
	if _, err := c.Result(); err != nil {
		s.log.Warn().Err(err).Str("sessionId", st.id).Msg("close session")
	}
}

func (s *Server) list(params json.RawMessage) (any, *sdk.RequestError) {
	p, err := decode[sdk.ListSessionsRequest](params)
	if err != nil {
		return nil, err
	}
	cwd := ""
	if p.Cwd != nil {
		if err := checkCwd(*p.Cwd); err != nil {
			return nil, err
		}
		cwd = filepath.Clean(*p.Cwd)
	}
	res := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	list, lerr := s.savedSessions(cwd)
	if lerr != nil {
		return nil, reqError(codeInternalError, lerr.Error(), nil)
	}
	for _, it := range list {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(it.ID), Cwd: it.Cwd}
		title := it.Name
		if title == "" {
			title = it.FirstMessage
		}
		if title != "" {
			info.Title = sdk.Ptr(title)
		}
		if t, err := time.Parse(time.RFC3339Nano, it.Modified); err == nil && !t.IsZero() {
			info.UpdatedAt = sdk.Ptr(t.UTC().Format(time.RFC3339))
		}
		res.Sessions = append(res.Sessions, info)
	}
	return res, nil
}

// maxListed bounds session/list, which has no pages here.
const maxListed = 1000

// savedSessions lists the host's saved sessions of cwd, page by page, up to maxListed.
func (s *Server) savedSessions(cwd string) ([]session.SessionInfo, error) {
	var out []session.SessionInfo
	cursor := ""
	for {
		infos, next, err := s.host.ListSaved(cwd, cursor, 200)
		if err != nil {
			return nil, err
		}
		out = append(out, infos...)
		if next == "" || len(out) >= maxListed {
			return out, nil
		}
		cursor = next
	}
}
