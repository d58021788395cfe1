package session

import (
	"context"
	"fmt"
)

// WaitSettled waits for the agent_settled that settles inputID, or, without an id, the one
// ending the current busy period (when idle: the last one, or an empty payload if none).
func (s *Supervisor) WaitSettled(ctx context.Context, inputID string) (*Settled, error) {
	wait, err := s.PrepareWait(inputID)
	if err != nil {
		return nil, err
	}
	return wait(ctx)
}

// PrepareWait decides now which agent_settled a wait is for, and returns the wait. The RPC
// layer calls it while handling waitSettled, so a request that arrives after it (a prompt
// starting the next period) cannot change its answer.
func (s *Supervisor) PrepareWait(inputID string) (func(context.Context) (*Settled, error), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inputID == "" {
		p := s.period
		if p == nil {
			st := s.lastSettled
			if st == nil {
				st = &Settled{Inputs: []InputOutcome{}, LastSeq: s.sink.LastSeq()}
			}
			return func(context.Context) (*Settled, error) { return st, nil }, nil
		}
		return func(ctx context.Context) (*Settled, error) {
			return s.waitFor(ctx, func() *Settled { return p.settled })
		}, nil
	}
	if !s.knownInputs[inputID] {
		return nil, &Error{Kind: KindNotFound, Message: fmt.Sprintf("No input %s", inputID)}
	}
	return func(ctx context.Context) (*Settled, error) {
		return s.waitFor(ctx, func() *Settled { return s.settledByInput[inputID] })
	}, nil
}

// waitFor waits until settled (read under the lock) returns a payload.
func (s *Supervisor) waitFor(ctx context.Context, settled func() *Settled) (*Settled, error) {
	s.mu.Lock()
	for {
		if st := settled(); st != nil {
			s.mu.Unlock()
			return st, nil
		}
		ch := s.settleCh
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
	}
}

// Busy reports whether a busy period is active and the last seq, for timeouts.
func (s *Supervisor) Busy() (busy bool, lastSeq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.period != nil, s.sink.LastSeq()
}
