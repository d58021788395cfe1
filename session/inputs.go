package session

import (
	"context"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// inputKind is what created an input.
type inputKind int

const (
	kindPrompt inputKind = iota
	kindSteer
	kindFollowUp
	kindContinue
)

// inputState is where an input is in its period.
type inputState int

const (
	// stateQueued: waiting in its queue (the period's inputs are the queues).
	stateQueued inputState = iota
	// stateTaken: handed to the agent's loop for delivery (queues.go); it can no longer be
	// cancelled, and its message_start follows on the run's goroutine. Until then it is
	// still shown as queued.
	stateTaken
	// stateDelivered: its message reached the conversation (or it started the period).
	stateDelivered
	// stateCompleted: a follow-up delivered after it proved its work finished.
	stateCompleted
	// stateCancelled: removed from its queue before delivery.
	stateCancelled
)

// input is one accepted prompt, steer, follow-up or continue.
type input struct {
	id    string
	kind  inputKind
	text  string
	msg   *core.UserMessage
	state inputState
}

func (in *input) queued() sessionapi.QueuedInput {
	return sessionapi.QueuedInput{InputID: in.id, Text: in.text}
}

// period is one busy period: from the input that found the session idle (or a manual
// compaction) to its agent_settled.
type period struct {
	inputs []*input
	// ctx is cancelled when the period is aborted (abortLocked): a retry backoff, a
	// compaction or a branch summary running for the period stops with it.
	ctx     context.Context
	cancel  context.CancelFunc
	aborted bool
	// failure is set when the period ends in failure.
	failure *sessionapi.SettleError
	// retryAttempt counts retries of the current failure (pi's _retryAttempt).
	retryAttempt int
	// overflowRecovered is set once a compact-and-retry was attempted for an overflow.
	overflowRecovered bool
	// next is what the driver does when the current run ends, decided at its agent_end.
	next next
	// retryExhausted is the final error when retries ran out, for auto_retry_end.
	retryExhausted string
	// settling finishes with the period's agent_settled payload; waits for the period return it.
	settling *Pending[*sessionapi.Settled]
}

// nextKind is a decision taken at agent_end.
type nextKind int

const (
	nextSettle nextKind = iota
	nextRetry
	nextOverflowCompact
	nextThresholdCompact
)

type next struct {
	kind  nextKind
	delay int64 // retry delay in ms
	error string
}

func (p *period) find(id string) *input {
	for _, in := range p.inputs {
		if in.id == id {
			return in
		}
	}
	return nil
}

// deliver records that an input's message reached the conversation. A delivered follow-up proves
// every input delivered before it has completed its work
// (docs/protocol.md#inputs-and-busy-periods).
func (p *period) deliver(in *input) {
	if in.kind == kindFollowUp {
		for _, other := range p.inputs {
			if other != in && other.state == stateDelivered {
				other.state = stateCompleted
			}
		}
	}
	in.state = stateDelivered
}

// outcomes settles every input of the period: completed ones stay completed, queued ones are
// cancelled, delivered ones take the period's outcome.
func (p *period) outcomes() []sessionapi.InputOutcome {
	periodOutcome := OutcomeCompleted
	switch {
	case p.aborted:
		periodOutcome = OutcomeAborted
	case p.failure != nil:
		periodOutcome = OutcomeFailed
	}
	out := make([]sessionapi.InputOutcome, 0, len(p.inputs))
	for _, in := range p.inputs {
		o := periodOutcome
		switch in.state {
		case stateCompleted:
			o = OutcomeCompleted
		case stateQueued, stateTaken, stateCancelled:
			o = OutcomeCancelled
		}
		out = append(out, sessionapi.InputOutcome{InputID: in.id, Outcome: o})
	}
	return out
}
