package session

import (
	"context"
	"fmt"
	"github.com/pi-rpc/pi-rpc/sessionapi"
)

// WaitSettled waits for the agent_settled that settles inputID, or, without an id, the one
// ending the current busy period (when idle: the last one, or an empty payload if none).
func (s *Supervisor) WaitSettled(ctx context.Context, inputID string) (*sessionapi.Settled, error) {
	w, err := s.Wait(inputID)
	if err != nil {
		return nil, err
	}
	return w.Wait(ctx)
}

// Wait decides now which agent_settled a wait is for (see WaitSettled) and returns it as a
// Pending whose Seq is that agent_settled's. A front end calls it while handling the
// request, so a request that arrives after it (a prompt starting the next period) cannot
// change its answer.
func (s *Supervisor) Wait(inputID string) (*Pending[*sessionapi.Settled], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inputID == "" {
		if p := s.period; p != nil {
			return p.settling, nil
		}
		st := s.lastSettled
		if st == nil {
			st = &sessionapi.Settled{Inputs: []sessionapi.InputOutcome{}, LastSeq: s.sink.LastSeq()}
		}
		return donePending(st, st.LastSeq, nil), nil
	}
	if !s.knownInputs[inputID] {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("No input %s", inputID)}
	}
	if st := s.settledByInput[inputID]; st != nil {
		return donePending(st, st.LastSeq, nil), nil
	}
	// An input not yet settled belongs to the current period: inputs are only accepted
	// into it, and a period settles all of its inputs at once.
	return s.period.settling, nil
}

// Busy reports whether a busy period is active and the last seq, for timeouts.
func (s *Supervisor) Busy() (busy bool, lastSeq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.period != nil, s.sink.LastSeq()
}
