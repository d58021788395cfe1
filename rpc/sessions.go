package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
)

// SessionRequest is what createSession asks of the factory: a session with its own working
// directory, model and (optionally) resumed file.
type SessionRequest struct {
	Cwd         string
	Model       string
	SessionFile string
	// MCPServers are the session's own MCP servers; the factory connects them before it
	// returns (each connected or failed).
	MCPServers map[string]protocol.MCPServerConfig
	// IDs is the process's id source, shared by every session.
	IDs *session.IDs
}

// NewSession builds a started session for createSession. It must use the server's writer as
// the session's sink and req.IDs as its id source.
type NewSession func(req SessionRequest) (*OpenedSession, error)

// OpenedSession is a session createSession opened.
type OpenedSession struct {
	Supervisor *session.Supervisor
	// ContextFiles are the AGENTS.md / CLAUDE.md files of its system prompt (getState).
	ContextFiles []string
	Result       protocol.CreateSessionResult
	// Closed, when set, is called once closeSession has closed it.
	Closed func()
}

// DefaultMaxSessions bounds the sessions of one connection unless Options.MaxSessions says
// otherwise.
const DefaultMaxSessions = 16

// sessionSet is the connection's live sessions in creation order. The first open one is the
// default for a method sent without sessionId, so a client that never creates a session sees
// exactly one. A session's id is read from the session itself, because newSession,
// openSession and forkSession change it in place.
type sessionSet struct {
	mu   sync.Mutex
	list []*session.Supervisor
	// contextFiles and closed are those of sessions createSession opened.
	contextFiles map[*session.Supervisor][]string
	closed       map[*session.Supervisor]func()
	// reserved counts sessions being created, so that two createSession calls cannot both
	// pass the limit.
	reserved int
}

func (ss *sessionSet) add(sup *session.Supervisor) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.list = append(ss.list, sup)
}

// all returns the open sessions, oldest first.
func (ss *sessionSet) all() []*session.Supervisor {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]*session.Supervisor(nil), ss.list...)
}

// reserve claims room for one more session, or reports that max are open.
func (ss *sessionSet) reserve(max int) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if len(ss.list)+ss.reserved >= max {
		return false
	}
	ss.reserved++
	return true
}

// settle ends a reservation, adding the session it made (if any).
func (ss *sessionSet) settle(opened *OpenedSession) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.reserved--
	if opened != nil {
		ss.list = append(ss.list, opened.Supervisor)
		if ss.contextFiles == nil {
			ss.contextFiles = map[*session.Supervisor][]string{}
		}
		ss.contextFiles[opened.Supervisor] = opened.ContextFiles
		if opened.Closed != nil {
			if ss.closed == nil {
				ss.closed = map[*session.Supervisor]func(){}
			}
			ss.closed[opened.Supervisor] = opened.Closed
		}
	}
}

// contextFilesOf returns a created session's context files, or def for the first session.
func (ss *sessionSet) contextFilesOf(sup *session.Supervisor, def []string) []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if files, ok := ss.contextFiles[sup]; ok {
		return files
	}
	return def
}

// remove takes a session out of the set and returns its Closed callback (or a no-op).
func (ss *sessionSet) remove(sup *session.Supervisor) func() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.contextFiles, sup)
	closed := ss.closed[sup]
	delete(ss.closed, sup)
	if closed == nil {
		closed = func() {}
	}
	for i, x := range ss.list {
		if x == sup {
			ss.list = append(ss.list[:i], ss.list[i+1:]...)
			break
		}
	}
	return closed
}

// find returns the session named id, or the default session when id is empty.
func (ss *sessionSet) find(id string) (*session.Supervisor, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if id == "" {
		if len(ss.list) == 0 {
			return nil, &session.Error{Kind: session.KindNotFound, Message: "No open session: createSession opens one"}
		}
		return ss.list[0], nil
	}
	for _, sup := range ss.list {
		if sup.SessionID() == id {
			return sup, nil
		}
	}
	return nil, &session.Error{Kind: session.KindNotFound, Message: fmt.Sprintf("No open session %s", id)}
}

// sessionOf resolves the session a scoped method's params name.
func (s *Server) sessionOf(raw *json.RawMessage) (*session.Supervisor, error) {
	var ref protocol.SessionParams
	if err := decodeParams(raw, &ref); err != nil {
		return nil, err
	}
	return s.sessions.find(ref.SessionID)
}

// attach makes the server the session's permission asker.
func (s *Server) attach(sup *session.Supervisor) {
	sup.SetPermissionAsker(asker{s: s, sup: sup})
}

type createSessionParams protocol.CreateSessionParams

func (s *Server) createSession(_ context.Context, c *call, p *createSessionParams) {
	if s.opts.NewSession == nil {
		c.fail(&session.Error{Kind: session.KindInvalidState, Message: "This server cannot create sessions"})
		return
	}
	if !s.sessions.reserve(s.maxSessions()) {
		c.fail(&session.Error{Kind: session.KindInvalidState, Message: fmt.Sprintf("Too many sessions: %d are open (--max-sessions); close one with closeSession first", s.maxSessions())})
		return
	}
	opened, err := s.opts.NewSession(SessionRequest{Cwd: p.Cwd, Model: p.Model, SessionFile: p.SessionFile, MCPServers: p.MCPServers, IDs: s.ids})
	if err != nil {
		s.sessions.settle(nil)
		c.fail(err)
		return
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
	// From the second session on, every event says which session it belongs to.
	s.opts.Writer.SetEverySessionID(true)
	s.sessions.settle(opened)
	c.reply(opened.Result)
}

type closeSessionParams protocol.CloseSessionParams

func (p *closeSessionParams) validate(*json.RawMessage) error {
	if p.SessionID == "" {
		return invalidParams("params.sessionId: required")
	}
	return nil
}

// closeSession aborts the session's busy period, waits for its agent_settled, syncs and
// releases its file, and answers after that agent_settled.
func (s *Server) closeSession(_ context.Context, c *call, p *closeSessionParams) {
	sup, err := s.sessions.find(p.SessionID)
	if err != nil {
		c.fail(err)
		return
	}
	closed := s.sessions.remove(sup)
	s.async(c, func(ctx context.Context) {
		if err := sup.Close(ctx); err != nil {
			s.log.Warn().Err(err).Str("session", p.SessionID).Msg("closing session")
		}
		closed()
		c.replyAfter(protocol.Empty{}, s.opts.Writer.LastSeq())
	})
}

func (s *Server) maxSessions() int {
	if s.opts.MaxSessions > 0 {
		return s.opts.MaxSessions
	}
	return DefaultMaxSessions
}

// ShutdownSessions shuts every open session down (abort, settle, sync).
func (s *Server) ShutdownSessions(ctx context.Context) error {
	var first error
	for _, sup := range s.sessions.all() {
		if err := sup.Shutdown(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WaitSettled waits until every open session is idle (--on-eof finish).
func (s *Server) WaitSettled(ctx context.Context) error {
	for _, sup := range s.sessions.all() {
		if _, err := sup.WaitSettled(ctx, ""); err != nil {
			return err
		}
	}
	return nil
}
