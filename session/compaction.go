package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// CompactionSettings is the compaction policy, pi's compaction settings
// (docs/sessions.md#the-format).
type CompactionSettings struct {
	// Enabled turns automatic compaction on.
	Enabled bool
	// ReserveTokens is the room kept free in the context window: compaction starts when the
	// context grows past window - reserve, and the summary may use 80% of it.
	ReserveTokens int
	// KeepRecentTokens is roughly how much of the latest conversation stays verbatim.
	KeepRecentTokens int
}

// DefaultCompactionSettings returns pi's defaults: enabled, 16384 reserved, 20000 kept.
func DefaultCompactionSettings() CompactionSettings {
	return CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
}

// CompactionPreparation is what a compaction will summarise and keep (pi's
// CompactionPreparation), computed from a branch without calling a model.
type CompactionPreparation struct {
	// FirstKeptEntryID is the id of the first entry kept verbatim.
	FirstKeptEntryID string
	// MessagesToSummarize are the messages before the cut (before the split turn's start when
	// the cut splits a turn), since the previous compaction's kept part.
	MessagesToSummarize []core.Message
	// TurnPrefixMessages are the beginning of a split turn, up to the cut.
	TurnPrefixMessages []core.Message
	// IsSplitTurn says the cut falls inside a turn.
	IsSplitTurn bool
	// TokensBefore estimates the context before compaction.
	TokensBefore int
	// PreviousSummary is the previous compaction's summary on the branch, which the new summary
	// updates; "" for a first compaction.
	PreviousSummary string
	// FileOps are the files touched by what is summarised, including the previous
	// compaction's lists.
	FileOps *FileOperations
	// Settings are the settings the preparation was made with.
	Settings CompactionSettings
}

// prepareCompaction works out what compacting a branch (root to leaf) would summarise (pi's
// prepareCompaction), with the cut chosen among path[:end] (the kept part still runs to the
// end of path). The part considered starts where the previous compaction's kept part starts,
// so earlier history is represented only by the previous summary. It reports false when there
// is nothing to compact: the branch is empty or already ends in a compaction, or nothing lies
// before the cut.
func prepareCompaction(path []*Entry, end int, s CompactionSettings) (*CompactionPreparation, bool) {
	if len(path) == 0 || path[len(path)-1].Type == EntryCompaction {
		return nil, false
	}
	prev := lastCompactionIndex(path)
	start := boundaryStart(path, prev)
	if start >= end {
		return nil, false
	}
	cut := FindCutPoint(path, start, end, s.KeepRecentTokens)
	if cut.FirstKeptIndex >= len(path) || path[cut.FirstKeptIndex].ID == "" {
		return nil, false
	}
	historyEnd := cut.FirstKeptIndex
	if cut.IsSplitTurn {
		historyEnd = cut.TurnStartIndex
	}
	prep := &CompactionPreparation{
		FirstKeptEntryID:    path[cut.FirstKeptIndex].ID,
		MessagesToSummarize: compactionMessages(path[start:historyEnd]),
		IsSplitTurn:         cut.IsSplitTurn,
		TokensBefore:        EstimateContextTokens(BuildContext(path).Messages).Tokens,
		FileOps:             newFileOperations(),
		Settings:            s,
	}
	if cut.IsSplitTurn {
		prep.TurnPrefixMessages = compactionMessages(path[cut.TurnStartIndex:cut.FirstKeptIndex])
	}
	if len(prep.MessagesToSummarize) == 0 && len(prep.TurnPrefixMessages) == 0 {
		return nil, false
	}
	if prev >= 0 {
		prep.PreviousSummary = path[prev].Summary
		if d := path[prev].CompactionFileDetails(); d != nil && !path[prev].FromHook {
			prep.FileOps.addDetails(d)
		}
	}
	for _, m := range prep.MessagesToSummarize {
		prep.FileOps.addMessage(m)
	}
	for _, m := range prep.TurnPrefixMessages {
		prep.FileOps.addMessage(m)
	}
	return prep, true
}

