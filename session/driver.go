package session

import (
	"errors"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
)

// opening is the first step of a busy period that does not start with a run (a pre-prompt
// compaction, a manual compaction, a branch summary). It runs on the period's goroutine and
// reports whether a run follows it (p.run is then set); otherwise the period has settled.
type opening func() bool

// startDriverLocked starts the goroutine that drives a busy period to its agent_settled: the
// only place a period's goroutine starts, one per period. Without an opening the period's
// first run is already started.
func (s *Supervisor) startDriverLocked(p *period, first opening) {
	go s.drive(p, first)
}

// drive runs a busy period to its agent_settled.
func (s *Supervisor) drive(p *period, first opening) {
	if first != nil && !first() {
		return
	}
	for {
		<-p.run.Done()
		if s.afterRun(p) == nil {
			return
		}
	}
}

// startPrompt compacts before the prompt, then starts its run. It reports false if the
// period settled instead.
func (s *Supervisor) startPrompt(p *period, in *input) bool {
	_, _ = s.runCompaction(p, compactionRun{reason: CompactionThreshold, onlyIfDue: true})
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.aborted {
		s.settleLocked(p)
		return false
	}
	run, err := s.agent.Prompt(core.Input{ID: in.id, Message: in.msg})
	if err != nil {
		p.failure = &SettleError{Kind: SettleErrorProvider, Message: err.Error()}
		s.settleLocked(p)
		return false
	}
	p.run = run
	return true
}

// afterRun carries out what was decided at the run's agent_end and returns the next run of
// the period (also set as p.run), or nil once the period has settled.
func (s *Supervisor) afterRun(p *period) *core.Run {
	s.mu.Lock()
	n := p.next
	p.next = next{}
	p.run = nil
	s.mu.Unlock()

	switch n.kind {
	case nextRetry:
		if !s.backoff(p, n) {
			return nil
		}
		return s.continueOrSettle(p, resumeRetry)
	case nextOverflowCompact:
		if _, err := s.runCompaction(p, compactionRun{reason: CompactionOverflow, willRetry: true}); err != nil {
			s.mu.Lock()
			defer s.mu.Unlock()
			if p.failure == nil && !p.aborted {
				p.failure = &SettleError{Kind: SettleErrorOverflow, Message: err.Error()}
			}
			s.settleLocked(p)
			return nil
		}
		s.dropTrailingReply()
		return s.continueOrSettle(p, resumeRetry)
	case nextThresholdCompact:
		_, _ = s.runCompaction(p, compactionRun{reason: CompactionThreshold})
	}
	return s.continueOrSettle(p, resumeQueued)
}

// dropTrailingReply removes the reply that overflowed from the context, whatever its stop
// reason, so that the retry does not send it again.
func (s *Supervisor) dropTrailingReply() {
	msgs := s.agent.Messages()
	if len(msgs) > 0 {
		if _, ok := msgs[len(msgs)-1].(*core.AssistantMessage); ok {
			s.agent.SetMessages(msgs[:len(msgs)-1])
		}
	}
}

// resume says why a period may go on after a run: to retry the failed reply, or to deliver
// inputs queued behind a completed run.
type resume int

const (
	resumeQueued resume = iota
	resumeRetry
)

// continueOrSettle starts the next run when one is due (a retry, or queued inputs after a
// completed run), making it p.run, and settles the period otherwise. The decision is taken
// under the lock that accepts inputs, so an input is either delivered by this period or
// starts the next one.
func (s *Supervisor) continueOrSettle(p *period, why resume) *core.Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.aborted || p.failure != nil || (why == resumeQueued && !p.hasQueued()) {
		s.settleLocked(p)
		return nil
	}
	run, err := s.agent.Continue(s.queuesLocked())
	if err != nil {
		if p.failure == nil {
			p.failure = &SettleError{Kind: SettleErrorProvider, Message: err.Error()}
		}
		s.settleLocked(p)
		return nil
	}
	p.run = run
	return run
}

