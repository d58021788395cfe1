package session

import (
	"errors"
	"fmt"
	"os"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// The switch reasons, one per method that switches.
const (
	SwitchNew      sessionapi.SwitchReason = "new"
	SwitchOpen     sessionapi.SwitchReason = "open"
	SwitchFork     sessionapi.SwitchReason = "fork"
	SwitchNavigate sessionapi.SwitchReason = "navigate"
)

// catalog returns the configured session catalog, or one keeping sessions in memory.
func (s *Supervisor) catalog() *Catalog {
	if s.cfg.Sessions != nil {
		return s.cfg.Sessions
	}
	return &Catalog{Memory: true}
}

// StartSession loads the store's current branch into the agent when the process starts:
// messages, and for a resumed session the recorded model (if --model was not given and its
// provider is configured here) and thinking level (if --thinking was not). A new session
// records the model and thinking level as its first entries, as pi does, so that a resume
// restores them.
func (s *Supervisor) StartSession() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadBranchLocked(branchLoad{record: true})
}

// branchLoad says what loading a branch does besides setting the agent's state.
type branchLoad struct {
	// announce emits model_changed and thinking_level_changed for what the branch changes.
	announce bool
	// record makes a session without entries record the model and thinking level, and a
	// resumed one without a thinking-level entry record the level in force (navigation
	// records nothing).
	record bool
}

// loadBranchLocked makes the agent's state that of the store's branch (pi's createAgentSession
// restoring a session).
func (s *Supervisor) loadBranchLocked(how branchLoad) {
	emit, record := how.announce, how.record
	cat := s.catalog()
	// The messages are projected when first needed (docs/sessions.md, "Performance").
	bc := branchContextOf(s.store)
	s.agent.SetMessagesFunc(bc.Messages)
	s.agent.SetSessionID(s.store.SessionID())
	existing := bc.HasMessages
	st := s.agent.Status()
	if existing && bc.ModelID != "" && !cat.ModelFromFlags && cat.ResolveModel != nil &&
		(bc.Provider != st.Model.Provider || bc.ModelID != st.Model.ID) {
		if m, p, ok := cat.ResolveModel(bc.Provider, bc.ModelID); ok {
			s.agent.SetProvider(p)
			s.cfg.Agent.Provider = p
			s.agent.SetModel(m)
			if emit {
				s.emitLocked(sessionapi.EventModelChanged, sessionapi.ModelChanged{Model: m})
			}
		}
	}
	hasThinking := bc.HasThinking
	st = s.agent.Status()
	level := st.ThinkingLevel
	if existing && hasThinking && !cat.ThinkingFromFlags {
		level = bc.ThinkingLevel
	}
	level = st.Model.ClampThinkingLevel(level)
	if level != st.ThinkingLevel {
		s.agent.SetThinkingLevel(level)
		if emit {
			s.emitLocked(sessionapi.EventThinkingLevelChanged, sessionapi.ThinkingLevelChanged{Level: level})
		}
	}
	switch {
	case !record:
	case !existing && len(s.store.Entries()) == 0:
		if st.Model.ID != "" {
			s.appendLocked(&Entry{Type: EntryModelChange, Provider: st.Model.Provider, ModelID: st.Model.ID})
		}
		s.appendLocked(&Entry{Type: EntryThinkingLevelChange, ThinkingLevel: level})
	case existing && !hasThinking:
		s.appendLocked(&Entry{Type: EntryThinkingLevelChange, ThinkingLevel: level})
	}
}

// switchLocked replaces the store (docs/sessions.md: the old one is synced and closed, releasing
// its lock), rebuilds the agent from the new branch, clears the persistence failure (a new
// file gets a new chance) and emits session_changed. The caller checked the session is idle
// and resets allowAlways grants after unlocking.
func (s *Supervisor) switchLocked(next Store, reason sessionapi.SwitchReason) {
	prev := s.store
	// Commands the user ran during the last busy period belong to the session being left.
	s.flushBashLocked()
	if prev != next {
		if err := prev.Sync(); err != nil {
			s.log.Warn().Err(err).Msg("session sync failed")
		}
		if err := prev.Close(); err != nil {
			s.log.Warn().Err(err).Msg("closing the session failed")
		}
	}
	s.store = next
	s.persistErr, s.persistReported = nil, false
	s.emitLocked(sessionapi.EventSessionChanged, sessionapi.SessionChanged{PreviousSessionID: prev.SessionID(), SessionFile: next.File(), Reason: reason})
	s.loadBranchLocked(branchLoad{announce: true, record: reason != SwitchNavigate})
}

// idleLocked refuses a session switch while busy (-32010, docs/protocol.md#errors).
func (s *Supervisor) idleLocked(what string) error {
	if err := s.readyLocked(); err != nil {
		return err
	}
	if s.period != nil {
		return errBusy("Agent is busy; wait for agent_settled before " + what)
	}
	return nil
}

// NewSession switches to a new, empty session.
func (s *Supervisor) NewSession() (*sessionapi.SessionRef, error) {
	s.mu.Lock()
	if err := s.idleLocked("starting a new session"); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	next, err := s.catalog().Create("", nil)
	if err != nil {
		s.mu.Unlock()
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot create the session: " + err.Error()}
	}
	s.switchLocked(next, SwitchNew)
	ref := &sessionapi.SessionRef{SessionID: next.SessionID(), SessionFile: next.File()}
	s.mu.Unlock()
	s.ResetPermissionGrants()
	return ref, nil
}

