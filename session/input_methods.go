package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// PromptRequest is a prompt.
type PromptRequest struct {
	Message string
	Images  []core.Content
	// WhenBusy is "", "reject", "steer" or "followUp".
	WhenBusy string
	// InputID, when set, is the id the input takes: one from [IDs.Input], used once. A front
	// end that must know the id before the input's first event (to recognise its events as
	// they are emitted) names it this way; empty means a new id.
	InputID string
}

// Prompt accepts a prompt and returns the answer. When idle it starts a busy period; when
// busy it is refused unless WhenBusy says to queue it.
//
// The events the input causes are emitted from the moment it is accepted, on the run's
// goroutine too, possibly before Prompt returns: the front end orders its answer before
// them. It holds back the events emitted during the call, then queues the answer ahead of
// them, or right after Accepted.AfterSeq, the seq of the last event before the input's
// first one (docs/architecture.md#adding-a-front-end).
func (s *Supervisor) Prompt(req PromptRequest) (sessionapi.Accepted, error) {
	req.Message = s.expand(req.Message)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.acceptableLocked(req.InputID); err != nil {
		return sessionapi.Accepted{}, err
	}
	if s.period != nil {
		switch req.WhenBusy {
		case "steer":
			return s.queueLocked(kindSteer, req.InputID, req.Message, req.Images), nil
		case "followUp":
			return s.queueLocked(kindFollowUp, req.InputID, req.Message, req.Images), nil
		case "reject":
			return sessionapi.Accepted{}, errBusy("Agent is busy")
		}
		return sessionapi.Accepted{}, errBusy(`Agent is busy. Send the message with whenBusy "steer" or "followUp" to queue it, or wait for agent_settled.`, "steer", "followUp")
	}
	if err := s.providerLocked(); err != nil {
		return sessionapi.Accepted{}, err
	}
	return s.startLocked(kindPrompt, req.InputID, req.Message, req.Images), nil
}

// acceptableLocked says why no input can be accepted now, or why the id named for it
// cannot be its id.
func (s *Supervisor) acceptableLocked(id string) error {
	if err := s.readyLocked(); err != nil {
		return err
	}
	if id != "" && s.knownInputs[id] {
		return &Error{Kind: KindInvalidState, Message: fmt.Sprintf("Input id %s is already in use", id)}
	}
	return nil
}

// QueueRequest is a steer or a follow-up.
type QueueRequest struct {
	Message string
	Images  []core.Content
	// WhenIdle is "" or "start" (start a run like a prompt), or "reject".
	WhenIdle string
}

// Steer queues a message for delivery after the current tool batch, or starts a run when
// idle. The answer is ordered as [Supervisor.Prompt]'s: its AfterSeq precedes the
// queue_update (or the agent_start) the input causes.
func (s *Supervisor) Steer(req QueueRequest) (sessionapi.Accepted, error) {
	return s.enqueue(kindSteer, req)
}

// FollowUp queues a message for delivery when the agent would stop, or starts a run when
// idle. The answer is ordered as [Supervisor.Steer]'s.
func (s *Supervisor) FollowUp(req QueueRequest) (sessionapi.Accepted, error) {
	return s.enqueue(kindFollowUp, req)
}

func (s *Supervisor) enqueue(kind inputKind, req QueueRequest) (sessionapi.Accepted, error) {
	req.Message = s.expand(req.Message)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return sessionapi.Accepted{}, err
	}
	if s.period != nil {
		return s.queueLocked(kind, "", req.Message, req.Images), nil
	}
	if req.WhenIdle == "reject" {
		return sessionapi.Accepted{}, &Error{Kind: KindInvalidState, Message: "Agent is idle: nothing to queue behind (whenIdle is \"reject\")"}
	}
	if err := s.providerLocked(); err != nil {
		return sessionapi.Accepted{}, err
	}
	return s.startLocked(kind, "", req.Message, req.Images), nil
}

// acceptedLocked is the answer to an input accepted now, before its first event.
func (s *Supervisor) acceptedLocked(in *input, d sessionapi.Disposition) sessionapi.Accepted {
	return sessionapi.Accepted{InputID: in.id, Disposition: d, AfterSeq: s.sink.LastSeq()}
}

// queueLocked adds an input to the current period's queue.
func (s *Supervisor) queueLocked(kind inputKind, id, text string, images []core.Content) sessionapi.Accepted {
	in := s.newInputLocked(kind, id, text, images)
	in.state = stateQueued
	s.period.inputs = append(s.period.inputs, in)
	a := s.acceptedLocked(in, DispositionQueued)
	s.emitQueueLocked()
	return a
}

func (s *Supervisor) queueSnapshotLocked() sessionapi.QueueUpdate {
	q := sessionapi.QueueUpdate{Steering: []sessionapi.QueuedInput{}, FollowUp: []sessionapi.QueuedInput{}}
	if s.period == nil {
		return q
	}
	for _, in := range s.period.inputs {
		if in.state != stateQueued && in.state != stateTaken {
			continue
		}
		if in.kind == kindSteer {
			q.Steering = append(q.Steering, in.queued())
		} else {
			q.FollowUp = append(q.FollowUp, in.queued())
		}
	}
	return q
}

