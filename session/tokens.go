package session

import (
	"unicode/utf16"

	"github.com/pi-rpc/pi-rpc/core"
)

// estimatedImageChars is what one image counts for in a token estimate: 4800 characters, that
// is 1200 tokens (pi's estimateTokens).
const estimatedImageChars = 4800

// EstimateTokens estimates a message's size in tokens the way pi does (estimateTokens in
// compaction.ts): characters divided by four, rounded up. It is deliberately rough and errs
// high; it sizes what a provider has not counted yet (messages after the last usage report)
// and decides where compaction cuts. Characters are UTF-16 code units, as JavaScript's
// String.length counts them, so both implementations cut at the same place.
//
// What counts, per role (pi 0.73.1): user — text blocks; assistant — text, thinking, and each
// tool call's name plus its JSON arguments; custom and toolResult — text blocks plus 4800 per
// image; bashExecution — command and output; branch and compaction summaries — the summary.
func EstimateTokens(m core.Message) int {
	return ceilQuarter(estimateChars(m))
}

func estimateChars(m core.Message) int {
	switch m := m.(type) {
	case *core.UserMessage:
		return textChars(m.Content, 0)
	case *core.AssistantMessage:
		return assistantChars(m)
	case *core.CustomMessage:
		return textChars(m.Content, estimatedImageChars)
	case *core.ToolResultMessage:
		return textChars(m.Content, estimatedImageChars)
	case *core.BashExecutionMessage:
		return utf16Len(m.Command) + utf16Len(m.Output)
	case *core.BranchSummaryMessage:
		return utf16Len(m.Summary)
	case *core.CompactionSummaryMessage:
		return utf16Len(m.Summary)
	}
	return 0
}

// textChars counts the text blocks of content, and imageChars for each image.
func textChars(content []core.Content, imageChars int) int {
	n := 0
	for i := range content {
		switch content[i].Type {
		case core.ContentText:
			n += utf16Len(content[i].Text)
		case core.ContentImage:
			n += imageChars
		}
	}
	return n
}

func assistantChars(m *core.AssistantMessage) int {
	n := 0
	for i := range m.Content {
		b := &m.Content[i]
		switch b.Type {
		case core.ContentText:
			n += utf16Len(b.Text)
		case core.ContentThinking:
			n += utf16Len(b.Thinking)
		case core.ContentToolCall:
			n += utf16Len(b.Name) + utf16Len(jsJSON(argsOrEmpty(b.Arguments)))
		}
	}
	return n
}

func argsOrEmpty(args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

func ceilQuarter(chars int) int { return (chars + 3) / 4 }

// utf16Len is the length of s in UTF-16 code units (JavaScript's String.length).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // 1 or 2: ranging over a string yields no surrogates
	}
	return n
}

// CalculateContextTokens is the context size a usage report implies: totalTokens, or the sum
// of the four counts when a provider left totalTokens at zero (pi's calculateContextTokens).
func CalculateContextTokens(u core.Usage) int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// usageOf returns the usage of an assistant message that has a trustworthy one: aborted and
// failed responses report partial or no usage, so they are skipped.
func usageOf(m core.Message) (*core.Usage, bool) {
	a, ok := m.(*core.AssistantMessage)
	if !ok || a.StopReason == core.StopReasonAborted || a.StopReason == core.StopReasonError {
		return nil, false
	}
	return &a.Usage, true
}

// lastUsage finds the last message with a trustworthy usage; index is -1 when there is none.
func lastUsage(ms []core.Message) (u *core.Usage, index int) {
	for i := len(ms) - 1; i >= 0; i-- {
		if u, ok := usageOf(ms[i]); ok {
			return u, i
		}
	}
	return nil, -1
}

// ContextEstimate is an estimate of a context's size in tokens (pi's ContextUsageEstimate).
type ContextEstimate struct {
	// Tokens is UsageTokens + TrailingTokens.
	Tokens int
	// UsageTokens is what the last trustworthy usage report counted (0 without one).
	UsageTokens int
	// TrailingTokens estimates the messages after that report (all messages without one).
	TrailingTokens int
	// LastUsageIndex is the index of the message whose usage was used, -1 when none was.
	LastUsageIndex int
}

// EstimateContextTokens estimates the size of a context (pi's estimateContextTokens): the
// provider's own count from the last successful response, plus estimates of the messages that
// came after it; without any usage report, the sum of the estimates. Counted usage is exact
// for what the model saw, so estimation is limited to what it has not seen yet.
func EstimateContextTokens(ms []core.Message) ContextEstimate {
	u, idx := lastUsage(ms)
	est := ContextEstimate{LastUsageIndex: idx}
	if u != nil {
		est.UsageTokens = CalculateContextTokens(*u)
	}
	for _, m := range ms[idx+1:] {
		est.TrailingTokens += EstimateTokens(m)
	}
	est.Tokens = est.UsageTokens + est.TrailingTokens
	return est
}

// ShouldCompact reports whether a context of tokens leaves less than the reserve free in the
// model's window (pi's shouldCompact); never when compaction is disabled.
func ShouldCompact(tokens, contextWindow int, s CompactionSettings) bool {
	return s.Enabled && tokens > contextWindow-s.ReserveTokens
}

// ThresholdTokens is the context size [ShouldCompact]'s threshold rule compares with the window
// after the assistant message last, given the agent's messages ms (the branch's context). A
// successful response counts with its own usage. A failed one reports no usage, so the size is
// estimated from the last successful response plus what followed it, as pi does — unless there
// is no usage at all or that usage predates the latest compaction (as in pi): kept messages
// from before a compaction measured the old, larger context and would compact again at once.
// Then ok is false and the check is skipped. The compaction's time is its summary message's
// timestamp in ms, which [BuildContext] takes from the compaction entry.
func ThresholdTokens(ms []core.Message, last *core.AssistantMessage) (tokens int, ok bool) {
	if last.StopReason != core.StopReasonError {
		return CalculateContextTokens(last.Usage), true
	}
	est := EstimateContextTokens(ms)
	if est.LastUsageIndex < 0 {
		return 0, false
	}
	if at, compacted := compactionTime(ms); compacted && ms[est.LastUsageIndex].Time() <= at {
		return 0, false
	}
	return est.Tokens, true
}

// compactionTime is the timestamp of the last compaction summary in ms.
func compactionTime(ms []core.Message) (int64, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if c, ok := ms[i].(*core.CompactionSummaryMessage); ok {
			return c.Timestamp, true
		}
	}
	return 0, false
}
