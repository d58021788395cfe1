package idle

import (
	"context"
	"iter"
	"time"

	"github.com/pi-rpc/pi-rpc/core"
	"github.com/pi-rpc/pi-rpc/internal/clock"
)

// Stream is the set-up every SDK-backed provider makes for one streamed reply, in the same
// order: a context of its own, the message builder the reply's events go to, and the idle
// watchdog, armed only once the request is built. The builder exists first because a request
// that fails to build reports through it (before anything is armed); its consumer runs with
// the watchdog paused, so that the time the consumer takes is not counted as the server's
// silence.
type Stream struct {
	// Ctx is the request's context: cancelled when the watchdog fires (cause ErrIdle) or
	// the stream is closed.
	Ctx context.Context
	// B builds the reply.
	B *core.MessageBuilder
	// WD is the watchdog, nil until Arm.
	WD *Watchdog
	// Model is the request's model, copied for the reply: the builder prices and stamps
	// the reply with it, and the provider's mapper reads it too.
	Model core.Model

	// parent is the caller's context: its cancellation aborts the reply.
	parent context.Context
	cancel context.CancelCauseFunc
	clock  clock.Clock
	d      time.Duration
}

// Replies is a provider's Stream: the events of a reply to req, which reply produces
// through s each time they are ranged over. Each run has a Stream of its own, set up for
// req's model under parent with the idle timeout d (d <= 0 disables it), and closed when
// reply returns.
func Replies(parent context.Context, c clock.Clock, d time.Duration, req *core.Request, reply func(s *Stream, req *core.Request)) iter.Seq[core.AssistantEvent] {
	return func(yield func(core.AssistantEvent) bool) {
		s := newStream(parent, c, d, req.Model, yield)
		defer s.Close()
		reply(s, req)
	}
}

// newStream sets up a reply to model whose events go to yield, with the idle timeout d
// (d <= 0 disables it). [Replies] closes it when the reply has ended.
func newStream(parent context.Context, c clock.Clock, d time.Duration, model core.Model, yield func(core.AssistantEvent) bool) *Stream {
	s := &Stream{Model: model, parent: parent, clock: c, d: d}
	s.Ctx, s.cancel = context.WithCancelCause(parent)
	s.B = core.NewMessageBuilder(&s.Model, c.Now().UnixMilli(), paused(&s.WD, yield))
	return s
}

// Arm starts the watchdog, just before the request is sent, and returns it.
func (s *Stream) Arm() *Watchdog {
	s.WD = NewWatchdog(s.clock, s.d, s.cancel)
	return s.WD
}

// Interrupted is the failure of a reply cut short on this side: the caller cancelled it
// (aborted), or the watchdog fired (retryable, naming the timeout). It is nil when neither
// happened, and the provider goes on to say what the server did.
func (s *Stream) Interrupted() *core.ProviderError {
	switch {
	case s.parent.Err() != nil:
		return core.Aborted()
	case s.WD.Expired():
		return &core.ProviderError{Kind: core.ErrorRetryable, Message: s.WD.Message()}
	}
	return nil
}

// Close stops the watchdog and cancels the request's context.
func (s *Stream) Close() {
	s.WD.Stop()
	s.cancel(nil)
}

// paused wraps a consumer so that the time it takes over an event is not counted as the
// server's silence: *wd pauses before and restarts after each call. wd is read at each call,
// because the message builder (and so its consumer) exists before the watchdog is armed: a
// request that fails to build reports through it with no watchdog (nil) yet.
func paused(wd **Watchdog, consume func(core.AssistantEvent) bool) func(core.AssistantEvent) bool {
	return func(ev core.AssistantEvent) bool {
		(*wd).Pause()
		ok := consume(ev)
		(*wd).Touch()
		return ok
	}
}
