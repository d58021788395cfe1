package session

import (
	"fmt"
	"strings"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// ForWindow fits the settings to a model whose context window is window tokens (see
// docs/sessions.md, Compaction). pi's defaults (16,384 reserved, 20,000 kept) assume a large
// window: with a local model of 4k–32k tokens the reserve can exceed the window, so every reply
// would compact, and the kept part can hold the whole conversation, so a compaction would
// compact nothing and an overflow could never be recovered from. So:
//   - the reserve is at most a quarter of the window;
//   - the kept part is at most half of what the window leaves after the reserve and the
//     summary's own budget (80% of the reserve): (window - 1.8 × reserve) / 2, at least 1.
//
// Windows from 69,491 tokens up keep pi's defaults unchanged. window <= 0 (unknown) changes
// nothing.
func (s CompactionSettings) ForWindow(window int) CompactionSettings {
	if window <= 0 {
		return s
	}
	s.ReserveTokens = min(s.ReserveTokens, window/4)
	keep := max(1, (window-s.ReserveTokens-summaryBudget(s.ReserveTokens))/2)
	s.KeepRecentTokens = min(s.KeepRecentTokens, keep)
	return s
}

// summaryBudget is the output budget of a history summary: 80% of the reserve (pi's).
func summaryBudget(reserve int) int { return reserve * 8 / 10 }

// errPromptTooLarge builds the error of an overflow that compaction cannot help: nothing but
// the current prompt is left, and the request still exceeds the window.
func errPromptTooLarge(promptTokens, window int) error {
	return fmt.Errorf("nothing is left to compact but the current prompt (about %d tokens), and the request does not fit the model's context window (%d tokens). Shorten the prompt or switch to a larger-context model", promptTokens, window)
}

// errHistoryFits builds the error of an overflow that compaction cannot help although there is
// history before the prompt: all of it fits in what compaction keeps for the model's window,
// so the provider's real window must be smaller than the one configured.
func errHistoryFits(tokens, keep, window int) error {
	return fmt.Errorf("the whole conversation (about %d tokens) fits in what compaction keeps for this model (%d of its %d-token context window), yet the provider reports an overflow: the server's real context window is smaller than the one configured. Set the model's contextWindow in models.json (or --context-window), or switch to a larger-context model", tokens, keep, window)
}

// historyBeforePrompt reports whether any message precedes the current prompt on path.
func historyBeforePrompt(path []*Entry) bool {
	for i := len(path) - 1; i >= 0; i-- {
		if e := path[i]; e.Type == EntryMessage && e.Message != nil && startsTurn(e) {
			for _, earlier := range path[:i] {
				if earlier.Type == EntryMessage && earlier.Message != nil {
					return true
				}
			}
			return false
		}
	}
	return false
}

// contextTokens estimates the messages on path.
func contextTokens(path []*Entry) int {
	n := 0
	for _, e := range path {
		if e.Type == EntryMessage && e.Message != nil {
			n += EstimateTokens(e.Message)
		}
	}
	return n
}

// prepareAutoCompaction prepares a compaction of path with the settings fitted to the model's
// window, for the reason given. For an overflow, the reply that overflowed (the last entry) is left out of the cut:
// it is dropped before the retry, so a cut that kept only it would keep nothing. When nothing
// can be compacted it returns errNothingToCompact, "Already compacted", or, for an overflow,
// the error that names the prompt's size and the window.
func prepareAutoCompaction(path []*Entry, s CompactionSettings, window int, reason sessionapi.CompactionReason) (*CompactionPreparation, error) {
	overflow := reason == CompactionOverflow
	s = s.ForWindow(window)
	end := len(path)
	if overflow && end > 0 && entryRole(path[end-1]) == core.RoleAssistant {
		end--
	}
	if prep, ok := prepareCompaction(path, end, s); ok {
		return prep, nil
	}
	switch {
	case lastIsCompaction(path):
		return nil, errAlreadyCompacted
	case overflow && historyBeforePrompt(path[:end]):
		return nil, errHistoryFits(contextTokens(path[:end]), s.KeepRecentTokens, window)
	case overflow:
		return nil, errPromptTooLarge(currentPromptTokens(path[:end]), window)
	}
	return nil, errNothingToCompact
}

// currentPromptTokens estimates the last turn-starting message of path (the prompt being
// answered), 0 without one.
func currentPromptTokens(path []*Entry) int {
	for i := len(path) - 1; i >= 0; i-- {
		if e := path[i]; e.Type == EntryMessage && e.Message != nil && startsTurn(e) {
			return EstimateTokens(e.Message)
		}
	}
	return 0
}

// summaryInputMargin is the share of the window's remainder that the text of one summary
// request may fill: token counts here are estimates (4 characters a token), and a real
// tokenizer may count a tenth more.
const summaryInputMargin = 0.9

// minChunkChars is the smallest conversation piece worth a summary request.
const minChunkChars = 256

// conversationBudget is how many characters of conversation one summary request may carry
// so that the request, fixed text included (the system prompt, the instructions, a previous
// summary) and with maxTokens of output, fits window; -1 means unlimited (window unknown).
func conversationBudget(window, maxTokens int, fixed ...string) int {
	if window <= 0 {
		return -1
	}
	fixedChars := 0
	for _, f := range fixed {
		fixedChars += len(f)
	}
	return int(float64(window-maxTokens)*summaryInputMargin)*charsPerToken - fixedChars
}

// charsPerToken is the estimate's ratio (see EstimateTokens).
const charsPerToken = 4

// serializedParts renders each LLM message of ms on its own (see SerializeConversation),
// leaving out messages that render to nothing; joined by blank lines they are exactly
// SerializeConversation(core.ConvertToLLM(ms)).
func serializedParts(ms []core.Message) []string {
	var parts []string
	for _, m := range core.ConvertToLLM(ms) {
		if s := SerializeConversation([]core.Message{m}); s != "" {
			parts = append(parts, s)
		}
	}
	return parts
}

// takeChunk takes the longest prefix of parts whose joined length is within budget (budget
// < 0: all of them). When even the first part is longer, it is cut to the budget, so each
// chunk makes progress. It returns the chunk's text and the parts left.
func takeChunk(parts []string, budget int) (string, []string) {
	if budget < 0 {
		return strings.Join(parts, "\n\n"), nil
	}
	n, size := 0, 0
	for n < len(parts) {
		add := len(parts[n])
		if n > 0 {
			add += 2
		}
		if size+add > budget {
			break
		}
		size += add
		n++
	}
	if n == 0 && len(parts) > 0 {
		return truncateForSummary(parts[0], budget-truncationNoteChars), parts[1:]
	}
	return strings.Join(parts[:n], "\n\n"), parts[n:]
}

// truncationNoteChars is room for truncateForSummary's note ("\n\n[... N more characters
// truncated]").
const truncationNoteChars = 48
