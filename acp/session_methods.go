package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"github.com/pi-rpc/pi-rpc/tools/mcp"
)

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
func (s *Server) savedSessions(cwd string) ([]sessionapi.SessionInfo, error) {
	var out []sessionapi.SessionInfo
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
