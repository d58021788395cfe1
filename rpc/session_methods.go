package rpc

import (
	"context"
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/protocol"
	"github.com/pi-rpc/pi-rpc/session"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The session methods (docs/protocol.md, "Sessions"). The work is the supervisor's; these
// check params and shape results.

func (s *Server) newSession(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (*sessionapi.SessionRef, error) {
	return sup.NewSession()
}

type listSessionsParams protocol.ListSessionsParams

func (p *listSessionsParams) validate(*json.RawMessage) error {
	return nonNegativeParam("limit", p.Limit)
}

// listSessions lists the saved sessions through the host, as every front end does (the
// default directory is the process's --cwd, docs/protocol.md#listsessions).
func (s *Server) listSessions(_ context.Context, _ *session.Supervisor, p *listSessionsParams) (*protocol.ListSessionsResult, error) {
	infos, next, err := s.host.ListSaved(p.Cwd, p.Cursor, p.Limit)
	if err != nil {
		return nil, &session.Error{Kind: session.KindInvalidState, Message: err.Error()}
	}
	if infos == nil {
		infos = []sessionapi.SessionInfo{}
	}
	return &protocol.ListSessionsResult{Sessions: infos, NextCursor: next}, nil
}

type openSessionParams protocol.OpenSessionParams

func (p *openSessionParams) validate(*json.RawMessage) error {
	if p.Session == "" {
		return invalidParams("params.session: required (a session file or id)")
	}
	return nil
}

func (s *Server) openSession(_ context.Context, sup *session.Supervisor, p *openSessionParams) (*sessionapi.SessionRef, error) {
	return sup.OpenSession(p.Session)
}

type forkSessionParams protocol.ForkSessionParams

func (p *forkSessionParams) validate(*json.RawMessage) error {
	return requiredParam("entryId", p.EntryID)
}

func (s *Server) forkSession(_ context.Context, sup *session.Supervisor, p *forkSessionParams) (*sessionapi.ForkResult, error) {
	return sup.ForkSession(p.EntryID)
}

func (s *Server) getTree(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (sessionapi.TreeView, error) {
	return sup.Tree(), nil
}

type getEntriesParams protocol.GetEntriesParams

func (p *getEntriesParams) validate(*json.RawMessage) error {
	return nonNegativeParam("limit", p.Limit)
}

func (s *Server) getEntries(_ context.Context, sup *session.Supervisor, p *getEntriesParams) (*entriesAnswer, error) {
	page, err := sup.BranchEntries(p.Since, p.Limit)
	if err != nil {
		return nil, err
	}
	return (*entriesAnswer)(&page), nil
}

type navigateTreeParams protocol.NavigateTreeParams

func (p *navigateTreeParams) validate(*json.RawMessage) error {
	return requiredParam("entryId", p.EntryID)
}

// navigateTree may ask the model for a branch summary: that busy period starts in the handler
// and the answer comes from its own goroutine, after the period's agent_settled.
func (s *Server) navigateTree(_ context.Context, sup *session.Supervisor, p *navigateTreeParams) (any, error) {
	nav, err := sup.NavigateTree(session.Navigation{EntryID: p.EntryID, Summarize: p.Summarize})
	if err != nil {
		return nil, err
	}
	select {
	case <-nav.Done():
		return nav.Result()
	default:
		return after(nav), nil
	}
}

type setLabelParams protocol.SetLabelParams

func (p *setLabelParams) validate(*json.RawMessage) error {
	return requiredParam("entryId", p.EntryID)
}

func (s *Server) setLabel(_ context.Context, sup *session.Supervisor, p *setLabelParams) (protocol.Empty, error) {
	return protocol.Empty{}, sup.SetLabel(p.EntryID, p.Label)
}

func (s *Server) setSessionName(_ context.Context, sup *session.Supervisor, p *protocol.SetSessionNameParams) (*protocol.SessionNameResult, error) {
	name, err := sup.SetSessionName(p.Name)
	if err != nil {
		return nil, err
	}
	return &protocol.SessionNameResult{Name: name}, nil
}

func (s *Server) getSessionStats(_ context.Context, sup *session.Supervisor, _ *protocol.Empty) (sessionapi.Stats, error) {
	return sup.Stats(), nil
}
