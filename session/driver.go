package session

import (
	"context"
	"errors"
	"time"

	"github.com/pi-rpc/pi-rpc/internal/clock"
	"github.com/pi-rpc/pi-rpc/sessionapi"

	"github.com/pi-rpc/pi-rpc/core"
)

// stage is one step of a busy period on its goroutine: work done outside the lock (a
// compaction, a retry's backoff, a branch summary; nil for none), a decision taken under
// it, and then, after the lock is released, then (finishing the Pending the step answers;
// nil for none).
type stage struct {
	work   func()
	decide func() outcome
	then   func()
}

// outcome is what a stage decided: the run to wait for, or the next stage, or neither: the
// period settles, in the critical section that decided it, so an input accepted before the
// decision is delivered by this period (or cancelled with it) and one accepted after it
// finds the session idle.
type outcome struct {
	run  *core.Run
	next *stage
}

// settles is the outcome that ends the period.
var settles = outcome{}

// ends reports whether the period settles.
func (o outcome) ends() bool { return o.run == nil && o.next == nil }

// startDriverLocked starts the goroutine that drives a busy period to its agent_settled: the
// only place a period's goroutine starts, one per period, whose loop (drive) is the only
// place a period settles. first is the period's first run, or its first stage (a pre-prompt compaction, a
// manual compaction, a branch summary, or a settle at once).
func (s *Supervisor) startDriverLocked(p *period, first outcome) {
	go s.drive(p, first)
}

// drive runs a busy period to its agent_settled: it waits for each run and carries out
// each stage, and settles when a stage decides nothing follows.
func (s *Supervisor) drive(p *period, o outcome) {
	for {
		st := o.next
		switch {
		case o.run != nil:
			<-o.run.Done()
			st = s.afterRun(p)
		case st == nil:
			// A period whose first run could not start settles at once.
			st = &stage{decide: func() outcome { return settles }}
		}
		if st.work != nil {
			st.work()
		}
		s.mu.Lock()
		o = st.decide()
		if o.ends() {
			s.settleLocked(p)
		}
		s.mu.Unlock()
		if st.then != nil {
			st.then()
		}
		if o.ends() {
			return
		}
	}
}

// promptStage waits for the tools still being prepared when gated (ToolsGate), compacts
// before the prompt when that is due, then starts its run. An abort ends the wait.
func (s *Supervisor) promptStage(p *period, in *input, gated bool) *stage {
	return &stage{
		work: func() {
			if gated {
				s.log.Info().Str("inputId", in.id).Msg("the prompt waits for the MCP servers still starting")
				s.cfg.ToolsGate.Wait(p.ctx)
				if p.ctx.Err() != nil {
					return
				}
			}
			_, _ = s.runCompaction(p, compactionRun{reason: CompactionThreshold, onlyIfDue: true})
		},
		decide: func() outcome {
			if p.aborted {
				return settles
			}
			return s.promptLocked(p, in)
		},
	}
}

// promptLocked starts the run of the input that opened the period. The input is already
// accepted, so a failure to start (which cannot happen while the period is idle) settles the
// period as failed rather than failing the request.
func (s *Supervisor) promptLocked(p *period, in *input) outcome {
	ins := []core.Input{{ID: in.id, Message: in.msg}}
	if sys := s.systemDeclarationLocked(); sys != nil {
		ins = append([]core.Input{{Message: sys}}, ins...)
	}
	run, err := s.agent.Prompt(ins...)
	if err != nil {
		p.failure = &sessionapi.SettleError{Kind: SettleErrorProvider, Message: err.Error()}
		return settles
	}
	return outcome{run: run}
}

