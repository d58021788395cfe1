package idle

import (
	"context"
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

	cancel context.CancelCauseFunc
	clock  clock.Clock
	d      time.Duration
}

// NewStream sets up a reply to model whose events go to yield, with the idle timeout d
// (d <= 0 disables it). The caller closes it when the reply has ended.
func NewStream(parent context.Context, c clock.Clock, d time.Duration, model *core.Model, yield func(core.AssistantEvent) bool) *Stream {
	s := &Stream{clock: c, d: d}
	s.Ctx, s.cancel = context.WithCancelCause(parent)
	s.B = core.NewMessageBuilder(model, c.Now().UnixMilli(), paused(&s.WD, yield))
	return s
}

// Arm starts the watchdog, just before the request is sent, and returns it.
func (s *Stream) Arm() *Watchdog {
	s.WD = NewWatchdog(s.clock, s.d, s.cancel)
	return s.WD
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