func lastCompactionIndex(path []*Entry) int {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == EntryCompaction {
			return i
		}
	}
	return -1
}

// boundaryStart is where the part to compact starts: the previous compaction's first kept
// entry, or the entry after the compaction if that id is not on the branch.
func boundaryStart(path []*Entry, prev int) int {
	if prev < 0 {
		return 0
	}
	for i, e := range path {
		if e.ID == path[prev].FirstKeptEntryID {
			return i
		}
	}
	return prev + 1
}

// compactionMessages turns entries into the messages they contribute to context. Compaction
// entries are skipped (their summary is the previous summary), and a branch summary counts
// even when empty, as in pi.
func compactionMessages(entries []*Entry) []core.Message {
	var ms []core.Message
	for _, e := range entries {
		if e.Type == EntryBranchSummary {
			ms = append(ms, &core.BranchSummaryMessage{Summary: e.Summary, FromID: e.FromID, Timestamp: isoMillis(e.Timestamp)})
			continue
		}
		ms = appendEntryMessage(ms, e)
	}
	return ms
}

// Compact summarises a prepared compaction with the session's model (pi's compact): one
// request for the history (updating the previous summary if there is one), and for a split
// turn a second one for the turn's beginning, made after the first (pi makes both at once; the
// order does not change the result). The file lists are appended to the summary and returned
// as details. customInstructions, from a manual compaction, steer the history summary.
//
// A failed request returns "Summarization failed: <error>" ("Turn prefix summarization
// failed: …" for the second); a cancelled one returns an error that wraps ctx's error, so
// errors.Is(err, context.Canceled) detects an abort.
func Compact(ctx context.Context, p core.Provider, model core.Model, thinking core.ThinkingLevel, prep *CompactionPreparation, customInstructions string) (*sessionapi.CompactionResult, error) {
	return compactWith(ctx, &summarizer{provider: p, model: model, thinking: summaryThinking(model, thinking), reserve: prep.Settings.ReserveTokens}, prep, customInstructions)
}

// SummaryRetry retries failed summary requests (pi 1.6.0's summarization retry): a
// retryable failure is retried after Settings' backoff, up to Settings.MaxRetries times,
// and announced through the callbacks (each may be nil).
type SummaryRetry struct {
	Settings RetrySettings
	// ContextWindow is the model's, to classify an overflow as not retryable.
	ContextWindow int
	// Wait sleeps for d or until ctx ends.
	Wait         func(ctx context.Context, d time.Duration) error
	Scheduled    func(sessionapi.SummarizationRetryScheduled)
	AttemptStart func()
	Finished     func()
}

// CompactWithRetry is [Compact] with retries of failed summary requests.
func CompactWithRetry(ctx context.Context, p core.Provider, model core.Model, thinking core.ThinkingLevel, prep *CompactionPreparation, customInstructions string, retry *SummaryRetry) (*sessionapi.CompactionResult, error) {
	return compactWith(ctx, &summarizer{provider: p, model: model, thinking: summaryThinking(model, thinking), reserve: prep.Settings.ReserveTokens, retry: retry}, prep, customInstructions)
}

func compactWith(ctx context.Context, s *summarizer, prep *CompactionPreparation, customInstructions string) (*sessionapi.CompactionResult, error) {
	if prep.FirstKeptEntryID == "" {
		return nil, errors.New("First kept entry has no UUID - session may need migration")
	}
	summary, err := s.history(ctx, prep, customInstructions)
	if err != nil {
		return nil, err
	}
	if prep.IsSplitTurn && len(prep.TurnPrefixMessages) > 0 {
		prefix, err := s.turnPrefix(ctx, prep.TurnPrefixMessages)
		if err != nil {
			return nil, err
		}
		summary += turnContextSeparator + prefix
	}
	readFiles, modifiedFiles := prep.FileOps.Lists()
	return &sessionapi.CompactionResult{
		Summary:          summary + formatFileOperations(readFiles, modifiedFiles),
		FirstKeptEntryID: prep.FirstKeptEntryID,
		TokensBefore:     prep.TokensBefore,
		Usage:            s.usage,
		Details:          &sessionapi.CompactionDetails{ReadFiles: readFiles, ModifiedFiles: modifiedFiles},
	}, nil
}