// afterRun is the stage that carries out what was decided at the run's agent_end.
func (s *Supervisor) afterRun(p *period) *stage {
	return &stage{decide: func() outcome {
		n := p.next
		p.next = next{}
		switch n.kind {
		case nextRetry:
			return s.backoffLocked(p, n)
		case nextOverflowCompact:
			var err error
			return outcome{next: &stage{
				work: func() { _, err = s.runCompaction(p, compactionRun{reason: CompactionOverflow, willRetry: true}) },
				decide: func() outcome {
					if err != nil {
						if p.failure == nil && !p.aborted {
							p.failure = &sessionapi.SettleError{Kind: SettleErrorOverflow, Message: err.Error()}
						}
						return settles
					}
					s.dropTrailingReply()
					return s.continueLocked(p, resumeRetry)
				},
			}}
		case nextThresholdCompact:
			return outcome{next: &stage{
				work:   func() { _, _ = s.runCompaction(p, compactionRun{reason: CompactionThreshold}) },
				decide: func() outcome { return s.continueLocked(p, resumeQueued) },
			}}
		}
		return s.continueLocked(p, resumeQueued)
	}}
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

// continueLocked starts the next run when one is due (a retry, or queued inputs after a
// completed run) and settles the period otherwise. It decides under the lock that accepts
// inputs, so an input is either delivered by this period or starts the next one.
func (s *Supervisor) continueLocked(p *period, why resume) outcome {
	if p.aborted || p.failure != nil || (why == resumeQueued && !p.hasQueued()) {
		return settles
	}
	run, err := s.agent.Continue(s.queuesLocked())
	if err != nil {
		if p.failure == nil {
			p.failure = &sessionapi.SettleError{Kind: SettleErrorProvider, Message: err.Error()}
		}
		return settles
	}
	return outcome{run: run}
}

// backoffLocked emits auto_retry_start and waits before a retry; an abort ends the wait at
// once with auto_retry_end "Retry cancelled" and settles the period.
func (s *Supervisor) backoffLocked(p *period, n next) outcome {
	if p.aborted {
		return settles
	}
	s.omitRetriedFailureLocked()
	delay := time.Duration(n.delay) * time.Millisecond
	s.ledger.retryUntil = s.clock.Now().Add(delay).UnixMilli()
	s.emitLocked(sessionapi.EventAutoRetryStart, sessionapi.AutoRetryStart{Attempt: p.retryAttempt, MaxAttempts: s.cfg.Retry.MaxRetries, DelayMs: n.delay, ErrorMessage: n.error})
	return outcome{next: &stage{
		work: func() {
			select {
			case <-clock.After(s.clock, delay):
			case <-p.ctx.Done():
			}
		},
		decide: func() outcome {
			s.ledger.retryUntil = 0
			if p.aborted {
				s.emitLocked(sessionapi.EventAutoRetryEnd, sessionapi.AutoRetryEnd{Success: false, Attempt: p.retryAttempt, FinalError: "Retry cancelled"})
				return settles
			}
			return s.continueLocked(p, resumeRetry)
		},
	}}
}

// errNothingToCompact and errAlreadyCompacted are returned when a compaction finds nothing
// to do.
var (
	errNothingToCompact = errors.New("Nothing to compact (session too small)")
	errAlreadyCompacted = errors.New("Already compacted")
)

// compactionRun says which compaction runCompaction runs.
type compactionRun struct {
	reason sessionapi.CompactionReason
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
func (s *Supervisor) runCompaction(p *period, c compactionRun) (*sessionapi.CompactionResult, error) {
	reason := c.reason
	s.mu.Lock()
	if c.onlyIfDue && !s.needsPrePromptCompactionLocked() {
		s.mu.Unlock()
		return nil, errNothingToCompact
	}
	st := s.agent.State()
	provider := s.cfg.Agent.Provider
	s.ledger.compacting = true
	s.emitLocked(sessionapi.EventCompactionStart, sessionapi.CompactionStart{Reason: reason})
	prep, err := prepareAutoCompaction(Branch(s.store), s.cfg.Compaction, st.Model.ContextWindow, reason)
	if err != nil {
		end := sessionapi.CompactionEnd{Reason: reason}
		switch reason {
		case CompactionManual:
			end.ErrorMessage = "Compaction failed: " + err.Error()
		case CompactionOverflow:
			// The overflow cannot be recovered from: say why, on the event and the settle.
			end.ErrorMessage = "Context overflow recovery failed: " + err.Error()
			p.failure = &sessionapi.SettleError{Kind: SettleErrorOverflow, Message: end.ErrorMessage}
		}
		s.ledger.compacting = false
		s.emitLocked(sessionapi.EventCompactionEnd, end)
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Unlock()

	thinking := core.ThinkingOff
	if st.Model.Reasoning {
		thinking = st.ThinkingLevel
	}
	result, err := CompactWithRetry(p.ctx, provider, st.Model, thinking, prep, c.instructions, s.summaryRetry(reason, st.Model.ContextWindow))

	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger.compacting = false
	if p.aborted {
		s.emitLocked(sessionapi.EventCompactionEnd, sessionapi.CompactionEnd{Reason: reason, Aborted: true})
		return nil, errors.New("Compaction cancelled")
	}
	if err != nil {
		prefix := map[sessionapi.CompactionReason]string{
			CompactionOverflow:  "Context overflow recovery failed: ",
			CompactionThreshold: "Auto-compaction failed: ",
			CompactionManual:    "Compaction failed: ",
		}[reason]
		msg := prefix + err.Error()
		s.emitLocked(sessionapi.EventCompactionEnd, sessionapi.CompactionEnd{Reason: reason, ErrorMessage: msg})
		if reason == CompactionOverflow {
			p.failure = &sessionapi.SettleError{Kind: SettleErrorOverflow, Message: msg}
		}
		return nil, errors.New(msg)
	}
	entry := &Entry{Type: EntryCompaction, Summary: result.Summary, FirstKeptEntryID: result.FirstKeptEntryID, TokensBefore: result.TokensBefore, Usage: result.Usage}
	if s.cfg.SystemMessages {
		entry.SystemMessage = s.currentSystemMessageLocked()
	}
	if result.Details != nil {
		entry.Details, _ = jsonMarshal(result.Details)
	}
	s.appendLocked(entry)
	after := BuildContext(Branch(s.store)).Messages
	s.agent.SetMessages(after)
	for _, m := range after {
		result.EstimatedTokensAfter += EstimateTokens(m)
	}
	s.emitLocked(sessionapi.EventCompactionEnd, sessionapi.CompactionEnd{Reason: reason, Result: result, WillRetry: c.willRetry})
	return result, nil
}

// omitRetriedFailureLocked hides the failed reply about to be retried from the model context
// of the session file, as pi 1.6.0 does: a context_edit entry omitting it (replacement null),
// announced with entry_appended. With Config.SystemMessages only (pi 1.6.0's entries); the
// agent drops the failed reply from its context on its own.
func (s *Supervisor) omitRetriedFailureLocked() {
	if !s.cfg.SystemMessages {
		return
	}
	path := Branch(s.store)
	if len(path) == 0 {
		return
	}
	last := path[len(path)-1]
	if am, ok := last.Message.(*core.AssistantMessage); !ok || last.Type != EntryMessage || am.StopReason != core.StopReasonError {
		return
	}
	edit := &Entry{Type: EntryContextEdit, TargetID: last.ID}
	s.appendLocked(edit)
	s.emitLocked(sessionapi.EventEntryAppended, edit)
}

// systemDeclarationLocked is the system message a prompt starts with when the context
// declares no prompt and tools yet (the first prompt of a session, or of a session written
// before system messages existed), with Config.SystemMessages; nil otherwise.
func (s *Supervisor) systemDeclarationLocked() *core.SystemMessage {
	if !s.cfg.SystemMessages {
		return nil
	}
	for _, m := range s.agent.Messages() {
		if _, ok := m.(*core.SystemMessage); ok {
			return nil
		}
	}
	return s.currentSystemMessageLocked()
}

// currentSystemMessageLocked declares the agent's system prompt (one section, "prompt") and
// tools from nothing.
func (s *Supervisor) currentSystemMessageLocked() *core.SystemMessage {
	st := s.agent.State()
	var sections []core.SystemSection
	if st.SystemPrompt != "" {
		sections = []core.SystemSection{{Name: "prompt", Text: st.SystemPrompt}}
	}
	specs := make([]core.ToolSpec, 0, len(st.Tools))
	for _, t := range st.Tools {
		info := t.Info()
		specs = append(specs, core.ToolSpec{Name: info.Name, Description: info.Description, Parameters: info.Parameters})
	}
	return core.NewSystemMessage(sections, specs, s.clock.Now().UnixMilli())
}

// summaryRetry retries a compaction's failed summary requests with the session's retry
// settings, announcing each retry with the summarization_retry_* events.
func (s *Supervisor) summaryRetry(reason sessionapi.CompactionReason, contextWindow int) *SummaryRetry {
	emit := func(typ string, payload any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.emitLocked(typ, payload)
	}
	return &SummaryRetry{
		Settings:      s.cfg.Retry,
		ContextWindow: contextWindow,
		Wait: func(ctx context.Context, d time.Duration) error {
			select {
			case <-clock.After(s.clock, d):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
		Scheduled: func(e sessionapi.SummarizationRetryScheduled) { emit(sessionapi.EventSummarizationRetryScheduled, e) },
		AttemptStart: func() {
			emit(sessionapi.EventSummarizationRetryAttemptStart, sessionapi.SummarizationRetryAttemptStart{Source: "compaction", Reason: reason})
		},
		Finished: func() { emit(sessionapi.EventSummarizationRetryFinished, sessionapi.SummarizationRetryFinished{}) },
	}
}

func lastIsCompaction(path []*Entry) bool {
	return len(path) > 0 && path[len(path)-1].Type == EntryCompaction
}

// settleLocked ends a period: inputs still queued after an abort or a failure are removed and
// cancelled, agent_settled is emitted with every input's outcome, waiters are woken, and the
// store is synced just after (never delaying the event).
//
// Only the period's driver calls it (drive), once.
func (s *Supervisor) settleLocked(p *period) {
	if p.retryExhausted != "" {
		s.emitLocked(sessionapi.EventAutoRetryEnd, sessionapi.AutoRetryEnd{Success: false, Attempt: p.retryAttempt - 1, FinalError: p.retryExhausted})
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
	settled := &sessionapi.Settled{Inputs: p.outcomes(), Aborted: p.aborted, Error: p.failure}
	if settled.Error == nil && s.persistErr != nil && !s.persistReported {
		settled.Error = &sessionapi.SettleError{Kind: SettleErrorPersistence, Message: s.persistErr.Error()}
	}
	s.persistReported = s.persistErr != nil
	s.ledger = ledger{permissionsPending: s.ledger.permissionsPending}
	s.period = nil
	settled.LastSeq = s.emitLocked(sessionapi.EventAgentSettled, settled)
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
func (s *Supervisor) Compact(instructions string) (*Pending[*sessionapi.CompactionResult], error) {
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
		// Nothing to do: answer at once, without a busy period, after the compaction's
		// start and its failed end (as pi 1.6.0 announces a refused compaction).
		s.emitLocked(sessionapi.EventCompactionStart, sessionapi.CompactionStart{Reason: CompactionManual})
		s.emitLocked(sessionapi.EventCompactionEnd, sessionapi.CompactionEnd{Reason: CompactionManual, ErrorMessage: "Compaction failed: " + err.Error()})
		return nil, &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	p := s.newPeriodLocked()
	done := newPending[*sessionapi.CompactionResult]()
	var result *sessionapi.CompactionResult
	var err error
	s.startDriverLocked(p, outcome{next: &stage{
		work: func() {
			result, err = s.runCompaction(p, compactionRun{reason: CompactionManual, instructions: instructions})
			if err != nil {
				err = &Error{Kind: KindInvalidState, Message: err.Error()}
			}
		},
		// Inputs queued while it ran are delivered by a continuation run of the same period.
		decide: func() outcome { return s.continueLocked(p, resumeQueued) },
		then: func() {
			_, seq := s.Busy()
			done.finish(result, seq, err)
		},
	}})
	return done, nil
}