// backoff waits before a retry, emitting auto_retry_start; an abort ends the wait at once
// with auto_retry_end "Retry cancelled" and settles the period. It reports whether to retry.
func (s *Supervisor) backoff(p *period, n next) bool {
	delay := time.Duration(n.delay) * time.Millisecond
	s.mu.Lock()
	if p.aborted {
		s.settleLocked(p)
		s.mu.Unlock()
		return false
	}
	s.ledger.retryUntil = s.clock.Now().Add(delay).UnixMilli()
	s.emitLocked(EventAutoRetryStart, AutoRetryStart{Attempt: p.retryAttempt, MaxAttempts: s.cfg.Retry.MaxRetries, DelayMs: n.delay, ErrorMessage: n.error})
	s.mu.Unlock()

	timer := s.clock.After(delay)
	select {
	case <-timer:
	case <-p.ctx.Done():
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.retryUntil = 0
	if p.aborted {
		s.emitLocked(EventAutoRetryEnd, AutoRetryEnd{Success: false, Attempt: p.retryAttempt, FinalError: "Retry cancelled"})
		s.settleLocked(p)
		return false
	}
	return true
}

// errNothingToCompact and errAlreadyCompacted are returned when a compaction finds nothing
// to do.
var (
	errNothingToCompact = errors.New("Nothing to compact (session too small)")
	errAlreadyCompacted = errors.New("Already compacted")
)

// compactionRun says which compaction runCompaction runs.
type compactionRun struct {
	reason CompactionReason
	// willRetry is compaction_end's willRetry: the period retries the reply after it.
	willRetry bool
	// instructions are the user's focus for a manual compaction.
	instructions string
	// onlyIfDue first checks that the threshold rule asks for a compaction (the pre-prompt
	// check), and does nothing otherwise.
	onlyIfDue bool
}

// runCompaction runs an automatic or manual compaction inside the period: compaction_start,
// the summary request, the compaction entry, the rebuilt context, compaction_end.
func (s *Supervisor) runCompaction(p *period, c compactionRun) (*CompactionResult, error) {
	reason := c.reason
	s.mu.Lock()
	if c.onlyIfDue && !s.needsPrePromptCompactionLocked() {
		s.mu.Unlock()
		return nil, errNothingToCompact
	}
	st := s.agent.State()
	provider := s.cfg.Agent.Provider
	s.ledger.compacting = true
	s.emitLocked(EventCompactionStart, CompactionStart{Reason: reason})
	prep, err := prepareAutoCompaction(Branch(s.store), s.cfg.Compaction, st.Model.ContextWindow, reason)
	if err != nil {
		end := CompactionEnd{Reason: reason}
		switch reason {
		case CompactionManual:
			end.ErrorMessage = "Compaction failed: " + err.Error()
		case CompactionOverflow:
			// The overflow cannot be recovered from: say why, on the event and the settle.
			end.ErrorMessage = "Context overflow recovery failed: " + err.Error()
			p.failure = &SettleError{Kind: SettleErrorOverflow, Message: end.ErrorMessage}
		}
		s.ledger.compacting = false
		s.emitLocked(EventCompactionEnd, end)
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Unlock()

	thinking := core.ThinkingOff
	if st.Model.Reasoning {
		thinking = st.ThinkingLevel
	}
	result, err := Compact(p.ctx, provider, st.Model, thinking, prep, c.instructions)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.compacting = false
	if p.aborted {
		s.emitLocked(EventCompactionEnd, CompactionEnd{Reason: reason, Aborted: true})
		return nil, errors.New("Compaction cancelled")
	}
	if err != nil {
		prefix := map[CompactionReason]string{
			CompactionOverflow:  "Context overflow recovery failed: ",
			CompactionThreshold: "Auto-compaction failed: ",
			CompactionManual:    "Compaction failed: ",
		}[reason]
		msg := prefix + err.Error()
		s.emitLocked(EventCompactionEnd, CompactionEnd{Reason: reason, ErrorMessage: msg})
		if reason == CompactionOverflow {
			p.failure = &SettleError{Kind: SettleErrorOverflow, Message: msg}
		}
		return nil, errors.New(msg)
	}
	entry := &Entry{Type: EntryCompaction, Summary: result.Summary, FirstKeptEntryID: result.FirstKeptEntryID, TokensBefore: result.TokensBefore}
	if result.Details != nil {
		entry.Details, _ = jsonMarshal(result.Details)
	}
	s.appendLocked(entry)
	s.agent.SetMessages(BuildContext(Branch(s.store)).Messages)
	s.emitLocked(EventCompactionEnd, CompactionEnd{Reason: reason, Result: result, WillRetry: c.willRetry})
	return result, nil
}

func lastIsCompaction(path []*Entry) bool {
	return len(path) > 0 && path[len(path)-1].Type == EntryCompaction
}

// settleLocked ends a period: inputs still queued after an abort or a failure are removed and
// cancelled, agent_settled is emitted with every input's outcome, waiters are woken, and the
// store is synced just after (never delaying the event).
func (s *Supervisor) settleLocked(p *period) {
	if p.settled != nil {
		return
	}
	if p.retryExhausted != "" {
		s.emitLocked(EventAutoRetryEnd, AutoRetryEnd{Success: false, Attempt: p.retryAttempt - 1, FinalError: p.retryExhausted})
		p.retryExhausted = ""
	}
	// Nothing stays queued while idle: inputs still queued when a period ends (an abort, a
	// failure, or a period without a run, such as a compaction that found nothing to continue)
	// are removed and settle cancelled.
	removed := false
	for _, in := range p.inputs {
		if in.state == stateQueued {
			in.state = stateCancelled
			removed = true
		}
	}
	if removed {
		s.emitQueueLocked()
	}
	settled := &Settled{Inputs: p.outcomes(), Aborted: p.aborted, Error: p.failure}
	if settled.Error == nil && s.persistErr != nil && !s.persistReported {
		settled.Error = &SettleError{Kind: SettleErrorPersistence, Message: s.persistErr.Error()}
	}
	s.persistReported = s.persistErr != nil
	s.ledger = ledger{permissionsPending: s.ledger.permissionsPending}
	s.period = nil
	settled.LastSeq = s.emitLocked(EventAgentSettled, settled)
	p.settled = settled
	s.lastSettled = settled
	for _, in := range settled.Inputs {
		s.settledByInput[in.InputID] = settled
	}
	p.settling.finish(settled, settled.LastSeq, nil)
	p.cancel()
	store := s.store
	go func() {
		if err := store.Sync(); err != nil {
			s.log.Warn().Err(err).Msg("session sync failed")
		}
	}()
}

// Compact starts a manual compaction as its own busy period (inputs: []) now, so an input
// that arrives next finds the session busy, and runs it on the period's goroutine. The
// Pending finishes after compaction_end and the period's agent_settled (or, when inputs were
// queued meanwhile, once the run that delivers them has started); its Seq is the last event
// by then. A compaction with nothing to do fails at once, without a busy period.
func (s *Supervisor) Compact(instructions string) (*Pending[*CompactionResult], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return nil, err
	}
	if s.period != nil {
		return nil, errBusy("Agent is busy; wait for agent_settled before compacting")
	}
	if err := s.providerLocked(); err != nil {
		return nil, err
	}
	if _, err := prepareAutoCompaction(Branch(s.store), s.cfg.Compaction, s.agent.State().Model.ContextWindow, CompactionManual); err != nil {
		// Nothing to do: answer at once, without a busy period.
		return nil, &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	p := s.newPeriodLocked()
	done := newPending[*CompactionResult]()
	s.startDriverLocked(p, func() bool {
		result, err := s.runCompaction(p, compactionRun{reason: CompactionManual, instructions: instructions})
		// Inputs queued while it ran are delivered by a continuation run of the same period.
		run := s.continueOrSettle(p, resumeQueued)
		_, seq := s.Busy()
		if err != nil {
			err = &Error{Kind: KindInvalidState, Message: err.Error()}
		}
		done.finish(result, seq, err)
		return run != nil
	})
	return done, nil
}
