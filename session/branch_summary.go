package session

import (
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

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
	for cur := t.get(oldLeaf); cur != nil && cur.ID != common; cur = t.get(cur.ParentID) {
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
	details, _ := jsonMarshal(sessionapi.CompactionDetails{ReadFiles: readFiles, ModifiedFiles: modifiedFiles})
	if len(msgs) == 0 {
		return "No content to summarize", details, nil
	}
	// The period's context: an abort cancels the summary request.
	sum := summarizer{provider: provider, model: model, thinking: core.ThinkingOff}
	text, err := sum.complete(p.ctx, sum.request(conversationBlock(SerializeConversation(core.ConvertToLLM(msgs)))+branchSummaryPrompt, 2048), "Summarization failed")
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
