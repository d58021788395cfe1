package rpc

import (
	"context"
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/protocol"
)

// The session methods (docs/protocol.md, "Sessions"). The work is the supervisor's; these
// check params and shape results.

func (s *Server) newSession(_ context.Context, c *call, _ *protocol.Empty) {
	c.answer(c.sup.NewSession())
}

type listSessionsParams protocol.ListSessionsParams

func (p *listSessionsParams) validate(*json.RawMessage) error {
	if p.Limit < 0 {
		return invalidParams("params.limit: must not be negative")
	}
	return nil
}

func (s *Server) listSessions(_ context.Context, c *call, p *listSessionsParams) {
	infos, next, err := c.sup.ListSessions(p.Cwd, p.Cursor, p.Limit)
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
	c.answer(c.sup.OpenSession(p.Session))
}

type forkSessionParams protocol.ForkSessionParams

func (p *forkSessionParams) validate(*json.RawMessage) error {
	if p.EntryID == "" {
		return invalidParams("params.entryId: required")
	}
	return nil
}

func (s *Server) forkSession(_ context.Context, c *call, p *forkSessionParams) {
	c.answer(c.sup.ForkSession(p.EntryID))
}

func (s *Server) getTree(_ context.Context, c *call, _ *protocol.Empty) {
	c.reply(c.sup.Tree())
}

type getEntriesParams protocol.GetEntriesParams

func (p *getEntriesParams) validate(*json.RawMessage) error {
	if p.Limit < 0 {
		return invalidParams("params.limit: must not be negative")
	}
	return nil
}

func (s *Server) getEntries(_ context.Context, c *call, p *getEntriesParams) {
	page, err := c.sup.BranchEntries(p.Since, p.Limit)
	if err != nil {
		c.fail(err)
		return
	}
	c.replyEntries(page)
}

type navigateTreeParams protocol.NavigateTreeParams

func (p *navigateTreeParams) validate(*json.RawMessage) error {
	if p.EntryID == "" {
		return invalidParams("params.entryId: required")
	}
	return nil
}

// navigateTree may ask the model for a branch summary: that busy period starts in the handler
// and the answer comes from its own goroutine, after the period's agent_settled.
func (s *Server) navigateTree(_ context.Context, c *call, p *navigateTreeParams) {
	res, run, err := c.sup.StartNavigate(p.EntryID, p.Summarize)
	if err != nil || run == nil {
		c.answer(res, err)
		return
	}
	s.async(c, func(context.Context) {
		res, err := run()
		_, seq := c.sup.Busy()
		c.s.stream.answerAfter(int64(c.id.Num), seq)
		c.answer(res, err)
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
	if err := c.sup.SetLabel(p.EntryID, p.Label); err != nil {
		c.fail(err)
		return
	}
	c.reply(protocol.Empty{})
}

func (s *Server) setSessionName(_ context.Context, c *call, p *protocol.SetSessionNameParams) {
	name, err := c.sup.SetSessionName(p.Name)
	if err != nil {
		c.fail(err)
		return
	}
	c.reply(protocol.SessionNameResult{Name: name})
}

func (s *Server) getSessionStats(_ context.Context, c *call, _ *protocol.Empty) {
	c.reply(c.sup.Stats())
}
