package rpc

import (
	"context"
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// The connection's sessions are the host's live sessions, in creation order; the first is
// the default for a method sent without sessionId, so a client that never creates a session
// sees exactly one.

// sessionOf resolves the session a scoped method's params name.
func (s *Server) sessionOf(raw *json.RawMessage) (*session.Supervisor, error) {
	var ref protocol.SessionParams
	if err := decodeParams(raw, &ref); err != nil {
		return nil, err
	}
	return s.host.Find(ref.SessionID)
}

// attach makes the server the session's permission asker.
func (s *Server) attach(sup *session.Supervisor) {
	sup.SetPermissionAsker(asker{s: s, sup: sup})
}

type createSessionParams protocol.CreateSessionParams

func (p *createSessionParams) validate(*json.RawMessage) error {
	return validSandbox("sandbox", p.Sandbox)
}

// createSession opens a session beside the others through the host; the process's opener
// (given the params as OpenRequest.Extra) starts the session's own MCP servers, whose
// mcp_server_status events may come while it opens, and applies its sandbox choice.
func (s *Server) createSession(_ context.Context, _ *session.Supervisor, p *createSessionParams) (*protocol.CreateSessionResult, error) {
	// From the second session on, every event says which session it belongs to: the new
	// session's from its first (its MCP servers' connecting, during the open).
	every := s.opts.Writer.EverySessionID()
	s.opts.Writer.SetEverySessionID(true)
	opened, err := s.host.Open(session.OpenRequest{Cwd: p.Cwd, Model: p.Model, SessionFile: p.SessionFile, Extra: (*protocol.CreateSessionParams)(p), Sink: s.opts.Writer})
	if err != nil {
		s.opts.Writer.SetEverySessionID(every)
		return nil, err
	}
	sup := opened.Supervisor
	s.attach(sup)
	s.mu.Lock()
	caps := s.caps
	initialized := s.initialized
	s.mu.Unlock()
	if initialized {
		sup.SettleApprovalDefault(caps.Permissions)
	}
	st := sup.State()
	return &protocol.CreateSessionResult{SessionID: st.SessionID, SessionFile: st.SessionFile, Cwd: opened.Cwd, Model: st.Model, Sandbox: s.sandboxOf(sup)}, nil
}

type closeSessionParams protocol.CloseSessionParams

func (p *closeSessionParams) validate(*json.RawMessage) error {
	return requiredParam("sessionId", p.SessionID)
}

// closeSession aborts the session's busy period, waits for its agent_settled, syncs and
// releases its file, and answers after that agent_settled.
func (s *Server) closeSession(_ context.Context, _ *session.Supervisor, p *closeSessionParams) (*later, error) {
	closing, err := s.host.Close(p.SessionID)
	if err != nil {
		return nil, err
	}
	return deferred(func(ctx context.Context) (any, int64, error) {
		if _, err := closing.Wait(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, 0, err
			}
			s.log.Warn().Err(err).Str("session", p.SessionID).Msg("closing session")
		}
		return protocol.Empty{}, s.opts.Writer.LastSeq(), nil
	}), nil
}

// ShutdownSessions shuts every open session down (abort, settle, sync).
func (s *Server) ShutdownSessions(ctx context.Context) error { return s.host.Shutdown(ctx) }

// WaitSettled waits until every open session is idle (--on-eof finish).
func (s *Server) WaitSettled(ctx context.Context) error { return s.host.WaitSettled(ctx) }
