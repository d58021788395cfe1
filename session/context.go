package session

import (
	"encoding/json"

	"github.com/pi-rpc/pi-rpc/core"
)

// Context is the model context a branch projects to (pi's buildSessionContext;
// docs/sessions.md#the-format).
type Context struct {
	Messages      []core.Message
	ThinkingLevel core.ThinkingLevel
	// Provider and ModelID are the last model seen on the branch (a model_change or an
	// assistant message), empty if none.
	Provider string
	ModelID  string
}

// BuildContext projects a branch (root to leaf) to model context (pi 1.6.0's
// buildSessionProjection): with a compaction on the branch, the latest one's system checkpoint
// (when it has one) and summary first, then the non-system entries it kept (from
// firstKeptEntryId), then what came after it; message, custom_message and branch_summary
// entries become messages; the latest context_edit on the branch for an entry omits it
// (replacement null) or replaces its content; other entries only set the thinking level and
// model.
func BuildContext(path []*Entry) Context {
	ctx := Context{ThinkingLevel: core.ThinkingOff, Messages: make([]core.Message, 0, len(path))}
	compaction := -1
	var edits map[string]*Entry
	for i, e := range path {
		switch e.Type {
		case EntryThinkingLevelChange:
			ctx.ThinkingLevel = e.ThinkingLevel
		case EntryModelChange:
			ctx.Provider, ctx.ModelID = e.Provider, e.ModelID
		case EntryMessage:
			if a, ok := e.Message.(*core.AssistantMessage); ok {
				ctx.Provider, ctx.ModelID = a.Provider, a.Model
			}
		case EntryCompaction:
			compaction = i
		case EntryContextEdit:
			if edits == nil {
				edits = map[string]*Entry{}
			}
			edits[e.TargetID] = e
		}
	}
	add := func(e *Entry) {
		if edit := edits[e.ID]; edit != nil {
			if m, ok := editedMessage(e, edit); ok {
				if m != nil {
					ctx.Messages = append(ctx.Messages, m)
				}
				return
			}
		}
		ctx.Messages = appendEntryMessage(ctx.Messages, e)
	}
	if compaction < 0 {
		for _, e := range path {
			add(e)
		}
		return ctx
	}
	c := path[compaction]
	if c.SystemMessage != nil {
		ctx.Messages = append(ctx.Messages, c.SystemMessage)
	}
	ctx.Messages = append(ctx.Messages, &core.CompactionSummaryMessage{Summary: c.Summary, TokensBefore: c.TokensBefore, Timestamp: isoMillis(c.Timestamp)})
	keeping := false
	for _, e := range path[:compaction] {
		if e.ID == c.FirstKeptEntryID {
			keeping = true
		}
		if keeping && !holdsMessage[*core.SystemMessage](e) {
			add(e)
		}
	}
	for _, e := range path[compaction+1:] {
		add(e)
	}
	return ctx
}

// editedMessage applies a context_edit to its target: nil, true when the edit omits it; the
// message with the replacement content, true; false when the edit does not apply (a target
// that holds no message, or a replacement that does not decode), and the target counts as
// it is.
func editedMessage(target, edit *Entry) (core.Message, bool) {
	if len(edit.Replacement) == 0 {
		return nil, true
	}
	content, err := decodeReplacement(edit.Replacement)
	if err != nil {
		return nil, false
	}
	switch target.Type {
	case EntryCustomMessage:
		return &core.CustomMessage{CustomType: target.CustomType, Content: content, Display: target.Display, Details: target.Details, Timestamp: isoMillis(target.Timestamp)}, true
	case EntryMessage:
		switch m := target.Message.(type) {
		case *core.UserMessage:
			c := *m
			c.Content = content
			return &c, true
		case *core.AssistantMessage:
			c := *m
			c.Content = content
			return &c, true
		case *core.ToolResultMessage:
			c := *m
			c.Content = content
			return &c, true
		case *core.CustomMessage:
			c := *m
			c.Content = content
			return &c, true
		}
	}
	return nil, false
}

