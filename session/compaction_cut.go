package session

import (
	"github.com/pi-rpc/pi-rpc/core"
)

// CutPoint says where compaction cuts a branch (pi's CutPointResult).
type CutPoint struct {
	// FirstKeptIndex is the index of the first entry kept verbatim.
	FirstKeptIndex int
	// TurnStartIndex is the index of the entry that starts the turn the cut splits, -1 when
	// the cut does not split a turn.
	TurnStartIndex int
	// IsSplitTurn is true when the cut falls inside a turn (not at a user message), so the
	// turn's beginning is summarised separately.
	IsSplitTurn bool
}

// entryRole is the role of a message entry's message, "" for other entries.
func entryRole(e *Entry) core.Role {
	if e.Type != EntryMessage || e.Message == nil {
		return ""
	}
	return e.Message.Role()
}

// isCutPoint reports whether the kept part may start at e. A tool result never may: it must
// follow the assistant message that called the tool. branch_summary and custom_message entries
// reach the model as user messages, so they may.
func isCutPoint(e *Entry) bool {
	switch e.Type {
	case EntryBranchSummary, EntryCustomMessage:
		return true
	case EntryMessage:
		return entryRole(e) != "" && entryRole(e) != core.RoleToolResult
	}
	return false
}

// startsTurn reports whether e begins a turn: a user message or something standing for one
// (a bash execution, a branch summary, a custom message entry).
func startsTurn(e *Entry) bool {
	switch e.Type {
	case EntryBranchSummary, EntryCustomMessage:
		return true
	case EntryMessage:
		r := entryRole(e)
		return r == core.RoleUser || r == core.RoleBashExecution
	}
	return false
}

// FindCutPoint chooses where to cut entries[start:end] so that roughly keepRecentTokens of the
// most recent messages stay verbatim (pi 0.73.1's findCutPoint): walking back from the end and
// adding up message estimates, at the first message where the sum reaches the budget it cuts at
// the nearest valid cut point at or after that message, then moves the cut back over adjacent
// entries that are not messages (model and thinking changes, labels) so they stay with what
// follows. Without any valid cut point it returns start; when everything fits it keeps from the
// first cut point. A cut anywhere but at a user message splits a turn.
func FindCutPoint(entries []*Entry, start, end, keepRecentTokens int) CutPoint {
	cuts := validCutPoints(entries, start, end)
	if len(cuts) == 0 {
		return CutPoint{FirstKeptIndex: start, TurnStartIndex: -1}
	}
	cut := budgetCut(entries, start, end, keepRecentTokens, cuts)
	for cut > start && entries[cut-1].Type != EntryCompaction && entries[cut-1].Type != EntryMessage {
		cut--
	}
	if entryRole(entries[cut]) == core.RoleUser {
		return CutPoint{FirstKeptIndex: cut, TurnStartIndex: -1}
	}
	turnStart := turnStartIndex(entries, cut, start)
	return CutPoint{FirstKeptIndex: cut, TurnStartIndex: turnStart, IsSplitTurn: turnStart >= 0}
}

func validCutPoints(entries []*Entry, start, end int) []int {
	var cuts []int
	for i := start; i < end; i++ {
		if isCutPoint(entries[i]) {
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// budgetCut returns the cut point at or after the message where the kept budget runs out,
// or the first cut point when it never does. Only message entries count toward the budget.
func budgetCut(entries []*Entry, start, end, keepRecentTokens int, cuts []int) int {
	total := 0
	for i := end - 1; i >= start; i-- {
		e := entries[i]
		if e.Type != EntryMessage {
			continue
		}
		if e.Message != nil {
			total += EstimateTokens(e.Message)
		}
		if total < keepRecentTokens {
			continue
		}
		for _, c := range cuts {
			if c >= i {
				return c
			}
		}
		break
	}
	return cuts[0]
}

// turnStartIndex finds the entry that starts the turn containing entries[at], searching back
// to start; -1 if there is none.
func turnStartIndex(entries []*Entry, at, start int) int {
	for i := at; i >= start; i-- {
		if startsTurn(entries[i]) {
			return i
		}
	}
	return -1
}
