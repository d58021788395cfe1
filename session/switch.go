package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
)

// SwitchReason is why the session changed (session_changed.reason).
type SwitchReason string

// The switch reasons, one per method that switches.
const (
	SwitchNew      SwitchReason = "new"
	SwitchOpen     SwitchReason = "open"
	SwitchFork     SwitchReason = "fork"
	SwitchNavigate SwitchReason = "navigate"
)

// SessionChanged is the payload of session_changed; the envelope adds the new sessionId.
type SessionChanged struct {
	PreviousSessionID string       `json:"previousSessionId"`
	SessionFile       string       `json:"sessionFile,omitempty"`
	Reason            SwitchReason `json:"reason"`
}

// SessionRef names the session a switch landed on (newSession's and openSession's result).
type SessionRef struct {
	SessionID   string `json:"sessionId"`
	SessionFile string `json:"sessionFile,omitempty"`
	// Warnings are what was skipped or repaired when the file was read.
	Warnings []string `json:"warnings,omitempty"`
}

// ForkResult is forkSession's result: the new session and the text of the user message it
// was forked before, for the client's editor.
type ForkResult struct {
	SessionID   string `json:"sessionId"`
	SessionFile string `json:"sessionFile,omitempty"`
	Text        string `json:"text"`
}

// NavigateResult is navigateTree's result.
type NavigateResult struct {
	// LeafID is the new leaf, null when the branch is now empty (navigated to the first user
	// message).
	LeafID *string `json:"leafId"`
	// Text is the text of the user (or custom) message navigated to, for the client's editor:
	// the leaf is its parent, so the message can be edited and sent again.
	Text string `json:"text,omitempty"`
	// SummaryEntryID is the branch_summary entry created with summarize.
	SummaryEntryID string `json:"summaryEntryId,omitempty"`
	// Cancelled says the navigation was aborted while the summary was being written; nothing
	// changed.
	Cancelled bool `json:"cancelled,omitempty"`
}

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
	s.loadBranchLocked(false, true)
}