// OpenSession switches to an existing session: a file path, or a session id or unique
// prefix of one. A session another process appends to is refused (-32011 "Session file is
// in use by pi-rpc pid N").
func (s *Supervisor) OpenSession(ref string) (*sessionapi.SessionRef, error) {
	s.mu.Lock()
	if err := s.idleLocked("opening a session"); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	cat := s.catalog()
	path, err := cat.Resolve(ref)
	if err == nil {
		if _, serr := os.Stat(path); serr != nil {
			err = fmt.Errorf("%w: %s", ErrSessionNotFound, path)
		}
	}
	if err != nil {
		s.mu.Unlock()
		if errors.Is(err, ErrSessionNotFound) {
			return nil, &Error{Kind: KindNotFound, Message: "Session not found: " + ref}
		}
		return nil, &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	if path == s.store.File() {
		// Reopening the current file: release it first, or our own lock would refuse it.
		_ = s.store.Sync()
		_ = s.store.Close()
	}
	var next Store
	if cat.Memory {
		next, err = OpenInMemory(path, cat.Options)
	} else {
		next, err = OpenFileStore(path, cat.Cwd, cat.Options)
	}
	if err != nil {
		s.mu.Unlock()
		if IsLocked(err) {
			return nil, &Error{Kind: KindInvalidState, Message: err.Error()}
		}
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot open the session: " + err.Error()}
	}
	s.switchLocked(next, SwitchOpen)
	out := &sessionapi.SessionRef{SessionID: next.SessionID(), SessionFile: next.File()}
	if fs, ok := next.(*FileStore); ok {
		out.Warnings = fs.Warnings()
	}
	s.mu.Unlock()
	s.ResetPermissionGrants()
	return out, nil
}

// OpenInMemory loads a session file into memory without locking it (--no-session): the
// session can be read and continued, and nothing is written.
// What is not a session file is refused as [OpenFileStore] refuses it.
func OpenInMemory(path string, opts FileOptions) (Store, error) {
	if err := CheckSessionPath(path); err != nil {
		return nil, err
	}
	data, err := readSessionFile(path)
	if err != nil {
		return nil, err
	}
	l, nodes := parseLazy(data)
	id := l.Header.ID
	if id == "" {
		id = NewSessionID()
	}
	m := newMemoryStoreWith(id, nil, opts)
	m.tree = newTreeOf(nodes)
	return m, nil
}

func newMemoryStoreWith(id string, entries []*Entry, opts FileOptions) *MemoryStore {
	opts = opts.withDefaults()
	m := NewMemoryStore(id, opts.NewID, opts.Now)
	m.tree = NewTree(entries)
	return m
}

// ForkSession starts a new session holding the branch up to (not including) a user message,
// as pi's fork does: the new file's header names the old one as parentSession, labels on the
// copied branch are carried over, and the message's text is returned for the client's editor.
func (s *Supervisor) ForkSession(entryID string) (*sessionapi.ForkResult, error) {
	s.mu.Lock()
	if err := s.idleLocked("forking"); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	e := s.store.Entry(entryID)
	if e == nil {
		s.mu.Unlock()
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s not found", entryID)}
	}
	u, ok := e.Message.(*core.UserMessage)
	if e.Type != EntryMessage || !ok {
		s.mu.Unlock()
		return nil, &Error{Kind: KindInvalidState, Message: fmt.Sprintf("Entry %s is not a user message: fork before a user message", entryID)}
	}
	var entries []*Entry
	if e.ParentID != "" {
		entries = branchedCopy(s.store.Entries(), e.ParentID, s.catalog().Options.withDefaults().NewID)
	}
	next, err := s.catalog().Create(s.store.File(), entries)
	if err != nil {
		s.mu.Unlock()
		return nil, &Error{Kind: KindInvalidState, Message: "Cannot create the forked session: " + err.Error()}
	}
	s.switchLocked(next, SwitchFork)
	out := &sessionapi.ForkResult{SessionID: next.SessionID(), SessionFile: next.File(), Text: messageText(u.Content, "")}
	s.mu.Unlock()
	s.ResetPermissionGrants()
	return out, nil
}

// branchedCopy is pi's createBranchedSession: the path from the root to leaf without label
// entries, then one new label entry per label on that path, chained after it.
func branchedCopy(all []*Entry, leaf string, newID func() string) []*Entry {
	path := NewTree(all).Path(leaf)
	labels := Labels(all)
	labelTime := map[string]string{}
	var order []string
	for _, e := range all {
		if e.Type == EntryLabel && labels[e.TargetID] != "" {
			if _, seen := labelTime[e.TargetID]; !seen {
				order = append(order, e.TargetID)
			}
			labelTime[e.TargetID] = e.Timestamp
		}
	}
	taken := map[string]bool{}
	var out []*Entry
	for _, e := range path {
		if e.Type == EntryLabel {
			continue
		}
		c := *e
		out = append(out, &c)
		taken[e.ID] = true
	}
	parent := ""
	if len(out) > 0 {
		parent = out[len(out)-1].ID
	}
	for _, target := range order {
		if !taken[target] {
			continue
		}
		id := newID()
		for taken[id] {
			id = newID()
		}
		taken[id] = true
		out = append(out, &Entry{Type: EntryLabel, ID: id, ParentID: parent, Timestamp: labelTime[target], TargetID: target, Label: labels[target]})
		parent = id
	}
	return out
}

// branchSummaryReserve is pi's branchSummary.reserveTokens default: room left for the prompt
// and the answer when choosing how much of the branch to send.
const branchSummaryReserve = 16384

// branchSummaryPreamble and branchSummaryPrompt are pi 0.73.1's (compaction/branch-summarization.ts).
const branchSummaryPreamble = `The user explored a different conversation branch before returning here.
Summary of that exploration:

`

const branchSummaryPrompt = `Create a structured summary of this conversation branch for context when returning later.

Use this EXACT format:

## Goal
[What was the user trying to accomplish in this branch?]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next to continue this work]

Keep each section concise. Preserve exact file paths, function names, and error messages.`
