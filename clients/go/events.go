package piclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"sync"
)

// Event is one "event" notification: the envelope fields every event may carry, and the
// whole params object (envelope included) for the event's own fields.
type Event struct {
	// Type is the event's type: agent_start, message_update, agent_settled, ...
	Type string
	// Seq numbers the connection's events from 1, without gaps.
	Seq int64
	// RunID is the run ("r1", ...) for events from agent_start to agent_end inclusive.
	RunID string
	// SessionID is set on agent_start, agent_settled and session_changed.
	SessionID string
	// Params is the notification's params, as received.
	Params json.RawMessage
}

// Decode decodes the event's params into v: the protocol type of its type, such as a
// *protocol.MessageEndEvent for message_end (protocol.EventDocTypes maps every type to one),
// which holds the whole event, or any other type the JSON fits.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Params, v) }

func decodeEvent(params json.RawMessage) (Event, error) {
	var env struct {
		Type      string `json:"type"`
		Seq       int64  `json:"seq"`
		RunID     string `json:"runId"`
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(params, &env); err != nil {
		return Event{}, err
	}
	if env.Type == "" {
		return Event{}, errors.New("event without a type")
	}
	return Event{Type: env.Type, Seq: env.Seq, RunID: env.RunID, SessionID: env.SessionID, Params: params}, nil
}

// NextEvent returns the oldest event not yet taken, waiting for one if needed. After the
// connection has ended and every queued event has been taken it returns io.EOF; when ctx
// ends first, ctx.Err(). Concurrent callers each get different events.
func (c *Client) NextEvent(ctx context.Context) (Event, error) { return c.events.next(ctx) }

// Events iterates over events as [Client.NextEvent] takes them. It ends silently after the
// last event of an ended connection; when ctx ends first it yields ctx.Err() once and stops.
// Breaking out of the loop leaves the remaining events queued for the next caller.
func (c *Client) Events(ctx context.Context) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := c.events.next(ctx)
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// eventQueue is an unbounded FIFO: push never blocks, so the reader goroutine never waits for
// the consumer.
type eventQueue struct {
	mu     sync.Mutex
	items  []Event
	closed bool
	// wake is closed and replaced on every push and at close, waking every waiter.
	wake chan struct{}
}

func (q *eventQueue) init() { q.wake = make(chan struct{}) }

func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	close(q.wake)
	q.wake = make(chan struct{})
	q.mu.Unlock()
}

func (q *eventQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.wake)
		q.wake = make(chan struct{})
	}
	q.mu.Unlock()
}

func (q *eventQueue) next(ctx context.Context) (Event, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			ev := q.items[0]
			q.items[0] = Event{}
			q.items = q.items[1:]
			if len(q.items) == 0 {
				q.items = nil // let the backing array go after a burst
			}
			q.mu.Unlock()
			return ev, nil
		}
		if q.closed {
			q.mu.Unlock()
			return Event{}, io.EOF
		}
		wake := q.wake
		q.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}
