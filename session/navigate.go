package session

import (
	"fmt"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Navigation is where navigateTree moves the leaf.
type Navigation struct {
	// EntryID is the entry to move to.
	EntryID string
	// Summarize asks the model to summarise the branch being left first.
	Summarize bool
}

// NavigateTree moves the leaf within the session (pi's navigateTree): to a user or custom
// message's parent, returning its text for the client's editor, or to any other entry
// itself. A navigation without a summary is done when it returns (the Pending has finished,
// with Seq 0: its answer precedes the session_changed it caused). With Summarize, the branch
// being left (from the old leaf up to the common ancestor) is summarised by the model first
// and the summary becomes a branch_summary entry at the new position: that request runs as a
// busy period (inputs: []) that abort cancels, started now so that a request arriving next
// finds the session busy, and the Pending finishes after its agent_settled.
func (s *Supervisor) NavigateTree(to Navigation) (*Pending[*sessionapi.NavigateResult], error) {
	entryID := to.EntryID
	s.mu.Lock()
	if err := s.idleLocked("navigating the tree"); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	oldLeaf := s.store.Leaf()
	target := s.store.Entry(entryID)
	if target == nil {
		s.mu.Unlock()
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s not found", entryID)}
	}
	if entryID == oldLeaf {
		s.mu.Unlock()
		return donePending(&sessionapi.NavigateResult{LeafID: &oldLeaf}, 0, nil), nil
	}
	newLeaf, text := entryID, ""
	switch {
	case holdsMessage[*core.UserMessage](target):
		newLeaf, text = target.ParentID, messageText(target.Message.(*core.UserMessage).Content, "")
	case target.Type == EntryCustomMessage:
		newLeaf, text = target.ParentID, messageText(target.Content, "")
	}
	var toSummarize []*Entry
	if to.Summarize {
		if err := s.providerLocked(); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		toSummarize = entriesForBranchSummary(s.store.Entries(), oldLeaf, entryID)
	}
	if len(toSummarize) == 0 {
		defer s.mu.Unlock()
		if err := s.store.SetLeaf(newLeaf); err != nil {
			return nil, &Error{Kind: KindNotFound, Message: err.Error()}
		}
		s.switchLocked(s.store, SwitchNavigate)
		return donePending(&sessionapi.NavigateResult{LeafID: leafRef(s.store.Leaf()), Text: text}, 0, nil), nil
	}
	defer s.mu.Unlock()
	p := s.newPeriodLocked()
	model, provider := s.agent.State().Model, s.cfg.Agent.Provider
	done := newPending[*sessionapi.NavigateResult]()
	var summary string
	var details []byte
	var summaryErr, err error
	var res *sessionapi.NavigateResult
	s.startDriverLocked(p, outcome{next: &stage{
		work: func() { summary, details, summaryErr = s.branchSummary(p, provider, model, toSummarize) },
		decide: func() outcome {
			res, err = s.navigateLocked(p, summary, details, summaryErr, newLeaf, text)
			return settles
		},
		then: func() {
			_, seq := s.Busy()
			done.finish(res, seq, err)
		},
	}})
	return done, nil
}

// navigateLocked moves the leaf once the branch left is summarised (or the summary failed,
// or the period was aborted); the period then settles.
func (s *Supervisor) navigateLocked(p *period, summary string, details []byte, err error, newLeaf, text string) (*sessionapi.NavigateResult, error) {
	if p.aborted {
		return &sessionapi.NavigateResult{LeafID: leafRef(s.store.Leaf()), Cancelled: true}, nil
	}
	if err != nil {
		return nil, &Error{Kind: KindInvalidState, Message: "Branch summarization failed: " + err.Error()}
	}
	if err := s.store.SetLeaf(newLeaf); err != nil {
		return nil, &Error{Kind: KindNotFound, Message: err.Error()}
	}
	fromID := newLeaf
	if fromID == "" {
		fromID = "root"
	}
	entry := &Entry{Type: EntryBranchSummary, ParentID: newLeaf, FromID: fromID, Summary: summary, Details: details}
	s.appendLocked(entry)
	s.switchLocked(s.store, SwitchNavigate)
	return &sessionapi.NavigateResult{LeafID: leafRef(s.store.Leaf()), Text: text, SummaryEntryID: entry.ID}, nil
}

func leafRef(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}
