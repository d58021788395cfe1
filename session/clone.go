package session

import "github.com/pi-rpc/pi-rpc/sessionapi"

// CloneBranch copies the current branch into a new saved session and stays where it is
// (pi's clone, a fork at the leaf, without switching to the copy): the new file's header
// names this one as parentSession and labels are carried over as with [Supervisor.ForkSession].
// The ACP front end's /fork uses it (docs/editors.md): an ACP session keeps its id, so the
// copy is a session the editor opens with session/load.
func (s *Supervisor) CloneBranch() (*sessionapi.SessionRef, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.idleLocked("forking"); err != nil {
		return nil, err
	}
	cat := s.catalog()
	if cat.Memory {
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot fork: this process does not save sessions (--no-session)"}
	}
	leaf := s.store.Leaf()
	if leaf == "" {
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot fork: the session has no messages yet"}
	}
	entries := branchedCopy(s.store.Entries(), leaf, cat.Options.withDefaults().NewID)
	if !hasUserMessage(entries) {
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot fork: the session has no messages yet"}
	}
	next, err := cat.Create(s.store.File(), entries)
	if err != nil {
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot create the forked session: " + err.Error()}
	}
	ref := &sessionapi.SessionRef{SessionID: next.SessionID(), SessionFile: next.File()}
	if err := next.Sync(); err != nil {
		_ = next.Close()
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot write the forked session: " + err.Error()}
	}
	if err := next.Close(); err != nil {
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot write the forked session: " + err.Error()}
	}
	return ref, nil
}