// summaryThinking is the reasoning a summary request asks for: the session's level on a
// reasoning model, none otherwise.
func summaryThinking(model core.Model, level core.ThinkingLevel) core.ThinkingLevel {
	if !model.Reasoning || level == "" {
		return core.ThinkingOff
	}
	return level
}

// summarizer makes the summary requests of one compaction.
type summarizer struct {
	provider core.Provider
	model    core.Model
	thinking core.ThinkingLevel
	reserve  int
	retry    *SummaryRetry
	// usage adds up the usage of every summary response.
	usage *core.Usage
}

// history summarises the messages before the cut. With a split turn and nothing before it,
// there is no request and the history is "No prior history.".
//
// A conversation too long for one request in the model's window is summarised in pieces of
// whole messages (a message longer than a piece is cut short): the first piece as a first
// summary (or an update of the previous one), each further piece as an update of the summary
// so far. A conversation that fits is one request, as in pi.
func (s *summarizer) history(ctx context.Context, prep *CompactionPreparation, customInstructions string) (string, error) {
	if prep.IsSplitTurn && len(prep.TurnPrefixMessages) > 0 && len(prep.MessagesToSummarize) == 0 {
		return noPriorHistory, nil
	}
	maxTokens := summaryBudget(s.reserve)
	parts := serializedParts(prep.MessagesToSummarize)
	summary := prep.PreviousSummary
	for first := true; first || len(parts) > 0; first = false {
		budget := conversationBudget(s.model.ContextWindow, maxTokens, summarizationSystemPrompt, historyPrompt("", summary, customInstructions))
		if budget >= 0 && budget < minChunkChars {
			return "", s.tooSmall("Summarization failed")
		}
		var chunk string
		chunk, parts = takeChunk(parts, budget)
		var err error
		summary, err = s.complete(ctx, s.request(historyPrompt(chunk, summary, customInstructions), maxTokens), "Summarization failed")
		if err != nil {
			return "", err
		}
	}
	return summary, nil
}

// turnPrefix summarises the beginning of a split turn, with half the reserve. A prefix too
// long for one request is summarised in pieces whose summaries are joined by blank lines.
func (s *summarizer) turnPrefix(ctx context.Context, ms []core.Message) (string, error) {
	maxTokens := s.reserve / 2
	parts := serializedParts(ms)
	var summaries []string
	for first := true; first || len(parts) > 0; first = false {
		budget := conversationBudget(s.model.ContextWindow, maxTokens, summarizationSystemPrompt, turnPrefixPrompt(""))
		if budget >= 0 && budget < minChunkChars {
			return "", s.tooSmall("Turn prefix summarization failed")
		}
		var chunk string
		chunk, parts = takeChunk(parts, budget)
		summary, err := s.complete(ctx, s.request(turnPrefixPrompt(chunk), maxTokens), "Turn prefix summarization failed")
		if err != nil {
			return "", err
		}
		summaries = append(summaries, summary)
	}
	return strings.Join(summaries, "\n\n"), nil
}

func (s *summarizer) tooSmall(failure string) error {
	return fmt.Errorf("%s: the model's context window (%d tokens) is too small for a summary request", failure, s.model.ContextWindow)
}

// historyPrompt is the user message of a history summary request: the serialized
// conversation, the previous summary when updating one, then the instructions.
func historyPrompt(conversation, previousSummary, customInstructions string) string {
	instructions := summarizationPrompt
	if previousSummary != "" {
		instructions = updateSummarizationPrompt
	}
	if customInstructions != "" {
		instructions += additionalFocusPrefix + customInstructions
	}
	var b strings.Builder
	b.WriteString(conversationBlock(conversation))
	if previousSummary != "" {
		b.WriteString("<previous-summary>\n" + previousSummary + "\n</previous-summary>\n\n")
	}
	b.WriteString(instructions)
	return b.String()
}

