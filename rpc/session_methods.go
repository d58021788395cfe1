package rpc

import (
	"context"
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/protocol"
)

// The session methods (DESIGN.md §3, session group). The work is the supervisor's; these
// check params and shape results.
func init() {
	methods[protocol.MethodNewSession] = method{handle: typed((*Server).newSession)}
	methods[protocol.MethodListSessions] = method{handle: typed((*Server).listSessions)}
	methods[protocol.MethodOpenSession] = method{handle: typed((*Server).openSession)}
	methods[protocol.MethodForkSession] = method{handle: typed((*Server).forkSession)}
	methods[protocol.MethodGetTree] = method{handle: typed((*Server).getTree), allowedAfterShutdown: true}
	methods[protocol.MethodGetEntries] = method{handle: typed((*Server).getEntries), allowedAfterShutdown: true}
	methods[protocol.MethodNavigateTree] = method{handle: typed((*Server).navigateTree)}
	methods[protocol.MethodSetLabel] = method{handle: typed((*Server).setLabel)}
	methods[protocol.MethodSetSessionName] = method{handle: typed((*Server).setSessionName)}
	methods[protocol.MethodGetSessionStats] = method{handle: typed((*Server).getSessionStats), allowedAfterShutdown: true}
}

// heldBack runs a handler that emits events (session_changed, model_changed) with the event
// lane held, so that its response is written first (DESIGN.md §4 rule 1).
func (s *Server) heldBack(f func()) {
	if w := s.opts.Writer; w != nil {
		w.Hold()
		defer w.Release()
	}
	f()
}

func (s *Server) newSession(_ context.Context, c *call, _ *protocol.Empty) {
	s.heldBack(func() { s.newSessionHeld(c) })
}

func (s *Server) newSessionHeld(c *call) {
	ref, err := s.sup.NewSession()
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(ref)
}

type listSessionsParams protocol.ListSessionsParams

func (p *listSessionsParams) validate(*json.RawMessage) error {
	if p.Limit < 0 {
		return invalidParams("params.limit: must not be negative")
	}
	return nil
}

func (s *Server) listSessions(_ context.Context, c *call, p *listSessionsParams) {
	infos, next, err := s.sup.ListSessions(p.Cwd, p.Cursor, p.Limit)
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(protocol.ListSessionsResult{Sessions: infos, NextCursor: next})
}

type openSessionParams protocol.OpenSessionParams

func (p *openSessionParams) validate(*json.RawMessage) error {
	if p.Session == "" {
		return invalidParams("params.session: required (a session file or id)")
	}
	return nil
}

func (s *Server) openSession(_ context.Context, c *call, p *openSessionParams) {
	s.heldBack(func() { s.openSessionHeld(c, p) })
}

func (s *Server) openSessionHeld(c *call, p *openSessionParams) {
	ref, err := s.sup.OpenSession(p.Session)
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(ref)
}

type forkSessionParams protocol.ForkSessionParams

func (p *forkSessionParams) validate(*json.RawMessage) error {
	if p.EntryID == "" {
		return invalidParams("params.entryId: required")
	}
	return nil
}

func (s *Server) forkSession(_ context.Context, c *call, p *forkSessionParams) {
	s.heldBack(func() { s.forkSessionHeld(c, p) })
}

func (s *Server) forkSessionHeld(c *call, p *forkSessionParams) {
	res, err := s.sup.ForkSession(p.EntryID)
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(res)
}

func (s *Server) getTree(_ context.Context, c *call, _ *protocol.Empty) {
	c.reply(s.sup.Tree())
}

type getEntriesParams protocol.GetEntriesParams

func (p *getEntriesParams) validate(*json.RawMessage) error {
	if p.Limit < 0 {
		return invalidParams("params.limit: must not be negative")
	}
	return nil
}

func (s *Server) getEntries(_ context.Context, c *call, p *getEntriesParams) {
	page, err := s.sup.BranchEntries(p.Since, p.Limit)
	if err != nil {
		c.fail(err)
		return
	}
	out := protocol.EntriesResult{Entries: make([]protocol.SessionEntry, len(page.Entries)), NextCursor: page.NextCursor}
	for i, e := range page.Entries {
		out.Entries[i] = protocol.SessionEntry(e)
	}
	c.reply(out)
}

type navigateTreeParams protocol.NavigateTreeParams

func (p *navigateTreeParams) validate(*json.RawMessage) error {
	if p.EntryID == "" {
		return invalidParams("params.entryId: required")
	}
	return nil
}

// navigateTree may ask the model for a branch summary, so it answers from its own goroutine,
// after the busy period's agent_settled when there was one.
func (s *Server) navigateTree(_ context.Context, c *call, p *navigateTreeParams) {
	if !p.Summarize {
		s.heldBack(func() {
			res, err := s.sup.NavigateTree(p.EntryID, false)
			if err != nil {
				c.fail(err)
				return
			}
			c.reply(res)
		})
		return
	}
	s.async(c, func(context.Context) {
		res, err := s.sup.NavigateTree(p.EntryID, true)
		_, seq := s.sup.Busy()
		c.s.stream.answerAfter(int64(c.id.Num), seq)
		if err != nil {
			c.fail(err)
			return
		}
		c.reply(res)
	})
}

type setLabelParams protocol.SetLabelParams

func (p *setLabelParams) validate(*json.RawMessage) error {
	if p.EntryID == "" {
		return invalidParams("params.entryId: required")
	}
	return nil
}

func (s *Server) setLabel(_ context.Context, c *call, p *setLabelParams) {
	if err := s.sup.SetLabel(p.EntryID, p.Label); err != nil {
		c.fail(err)
		return
	}
	c.reply(protocol.Empty{})
}

func (s *Server) setSessionName(_ context.Context, c *call, p *protocol.SetSessionNameParams) {
	name, err := s.sup.SetSessionName(p.Name)
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(protocol.SessionNameResult{Name: name})
}

func (s *Server) getSessionStats(_ context.Context, c *call, _ *protocol.Empty) {
	c.reply(s.sup.Stats())
}