// loadBranchLocked makes the agent's state that of the store's branch (pi's createAgentSession
// restoring a session). With emit, model and thinking level changes are announced; with
// record, a session without entries records the model and thinking level, and a resumed one
// without a thinking-level entry records the level in force (navigation records nothing).
func (s *Supervisor) loadBranchLocked(emit, record bool) {
	cat := s.catalog()
	path := Branch(s.store)
	bc := BuildContext(path)
	s.agent.SetMessages(bc.Messages)
	s.agent.SetSessionID(s.store.SessionID())
	existing := len(bc.Messages) > 0
	st := s.agent.State()
	if existing && bc.ModelID != "" && !cat.ModelFromFlags && cat.ResolveModel != nil &&
		(bc.Provider != st.Model.Provider || bc.ModelID != st.Model.ID) {
		if m, p, ok := cat.ResolveModel(bc.Provider, bc.ModelID); ok {
			s.agent.SetProvider(p)
			s.cfg.Agent.Provider = p
			s.agent.SetModel(m)
			if emit {
				s.emitLocked(EventModelChanged, ModelChanged{Model: m})
			}
		}
	}
	hasThinking := false
	for _, e := range path {
		if e.Type == EntryThinkingLevelChange {
			hasThinking = true
		}
	}
	st = s.agent.State()
	level := st.ThinkingLevel
	if existing && hasThinking && !cat.ThinkingFromFlags {
		level = bc.ThinkingLevel
	}
	level = st.Model.ClampThinkingLevel(level)
	if level != st.ThinkingLevel {
		s.agent.SetThinkingLevel(level)
		if emit {
			s.emitLocked(EventThinkingLevelChanged, ThinkingLevelChanged{Level: level})
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
func (s *Supervisor) switchLocked(next Store, reason SwitchReason) {
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
	s.emitLocked(EventSessionChanged, SessionChanged{PreviousSessionID: prev.SessionID(), SessionFile: next.File(), Reason: reason})
	s.loadBranchLocked(true, reason != SwitchNavigate)
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
func (s *Supervisor) NewSession() (*SessionRef, error) {
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
	ref := &SessionRef{SessionID: next.SessionID(), SessionFile: next.File()}
	s.mu.Unlock()
	s.ResetPermissionGrants()
	return ref, nil
}

// OpenSession switches to an existing session: a file path, or a session id or unique
// prefix of one. A session another process appends to is refused (-32011 "Session file is
// in use by pi-rpc pid N").
func (s *Supervisor) OpenSession(ref string) (*SessionRef, error) {
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
	out := &SessionRef{SessionID: next.SessionID(), SessionFile: next.File()}
	if fs, ok := next.(*FileStore); ok {
		out.Warnings = fs.Warnings()
	}
	s.mu.Unlock()
	s.ResetPermissionGrants()
	return out, nil
}

// OpenInMemory loads a session file into memory without locking it (--no-session): the
// session can be read and continued, and nothing is written.
func OpenInMemory(path string, opts FileOptions) (Store, error) {
	l, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	id := l.Header.ID
	if id == "" {
		id = NewSessionID()
	}
	return newMemoryStoreWith(id, l.Entries, opts), nil
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
func (s *Supervisor) ForkSession(entryID string) (*ForkResult, error) {
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
	out := &ForkResult{SessionID: next.SessionID(), SessionFile: next.File(), Text: messageText(u.Content, "")}
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

// NavigateTree moves the leaf within the session (pi's navigateTree, docs/sessions.md): to a
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

// entriesForBranchSummary is pi's collectEntriesForBranchSummary: the entries from the old
// leaf back to the deepest entry it shares with the target's path, oldest first.
func entriesForBranchSummary(all []*Entry, oldLeaf, target string) []*Entry {
	if oldLeaf == "" {
		return nil
	}
	t := NewTree(all)
	onOld := map[string]bool{}
	for _, e := range t.Path(oldLeaf) {
		onOld[e.ID] = true
	}
	common := ""
	tp := t.Path(target)
	for i := len(tp) - 1; i >= 0; i-- {
		if onOld[tp[i].ID] {
			common = tp[i].ID
			break
		}
	}
	var out []*Entry
	for cur := t.byID[oldLeaf]; cur != nil && cur.ID != common; cur = t.byID[cur.ParentID] {
		out = append(out, cur)
		if cur.ParentID == "" {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// branchSummaryReserve is pi's branchSummary.reserveTokens default: room left for the prompt
// and the answer when choosing how much of the branch to send.
const branchSummaryReserve = 16384

// branchSummary asks the model to summarise abandoned entries (pi's generateBranchSummary):
// the newest entries that fit the window, serialised like a compaction's, with pi's prompt;
// the answer gets pi's preamble and the file lists. An abort of the period cancels it.
func (s *Supervisor) branchSummary(p *period, provider core.Provider, model core.Model, entries []*Entry) (string, []byte, error) {
	window := model.ContextWindow
	if window <= 0 {
		window = 128000
	}
	msgs, ops := prepareBranchEntries(entries, window-branchSummaryReserve)
	readFiles, modifiedFiles := ops.Lists()
	details, _ := jsonMarshal(CompactionDetails{ReadFiles: readFiles, ModifiedFiles: modifiedFiles})
	if len(msgs) == 0 {
		return "No content to summarize", details, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.abort:
			cancel()
		case <-ctx.Done():
		}
	}()
	sum := summarizer{provider: provider, model: model, thinking: core.ThinkingOff}
	text, err := sum.complete(ctx, sum.request(conversationBlock(SerializeConversation(core.ConvertToLLM(msgs)))+branchSummaryPrompt, 2048), "Summarization failed")
	if err != nil {
		return "", nil, err
	}
	summary := branchSummaryPreamble + text + formatFileOperations(readFiles, modifiedFiles)
	return summary, details, nil
}

// prepareBranchEntries is pi's prepareBranchEntries: file operations from every entry (the
// lists of earlier branch summaries included), and messages from the newest back while they
// fit tokenBudget (a summary entry may exceed it while under 90%).
func prepareBranchEntries(entries []*Entry, tokenBudget int) ([]core.Message, *FileOperations) {
	ops := newFileOperations()
	for _, e := range entries {
		if e.Type == EntryBranchSummary && !e.FromHook {
			if d := e.CompactionFileDetails(); d != nil {
				ops.addDetails(d)
			}
		}
	}
	var msgs []core.Message
	total := 0
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		m := branchEntryMessage(e)
		if m == nil {
			continue
		}
		ops.addMessage(m)
		tokens := EstimateTokens(m)
		if tokenBudget > 0 && total+tokens > tokenBudget {
			if (e.Type == EntryCompaction || e.Type == EntryBranchSummary) && float64(total) < float64(tokenBudget)*0.9 {
				msgs = append([]core.Message{m}, msgs...)
			}
			break
		}
		msgs = append([]core.Message{m}, msgs...)
		total += tokens
	}
	return msgs, ops
}

// branchEntryMessage is what an entry contributes to a branch summary: tool results are left
// out (the calls carry their context) and compactions count as their summary.
func branchEntryMessage(e *Entry) core.Message {
	switch e.Type {
	case EntryMessage:
		if e.Message == nil || e.Message.Role() == core.RoleToolResult {
			return nil
		}
		return e.Message
	case EntryCustomMessage:
		return &core.CustomMessage{CustomType: e.CustomType, Content: e.Content, Display: e.Display, Details: e.Details, Timestamp: isoMillis(e.Timestamp)}
	case EntryBranchSummary:
		return &core.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: isoMillis(e.Timestamp)}
	case EntryCompaction:
		return &core.CompactionSummaryMessage{Summary: e.Summary, TokensBefore: e.TokensBefore, Timestamp: isoMillis(e.Timestamp)}
	}
	return nil
}

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
func (s *Supervisor) Tree() TreeView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return BuildTree(s.store.Entries(), s.store.Leaf())
}

// BranchEntries returns a page of the current branch (getEntries): the entries after since
// ("" for the root), at most limit (0 for all).
func (s *Supervisor) BranchEntries(since string, limit int) (EntriesPage, error) {
	s.mu.Lock()
	path := Branch(s.store)
	s.mu.Unlock()
	page, ok, err := PageBranch(path, since, limit)
	if err != nil {
		return EntriesPage{}, err
	}
	if !ok {
		return EntriesPage{}, &Error{Kind: KindNotFound, Message: fmt.Sprintf("Entry %s is not on the current branch", since)}
	}
	return page, nil
}

// Stats returns getSessionStats' result.
func (s *Supervisor) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ComputeStats(s.agent.Messages(), Branch(s.store), s.agent.State().Model)
	st.SessionID, st.SessionFile = s.store.SessionID(), s.store.File()
	return st
}

// ListSessions lists a cwd's sessions, newest first (listSessions).
func (s *Supervisor) ListSessions(cwd, cursor string, limit int) ([]SessionInfo, string, error) {
	cat := s.catalog()
	if cat.Dir == "" {
		return []SessionInfo{}, "", nil
	}
	infos, next, err := cat.List(cwd, cursor, limit)
	if err != nil {
		return nil, "", &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	return infos, next, nil
}

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
