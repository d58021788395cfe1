package session

import (
	"context"
	"slices"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// onCoreEvent receives every agent event on the run goroutine: it updates the ledger and the
// inputs, persists finished messages, decides at agent_end what follows the run, and emits the
// event with its envelope. Then, outside the lock, it waits while the client is behind.
func (s *Supervisor) onCoreEvent(ctx context.Context, ev core.Event) {
	s.mu.Lock()
	p := s.period
	var after []func()
	switch ev.Type {
	case core.AgentStart:
		s.runID = s.ids.run()
	case core.MessageStart:
		switch ev.Message.(type) {
		case *core.AssistantMessage:
			s.ledger.streaming = true
		case *core.UserMessage:
			if p != nil {
				p.overflowRecovered = false
				if in := p.find(ev.InputID); in != nil && in.state == stateTaken {
					p.deliver(in)
					s.emitQueueLocked()
				}
			}
		}
	case core.MessageEnd:
		switch m := ev.Message.(type) {
		case *core.AssistantMessage:
			s.ledger.streaming = false
			if p != nil && m.StopReason != core.StopReasonError && m.StopReason != core.StopReasonAborted {
				p.overflowRecovered = false
				if p.retryAttempt > 0 {
					attempt := p.retryAttempt
					p.retryAttempt = 0
					after = append(after, func() {
						s.emitLocked(sessionapi.EventAutoRetryEnd, sessionapi.AutoRetryEnd{Success: true, Attempt: attempt})
					})
				}
			}
		}
		s.appendLocked(&Entry{Type: EntryMessage, Message: ev.Message})
	case core.ToolExecutionStart:
		s.ledger.toolsRunning = append(s.ledger.toolsRunning, ev.ToolCallID)
	case core.ToolExecutionEnd:
		if i := slices.Index(s.ledger.toolsRunning, ev.ToolCallID); i >= 0 {
			s.ledger.toolsRunning = slices.Delete(s.ledger.toolsRunning, i, i+1)
		}
		if plan, ok := planUpdate(&ev); ok {
			after = append(after, func() { s.emitLocked(sessionapi.EventPlanUpdate, plan) })
		}
	case core.AgentEnd:
		s.ledger.streaming = false
		s.ledger.toolsRunning = nil
		if p != nil {
			ev.WillRetry = s.decideLocked(p, ev.Messages)
		}
	}
	s.emitCoreLocked(&ev)
	for _, f := range after {
		f()
	}
	if ev.Type == core.AgentEnd {
		s.runID = ""
	}
	s.mu.Unlock()
	s.sink.Wait(ctx)
}

// emitCoreLocked hands a core event to the sink, which gives it its seq.
func (s *Supervisor) emitCoreLocked(ev *core.Event) {
	s.sink.Emit(&sessionapi.Event{Type: string(ev.Type), RunID: s.runID, SessionID: s.store.SessionID(), Core: ev})
}

// decideLocked decides, at a run's agent_end, what the period does next (pi's auto-retry and
// compaction policies) and reports whether the session will retry or compact-and-continue
// (agent_end.willRetry).
func (s *Supervisor) decideLocked(p *period, produced []core.Message) bool {
	p.next = next{kind: nextSettle}
	if p.aborted {
		return false
	}
	var last *core.AssistantMessage
	for i := len(produced) - 1; i >= 0 && last == nil; i-- {
		last, _ = produced[i].(*core.AssistantMessage)
	}
	if last == nil {
		return false
	}
	model := s.agent.State().Model
	window := model.ContextWindow
	sameModel := last.Provider == model.Provider && last.Model == model.ID
	switch last.StopReason {
	case core.StopReasonAborted:
		// The provider ended the reply as aborted without an abort request: the period
		// ends the way an abort ends it.
		p.aborted = true
		return false
	case core.StopReasonError:
		kind := failureKind(last, window)
		switch {
		case kind == core.ErrorOverflow && sameModel:
			if s.options.AutoCompaction && !p.overflowRecovered {
				p.overflowRecovered = true
				p.next = next{kind: nextOverflowCompact}
				return true
			}
			msg := last.ErrorMessage
			if p.overflowRecovered {
				msg = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model."
			}
			p.failure = &sessionapi.SettleError{Kind: SettleErrorOverflow, Message: msg}
		case kind == core.ErrorRetryable && s.options.AutoRetry:
			p.retryAttempt++
			if p.retryAttempt <= s.cfg.Retry.MaxRetries {
				if delay, ok := s.cfg.Retry.retryDelay(p.retryAttempt, last.Failure); ok {
					p.next = next{kind: nextRetry, delay: delay.Milliseconds(), error: last.ErrorMessage}
					s.logFailedReplyLocked(p, last)
					return true
				}
			}
			p.retryExhausted = last.ErrorMessage
			p.failure = &sessionapi.SettleError{Kind: SettleErrorProvider, Message: last.ErrorMessage}
		case kind == core.ErrorAuth:
			p.failure = &sessionapi.SettleError{Kind: SettleErrorAuth, Message: last.ErrorMessage}
		case kind == core.ErrorOverflow:
			p.failure = &sessionapi.SettleError{Kind: SettleErrorOverflow, Message: last.ErrorMessage}
		default:
			p.failure = &sessionapi.SettleError{Kind: SettleErrorProvider, Message: last.ErrorMessage}
		}
		s.logFailedReplyLocked(p, last)
		// A failed reply can still leave the context over the threshold (estimated, as in pi); the
		// period compacts before it settles as failed.
		if p.next.kind == nextSettle && s.options.AutoCompaction && s.thresholdExceededLocked(last) {
			p.next = next{kind: nextThresholdCompact}
		}
		return false
	}
	if !s.options.AutoCompaction {
		return false
	}
	if sameModel && IsContextOverflow(last, window) && !p.overflowRecovered {
		p.overflowRecovered = true
		p.next = next{kind: nextOverflowCompact}
		return true
	}
	if s.thresholdExceededLocked(last) {
		p.next = next{kind: nextThresholdCompact}
	}
	return false
}

// thresholdExceededLocked applies pi's threshold rule to the context after a reply.
func (s *Supervisor) thresholdExceededLocked(last *core.AssistantMessage) bool {
	if s.compactedSinceLocked(last) {
		return false
	}
	model := s.agent.State().Model
	if model.ContextWindow <= 0 {
		return false
	}
	tokens, ok := ThresholdTokens(s.agent.Messages(), last)
	return ok && ShouldCompact(tokens, model.ContextWindow, s.cfg.Compaction.ForWindow(model.ContextWindow))
}

// compactedSinceLocked reports whether the branch's latest compaction is newer than the
// reply, whose usage is then stale (pi skips such a reply's usage too).
func (s *Supervisor) compactedSinceLocked(last *core.AssistantMessage) bool {
	path := Branch(s.store)
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == EntryCompaction {
			return last.Timestamp <= isoMillis(path[i].Timestamp)
		}
	}
	return false
}

// needsPrePromptCompactionLocked applies the threshold rule to the last reply (aborted ones
// included) before a prompt, as pi's AgentSession.prompt does before sending.
func (s *Supervisor) needsPrePromptCompactionLocked() bool {
	if !s.options.AutoCompaction {
		return false
	}
	msgs := s.agent.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if a, ok := msgs[i].(*core.AssistantMessage); ok {
			return s.thresholdExceededLocked(a)
		}
	}
	return false
}
