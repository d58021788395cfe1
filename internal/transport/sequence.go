package transport

import "sync"

// Sequence numbers the events a connection queues on a [Writer]'s ordered lane: one
// gap-free counter, each seq taken and its event queued in one step, so that the lane
// receives events in seq order ([Writer.Event] requires it). The zero value is ready.
type Sequence struct {
	mu   sync.Mutex
	last int64
}

// Next takes the next seq and calls queue with it before another seq can be taken; queue
// encodes the event and queues it (or drops it). Next returns the seq.
func (s *Sequence) Next(queue func(seq int64)) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	queue(s.last)
	return s.last
}

// Last is the seq taken last (0 before the first).
func (s *Sequence) Last() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