func (s *Supervisor) emitQueueLocked() {
	s.emitLocked(sessionapi.EventQueueUpdate, s.queueSnapshotLocked())
}

// startLocked starts a busy period with an input and its run.
func (s *Supervisor) startLocked(kind inputKind, id, text string, images []core.Content) sessionapi.Accepted {
	in := s.newInputLocked(kind, id, text, images)
	in.state = stateDelivered
	p := s.newPeriodLocked()
	p.inputs = append(p.inputs, in)
	a := s.acceptedLocked(in, DispositionStarted)
	gated := s.cfg.ToolsGate != nil && s.cfg.ToolsGate.Pending()
	if gated || s.needsPrePromptCompactionLocked() {
		s.startDriverLocked(p, outcome{next: s.promptStage(p, in, gated)})
		return a
	}
	s.startDriverLocked(p, s.promptLocked(p, in))
	return a
}

func (s *Supervisor) newPeriodLocked() *period {
	s.flushBashLocked()
	ctx, cancel := context.WithCancel(context.Background())
	p := &period{ctx: ctx, cancel: cancel, settling: newPending[*sessionapi.Settled]()}
	s.period = p
	return p
}

// Continue starts a run from the current context (docs/protocol.md#continue). When the context
// ends in tool calls without results, the run first records an error result for each (see
// interruptedToolResults) and then calls the model. The answer is ordered as
// [Supervisor.Prompt]'s.
func (s *Supervisor) Continue() (sessionapi.Accepted, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(); err != nil {
		return sessionapi.Accepted{}, err
	}
	if s.period != nil {
		return sessionapi.Accepted{}, errBusy("Agent is busy; wait for agent_settled before continuing")
	}
	if err := s.providerLocked(); err != nil {
		return sessionapi.Accepted{}, err
	}
	s.flushBashLocked()
	var run *core.Run
	var err error
	if missing := interruptedToolResults(s.agent.Messages(), s.clock.Now().UnixMilli()); len(missing) > 0 {
		// Tool calls left without results (the process ended mid-tool): the run starts by
		// recording their results, so the file is whole again and the model sees them.
		ins := make([]core.Input, len(missing))
		for i, m := range missing {
			ins[i] = core.Input{Message: m}
		}
		run, err = s.agent.Prompt(ins...)
	} else {
		run, err = s.agent.Continue(s.queuesLocked())
	}
	switch {
	case errors.Is(err, core.ErrNoMessages), errors.Is(err, core.ErrNothingToResume):
		return sessionapi.Accepted{}, &Error{Kind: KindInvalidState, Message: err.Error()}
	case err != nil:
		return sessionapi.Accepted{}, &Error{Kind: KindInvalidState, Message: err.Error()}
	}
	in := s.newInputLocked(kindContinue, "", "", nil)
	in.state = stateDelivered
	p := s.newPeriodLocked()
	p.inputs = append(p.inputs, in)
	a := s.acceptedLocked(in, DispositionStarted)
	s.startDriverLocked(p, outcome{run: run})
	return a, nil
}

// Abort ends the current busy period: the run's context is cancelled, a retry backoff or
// compaction stops, and the period settles as aborted. It reports false, and does nothing,
// when idle. The events the abort causes come from the period's goroutine after it returns.
func (s *Supervisor) Abort() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.period
	if p == nil || p.aborted {
		return p != nil
	}
	s.abortLocked(p)
	return true
}

func (s *Supervisor) abortLocked(p *period) {
	p.aborted = true
	p.cancel()
	s.agent.Abort()
}

// ClearQueues removes every queued input; they settle as cancelled with the period.
func (s *Supervisor) ClearQueues() sessionapi.QueueUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := sessionapi.QueueUpdate{Steering: []sessionapi.QueuedInput{}, FollowUp: []sessionapi.QueuedInput{}}
	if s.period == nil {
		return removed
	}
	for _, in := range s.period.inputs {
		// An input the loop has already taken for delivery is no longer queued.
		if in.state != stateQueued {
			continue
		}
		in.state = stateCancelled
		if in.kind == kindSteer {
			removed.Steering = append(removed.Steering, in.queued())
		} else {
			removed.FollowUp = append(removed.FollowUp, in.queued())
		}
	}
	if len(removed.Steering)+len(removed.FollowUp) > 0 {
		s.emitQueueLocked()
	}
	return removed
}

// CancelInput removes one queued input; it settles as cancelled with the period.
func (s *Supervisor) CancelInput(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.knownInputs[id] {
		return &Error{Kind: KindNotFound, Message: fmt.Sprintf("No input %s", id)}
	}
	var in *input
	if s.period != nil {
		in = s.period.find(id)
	}
	if in == nil || in.state != stateQueued {
		// Not queued, or already taken by the loop for delivery: too late to cancel.
		return &Error{Kind: KindInvalidState, Message: fmt.Sprintf("Input %s is not queued", id)}
	}
	in.state = stateCancelled
	s.emitQueueLocked()
	return nil
}