func turnPrefixPrompt(conversation string) string {
	return conversationBlock(conversation) + turnPrefixSummarizationPrompt
}

func conversationBlock(conversation string) string {
	return "<conversation>\n" + conversation + "\n</conversation>\n\n"
}

// request is a summary request: the summarisation system prompt, one user message, no tools.
func (s *summarizer) request(prompt string, maxTokens int) *core.Request {
	return &core.Request{
		Model:         s.model,
		SystemPrompt:  summarizationSystemPrompt,
		Messages:      []core.Message{core.NewUserMessage(prompt, nil, time.Now().UnixMilli())},
		ThinkingLevel: s.thinking,
		MaxTokens:     maxTokens,
	}
}

// complete runs one request to its end and returns the response's text blocks joined by
// newlines. failure prefixes the error text of a failed response.
func (s *summarizer) complete(ctx context.Context, req *core.Request, failure string) (string, error) {
	for attempt := 1; ; attempt++ {
		text, final, err := s.attempt(ctx, req, failure)
		r := s.retry
		if err == nil || final == nil || final.StopReason != core.StopReasonError || r == nil || !r.Settings.Enabled ||
			attempt > r.Settings.MaxRetries || failureKind(final, r.ContextWindow) != core.ErrorRetryable {
			if attempt > 1 && r != nil && r.Finished != nil {
				r.Finished()
			}
			return text, err
		}
		delay, ok := r.Settings.retryDelay(attempt, final.Failure)
		if !ok {
			return text, err
		}
		if r.Scheduled != nil {
			r.Scheduled(sessionapi.SummarizationRetryScheduled{Attempt: attempt, MaxAttempts: r.Settings.MaxRetries,
				DelayMs: delay.Milliseconds(), ErrorMessage: cmp.Or(final.ErrorMessage, "Unknown error")})
		}
		if werr := r.Wait(ctx, delay); werr != nil {
			if r.Finished != nil {
				r.Finished()
			}
			return "", fmt.Errorf("summarization aborted: %w", werr)
		}
		if r.AttemptStart != nil {
			r.AttemptStart()
		}
	}
}

// attempt runs one summary request to its end.
func (s *summarizer) attempt(ctx context.Context, req *core.Request, failure string) (string, *core.AssistantMessage, error) {
	text, final, err := s.attemptOnce(ctx, req, failure)
	if final != nil && final.StopReason != core.StopReasonError && final.StopReason != core.StopReasonAborted {
		if s.usage == nil {
			s.usage = &core.Usage{}
		}
		s.usage.Add(final.Usage)
	}
	return text, final, err
}

func (s *summarizer) attemptOnce(ctx context.Context, req *core.Request, failure string) (string, *core.AssistantMessage, error) {
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("summarization aborted: %w", err)
	}
	var final *core.AssistantMessage
	for ev := range s.provider.Stream(ctx, req) {
		if ev.Type == core.EventDone || ev.Type == core.EventError {
			final = ev.Partial
			break
		}
	}
	text, err := finalText(ctx, final, failure)
	return text, final, err
}

// finalText is a summary response's text, or why there is none.
func finalText(ctx context.Context, final *core.AssistantMessage, failure string) (string, error) {
	switch {
	case final == nil:
		return "", fmt.Errorf("%s: the model's response ended without a result", failure)
	case final.StopReason == core.StopReasonAborted || ctx.Err() != nil:
		return "", fmt.Errorf("summarization aborted: %w", cmp.Or(ctx.Err(), context.Canceled))
	case final.StopReason == core.StopReasonError:
		return "", fmt.Errorf("%s: %s", failure, cmp.Or(final.ErrorMessage, "Unknown error"))
	}
	return joinedText(final.Content), nil
}

// joinedText joins the text blocks of content with newlines, as pi reads a summary.
func joinedText(content []core.Content) string {
	var texts []string
	for i := range content {
		if content[i].Type == core.ContentText {
			texts = append(texts, content[i].Text)
		}
	}
	return strings.Join(texts, "\n")
}
