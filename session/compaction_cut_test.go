package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

func cptMsg(id string, m core.Message) *Entry {
	return &Entry{Type: EntryMessage, ID: id, Message: m}
}

func cptMeta(id string, typ sessionapi.EntryType) *Entry {
	return &Entry{Type: typ, ID: id, ThinkingLevel: core.ThinkingHigh}
}

// cptText is text of n tokens by pi's estimate.
func cptText(n int) string { return strings.Repeat("x", 4*n) }

// cptPairs is n user/assistant pairs of 100 estimated tokens per message.
func cptPairs(n int) []*Entry {
	var es []*Entry
	for i := range n {
		es = append(es,
			cptMsg(fmt.Sprintf("u%d", i), cptUser(cptText(100), 0)),
			cptMsg(fmt.Sprintf("a%d", i), cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100)))))
	}
	return es
}

type findCutPointCase struct {
	name    string
	entries []*Entry
	start   int
	keep    int
	want    CutPoint
}

// findCutPointCases were checked against pi 0.73.1's own findCutPoint (run on the same entries
// as JSON).
func findCutPointCases() []findCutPointCase {
	call := core.ToolCallBlock("c1", "read", map[string]any{"path": "a"})
	toolTurn := []*Entry{
		cptMsg("u", cptUser(cptText(10), 0)),
		cptMsg("a1", cptAssistant(core.StopReasonToolUse, 0, 0, call)),
		cptMsg("r", cptToolResult(cptText(200))),
		cptMsg("a2", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(10)))),
	}
	return []findCutPointCase{
		// pi's findCutPoint cases (packages/coding-agent/test/compaction.test.ts).
		{"respects keepRecentTokens: cut at an assistant splits its turn", cptPairs(10), 0, 250,
			CutPoint{FirstKeptIndex: 17, TurnStartIndex: 16, IsSplitTurn: true}},
		{"budget reached exactly", cptPairs(10), 0, 300,
			CutPoint{FirstKeptIndex: 17, TurnStartIndex: 16, IsSplitTurn: true}},
		{"cut at a user message is not split", cptPairs(10), 0, 301,
			CutPoint{FirstKeptIndex: 16, TurnStartIndex: -1}},
		{"no valid cut point returns start",
			[]*Entry{cptMeta("t", EntryThinkingLevelChange), cptMeta("m", EntryModelChange), cptMsg("r", cptToolResult("x"))}, 1, 10,
			CutPoint{FirstKeptIndex: 1, TurnStartIndex: -1}},
		{"everything within budget keeps from the first message", cptPairs(3), 0, 100000,
			CutPoint{FirstKeptIndex: 0, TurnStartIndex: -1}},
		{"everything within budget keeps from start", cptPairs(3), 2, 100000,
			CutPoint{FirstKeptIndex: 2, TurnStartIndex: -1}},
		// The rest of pi's rules.
		{"never at a tool result: the next cut point", toolTurn, 0, 150,
			CutPoint{FirstKeptIndex: 3, TurnStartIndex: 0, IsSplitTurn: true}},
		{"budget reached at the first message", toolTurn, 0, 10000,
			CutPoint{FirstKeptIndex: 0, TurnStartIndex: -1}},
		{"leading metadata is kept with the first message",
			[]*Entry{cptMeta("m", EntryModelChange), cptMsg("u", cptUser("hi", 0))}, 0, 100000,
			CutPoint{FirstKeptIndex: 0, TurnStartIndex: -1}},
		{"cut moves back over metadata entries (and then counts as a split turn, as in pi)",
			append(cptPairs(2), cptMeta("t", EntryThinkingLevelChange), cptMeta("l", EntryLabel),
				cptMsg("u9", cptUser(cptText(100), 0)), cptMsg("a9", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100))))), 0, 200,
			CutPoint{FirstKeptIndex: 4, TurnStartIndex: 2, IsSplitTurn: true}},
		{"cut stops moving back at a compaction",
			[]*Entry{cptMsg("u0", cptUser(cptText(100), 0)), cptMeta("c", EntryCompaction), cptMeta("t", EntryThinkingLevelChange),
				cptMsg("u1", cptUser(cptText(100), 0))}, 0, 100,
			CutPoint{FirstKeptIndex: 2, TurnStartIndex: 0, IsSplitTurn: true}},
		{"a bash execution starts a turn",
			[]*Entry{cptMsg("u", cptUser("hi", 0)), cptMsg("a", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock("x"))),
				cptMsg("b", &core.BashExecutionMessage{Command: "ls", Output: cptText(100)}),
				cptMsg("a2", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100))))}, 0, 100,
			CutPoint{FirstKeptIndex: 3, TurnStartIndex: 2, IsSplitTurn: true}},
		{"a custom_message entry is a cut point and starts its own turn",
			[]*Entry{cptMsg("u", cptUser("hi", 0)), cptMsg("a", cptAssistant(core.StopReasonToolUse, 0, 0, call)), cptMsg("r", cptToolResult(cptText(100))),
				{Type: EntryCustomMessage, ID: "cm"}, cptMsg("a2", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100))))}, 0, 150,
			CutPoint{FirstKeptIndex: 3, TurnStartIndex: 3, IsSplitTurn: true}},
		{"custom_message entries do not count toward the budget",
			[]*Entry{cptMsg("u", cptUser(cptText(100), 0)), {Type: EntryCustomMessage, ID: "cm", Content: []core.Content{core.TextBlock(cptText(100))}},
				cptMsg("a", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100))))}, 0, 150,
			CutPoint{FirstKeptIndex: 0, TurnStartIndex: -1}},
		{"an assistant with no turn start before it is not split",
			[]*Entry{cptMsg("a", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100)))),
				cptMsg("a2", cptAssistant(core.StopReasonStop, 0, 0, core.TextBlock(cptText(100))))}, 0, 100,
			CutPoint{FirstKeptIndex: 1, TurnStartIndex: -1}},
	}
}

func TestFindCutPoint(t *testing.T) {
	for _, tt := range findCutPointCases() {
		t.Run(tt.name, func(t *testing.T) {
			got := FindCutPoint(tt.entries, tt.start, len(tt.entries), tt.keep)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
