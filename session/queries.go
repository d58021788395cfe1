package session

import (
	"fmt"
	"github.com/pi-rpc/pi-rpc/sessionapi"
	"strings"
)

// SetLabel sets (or with "" clears) the label of an entry. As in pi, the label entry is
// appended to the branch like any other and is never part of the model context.
func (s *Supervisor) SetLabel(entryID, label string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return err
	}
	if s.store.Entry(entryID) == nil {
		return &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s not found", entryID)}
	}
	s.appendLocked(&Entry{Type: EntryLabel, TargetID: entryID, Label: label})
	return nil
}

// SetSessionName names the session ("" clears the name) and returns the name in force.
func (s *Supervisor) SetSessionName(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return "", err
	}
	name = strings.TrimSpace(name)
	s.appendLocked(&Entry{Type: EntrySessionInfo, Name: name})
	return name, nil
}

// SessionName is the session's name, "" if it has none.
func (s *Supervisor) SessionName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sessionNameOf(s.store)
}

// Tree returns every entry of the session, flat, with the leaf.
func (s *Supervisor) Tree() sessionapi.TreeView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return BuildTree(s.store.Entries(), s.store.Leaf())
}

// Leaf is the id of the current leaf entry, "" when the session has none.
func (s *Supervisor) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Leaf()
}

// BranchEntries returns a page of the current branch (getEntries): the entries after since
// ("" for the root), at most limit (0 for all).
func (s *Supervisor) BranchEntries(since string, limit int) (EntriesPage, error) {
	s.mu.Lock()
	var page EntriesPage
	var ok bool
	var err error
	if p, lines := s.store.(interface {
		BranchPage(since string, limit int) (EntriesPage, bool, error)
	}); lines {
		page, ok, err = p.BranchPage(since, limit)
		s.mu.Unlock()
	} else {
		path := Branch(s.store)
		s.mu.Unlock()
		page, ok, err = PageBranch(path, since, limit)
	}
	if err != nil {
		return EntriesPage{}, err
	}
	if !ok {
		return EntriesPage{}, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s is not on the current branch", since)}
	}
	return page, nil
}

// FileEntries returns a page of every entry of the session in file order (pi's get_entries):
// the entries after since ("" for all of them), at most limit (0 for all).
func (s *Supervisor) FileEntries(since string, limit int) (EntriesPage, error) {
	s.mu.Lock()
	all := s.store.Entries()
	s.mu.Unlock()
	page, ok, err := PageBranch(all, since, limit)
	if err != nil {
		return EntriesPage{}, err
	}
	if !ok {
		return EntriesPage{}, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s not found", since)}
	}
	return page, nil
}

// Stats returns getSessionStats' result: pi 1.6.0's counts over the whole file (fileStats)
// and the current context's usage.
func (s *Supervisor) Stats() sessionapi.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := fileStats(s.store.Entries())
	st.ContextUsage = contextUsage(s.agent.Messages(), Branch(s.store), s.agent.State().Model)
	st.SessionID, st.SessionFile = s.store.SessionID(), s.store.File()
	return st
}