// decodeReplacement reads a replacement: a string (one text block) or content blocks.
func decodeReplacement(raw json.RawMessage) ([]core.Content, error) {
	var blocks []core.Content
	if err := json.Unmarshal(raw, &blocks); err == nil {
		return blocks, nil
	}
	return core.DecodeContentString(raw)
}

func appendEntryMessage(ms []core.Message, e *Entry) []core.Message {
	switch e.Type {
	case EntryMessage:
		if e.Message != nil {
			return append(ms, e.Message)
		}
	case EntryCustomMessage:
		return append(ms, &core.CustomMessage{CustomType: e.CustomType, Content: e.Content, Display: e.Display, Details: e.Details, Timestamp: isoMillis(e.Timestamp)})
	case EntryBranchSummary:
		if e.Summary != "" {
			return append(ms, &core.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: isoMillis(e.Timestamp)})
		}
	}
	return ms
}

// branchContext is what a branch's context says about the session (BuildContext's fields)
// before its messages are made: a resumed session restores its model and thinking level at
// once and projects its messages when they are first needed (docs/sessions.md,
// "Performance").
type branchContext struct {
	// HasMessages says the context has at least one message.
	HasMessages bool
	// HasThinking says the branch has a thinking_level_change entry; ThinkingLevel is the
	// last one's level (ThinkingOff without one).
	HasThinking   bool
	ThinkingLevel core.ThinkingLevel
	Provider      string
	ModelID       string
	// Messages returns BuildContext's Messages; it may be called later, once.
	Messages func() []core.Message
}

// branchContextOf is the branch context of a store's current branch: without decoding the
// branch for a store that can (a file read lazily), else from BuildContext.
func branchContextOf(s Store) branchContext {
	if l, ok := s.(interface{ branchContext() branchContext }); ok {
		return l.branchContext()
	}
	path := Branch(s)
	bc := BuildContext(path)
	out := branchContext{
		HasMessages: len(bc.Messages) > 0, ThinkingLevel: bc.ThinkingLevel,
		Provider: bc.Provider, ModelID: bc.ModelID,
		Messages: func() []core.Message { return bc.Messages },
	}
	for _, e := range path {
		if e.Type == EntryThinkingLevelChange {
			out.HasThinking = true
		}
	}
	return out
}

// branchContext is [branchContextOf] over heads: it decodes only the entries that say what
// it reports (the last thinking level change, the entries from the end back to the last
// model, the first entries that make a message); Messages decodes the rest of the branch as
// it was now, whatever was appended since.
func (s *lockedTree) branchContext() branchContext {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tree
	var nodes []*node
	if t.leaf != "" {
		nodes = t.pathNodes(t.leaf)
	}
	out := branchContext{ThinkingLevel: core.ThinkingOff}
	for i := len(nodes) - 1; i >= 0 && !out.HasThinking; i-- {
		if nodes[i].Type == EntryThinkingLevelChange {
			out.HasThinking, out.ThinkingLevel = true, t.entry(nodes[i]).ThinkingLevel
		}
	}
model:
	for i := len(nodes) - 1; i >= 0; i-- {
		switch nodes[i].Type {
		case EntryModelChange:
			e := t.entry(nodes[i])
			out.Provider, out.ModelID = e.Provider, e.ModelID
			break model
		case EntryMessage:
			if a, ok := t.entry(nodes[i]).Message.(*core.AssistantMessage); ok {
				out.Provider, out.ModelID = a.Provider, a.Model
				break model
			}
		}
	}
	for _, n := range nodes {
		if out.HasMessages {
			break
		}
		switch n.Type {
		case EntryCompaction:
			out.HasMessages = true
		case EntryMessage, EntryCustomMessage, EntryBranchSummary:
			out.HasMessages = len(appendEntryMessage(nil, t.entry(n))) > 0
		}
	}
	out.Messages = func() []core.Message {
		s.mu.Lock()
		defer s.mu.Unlock()
		t.decodeAll(nodes)
		path := make([]*Entry, len(nodes))
		for i, n := range nodes {
			path[i] = t.entry(n)
		}
		return BuildContext(path).Messages
	}
	return out
}
