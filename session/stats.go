package session

import (
	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// fileStats counts as pi 1.6.0's getSessionStats does (agent-session.js): over every entry of
// the file, every branch and the history a compaction summarised included, so the token and
// cost totals are what the session was billed. Message counts are of message entries (every
// role counts in totalMessages); usage sums the assistant messages', the usage entries' (cache
// warming and other model calls outside the conversation) and what generating a compaction's
// or branch summary's summary used. The session's entries are kept in memory with
// --no-session too, so the stats are the same without a file.
func fileStats(entries []*Entry) sessionapi.Stats {
	var st sessionapi.Stats
	var usage core.Usage
	add := func(u *core.Usage) {
		if u != nil {
			usage.Add(*u)
		}
	}
	count := func(m core.Message) {
		st.TotalMessages++
		switch m := m.(type) {
		case *core.UserMessage:
			st.UserMessages++
		case *core.ToolResultMessage:
			st.ToolResults++
		case *core.AssistantMessage:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			add(&m.Usage)
		}
	}
	for _, e := range entries {
		switch e.Type {
		case EntryUsage, EntryCompaction, EntryBranchSummary:
			add(e.Usage)
		case EntryMessage:
			count(e.Message)
		}
	}
	st.Tokens = sessionapi.TokenStats{Input: usage.Input, Output: usage.Output, CacheRead: usage.CacheRead, CacheWrite: usage.CacheWrite,
		Total: usage.Input + usage.Output + usage.CacheRead + usage.CacheWrite}
	st.Cost = usage.Cost.Total
	return st
}
