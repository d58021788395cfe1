package session

import "context"

// Pending is work a method started and that finishes later on a goroutine of the engine: a
// closing session, a wait for agent_settled, a manual compaction, a navigation with a
// branch summary, the user's bash command. Done is closed when it has finished; then Result
// returns its outcome and Seq the seq of the last event it caused, which a front end writes
// its answer after (0: the answer follows no event). A Pending replaces an ack callback or a
// two-phase "start, then run" method: the method decides synchronously, so a request that
// arrives next sees its effect, and returns this value.
type Pending[T any] struct {
	done   chan struct{}
	cancel context.CancelFunc
	val    T
	err    error
	seq    int64
}

func newPending[T any]() *Pending[T] { return &Pending[T]{done: make(chan struct{})} }

// donePending is a Pending that has already finished.
func donePending[T any](val T, seq int64, err error) *Pending[T] {
	p := newPending[T]()
	p.finish(val, seq, err)
	return p
}

// finish records the outcome and closes Done; it is called once.
func (p *Pending[T]) finish(val T, seq int64, err error) {
	p.val, p.seq, p.err = val, seq, err
	close(p.done)
}

// Done is closed when the work has finished.
func (p *Pending[T]) Done() <-chan struct{} { return p.done }

// Result waits for the work and returns its outcome.
func (p *Pending[T]) Result() (T, error) {
	<-p.done
	return p.val, p.err
}

// Wait waits for the work, or for ctx to end (the work goes on; ctx's error is returned).
func (p *Pending[T]) Wait(ctx context.Context) (T, error) {
	select {
	case <-p.done:
		return p.val, p.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Seq waits for the work and returns the seq its answer must follow.
func (p *Pending[T]) Seq() int64 {
	<-p.done
	return p.seq
}

// Cancel stops the work if it can be stopped on its own (the user's bash command); it is a
// no-op for the rest, which end with their busy period (abort).
func (p *Pending[T]) Cancel() {
	if p.cancel != nil {
		p.cancel()
	}
}
