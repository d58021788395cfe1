package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// Labels resolves the label of each entry: the latest label entry for a target wins, and an
// empty one clears it (as in pi; docs/sessions.md#the-format).
func Labels(entries []*Entry) map[string]string {
	labels := map[string]string{}
	for _, e := range entries {
		if e.Type != EntryLabel {
			continue
		}
		if e.Label == "" {
			delete(labels, e.TargetID)
		} else {
			labels[e.TargetID] = e.Label
		}
	}
	return labels
}

// SessionName is the name set by the latest session_info entry, "" if none (pi's
// getSessionName).
func SessionName(entries []*Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == EntrySessionInfo {
			return strings.TrimSpace(entries[i].Name)
		}
	}
	return ""
}

// BuildTree returns the flat tree of a store.
func BuildTree(entries []*Entry, leaf string) sessionapi.TreeView {
	labels := Labels(entries)
	v := sessionapi.TreeView{Nodes: make([]sessionapi.TreeNode, 0, len(entries))}
	if leaf != "" {
		v.LeafID = &leaf
	}
	for _, e := range entries {
		n := sessionapi.TreeNode{ID: e.ID, Type: e.Type, Preview: preview(e), Label: labels[e.ID], Timestamp: e.Timestamp}
		if e.ParentID != "" {
			p := e.ParentID
			n.ParentID = &p
		}
		if e.Type == EntryMessage && e.Message != nil {
			n.Role = e.Message.Role()
		}
		v.Nodes = append(v.Nodes, n)
	}
	return v
}

const previewRunes = 120

func preview(e *Entry) string {
	var s string
	switch e.Type {
	case EntryMessage:
		s = messagePreview(e.Message)
	case EntryThinkingLevelChange:
		s = "thinking level: " + string(e.ThinkingLevel)
	case EntryModelChange:
		s = "model: " + e.Provider + "/" + e.ModelID
	case EntryCompaction:
		s = fmt.Sprintf("compaction (%d tokens before): %s", e.TokensBefore, e.Summary)
	case EntryBranchSummary:
		s = "branch summary: " + e.Summary
	case EntryCustom:
		s = "custom: " + e.CustomType
	case EntryCustomMessage:
		s = messageText(e.Content, " ")
	case EntryLabel:
		if e.Label == "" {
			s = "label cleared on " + e.TargetID
		} else {
			s = "label " + e.TargetID + ": " + e.Label
		}
	case EntrySessionInfo:
		s = "session name: " + e.Name
	}
	return oneLine(s, previewRunes)
}

func messagePreview(m core.Message) string {
	switch m := m.(type) {
	case *core.UserMessage:
		return messageText(m.Content, " ")
	case *core.AssistantMessage:
		if t := messageText(m.Content, " "); t != "" {
			return t
		}
		var names []string
		for _, c := range m.ToolCalls() {
			names = append(names, c.Name)
		}
		if len(names) > 0 {
			return "tool calls: " + strings.Join(names, ", ")
		}
		if m.ErrorMessage != "" {
			return "error: " + m.ErrorMessage
		}
		return "(" + string(m.StopReason) + ")"
	case *core.ToolResultMessage:
		return m.ToolName + ": " + messageText(m.Content, " ")
	case *core.BashExecutionMessage:
		return "$ " + m.Command
	case *core.CustomMessage:
		return messageText(m.Content, " ")
	case *core.BranchSummaryMessage:
		return m.Summary
	case *core.CompactionSummaryMessage:
		return m.Summary
	}
	return ""
}

// oneLine collapses whitespace and cuts s at n runes with an ellipsis.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// EntriesPage is getEntries' result: entries of the current branch in pi's file shape, and
// the cursor of the next page (the id to pass as since) when limit cut it.
type EntriesPage struct {
	Entries    []json.RawMessage `json:"entries"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// PageBranch returns the entries of a branch after since ("" for the start, the root), at
// most limit of them (0 for all). It reports false if since is not on the branch.
func PageBranch(path []*Entry, since string, limit int) (EntriesPage, bool, error) {
	return pageOf(path, since, limit, func(e *Entry) string { return e.ID }, func(e *Entry) (json.RawMessage, error) {
		if e.Raw != nil {
			return e.Raw, nil // read from the file: already the entry's JSON
		}
		return json.Marshal(e)
	})
}

// pageOf cuts one page out of a branch held as entries or as the store's nodes: id names an
// element (since is matched against it, the cursor is the page's last), line is its JSON
// in pi's file shape. It reports false if since is not on the branch.
func pageOf[T any](path []T, since string, limit int, id func(T) string, line func(T) (json.RawMessage, error)) (EntriesPage, bool, error) {
	start := 0
	if since != "" {
		start = slices.IndexFunc(path, func(x T) bool { return id(x) == since }) + 1
		if start == 0 {
			return EntriesPage{}, false, nil
		}
	}
	rest := path[start:]
	page := EntriesPage{}
	if limit > 0 && len(rest) > limit {
		rest = rest[:limit]
		page.NextCursor = id(rest[limit-1])
	}
	page.Entries = make([]json.RawMessage, 0, len(rest))
	for _, x := range rest {
		b, err := line(x)
		if err != nil {
			return EntriesPage{}, true, err
		}
		page.Entries = append(page.Entries, b)
	}
	return page, true, nil
}

// contextUsage is pi's getContextUsage: unknown after the latest compaction until an
// assistant reply after it reports usage, otherwise the context estimate.
func contextUsage(messages []core.Message, branch []*Entry, model core.Model) *sessionapi.ContextUsage {
	if model.ContextWindow <= 0 {
		return nil
	}
	cu := &sessionapi.ContextUsage{ContextWindow: model.ContextWindow}
	if c := lastCompactionIndex(branch); c >= 0 {
		fresh := false
		for i := len(branch) - 1; i > c; i-- {
			a, ok := branch[i].Message.(*core.AssistantMessage)
			if branch[i].Type != EntryMessage || !ok || a.StopReason == core.StopReasonAborted || a.StopReason == core.StopReasonError {
				continue
			}
			fresh = CalculateContextTokens(a.Usage) > 0
			break
		}
		if !fresh {
			return cu
		}
	}
	tokens := EstimateContextTokens(messages).Tokens
	percent := float64(tokens) / float64(model.ContextWindow) * 100
	cu.Tokens, cu.Percent = &tokens, &percent
	return cu
}

// sessionNameOf is a store's session name without copying its entries when the store can
// answer itself (getState asks on every call).
func sessionNameOf(st Store) string {
	if n, ok := st.(interface{ SessionName() string }); ok {
		return n.SessionName()
	}
	return SessionName(st.Entries())
}

// SessionName is the session's name (see [SessionName]), for both stores.
func (s *lockedTree) SessionName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.sessionName()
}
