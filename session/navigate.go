package session

import (
	"fmt"

	"github.com/pi-rpc/pi-rpc/core"
)

// NavigateTree moves the leaf within the session (pi's navigateTree): to a
// user or custom message's parent, returning its text for the client's editor, or to any
// other entry itself. With summarize, the branch being left (from the old leaf up to the
// common ancestor) is summarised by the model first and the summary becomes a branch_summary
// entry at the new position; that request runs as a busy period (inputs: []) that abort
// cancels.
func (s *Supervisor) NavigateTree(entryID string, summarize bool) (*NavigateResult, error) {
	res, run, err := s.StartNavigate(entryID, summarize)
	if err != nil || run == nil {
		return res, err
	}
	return run()
}

// StartNavigate does what navigateTree can do at once: it answers a navigation without a
// summary, or starts the busy period of one with a summary and returns the function that
// completes it. The RPC layer calls it in the handler, so a request that arrives next finds
// the session busy rather than racing the navigation.
func (s *Supervisor) StartNavigate(entryID string, summarize bool) (*NavigateResult, func() (*NavigateResult, error), error) {
	s.mu.Lock()
	if err := s.idleLocked("navigating the tree"); err != nil {
		s.mu.Unlock()
		return nil, nil, err
	}
	oldLeaf := s.store.Leaf()
	target := s.store.Entry(entryID)
	if target == nil {
		s.mu.Unlock()
		return nil, nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s not found", entryID)}
	}
	if entryID == oldLeaf {
		s.mu.Unlock()
		return &NavigateResult{LeafID: &oldLeaf}, nil, nil
	}
	newLeaf, text := entryID, ""
	switch {
	case isUserMessage(target):
		newLeaf, text = target.ParentID, messageText(target.Message.(*core.UserMessage).Content, "")
	case target.Type == EntryCustomMessage:
		newLeaf, text = target.ParentID, messageText(target.Content, "")
	}
	var toSummarize []*Entry
	if summarize {
		if err := s.providerLocked(); err != nil {
			s.mu.Unlock()
			return nil, nil, err
		}
		toSummarize = entriesForBranchSummary(s.store.Entries(), oldLeaf, entryID)
	}
	if len(toSummarize) == 0 {
		defer s.mu.Unlock()
		if err := s.store.SetLeaf(newLeaf); err != nil {
			return nil, nil, &Error{Kind: KindNotFound, Message: err.Error()}
		}
		s.switchLocked(s.store, SwitchNavigate)
		return &NavigateResult{LeafID: leafRef(s.store.Leaf()), Text: text}, nil, nil
	}
	p := s.newPeriodLocked()
	model, provider := s.agent.State().Model, s.cfg.Agent.Provider
	s.mu.Unlock()
	return nil, func() (*NavigateResult, error) {
		return s.finishNavigate(p, provider, model, toSummarize, newLeaf, text)
	}, nil
}

// finishNavigate summarises the branch left, then moves the leaf and settles the period.
func (s *Supervisor) finishNavigate(p *period, provider core.Provider, model core.Model, toSummarize []*Entry, newLeaf, text string) (*NavigateResult, error) {

	summary, details, err := s.branchSummary(p, provider, model, toSummarize)

	s.mu.Lock()
	defer s.mu.Unlock()
	if p.aborted {
		s.settleLocked(p)
		return &NavigateResult{LeafID: leafRef(s.store.Leaf()), Cancelled: true}, nil
	}
	if err != nil {
		s.settleLocked(p)
		return nil, &Error{Kind: KindInvalidState, Message: "Branch summarization failed: " + err.Error()}
	}
	if err := s.store.SetLeaf(newLeaf); err != nil {
		s.settleLocked(p)
		return nil, &Error{Kind: KindNotFound, Message: err.Error()}
	}
	fromID := newLeaf
	if fromID == "" {
		fromID = "root"
	}
	entry := &Entry{Type: EntryBranchSummary, ParentID: newLeaf, FromID: fromID, Summary: summary, Details: details}
	s.appendLocked(entry)
	s.switchLocked(s.store, SwitchNavigate)
	s.settleLocked(p)
	return &NavigateResult{LeafID: leafRef(s.store.Leaf()), Text: text, SummaryEntryID: entry.ID}, nil
}

func leafRef(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}
