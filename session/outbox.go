package session

import (
	"context"
	"sync"
)

// Sink receives the event stream. Emit is called in seq order, under the supervisor's lock,
// and must not block; Wait is called by the run goroutine outside the lock after each event
// and blocks while the client is behind, which is how backpressure reaches the provider.
type Sink interface {
	Emit(ev Event)
	Wait(ctx context.Context)
}

// Outbox is the [Sink] between the supervisor and the writer: an ordered queue that never
// drops. Producers never block in Emit; the run goroutine blocks in Wait while more than
// limit bytes are queued, so memory stays bounded by the limit plus what other producers
// (a handful of events per request) add.
type Outbox struct {
	mu     sync.Mutex
	items  []Event
	head   int
	bytes  int
	limit  int
	closed bool
	// ready is closed when an item arrives for a waiting reader; room when the queue drains
	// below the limit for waiting producers. Each is replaced after it is closed.
	ready chan struct{}
	room  chan struct{}
}

// NewOutbox returns an outbox that applies backpressure above limit queued bytes.
func NewOutbox(limit int) *Outbox {
	return &Outbox{limit: limit, ready: make(chan struct{}), room: make(chan struct{})}
}

// Emit implements [Sink].
func (o *Outbox) Emit(ev Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.items = append(o.items, ev)
	o.bytes += len(ev.Data)
	close(o.ready)
	o.ready = make(chan struct{})
}

// Wait implements [Sink].
func (o *Outbox) Wait(ctx context.Context) {
	for {
		o.mu.Lock()
		if o.closed || o.bytes <= o.limit {
			o.mu.Unlock()
			return
		}
		room := o.room
		o.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return
		}
	}
}

// Next removes and returns the oldest event, waiting for one until ctx ends or the outbox is
// closed and empty.
func (o *Outbox) Next(ctx context.Context) (Event, bool) {
	for {
		o.mu.Lock()
		if o.head < len(o.items) {
			ev := o.items[o.head]
			o.items[o.head] = Event{}
			o.head++
			if o.head == len(o.items) {
				o.items, o.head = o.items[:0], 0
			}
			o.bytes -= len(ev.Data)
			if o.bytes <= o.limit {
				close(o.room)
				o.room = make(chan struct{})
			}
			o.mu.Unlock()
			return ev, true
		}
		if o.closed {
			o.mu.Unlock()
			return Event{}, false
		}
		ready := o.ready
		o.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return Event{}, false
		}
	}
}

// TryNext returns the oldest event without waiting.
func (o *Outbox) TryNext() (Event, bool) {
	o.mu.Lock()
	empty := o.head >= len(o.items)
	o.mu.Unlock()
	if empty {
		return Event{}, false
	}
	return o.Next(context.Background())
}

// Len reports how many events are queued.
func (o *Outbox) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.items) - o.head
}

// Close stops accepting events and releases waiting producers; queued events can still be
// read.
func (o *Outbox) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	o.closed = true
	close(o.ready)
	close(o.room)
}
