package session

import "github.com/pi-rpc/pi-rpc/core"

// The session is the only owner of the steering and follow-up queues: they are the period's
// inputs in state stateQueued, in the order they were accepted. The agent's loop pulls from
// them through core.Queues (pi's getSteeringMessages and getFollowUpMessages); an input it
// takes moves to stateTaken at once, so a cancel or clear that comes later finds it gone from
// the queue, and its message_start (on the run's goroutine) makes it delivered.

// pullQueues are the queues the loop polls on the run's goroutine, where s.mu is not held.
func (s *Supervisor) pullQueues() core.Queues {
	return core.Queues{
		Steering: func() []core.Input { return s.take(kindSteer) },
		FollowUp: func() []core.Input { return s.take(kindFollowUp) },
	}
}

// queuesLocked are the same queues for core.Agent.Continue, which polls them synchronously
// while the caller holds s.mu.
func (s *Supervisor) queuesLocked() core.Queues {
	return core.Queues{
		Steering: func() []core.Input { return s.takeLocked(kindSteer) },
		FollowUp: func() []core.Input { return s.takeLocked(kindFollowUp) },
	}
}

func (s *Supervisor) take(kind inputKind) []core.Input {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.takeLocked(kind)
}

// takeLocked takes the next delivery of a queue by its mode (pi's PendingMessageQueue.drain):
// every queued input in mode "all", else the first.
func (s *Supervisor) takeLocked(kind inputKind) []core.Input {
	p := s.period
	if p == nil {
		return nil
	}
	mode := s.options.FollowUpMode
	if kind == kindSteer {
		mode = s.options.SteeringMode
	}
	var out []core.Input
	for _, in := range p.inputs {
		if in.kind != kind || in.state != stateQueued {
			continue
		}
		in.state = stateTaken
		out = append(out, core.Input{ID: in.id, Message: in.msg})
		if mode != core.QueueAll {
			break
		}
	}
	return out
}

// hasQueued reports whether an input still waits in either queue.
func (p *period) hasQueued() bool {
	for _, in := range p.inputs {
		if in.state == stateQueued {
			return true
		}
	}
	return false
}
