package session

// Pending is work a method started and that finishes later on a goroutine of the engine: a
// closing session, a wait for agent_settled, a manual compaction, a navigation with a
// summary, the user's bash command. Done is closed when it has finished; then Result returns
// its outcome and Seq the seq of the last event it caused, which a front end writes its
// answer after. A Pending replaces an ack callback or a two-phase "start, then run" method:
// the method decides synchronously (so a request that arrives next sees its effect) and
// returns this value.
type Pending[T any] struct {
	done chan struct{}
	val  T
	err  error
	seq  int64
}

func newPending[T any]() *Pending[T] { return &Pending[T]{done: make(chan struct{})} }

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

// Seq waits for the work and returns the seq its answer must follow.
func (p *Pending[T]) Seq() int64 {
	<-p.done
	return p.seq
}
