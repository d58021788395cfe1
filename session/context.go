package session

import (
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

// BuildContext projects a branch (root to leaf) to model context: with a compaction on the
// branch, the latest one's summary first, then the entries it kept (from firstKeptEntryId),
// then what came after it; message, custom_message and branch_summary entries become
// messages; other entries only set the thinking level and model.
func BuildContext(path []*Entry) Context {
	ctx := Context{ThinkingLevel: core.ThinkingOff, Messages: make([]core.Message, 0, len(path))}
	compaction := -1
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
		}
	}
	if compaction < 0 {
		for _, e := range path {
			ctx.Messages = appendEntryMessage(ctx.Messages, e)
		}
		return ctx
	}
	c := path[compaction]
	ctx.Messages = append(ctx.Messages, &core.CompactionSummaryMessage{Summary: c.Summary, TokensBefore: c.TokensBefore, Timestamp: isoMillis(c.Timestamp)})
	keeping := false
	for _, e := range path[:compaction] {
		if e.ID == c.FirstKeptEntryID {
			keeping = true
		}
		if keeping {
			ctx.Messages = appendEntryMessage(ctx.Messages, e)
		}
	}
	for _, e := range path[compaction+1:] {
		ctx.Messages = appendEntryMessage(ctx.Messages, e)
	}
	return ctx
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
